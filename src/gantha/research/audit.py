"""The reference audit: does every reference resolve to the passage it names, by every form it is written in?

For every text of SuttaCentral's root files (each sutta, verse and Vinaya rule uid, :func:`audit_suttacentral`):

- **begins and ends**: the span its uid resolves to (:mod:`gantha.research.resolver`) begins with the words
  SuttaCentral's text begins with, and ends with the words it ends with. The first :data:`EDGE_WORDS` words of
  its body (titles left out; words folded, quotes dropped) must be found, in order, for at least
  :data:`TOLERANCE` of them, starting inside the span's first text paragraph (the next ones read on as
  context); the last ones likewise, ending inside its last. Where the editions word an edge otherwise (a
  closing line: ``… Sivako sāmaṇero ….`` against ``… Vanavacchassa therassa (siviko) sāmaṇero ….``),
  :data:`LOOSE` of them suffice if the paragraph beyond the span holds fewer. Words are compared without their
  last vowel ending (:func:`stems`: the CST's ``kammakkhandhakaṃ niṭṭhitaṃ`` closes what SuttaCentral writes
  ``kammakkhandhako niṭṭhito``). How many edges agree word for word is reported (:attr:`CollectionAudit.exact`).
  Where SuttaCentral's text ends with lines its CST book holds nowhere (the Parivāra's closing verses), the end
  compared is the last line the book holds, and the text is listed apart (:attr:`CollectionAudit.lacking`);
- **printed references resolve back**: the label a citation prints (``MN 10``) resolves to the same span as
  the uid, and the PTS page the citation prints holds the span's first paragraph;
- **names**: the Pali name the reader and citations print (``Satipaṭṭhānasutta``) stands in the CST headings
  over or inside the span (reported, not counted in the agreement).

Books without SuttaCentral numbers (the Abhidhamma, the Visuddhimagga …: :data:`gantha.text.refs.CST_NUMBERED`)
are audited against the CST's own numbering (:func:`audit_cst_numbered`): every numbered paragraph of the run a
scholar's form addresses is resolved by that form (``Dhs 5``) and must land on itself, under its own headings.

A collection counts only where the index holds all its CST books; a text whose book is not indexed is left out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

from gantha.corpus import suttacentral as sc
from gantha.research.descriptions import name_key
from gantha.research.resolver import Span
from gantha.search.errors import SearchError
from gantha.text import citations as cited
from gantha.text.align import INNER_HYPHEN, tokens
from gantha.text.refs import CST_NUMBERED, parse_page_ref

EDGE_WORDS = 8  # words of a text's beginning (and of its end) compared
TOLERANCE = 0.75  # share of them that must be found in order (the editions' spelling and spacing differ)
LOOSE = 0.5  # … or this share, where the paragraph beyond the span holds fewer (the editions word a closing otherwise)
TARGET = 0.995


@dataclass
class Finding:
    """One reference that disagrees or does not resolve, and why."""

    collection: str
    reference: str  # the uid (or the scholar's form)
    label: str
    outcome: str  # disagrees | unresolved
    why: str
    span: str = ""


@dataclass
class CollectionAudit:
    collection: str
    texts: int = 0
    agreeing: int = 0
    disagreeing: int = 0
    unresolved: int = 0
    exact: int = 0  # agreeing with every compared word found (no spelling difference at either edge)
    names_agreeing: int = 0
    names_differing: int = 0
    names_unheaded: int = 0  # texts the CST heads with no heading of their own
    findings: list[Finding] = field(default_factory=list)
    names: list[Finding] = field(default_factory=list)
    lacking: list[Finding] = field(default_factory=list)  # agreeing once the lines the CST lacks are left out

    @property
    def share(self) -> float:
        return self.agreeing / self.texts if self.texts else 1.0


@dataclass
class Audit:
    collections: list[CollectionAudit]
    left_out: list[str]  # collections (or books) not audited, and why

    @property
    def ok(self) -> bool:
        return all(c.share >= TARGET for c in self.collections)


# --- comparing words -------------------------------------------------------------------------------


def found_share(wanted: list[str], context: list[str]) -> tuple[float, int, int]:
    """The share of ``wanted`` found in order in ``context``, and the first and last positions matched."""
    if not wanted:
        return 1.0, 0, 0
    blocks = [b for b in SequenceMatcher(None, wanted, context, autojunk=False).get_matching_blocks() if b.size]
    if not blocks:
        return 0.0, -1, -1
    return sum(b.size for b in blocks) / len(wanted), blocks[0].b, blocks[-1].b + blocks[-1].size - 1


def words(text: str, hyphen: str = "") -> list[str]:
    """Folded words, quotes and markup dropped first (``vijānata’’nti`` and ``vijānatan”ti`` are one word alike, as
    ``<b>Cariyā</b>ti`` and ``Cariyāti``); a hyphen inside a word joins its parts (as the aligner reads them), or
    with ``hyphen=" "`` parts them."""
    return tokens(INNER_HYPHEN.sub(hyphen, text))


HYPHEN_READINGS = ("", " ")
"""The CST hyphenates compounds that SuttaCentral writes as one word (``veramaṇī-sikkhāpadaṃ``) or as two
(``bhaddāli-nāmo``, ``bhaddāli nāmo``): an edge agrees when it is found with the hyphens read either way."""


def edges(segments: dict[str, str], uid: str, hyphen: str = "") -> tuple[list[str], list[str]]:
    """The first and last :data:`EDGE_WORDS` words of a text's body (its title segments left out)."""
    body = [
        words(v, hyphen)
        for k, v in segments.items()
        if sc.segment_uid(k) == uid and not sc.is_title(k) and v.strip() != sc.TITLE_ONLY
    ]
    flat = [w for ws in body for w in ws]
    return flat[:EDGE_WORDS], flat[-EDGE_WORDS:]


def _edge(
    wanted: list[str], edge: list[str], inside: list[str], outside: list[str], at_start: bool
) -> tuple[bool, bool]:
    """Whether a span's edge paragraph holds a text's edge words (agrees), and holds them all (exact).

    ``inside``: the words read on into the span beyond that paragraph; ``outside``: the paragraph beyond the
    span. At least :data:`TOLERANCE` of the words found in order with the edge inside that paragraph; or, where
    the editions word the edge otherwise (a closing line), :data:`LOOSE` of them, the paragraph beyond holding
    fewer."""
    context = edge + inside if at_start else inside + edge
    exact = found_share(wanted, context)[0] == 1.0
    share, first, last = found_share(stems(wanted), stems(context))
    inside_edge = 0 <= first < len(edge) if at_start else last >= len(inside)
    if share >= TOLERANCE and inside_edge:
        return True, exact
    beyond, _, _ = found_share(stems(wanted), stems(outside))
    return share >= LOOSE and inside_edge and beyond < share, False


_ENDING = re.compile(r"(?:am|o|a|e|i|u)$")


def stems(ws: list[str]) -> list[str]:
    """Words without their last vowel ending: a closing line the editions inflect otherwise
    (``kammakkhandhako niṭṭhito`` against the CST's ``kammakkhandhakaṃ niṭṭhitaṃ``) is the same line."""
    return [_ENDING.sub("", w) if len(w) > 4 else w for w in ws]


def _beyond(research, span: Span) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The texts of the text paragraphs just before and just after a span (headings left out)."""
    store = research.store
    before = store.book_passages(span.corpus, span.book, span.channel, (max(span.first_seq - 3, 0), span.first_seq - 1))
    after = store.book_passages(span.corpus, span.book, span.channel, (span.last_seq + 1, span.last_seq + 3))
    prose = [p for p in before if p.text.strip() and p.kind not in _HEADINGS][-1:]
    next_ = [p for p in after if p.text.strip() and p.kind not in _HEADINGS][:1]
    return (prose[0].text if prose else ""), (next_[0].text if next_ else "")


# --- SuttaCentral's texts ----------------------------------------------------------------------------


def audit_suttacentral(research, path: Path, collections: Iterable[str] | None = None) -> Audit:  # type: ignore[no-untyped-def]
    """Audit every uid of SuttaCentral's root files under ``path`` against the index ``research`` reads."""
    store = research.store
    indexed = {r.info.book for r in store.books("cst").values()}
    texts = [t for t in sc.discover(path) if t.root and not sc.NOT_SEPARATE.match(t.uid)]
    wanted = set(collections) if collections else None
    out: list[CollectionAudit] = []
    left_out: list[str] = []
    for collection, pattern in sc.COLLECTIONS.items():
        if wanted is not None and collection not in wanted:
            continue
        members = [t for t in texts if t.collection == collection]
        books = {b for b in indexed if re.match(pattern, b)}
        if not members:
            continue
        if not books:
            left_out.append(f"{collection}: none of its CST books is indexed")
            continue
        audit = CollectionAudit(collection)
        untexted = []
        for text in members:
            segments = text.segments
            for uid in dict.fromkeys(sc.segment_uid(k) for k in segments):
                if edges(segments, uid) == ([], []):
                    untexted.append(uid)  # titles only (the nuns' pārājikas 1–4, shared with the monks': "~";
                    continue  # SuttaCentral's "Title of Section Only" of a peyyāla's vaggas, sn48.137-146)
                if store.text(uid) is None and not _whole(pattern, books):
                    continue  # its book may be one the index lacks
                _audit_text(research, audit, uid, segments)
        if untexted:
            left_out.append(f"{collection}: {', '.join(untexted)}: SuttaCentral's root holds their titles only")
        if not _whole(pattern, books):
            left_out.append(f"{collection}: only {', '.join(sorted(books))} of its books indexed (texts there audited)")
        out.append(audit)
    return Audit(out, left_out)


def _whole(pattern: str, books: set[str]) -> bool:
    """Whether the index holds every CST book of a collection (known from the citation table's books)."""
    known = {e.book for w in cited.table().values() for es in w.entries.values() for e in es}
    mine = {b for b in known if re.match(pattern, b)}
    return bool(mine) and mine <= books


def _audit_text(research, audit: CollectionAudit, uid: str, segments: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    audit.texts += 1
    label = sc.label(uid)
    try:
        span = research.reference(uid)
    except SearchError as exc:
        audit.unresolved += 1
        audit.findings.append(Finding(audit.collection, uid, label, "unresolved", str(exc)))
        return
    where = f"{span.corpus}/{span.book}/{span.first}–{span.last}"
    problems = []
    paragraphs = research.store.book_passages(span.corpus, span.book, span.channel, (span.first_seq, span.last_seq))
    texted = [p for p in paragraphs if p.text.strip()]
    exact = True
    if not texted:
        problems.append("the span holds no text")
    else:
        body = [p for p in texted if p.kind not in _HEADINGS] or texted  # the text's own heading may open it
        outside = _beyond(research, span)
        readings = [_edges_found(segments, uid, body, outside, hyphen) for hyphen in HYPHEN_READINGS]
        if not any(r[1][0] for r in readings) and (held := _held(research, span, segments, uid)) is not None:
            segments, dropped = held  # the CST lacks the text's last lines: its end is the last line it holds
            readings = [_edges_found(segments, uid, body, outside, hyphen) for hyphen in HYPHEN_READINGS]
            if any(r[1][0] for r in readings):
                why = f"the CST lacks its last {len(dropped)} lines ({dropped[0]}–{dropped[-1]})"
                audit.lacking.append(Finding(audit.collection, uid, label, "agrees without", why, where))
        for at, shown in ((0, f"(from {body[0].para})"), (1, f"(at {body[-1].para})")):
            found = [r[at] for r in readings]
            exact &= any(whole for _, whole, _ in found)
            if not any(ok for ok, _, _ in found):
                wanted = " ".join(found[0][2])
                problems.append(f"does not {'begin' if at == 0 else 'end'} with “{wanted}” {shown}")
    problems += _printed(research, span, label, paragraphs)
    if problems:
        audit.disagreeing += 1
        audit.findings.append(Finding(audit.collection, uid, label, "disagrees", "; ".join(problems), where))
    else:
        audit.agreeing += 1
        audit.exact += exact
    _audit_name(research, audit, uid, label, span, paragraphs)


def _held(research, span: Span, segments: dict[str, str], uid: str) -> tuple[dict[str, str], list[str]] | None:  # type: ignore[no-untyped-def]
    """A text's segments without its last lines that the CST book holds nowhere (not one run of three of their
    words, stems compared; of two, or the word, for a shorter line: the Parivāra's closing verses, which the CST
    does not have), and those lines' ids; None when the book holds its last line."""
    body = [k for k, v in segments.items() if sc.segment_uid(k) == uid and not sc.is_title(k) and v.strip()]
    text = " ".join(p.text for p in research.store.book_passages(span.corpus, span.book, span.channel))
    book = stems(words(text))
    runs = {n: {tuple(book[i : i + n]) for i in range(len(book) - n + 1)} for n in (1, 2, 3)}
    dropped: list[str] = []
    for k in reversed(body):
        ws = stems(words(segments[k]))
        n = min(3, len(ws))
        if ws and any(tuple(ws[i : i + n]) in runs[n] for i in range(len(ws) - n + 1)):
            break
        dropped.insert(0, k)  # a line the book lacks (or only an abridgement mark, ``pe``)
    if not dropped or len(dropped) == len(body):
        return None
    return {k: v for k, v in segments.items() if k not in dropped}, dropped


def _edges_found(segments: dict[str, str], uid: str, body: list, outside: tuple[str, str], hyphen: str):  # type: ignore[no-untyped-def]
    """For the span's first and last text paragraphs: (agrees, exact, the words wanted), hyphens read one way."""
    begin, end = edges(segments, uid, hyphen)
    first, last = words(body[0].text, hyphen), words(body[-1].text, hyphen)
    after = [w for p in body[1:4] for w in words(p.text, hyphen)][: 2 * len(begin)]  # the words read on
    before = [w for p in body[-4:-1] for w in words(p.text, hyphen)][-2 * len(end) :] if len(body) > 1 else []
    at_start = _edge(begin, first, after, words(outside[0], hyphen), at_start=True)
    at_end = _edge(end, last, before, words(outside[1], hyphen), at_start=False)
    return (*at_start, begin), (*at_end, end)


def _printed(research, span: Span, label: str, paragraphs) -> list[str]:  # type: ignore[no-untyped-def]
    """What the references a citation prints resolve to: the label to the same span, the PTS page to a span
    holding the first paragraph."""
    problems = []
    try:
        back = research.reference(label)
        if (back.book, back.first_seq, back.last_seq) != (span.book, span.first_seq, span.last_seq):
            problems.append(f"{label} resolves to {back.book}/{back.first}–{back.last}")
    except SearchError as exc:
        problems.append(f"{label} does not resolve: {exc}")
    first = next((p for p in paragraphs if p.text.strip()), None)
    if first is None or span.corpus != "cst":
        return problems
    default = research.citations(first).default
    for page in re.findall(r"PTS [^;()]+?(?=[;)]|$)", default):
        page = re.split(r"[–-]", page.strip())[0].strip()  # a range of pages: its first
        try:
            parse_page_ref(page)
            on = research.reference(page)
        except (SearchError, ValueError) as exc:
            problems.append(f"the page {page!r} it prints does not resolve: {exc}")
            continue
        if on.book != first.book or not on.first_seq <= first.seq <= on.last_seq:
            problems.append(f"the page {page!r} it prints lies at {on.book}/{on.first}–{on.last}, not {first.para}")
    return problems


def _audit_name(research, audit: CollectionAudit, uid: str, label: str, span: Span, paragraphs) -> None:  # type: ignore[no-untyped-def]
    """Whether the Pali name printed for a text stands in the CST headings over or inside its span."""
    record = span.record
    if record is None or not record.pali_title:
        return
    first = next((p for p in paragraphs if p.text.strip()), None)
    headings = [*(first.path if first else []), *(p.text for p in paragraphs if p.kind in _HEADINGS)]
    wanted = name_key(record.pali_title)
    if wanted and any(wanted in name_key(h) or (name_key(h) in wanted and len(name_key(h)) > 3) for h in headings):
        audit.names_agreeing += 1
        return
    inside = [p for p in paragraphs if p.kind in _HEADINGS]
    if not inside and (not headings or re.search(r"vagg|nipāt|kaṇḍ", headings[-1].lower())):
        audit.names_unheaded += 1  # the CST gives it no heading of its own (a Dhammapada verse, an AN sutta)
        return
    audit.names_differing += 1
    shown = " › ".join(headings[-3:])
    audit.names.append(Finding(audit.collection, uid, label, "name differs", f"{record.pali_title} ≠ {shown}"))


_HEADINGS = ("chapter", "title", "subhead", "subsubhead", "book", "nikaya")


# --- the books without SuttaCentral numbers ------------------------------------------------------------


def audit_cst_numbered(research) -> Audit:  # type: ignore[no-untyped-def]
    """Every numbered paragraph that a form counting by the CST's numbering addresses resolves by it to itself: the
    commentaries' forms of the works cited by one number (``mahāva. 86``, ``vibha. 25``, ``dha. pa. 183``) and
    the scholars' (``Dhs 5``), for every book of the index they name."""
    store = research.store
    indexed = {r.info.book for r in store.books("cst").values()}
    forms = {
        abbreviation: [abbreviation] for abbreviation in dict.fromkeys(w.abbreviation for w in cited.table().values())
    }
    for form, abbreviation in CST_NUMBERED.items():
        forms.setdefault(abbreviation, []).append(form.capitalize())
    out: list[CollectionAudit] = []
    for abbreviation, written in forms.items():
        work = cited.table().get(cited._key(abbreviation.split()))
        if work is None or work.layer is not None or work.external or ("para",) not in work.schemes:
            continue  # the works cited by one number, in their own text
        for entry in work.entries.get("*", ()):
            if entry.book not in indexed:
                continue
            runs = cited.runs(research.resolver().numbering("cst", entry.book))
            run = entry.run or 1
            if run > len(runs):
                continue
            for form in written:
                audit = CollectionAudit(f"{form} ({entry.book})")
                for number, para in runs[run - 1].items():
                    if entry.numbers[0] <= number <= entry.numbers[1]:
                        _audit_number(research, audit, f"{form} {number}", entry.book, para)
                if audit.texts:
                    out.append(audit)
    return Audit(out, [])


def _audit_number(research, audit: CollectionAudit, reference: str, book: str, para: str) -> None:  # type: ignore[no-untyped-def]
    audit.texts += 1
    try:
        span = research.reference(reference)
    except SearchError as exc:
        audit.unresolved += 1
        audit.findings.append(Finding(audit.collection, reference, reference, "unresolved", str(exc)))
        return
    if (span.book, span.first) == (book, para):
        audit.agreeing += 1
        audit.exact += 1
    else:
        audit.disagreeing += 1
        why = f"lands on {span.book}/{span.first}, not {book}/{para}"
        audit.findings.append(Finding(audit.collection, reference, reference, "disagrees", why))


# --- the report ---------------------------------------------------------------------------------------


def report(audits: list[Audit], command: str) -> tuple[str, str]:
    """The Markdown report and the TSV of every finding."""
    lines = [
        "# Reference audit",
        "",
        f"Written by `{command}`. Each SuttaCentral uid is resolved and its span compared with SuttaCentral's text:",
        f"its first and last {EDGE_WORDS} words (titles left out) must be found in order for at least "
        f"{TOLERANCE:.0%} of them, beginning in the span's first paragraph and ending in its last; the label a "
        "citation prints (MN 10) must resolve to the same span, the PTS page it prints must hold the first "
        "paragraph. *exact*: every compared word found (the rest differ only by the editions' spelling and "
        f"spacing). Target: {TARGET:.1%} of the uids of every collection.",
        "",
        "| collection | texts | agree | disagree | unresolved | share | exact | names agree | differ | no heading |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    rows = ["collection\treference\tlabel\toutcome\twhy\tspan"]
    for audit in audits:
        for c in audit.collections:
            lines.append(
                f"| {c.collection} | {c.texts:,} | {c.agreeing:,} | {c.disagreeing:,} | {c.unresolved:,} | "
                f"{c.share:.2%} | {c.exact:,} | {c.names_agreeing:,} | {c.names_differing:,} | {c.names_unheaded:,} |"
            )
            for f in [*c.findings, *c.lacking, *c.names]:
                rows.append("\t".join((f.collection, f.reference, f.label, f.outcome, f.why, f.span)))
    for audit in audits:
        lines += [f"- not audited: {why}" for why in audit.left_out]
    for audit in audits:
        for c in audit.collections:
            if c.findings:
                lines += ["", f"## {c.collection}: {len(c.findings)} disagreeing or unresolved", ""]
                lines += [f"- **{f.label}** ({f.reference}, {f.outcome}) {f.span}: {f.why}" for f in c.findings]
    for audit in audits:
        for c in audit.collections:
            if c.lacking:
                lines += ["", f"## {c.collection}: {len(c.lacking)} agreeing where the CST ends the text earlier", ""]
                lines += [f"- **{f.label}** ({f.reference}) {f.span}: {f.why}" for f in c.lacking]
    for audit in audits:
        for c in audit.collections:
            if c.names:
                lines += ["", f"## {c.collection}: {len(c.names)} names not found in the CST headings", ""]
                lines += [f"- {f.label}: {f.why}" for f in c.names[:200]]
                if len(c.names) > 200:
                    lines.append(f"- … and {len(c.names) - 200} more (in the TSV)")
    return "\n".join(lines) + "\n", "\n".join(rows) + "\n"
