"""One resolver for every form of reference, used by every verb on every surface.

A reference names a span of paragraphs of one book (:class:`Span`). Understood, in this order:

- a coordinate ``cst/vin02m3.mul/75`` (sub-paragraphs ``75.3`` and sentences ``75.s2`` included);
- a paragraph range ``cst/vin02m3.mul/75-110`` or ``cst/e0101n.mul/50.9-90.6``;
- an outline id ``cst/e0101n.mul/ch4`` (a chapter, ``ch4.2`` a section);
- a named text: a sutta reference (``MN 10``, ``SN 56.11``, ``Dhp 183``, ``Snp 1.8``), a SuttaCentral uid
  (``mn10``, ``pli-tv-kd12``), a verse-collection story by chapter (``Vv 1.1``: the first story of the first
  chapter), whatever corpus holds the text;
- a commentary's citation (``mahāva. 86``, ``cūḷava. 75``, ``ma. ni. 1.22``, ``dī. ni. aṭṭha. 2.95``: the table
  of :mod:`gantha.text.citations`) and the CST-numbered forms of books without sutta numbers
  (``Dhs 1``, ``Vism 12``: :data:`gantha.text.refs.CST_NUMBERED`);
- an edition page (``PTS Vin I 70``, ``P2.0031``): the paragraphs on that page.

A reference not understood, or naming nothing in the index, raises :class:`ReferenceNotFound`, whose
message says what was understood and offers up to :data:`SUGGESTIONS` references that do resolve.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from gantha.model import Coordinate, CoordinateError, Passage, TextRecord, full_range
from gantha.search.errors import SearchError
from gantha.store.base import Clause, Store, StoreQuery
from gantha.text import citations as cited
from gantha.text.pali import fold
from gantha.text.refs import (
    CST_NUMBERED,
    TEXT_PREFIXES,
    PageRefError,
    covering_uid,
    parse_page_ref,
    parse_text_ref,
)
from gantha.text.sentences import SENTENCE_SUFFIX

SUGGESTIONS = 3
NODE = re.compile(r"^(?P<book>[^/]+/.+)/ch\d+(?:\.\d+)*$")  # cst/vin02m3.mul/ch3.2
RANGE = re.compile(r"^(?P<book>[^/]+/.+)/(?P<first>\d[\d.~-]*?)-(?P<last>\d[\d.~]*)$")  # …/75-110, …/50.9-90.6
PAGE_PARAGRAPHS = 200  # paragraphs one page may touch, at most (a page holds a few dozen)
_EDITION = re.compile(r"^(pts|vri|mm|myanmar|cst|thai|other)\b", re.IGNORECASE)
_CHAPTERED = ("vv", "pv")  # collections cited by chapter and story (Vv 1.1) as well as by story (Vv 1)
_VERSE_CITED = re.compile(r"^PTS\s+(Dhp\s+\d+)(?:\s*[–-]\s*\d+)?$", re.IGNORECASE)  # by verse (cite_pages)


class ReferenceNotFound(SearchError):
    """A reference not understood, or naming nothing in the index: what was understood and suggestions."""

    def __init__(self, reference: str, understood: str, suggestions: list[str] = ()) -> None:
        self.reference, self.understood, self.suggestions = reference, understood, list(suggestions)[:SUGGESTIONS]
        hint = f"; did you mean {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__("not_found", f"{reference!r}: {understood}{hint}")


@dataclass(frozen=True, slots=True)
class Span:
    """The paragraphs (in one book's reading order) a reference names, and what kind of reference it was."""

    reference: str  # as written
    kind: str  # coordinate | range | node | text | citation | page
    corpus: str
    book: str
    first: str  # paragraph ids
    last: str
    first_seq: int
    last_seq: int
    channel: str = "pali"  # the channel its paragraphs were found in
    label: str = ""  # MN 10, mahāva. 86, PTS Vin I 70, the outline node's title
    record: TextRecord | None = None  # the named text, where it names one

    @property
    def coordinate(self) -> str:
        """The first paragraph's coordinate (a sentence coordinate as written)."""
        if self.kind == "coordinate":
            return self.reference_coordinate
        return f"{self.corpus}/{self.book}/{self.first}"

    @property
    def reference_coordinate(self) -> str:
        return str(Coordinate.parse(self.reference)) if "/" in self.reference else self.first

    @property
    def single(self) -> bool:
        return self.first_seq == self.last_seq

    def as_record(self) -> TextRecord:
        """The span as a named text (verbs that read a sutta read any span alike)."""
        if self.record is not None:
            return self.record
        return TextRecord(
            uid=self.reference,
            label=self.label or self.reference,
            corpus=self.corpus,
            book=self.book,
            first_para=self.first,
            last_para=self.last,
            first_seq=self.first_seq,
            last_seq=self.last_seq,
        )


Locate = Callable[[str], tuple[str, str, object]]  # an outline id → (corpus, book, node with .passages, .title)
Titled = Callable[[str], list[str]]  # words → the references of the texts they name by title


class Resolver:
    """References resolved against one store (``locate``: the outline's node finder, for outline ids)."""

    def __init__(self, store: Store, locate: Locate | None = None, titles: Titled | None = None) -> None:
        self.store, self.locate, self.titles = store, locate, titles
        self.numbering = lru_cache(maxsize=64)(self._numbering_uncached)

    # --- the entry point ------------------------------------------------------------------------

    def span(self, reference: str) -> Span:
        """The span a reference names; raise :class:`ReferenceNotFound` (or SearchError) otherwise."""
        written = " ".join(reference.split())
        if not written:
            raise ReferenceNotFound(reference, "an empty reference")
        if "/" in written:
            return self._path(written)
        missing: ReferenceNotFound | None = None
        if (verse := _VERSE_CITED.match(written)) and parse_text_ref(verse.group(1)):
            written = verse.group(1)  # "PTS Dhp 183", as a citation prints it: the verse
        for attempt in (self._text, self._citation, self._page):
            try:
                if (found := attempt(written)) is not None:
                    return found
            except ReferenceNotFound as exc:
                missing = missing or exc  # the first form understood that names nothing: the others first
        raise missing or self._not_understood(written)

    # --- coordinates, ranges, outline ids -------------------------------------------------------

    def _path(self, written: str) -> Span:
        if NODE.match(written) and self.locate is not None:
            corpus, book, node = self.locate(written)
            slots = node.passages  # type: ignore[attr-defined]
            if not slots:
                raise ReferenceNotFound(written, "an outline node without paragraphs")
            first, last = slots[0], slots[-1]
            return Span(
                written,
                "node",
                corpus,
                book,
                first.coordinate.rsplit("/", 1)[1],
                last.coordinate.rsplit("/", 1)[1],
                first.seq,
                last.seq,
                label=node.title,  # type: ignore[attr-defined]
            )
        c = self._coordinate(written)
        sentence = SENTENCE_SUFFIX.match(c.para)
        para = sentence.group("para") if sentence else c.para
        if (p := self._passage(c.corpus, c.book, para)) is not None:
            return Span(written, "coordinate", c.corpus, c.book, p.para, p.para, p.seq, p.seq, p.channel)
        if m := RANGE.match(str(c)):
            return self._range(written, c.corpus, c.book, m.group("first"), m.group("last"))
        raise self._no_paragraph(written, c.corpus, c.book, para)

    def _coordinate(self, written: str) -> Coordinate:
        """A coordinate's corpus, book and paragraph; where the paragraph holds slashes (a document's heading
        path, ``md/handbook.md/staff/travel#1``) or the book does (``md/notes/a.md/3``), the book is the one
        the index holds."""
        try:
            c = Coordinate.parse(written)
        except CoordinateError as exc:
            raise ReferenceNotFound(written, str(exc)) from exc
        known = self.store.from_records("resolver:books", lambda rs: {(r.info.corpus, r.info.book) for r in rs})
        if (c.corpus, c.book) in known:
            return c
        parts = written.strip("/").split("/")
        for k in range(2, len(parts) - 1):
            if (parts[0], book := "/".join(parts[1:k])) in known:
                return Coordinate(parts[0], book, full_range("/".join(parts[k:])))
        return c

    def _range(self, written: str, corpus: str, book: str, first: str, last: str) -> Span:
        start, end = self._passage(corpus, book, first), self._passage(corpus, book, last)
        if start is None or end is None:
            raise self._no_paragraph(written, corpus, book, first if start is None else last)
        if end.seq < start.seq:
            raise ReferenceNotFound(written, f"a range that runs backwards ({first} comes after {last})")
        last_seq = end.seq
        if "." not in end.para:  # a numbered paragraph: with the unnumbered ones that follow it
            following = self.store.book_passages(corpus, book, end.channel, (end.seq + 1, end.seq + 500))
            for p in following:
                if not p.para.startswith(f"{end.para}."):
                    break
                last_seq = p.seq
        last_para = end.para if last_seq == end.seq else self._para_at(corpus, book, end.channel, last_seq)
        return Span(written, "range", corpus, book, start.para, last_para, start.seq, last_seq, start.channel)

    def _passage(self, corpus: str, book: str, para: str) -> Passage | None:
        """The passage at a coordinate in the Pali, else in the first channel of its book that holds it."""
        c = f"{corpus}/{book}/{para}"
        if p := self.store.get([c], "pali").get(c):
            return p
        for record in self.store.channels(corpus, book):
            if record.channel.name != "pali" and (p := self.store.get([c], record.channel.name).get(c)):
                return p
        return None

    def _para_at(self, corpus: str, book: str, channel: str, seq: int) -> str:
        found = self.store.book_passages(corpus, book, channel, (seq, seq))
        return found[0].para if found else str(seq)

    def _no_paragraph(self, written: str, corpus: str, book: str, para: str) -> ReferenceNotFound:
        records = self.store.channels(corpus, book)
        if not records:
            books = [k for k in self.store.books(corpus, channel=None) if k.startswith(f"{corpus}/")]
            close = difflib.get_close_matches(f"{corpus}/{book}", books, n=SUGGESTIONS, cutoff=0.6)
            return ReferenceNotFound(written, f"no book {corpus}/{book} in the index", [f"{b}/1" for b in close])
        head = para.split(".")[0].split("~")[0].split("-")[0]
        suggestions = []
        if head != para and self._passage(corpus, book, head):
            suggestions.append(f"{corpus}/{book}/{head}")
        if head.isdecimal():
            numbered = self.numbering(corpus, book)
            nearest = sorted(numbered, key=lambda n: abs(cited.para_bounds(n)[0] - int(head)))[:SUGGESTIONS]
            suggestions += [f"{corpus}/{book}/{n}" for n in nearest if f"{corpus}/{book}/{n}" not in suggestions]
        return ReferenceNotFound(
            written, f"a coordinate in {corpus}/{book}, which has no paragraph {para}", suggestions
        )

    def _numbering_uncached(self, corpus: str, book: str) -> tuple[str, ...]:
        """A book's numbered paragraph ids, in reading order (as the citations count them)."""
        records = self.store.channels(corpus, book)
        channel = (
            "pali"
            if any(r.channel.name == "pali" for r in records)
            else (records[0].channel.name if records else "pali")
        )
        return tuple(
            p.para
            for p in self.store.book_passages(corpus, book, channel)
            if re.match(r"^\d+(?:-\d+)?(?:~\d+)?$", p.para)
        )

    # --- named texts ----------------------------------------------------------------------------

    def _text(self, written: str) -> Span | None:
        """A sutta reference or a SuttaCentral uid; None when the form is none of these."""
        uid = written.lower() if self.store.text(written.lower()) else parse_text_ref(written)
        if uid is None:
            return None
        record = self.store.text(uid) or self._covering(uid) or self._chaptered(uid)
        if record is None:
            raise self._no_text(written, uid)
        channel = "pali" if record.corpus == "cst" else self._channel_of(record.corpus, record.book)
        return Span(
            written,
            "text",
            record.corpus,
            record.book,
            record.first_para,
            record.last_para,
            record.first_seq,
            record.last_seq,
            channel,
            record.label,
            record,
        )

    def _covering(self, uid: str) -> TextRecord | None:
        """The text named by a range uid holding this one (``sn48.140`` in ``sn48.137-146``)."""
        m = re.match(r"^(.*?)\d+$", uid)
        if not m:
            return None
        found = covering_uid(uid, [r.uid for r in self.store.texts(m.group(1))])
        return self.store.text(found) if found else None

    def _chaptered(self, uid: str) -> TextRecord | None:
        """``vv5.1``: the first story of the fifth chapter (vagga) of a collection numbered by story (``vv51``)."""
        m = re.match(rf"^({'|'.join(_CHAPTERED)})(\d+)\.(\d+)$", uid)
        if not m:
            return None
        prefix, chapter, number = m.group(1), int(m.group(2)), int(m.group(3))
        texts = sorted(
            (t for t in self.store.texts(prefix) if re.fullmatch(rf"{prefix}\d+", t.uid)),
            key=lambda t: int(t.uid[len(prefix) :]),
        )
        lasts = self.store.get([f"{t.corpus}/{t.book}/{t.last_para}" for t in texts])
        chapters: dict[str, list[TextRecord]] = {}
        for t in texts:
            if p := lasts.get(f"{t.corpus}/{t.book}/{t.last_para}"):
                vagga = next((h for h in reversed(p.path) if "vagg" in h.lower()), "")
                chapters.setdefault(f"{t.book}/{vagga}", []).append(t)
        ordered = list(chapters.values())
        if 1 <= chapter <= len(ordered) and 1 <= number <= len(ordered[chapter - 1]):
            return ordered[chapter - 1][number - 1]
        return None

    def _channel_of(self, corpus: str, book: str) -> str:
        records = self.store.channels(corpus, book)
        original = next((r for r in records if r.channel.type == "original"), records[0] if records else None)
        return original.channel.name if original else "pali"

    def _no_text(self, written: str, uid: str) -> ReferenceNotFound:
        prefix = re.match(r"^(.*?)[\d.-]*$", uid).group(1)  # type: ignore[union-attr]
        texts = self.store.texts(prefix)
        if not texts:
            why = f"the text {uid}, which is not among the indexed texts (none of {prefix or 'that collection'})"
            if not self.store.texts(""):
                why += ": ingest the SuttaCentral texts (`gantha ingest suttacentral PATH`) to resolve sutta references"
            return ReferenceNotFound(written, why)
        head, number = re.match(r"^(.*?)(\d*)$", uid).groups()  # type: ignore[union-attr]
        numbered = [(r[0], t.uid) for t in texts if (r := _number_range(t.uid, head))] if number else []
        if numbered:  # the texts numbered nearest to it (dhp999 → Dhp 423)
            close = [u for _, u in sorted(numbered, key=lambda x: abs(x[0] - int(number)))[:SUGGESTIONS]]
        else:
            close = difflib.get_close_matches(uid, [t.uid for t in texts], n=SUGGESTIONS, cutoff=0.5)
        labels = [t.label for u in close if (t := self.store.text(u))]
        return ReferenceNotFound(
            written, f"the text {uid}, which is not among the indexed texts ({len(texts)} of {prefix})", labels
        )

    # --- citations ------------------------------------------------------------------------------

    def _citation(self, written: str) -> Span | None:
        """A commentary's citation form (``mahāva. 86``) or a CST-numbered scholar's form (``Dhs 1``)."""
        head = re.match(r"^(\D+?)\s*(\d[\d.\s-]*)$", written)
        if head and (work := CST_NUMBERED.get(re.sub(r"[\s.]+", " ", fold(head.group(1))).strip())):
            written_as = f"{work} {head.group(2)}"
        else:
            written_as = written
        found = cited.find_citations(f"({written_as})")
        if len(found) != 1 or not found[0].abbreviation:
            return None
        citation = found[0]
        work = cited.table().get(cited._key(citation.abbreviation.split()))
        if citation.problem or not citation.targets:
            raise ReferenceNotFound(
                written,
                f"{work.title if work else citation.abbreviation} cited as {citation.text!r}: {citation.problem}",
            )
        first, last = citation.targets[0], citation.targets[-1]
        title = work.title if work else citation.abbreviation
        paras = [self._target(t, written, title) for t in (first, last)]
        if first.layer is None:
            (_, p0), (_, p1) = paras
            corpus, book = "cst", first.book
            return Span(written, "citation", corpus, book, p0.para, p1.para, p0.seq, p1.seq, label=citation.text)
        return self._commentary(written, first, paras, citation.text, title)

    def _target(self, target: cited.Target, written: str, title: str) -> tuple[str, Passage]:
        numbering = {target.book: self.numbering("cst", target.book)}
        if not numbering[target.book]:
            raise ReferenceNotFound(written, f"{title} (CST book {target.book}), which is not in the index")
        para = cited.resolve(target, numbering)
        p = self._passage("cst", target.book, para) if para else None
        if p is None:
            numbers = [cited.para_bounds(n)[0] for n in numbering[target.book]]
            near = sorted(set(numbers), key=lambda n: abs(n - target.number))[:SUGGESTIONS]
            raise ReferenceNotFound(
                written,
                f"{title} (cst/{target.book}) paragraph {target.number}, which it does not have",
                [f"cst/{target.book}/{n}" for n in near],
            )
        return f"cst/{target.book}/{para}", p

    def _commentary(
        self, written: str, target: cited.Target, paras: list[tuple[str, Passage]], label: str, title: str
    ) -> Span:
        """The commentary (or subcommentary) paragraphs on the root paragraphs a layered citation names."""
        roots = [c for c, _ in paras]
        rows = [r for r in self.store.links_to(roots, "comments") if r.layer == target.layer]
        if not rows:
            raise ReferenceNotFound(
                written, f"{title}: the {target.layer} on {roots[0]}, and the index links no such paragraph to it"
            )
        book = min(rows, key=lambda r: (r.src_book, r.src_seq)).src_book
        mine = sorted((r for r in rows if r.src_book == book), key=lambda r: r.src_seq)
        first, last = mine[0], mine[-1]
        return Span(
            written,
            "citation",
            "cst",
            book,
            first.src.rsplit("/", 1)[1],
            last.src.rsplit("/", 1)[1],
            first.src_seq,
            last.src_seq,
            label=label,
        )

    # --- pages ----------------------------------------------------------------------------------

    def _page(self, written: str) -> Span | None:
        """The paragraphs on an edition's page; a form that also reads as a sutta reference (``Dhp 27``: a verse)
        only with the edition named (``PTS Dhp 27``)."""
        if parse_text_ref(written) is not None and not _EDITION.match(written):
            return None
        try:
            ref = parse_page_ref(written)
        except PageRefError:
            return None
        query = StoreQuery(
            must=[Clause("page_refs", [ref.key])],
            filters={"channel": ["pali"]},
            book_pattern=ref.books,
            limit=PAGE_PARAGRAPHS,
            order="reading",
            aggregate=(),
        )
        hits = [h.passage for h in self.store.search(query).hits]
        if not hits and not ref.volume:  # a work cited by page alone, which the CST marks with its part's volume
            for volume in (1, 2, 3):
                query.must = [Clause("page_refs", [f"P{volume}.{ref.page:04d}"])]
                if hits := [h.passage for h in self.store.search(query).hits]:
                    break
        if not hits:
            near = [k for k, _ in self.store.page_keys(f"{ref.edition}{ref.volume}.", 2000)]
            pages = sorted(near, key=lambda k: abs(int(k.split(".")[1]) - ref.page))[:SUGGESTIONS]
            why = f"page {ref.key} ({ref.short}), on which no paragraph of the index lies"
            raise ReferenceNotFound(written, why, pages)
        books = sorted({(p.corpus, p.book) for p in hits})
        if len(books) > 1:
            where = ", ".join(f"{c}/{b}" for c, b in books[:5])
            raise ReferenceNotFound(
                written,
                f"page {ref.key} of {len(books)} books ({where}): name the collection (PTS Vin II 31, D I 47)",
            )
        mine = sorted(hits, key=lambda p: p.seq)
        starts = [p for p in mine if ref.key in p.page_starts]
        first = starts[0] if starts else mine[0]
        return Span(
            written, "page", first.corpus, first.book, first.para, mine[-1].para, first.seq, mine[-1].seq, label=written
        )

    # --- not understood -------------------------------------------------------------------------

    def _not_understood(self, written: str) -> ReferenceNotFound:
        """What the form looked like, and the known abbreviations closest to it."""
        m = re.match(r"^(\D+?)\s*(\d[\d.\s-]*)?$", written)
        name, number = (m.group(1).strip(), (m.group(2) or "").strip()) if m else (written, "")
        key = re.sub(r"[\s.]+", " ", fold(name)).strip()
        known = [*TEXT_PREFIXES, *CST_NUMBERED, *(w.abbreviation for w in cited.table().values())]
        close = difflib.get_close_matches(key, known, n=SUGGESTIONS, cutoff=0.5)
        suggestions = self.titles(written) if self.titles is not None else []
        suggestions += [f"{_shown(c)} {number or '1'}" for c in dict.fromkeys(close)]
        understood = (
            f"{name!r} followed by {number!r}, and {name!r} is no collection, work or edition known"
            if number
            else "not a coordinate (corpus/book/paragraph, e.g. cst/vin02m3.mul/75), nor a sutta reference (MN 10), "
            "SuttaCentral uid, commentary citation (mahāva. 86) or page reference (PTS Vin I 70)"
        )
        return ReferenceNotFound(written, understood, suggestions)


def _number_range(uid: str, head: str) -> tuple[int, int] | None:
    """``sn48.137-146`` after ``sn48.`` → (137, 146); None when the uid continues otherwise."""
    m = re.fullmatch(rf"{re.escape(head)}(\d+)(?:-(\d+))?", uid)
    return (int(m.group(1)), int(m.group(2) or m.group(1))) if m else None


def _shown(abbreviation: str) -> str:
    """A known abbreviation as a reference writes it: ``mn`` → ``MN``, ``mahāva.`` as it is."""
    if abbreviation in TEXT_PREFIXES and len(abbreviation) <= 3 and abbreviation.isalpha():
        return abbreviation.upper() if abbreviation in ("dn", "mn", "sn", "an") else abbreviation.capitalize()
    return abbreviation
