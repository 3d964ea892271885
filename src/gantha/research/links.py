"""The verb ``links``: from a paragraph (a range, a sutta) to its root text, its commentary and subcommentary,
what it cites and what cites it, the passages that repeat it and its variant readings — each a paged list of
coordinates with a short text and the reason for the link."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from gantha.links import layers
from gantha.links.parallels import shared_span, work
from gantha.model import Passage
from gantha.search.service import SearchError
from gantha.store.links import LinkRow
from gantha.text.variants import readings, replaced_words

Kind = Literal["root", "commentary", "subcommentary", "cites", "cited_by", "parallels", "variants"]
KINDS: tuple[Kind, ...] = ("root", "commentary", "subcommentary", "cites", "cited_by", "parallels", "variants")
MAX_PARAGRAPHS = 500  # a range or a sutta
SHORT = 200  # characters of a linked paragraph's text
CONTINUATION = 400  # unnumbered paragraphs read after a commentary paragraph, at most
SUTTACENTRAL = "https://suttacentral.net/"


class EditionOut(BaseModel):
    siglum: str
    name: str


class LinkItem(BaseModel):
    """One linked paragraph (or, for a curated parallel outside the index, a text by its reference)."""

    coordinate: str | None
    of: str  # the paragraph asked about that it is linked to
    reason: str
    reference: str | None = None  # the named text holding it (``DN 22``), or a text outside the index (``ma98``)
    book_title: str | None = None
    text: str | None = None  # its opening
    layer: str | None = None  # root, commentary, subcommentary: mula, atthakatha or tika
    citation: str | None = None  # cites, cited_by: the citation as written
    words: int | None = None  # parallels: the words of the longest stretch shared
    shared: str | None = None  # parallels: that stretch, as the linked paragraph writes it
    curated: bool | None = None  # parallels: listed by SuttaCentral, not found by comparing the texts
    same_work: bool | None = None  # parallels: repeated within the same work (mostly a refrain), ranked last
    url: str | None = None  # a curated parallel outside the index: where to read it
    reading: str | None = None  # variants: the other editions' reading
    replaces: str | None = None  # variants: the word of this text it stands for
    editions: list[EditionOut] | None = None  # variants: the editions that read so


class LinkList(BaseModel):
    total: int
    offset: int
    items: list[LinkItem]


class LinksResult(BaseModel):
    coordinate: str
    paragraphs: int  # the paragraphs asked about (a range or a sutta: all of them)
    reference: str | None = None  # the named text asked about (MN 10)
    root: LinkList | None = None
    commentary: LinkList | None = None
    subcommentary: LinkList | None = None
    cites: LinkList | None = None
    cited_by: LinkList | None = None
    parallels: LinkList | None = None
    variants: LinkList | None = None
    notes: list[str] = Field(default_factory=list)


def _book(coordinate: str) -> str:
    return coordinate.split("/")[1]


def _anchor(para: str) -> str | None:
    """``75.3`` → ``75``: the numbered paragraph an unnumbered one follows (None before the first)."""
    head, dot, _ = para.rpartition(".")
    return head if dot and head != "0" else None


def _continuing(head: Passage, by_seq: dict[int, Passage]) -> list[Passage]:
    """The unnumbered paragraphs that follow a numbered one (its continuation), up to ``CONTINUATION``."""
    out = []
    seq = head.seq + 1
    while (p := by_seq.get(seq)) and not layers.is_numbered(p.para) and seq - head.seq <= CONTINUATION:
        out.append(p)
        seq += 1
    return out


class LinkVerbs:
    """Needs ``store``, ``named``, ``_pali``, ``_paragraph_range``."""

    def links(self, coordinate: str, kinds: list[str] | None = None, limit: int = 10, offset: int = 0) -> LinksResult:
        """The links of a paragraph, a paragraph range or a named text; ``kinds`` some of ``KINDS``."""
        unknown = [k for k in kinds or () if k not in KINDS]
        if unknown:
            raise SearchError("invalid_parameter", f"unknown link kind {unknown[0]!r}; one of {', '.join(KINDS)}")
        passages, reference = self._linked_span(coordinate)
        result = LinksResult(coordinate=passages[0].coordinate, paragraphs=len(passages), reference=reference)
        finders: dict[str, Callable[[list[Passage]], list[LinkItem]]] = {
            "root": self._roots,
            "commentary": lambda ps: self._commentaries(ps, "atthakatha"),
            "subcommentary": lambda ps: self._commentaries(ps, "tika"),
            "cites": lambda ps: self._citations(ps, "cites"),
            "cited_by": lambda ps: self._citations(ps, "cited_by"),
            "parallels": self._parallels,
            "variants": self._variants,
        }
        for kind in kinds or KINDS:
            items = finders[kind](passages)
            page = items[offset : offset + limit]
            self._present_links(page, kind, {p.coordinate: p for p in passages})
            setattr(result, kind, LinkList(total=len(items), offset=offset, items=page))
        if not self.store.link_counts():
            result.notes.append("this index has no links yet: ingest the CST again (`gantha ingest cst PATH`)")
        return result

    def commentaries_on(self, references: list[str]) -> list[str]:
        """The coordinates of every aṭṭhakathā and ṭīkā paragraph on these root paragraphs (``vin02m3.mul/75-110``,
        ``cst/vin02m3.mul/75``, ``MN 10``), each with the paragraphs continuing it."""
        found: dict[str, None] = {}
        for reference in references:
            written = reference.strip()
            if "/" in written and not written.startswith("cst/"):
                written = f"cst/{written}"
            passages, _ = self._linked_span(written)
            for layer in ("atthakatha", "tika"):
                found.update((i.coordinate, None) for i in self._commentaries(passages, layer) if i.coordinate)
        return list(found)

    def _linked_span(self, coordinate: str) -> tuple[list[Passage], str | None]:
        """The Pali paragraphs a coordinate, a range (``cst/vin02m3.mul/75-110``) or a named text (``MN 10``) holds."""
        if span := self._paragraph_range(coordinate, "pali"):
            return span, None
        p = self._pali(coordinate)
        if named := self.named(coordinate):
            passages = self.store.book_passages(p.corpus, p.book, p.channel, (named.first_seq, named.last_seq))
            if len(passages) > MAX_PARAGRAPHS:
                raise SearchError(
                    "too_many",
                    f"{named.label} has {len(passages)} paragraphs; links of at most "
                    f"{MAX_PARAGRAPHS} at once: give a range",
                )
            return passages, named.label
        return [p], None

    # --- layers -----------------------------------------------------------------------------------

    def _role(self, book: str) -> str | None:
        record = self.store.books("cst").get(f"cst/{book}")
        return layers.role(book, record.info.title if record else "")

    def _roots(self, passages: list[Passage]) -> list[LinkItem]:
        """What each commentary paragraph explains: the layer above first (a ṭīkā's aṭṭhakathā), then the root."""
        asked: dict[str, tuple[str, str]] = {}  # numbered paragraph → (paragraph asked about, how)
        for p in passages:
            anchor = p.para if layers.is_numbered(p.para) else _anchor(p.para)
            if anchor:
                how = "" if anchor == p.para else f"continues the comment on paragraph {anchor}; "
                asked.setdefault(f"{p.corpus}/{p.book}/{anchor}", (p.coordinate, how))
        rank = {"atthakatha": 0, "tika": 1, "mula": 2}
        rows = self.store.links_from(list(asked), "comments")
        rows.sort(key=lambda r: (rank.get(self._role(r.dst_book) or "", 3), r.dst_book, r.dst_seq))
        items = {}
        for r in rows:
            of, how = asked[r.src]
            items.setdefault(
                r.dst, LinkItem(coordinate=r.dst, of=of, reason=how + r.note, layer=self._role(r.dst_book))
            )
        return list(items.values())

    def _commentaries(self, passages: list[Passage], layer: str) -> list[LinkItem]:
        """The commentary paragraphs of one layer on these paragraphs, each with the paragraphs that continue it."""
        direct: dict[str, list[LinkRow]] = defaultdict(list)
        for r in self.store.links_to([p.coordinate for p in passages], "comments"):
            if r.layer == layer:
                direct[r.dst].append(r)
        found: dict[str, LinkItem] = {}
        for p in passages:
            rows = direct.get(p.coordinate)
            if rows:
                for r in rows:
                    found.setdefault(r.src, LinkItem(coordinate=r.src, of=p.coordinate, reason=r.note, layer=layer))
                continue
            if len(passages) > 1 and not layers.is_numbered(p.para):
                continue  # a verse or heading of a range: its section is listed with its numbered paragraph
            section = self.store.links_before("comments", p.book, p.seq, layer)
            if section:
                start = section[0].dst.rsplit("/", 1)[1]
                after = self.store.links_after("comments", p.book, section[0].dst_seq, layer)
                upto = f", up to paragraph {after.dst.rsplit('/', 1)[1]}" if after else ""
                reason = f"no comment numbered for it: the commentary section on paragraph {start}{upto}"
                for r in section:
                    found.setdefault(r.src, LinkItem(coordinate=r.src, of=p.coordinate, reason=reason, layer=layer))
        return self._with_continuations(list(found.values()))

    def _with_continuations(self, items: list[LinkItem]) -> list[LinkItem]:
        """Each numbered commentary paragraph followed by the unnumbered paragraphs that continue it."""
        by_book: dict[str, list[LinkItem]] = defaultdict(list)
        for item in items:
            by_book[_book(item.coordinate or "")].append(item)
        out: dict[str, LinkItem] = {}
        for book, group in by_book.items():
            heads = self.store.get([i.coordinate for i in group if i.coordinate])
            seqs = sorted(p.seq for p in heads.values())
            if not seqs:
                continue
            span = (seqs[0], seqs[-1] + CONTINUATION)
            by_seq = {p.seq: p for p in self.store.book_passages("cst", book, "pali", span)}
            for item in sorted(group, key=lambda i: heads[i.coordinate].seq if i.coordinate in heads else 0):
                out.setdefault(item.coordinate or "", item)
                head = heads.get(item.coordinate or "")
                for p in _continuing(head, by_seq) if head else ():
                    reason = f"continues the comment at {head.para} ({item.reason})"
                    out.setdefault(
                        p.coordinate, LinkItem(coordinate=p.coordinate, of=item.of, layer=item.layer, reason=reason)
                    )
        return list(out.values())

    # --- citations --------------------------------------------------------------------------------

    def _citations(self, passages: list[Passage], kind: str) -> list[LinkItem]:
        coordinates = [p.coordinate for p in passages]
        if kind == "cites":
            rows = sorted(self.store.links_from(coordinates, "cites"), key=lambda r: (r.src_seq, r.dst_book, r.dst_seq))
            return [LinkItem(coordinate=r.dst, of=r.src, reason=f"cited as ({r.note})", citation=r.note) for r in rows]
        rows = sorted(self.store.links_to(coordinates, "cites"), key=lambda r: (r.src_book, r.src_seq))
        return [LinkItem(coordinate=r.src, of=r.dst, reason=f"cites it as ({r.note})", citation=r.note) for r in rows]

    # --- parallels --------------------------------------------------------------------------------

    def _parallels(self, passages: list[Passage]) -> list[LinkItem]:
        """SuttaCentral's curated parallels of the named texts holding these paragraphs, then the paragraphs
        repeating a stretch of them (outside them): those of other works before the refrains of their own,
        the texts whose paragraph shares the longest stretch first (a text of many partial echoes does not
        outrank a whole repeat)."""
        inside = {p.coordinate for p in passages}
        ours = {work(p.book) for p in passages}
        best: dict[str, tuple[float, str, str, int]] = {}  # other paragraph → (words, paragraph of ours, book, seq)
        for r in self.store.links_from(list(inside), "parallel"):
            if r.dst not in inside and r.weight > best.get(r.dst, (0.0,))[0]:
                best[r.dst] = (r.weight, r.src, r.dst_book, r.dst_seq)
        for r in self.store.links_to(list(inside), "parallel"):
            if r.src not in inside and r.weight > best.get(r.src, (0.0,))[0]:
                best[r.src] = (r.weight, r.dst, r.src_book, r.src_seq)
        named: dict[str, str | None] = {}
        by_text: dict[str, float] = defaultdict(float)
        for coordinate, (weight, _, book, seq) in best.items():
            text = self.store.text_at("cst", book, seq)
            named[coordinate] = text.label if text else None
            key = named[coordinate] or coordinate  # a text ranks by its best paragraph: a whole repeat first
            by_text[key] = max(by_text[key], weight)
        same = {c: work(best[c][2]) in ours for c in best}
        ranked = sorted(best, key=lambda c: (same[c], -by_text[named[c] or c], -best[c][0], c))
        items = [
            LinkItem(
                coordinate=c,
                of=best[c][1],
                reference=named[c],
                words=int(best[c][0]),
                curated=False,
                same_work=same[c],
                reason="repeats a stretch of its text" + (" (in the same work)" if same[c] else ""),
            )
            for c in ranked
        ]
        return self._curated(passages) + items

    def _curated(self, passages: list[Passage]) -> list[LinkItem]:
        """SuttaCentral's parallels of the named texts holding these paragraphs (``gantha ingest parallels``)."""
        texts = {}
        for p in passages:
            if (t := self.store.text_at(p.corpus, p.book, p.seq)) is not None:
                texts.setdefault(t.uid, (t, p.coordinate))
        items: list[LinkItem] = []
        listed: set[tuple[str, str]] = set()
        for r in sorted(
            self.store.links_from(list(texts), "curated") + self.store.links_from(list(texts), "editor"),
            key=lambda r: (self.store.text(r.dst.split("#")[0]) is None, -r.weight, r.dst),
        ):
            _, of = texts[r.src]
            uid = r.dst.split("#")[0]
            if (uid, of) in listed:  # listed by both SuttaCentral and the Āgamas' editor: once
                continue
            listed.add((uid, of))
            target = self.store.text(uid)
            where = f" (§{r.dst.split('#', 1)[1]})" if "#" in r.dst else ""
            reason = f"SuttaCentral lists it as a {r.note}{where}" if r.kind == "curated" else f"{r.note}"
            if target:
                coordinate = f"{target.corpus}/{target.book}/{target.first_para}"
                items.append(
                    LinkItem(coordinate=coordinate, of=of, reference=target.label, curated=True, reason=reason)
                )
            else:
                items.append(
                    LinkItem(
                        coordinate=None,
                        of=of,
                        reference=uid,
                        curated=True,
                        url=SUTTACENTRAL + uid,
                        reason=reason + "; not in this index",
                    )
                )
        return items

    # --- variants ---------------------------------------------------------------------------------

    def _variants(self, passages: list[Passage]) -> list[LinkItem]:
        items = []
        for p in passages:
            words = replaced_words(p.display)
            for n, note in enumerate(p.notes, start=1):
                for r in readings(note):
                    names = ", ".join(e.name for e in r.editions)
                    items.append(
                        LinkItem(
                            coordinate=p.coordinate,
                            of=p.coordinate,
                            reason=f"note {n}: {note}",
                            reading=r.text,
                            replaces=words.get(n) or None,
                            editions=[EditionOut(siglum=e.siglum, name=e.name) for e in r.editions],
                            text=f"{r.text} ({names})",
                        )
                    )
        return items

    # --- presentation -----------------------------------------------------------------------------

    def _present_links(self, items: list[LinkItem], kind: str, asked: dict[str, Passage]) -> None:
        """Give the items of a page their book title and opening text (parallels: the stretch shared)."""
        if kind == "variants":
            return
        found = self.store.get([i.coordinate for i in items if i.coordinate])
        for item in items:
            p = found.get(item.coordinate or "")
            if p is None:
                continue
            item.book_title = p.book_title
            item.text = p.text[:SHORT] + ("…" if len(p.text) > SHORT else "")
            if kind == "parallels" and not item.curated and item.of in asked:
                item.shared, item.words = shared_span(asked[item.of].text, p.text)
                item.reason = f"repeats {item.words} words of it" + (" (in the same work)" if item.same_work else "")
