"""The verb ``get``: paragraphs by coordinate (or sutta reference) in each channel asked, with citations,
and explicit absences; and the resolution of references."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gantha.model import (
    CoordinateError,
    Passage,
    TextRecord,
)
from gantha.research.citing import passage_citations
from gantha.research.resolver import Resolver, Span
from gantha.search.plan import refuse_unknown
from gantha.search.service import SearchError
from gantha.text.inflect import analyse, grammar_short
from gantha.text.pali import WORD_RE, canon
from gantha.text.refs import parse_text_ref
from gantha.text.sentences import SENTENCE_SUFFIX
from gantha.text.sentences import split as split_sentences

MAX_COORDINATES = 100
SPAN_PARAGRAPHS = 25  # paragraphs ``get`` returns of a text, a range or a page (``chapter`` reads one whole)


class Token(BaseModel):
    surface: str
    lemma: str | None
    grammar: str | None
    pos: str | None = None


class Citations(BaseModel):
    default: str
    apa: str
    mla: str


class GetItem(BaseModel):
    coordinate: str
    channel: str
    status: str  # ok | missing | part_of | not_found
    language: str | None = None
    text: str | None = None
    display: str | None = None  # Markdown (bold, note markers) when it differs from text; else left out
    book_title: str | None = None
    path: list[str] = Field(default_factory=list)
    page_refs: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    bold: list[str] = Field(default_factory=list)
    citations: Citations | None = None
    tokens: list[Token] | None = None
    anchor: str | None = None  # for part_of: the numbered paragraph whose text includes this one
    message: str | None = None


class GetResult(BaseModel):
    items: list[GetItem]
    notes: list[str] = Field(default_factory=list)  # a span cut at SPAN_PARAGRAPHS, and how to read it whole


def _anchor(coordinate: str) -> str | None:
    """``…/75.3`` → ``…/75``: the numbered paragraph an unnumbered one follows (None for a numbered one)."""
    base, _, para = coordinate.rpartition("/")
    head, sep, _ = para.rpartition(".")
    return f"{base}/{head}" if sep and head != "0" else None


class ReadingVerbs:
    """Needs ``store``, ``lexicon``, ``_analyse`` (a cached ``_analyse_uncached``)."""

    def _analyse_uncached(self, surface: str) -> Token:
        form = canon(surface)
        bases = self.lexicon.bases_of(form)
        lemma = bases[0][0] if bases else (form if self.lexicon.is_lemma(form) else None)
        grammar = pos = None
        if lemma:
            for a in analyse(form, self.lexicon.endings, self.lexicon.sandhi):
                if a.lemma == lemma:
                    grammar, pos = grammar_short(a.grammar), a.pos.strip(".")
                    break
        return Token(surface=surface, lemma=lemma, grammar=grammar, pos=pos)

    def resolver(self) -> Resolver:
        """The resolver of references over this index (made once)."""
        resolver = getattr(self, "_resolver", None)
        if resolver is None or resolver.store is not self.store:
            titles = getattr(self, "titles", None)
            named = (lambda q: [n.key for n in titles().named(q) if n.kind == "text"]) if titles else None
            resolver = self._resolver = Resolver(self.store, getattr(self, "_locate", None), named)
        return resolver

    def reference(self, reference: str) -> Span:
        """The span of paragraphs any form of reference names (:mod:`gantha.research.resolver`)."""
        return self.resolver().span(reference)

    def named(self, reference: str) -> TextRecord | None:
        """The named text (sutta, rule) or the span (a range, an outline node, a page, a cited passage) a reference
        points to; None for a single paragraph, a book or a form that names none.

        Raises SearchError when the reference is a well-formed sutta reference that names nothing in the index.
        """
        try:
            span = self.reference(reference)
        except SearchError:
            if "/" in reference or parse_text_ref(reference) is None:
                return None
            raise
        return span.as_record() if span.kind == "text" or not span.single else None

    def resolve(self, text: str) -> str:
        """The coordinate of the first paragraph a reference names (a coordinate as written)."""
        return self.reference(text).coordinate

    def citations(self, p: Passage) -> Citations:
        """The paragraph as a scholar cites it (the pages it begins and ends on), and its APA and MLA entries."""
        return Citations(**passage_citations(p, self.store.text_at(p.corpus, p.book, p.seq)))

    def get(self, coordinates: list[str], channels: list[str] | None = None, tokens: bool = False) -> GetResult:
        """The paragraphs at these coordinates in each channel asked; absent ones say so, item by item.

        Without ``channels``: the Pali for CST coordinates, every recorded channel for other corpora; a channel
        the index does not hold is refused (``unknown_channel``).
        """
        if len(coordinates) > MAX_COORDINATES:
            raise SearchError("too_many", f"at most {MAX_COORDINATES} coordinates per call")
        if channels:
            refuse_unknown(self.store, {"channel": channels})
        parsed: list[str] = []
        items: list[GetItem] = []
        notes: list[str] = []
        for c in coordinates:
            try:
                parsed += self._spanned(self.reference(c), notes)
            except (CoordinateError, SearchError) as exc:
                items.append(
                    GetItem(coordinate=c, channel=(channels or ["pali"])[0], status="not_found", message=str(exc))
                )
        valid = list(dict.fromkeys(c for c in parsed if c))
        sentences = {c: m for c in valid if (m := SENTENCE_SUFFIX.match(c.rsplit("/", 1)[1]))}
        paragraph_of = {c: (c.rsplit("/", 1)[0] + "/" + m.group("para")) for c, m in sentences.items()}
        valid = [paragraph_of.get(c, c) for c in valid]
        wanted = {c: channels or self._default_channels(c) for c in valid}
        needed = {ch for chs in wanted.values() for ch in chs} | (
            {"pali"} if any(c.startswith("cst/") for c in valid) else set()
        )  # the Pali says a CST coordinate exists
        by_channel = {ch: self.store.get(valid, ch) for ch in needed}
        for c in valid:
            origin = "pali" if c.startswith("cst/") else None
            exists = c in by_channel.get(origin, {}) if origin else any(c in found for found in by_channel.values())
            if not exists:
                items.append(
                    GetItem(coordinate=c, channel=wanted[c][0], status="not_found", message=f"no such coordinate: {c}")
                )
                continue
            for ch in wanted[c]:
                p = by_channel[ch].get(c)
                if p is None:
                    if anchor := self._part_of(c, ch):
                        items.append(
                            GetItem(
                                coordinate=c,
                                channel=ch,
                                status="part_of",
                                anchor=anchor,
                                message=f"the {ch} text of this paragraph is part of {anchor}",
                            )
                        )
                    else:
                        items.append(
                            GetItem(coordinate=c, channel=ch, status="missing", message=f"no {ch} text at {c}")
                        )
                    continue
                item = GetItem(
                    coordinate=c,
                    channel=ch,
                    status="ok",
                    language=p.language,
                    text=p.text,
                    display=p.display if p.display != p.text else None,  # only when it adds bold or notes
                    book_title=p.book_title,
                    path=p.path,
                    page_refs=p.page_refs,
                    notes=p.notes,
                    bold=p.bold,
                )
                if p.primary:  # an original (the Pali, an Āgama's Chinese): cited
                    item.citations = self.citations(p)
                    if tokens:
                        item.tokens = [self._analyse(m.group()) for m in WORD_RE.finditer(p.text)]
                items.append(item)
        for c, m in sentences.items():  # sentence coordinates: cut the sentence out of its paragraph
            for item in items:
                if item.coordinate == paragraph_of[c] and item.status == "ok":
                    parts = split_sentences(item.text or "")
                    k = int(m.group("k"))
                    item.coordinate = c
                    if 1 <= k <= len(parts):
                        item.text, item.display = parts[k - 1], None
                        item.tokens = item.tokens and [self._analyse(w) for w in WORD_RE.findall(item.text)]
                    else:
                        item.status, item.text, item.display = "not_found", None, None
                        item.message = f"no sentence {k} in {paragraph_of[c]} ({len(parts)} sentences)"
                    break
        return GetResult(items=items, notes=notes)

    def _spanned(self, span: Span, notes: list[str]) -> list[str]:
        """The coordinates ``get`` returns for a span: a coordinate as written; the paragraphs of a text, a range
        or a page that hold text (a verse's bare number left out), at most :data:`SPAN_PARAGRAPHS`."""
        if span.kind == "coordinate":
            return [span.coordinate]
        passages = self.store.book_passages(span.corpus, span.book, span.channel, (span.first_seq, span.last_seq))
        shown = [p for p in passages if p.text.strip()] or passages[:1]
        if len(shown) > SPAN_PARAGRAPHS:
            notes.append(
                f"{span.label or span.reference} runs over {len(shown)} paragraphs ({span.first}–{span.last}); "
                f"the first {SPAN_PARAGRAPHS} here: `chapter {span.reference}` reads it whole"
            )
            shown = shown[:SPAN_PARAGRAPHS]
        return [p.coordinate for p in shown] or [span.coordinate]

    def _default_channels(self, coordinate: str) -> list[str]:
        corpus, _, rest = coordinate.partition("/")
        if corpus == "cst":  # the original only: translations when asked for
            return ["pali"]
        book = rest.rpartition("/")[0]
        return [r.channel.name for r in self.store.channels(corpus, book)] or ["pali"]

    def _part_of(self, coordinate: str, channel: str) -> str | None:
        """The numbered paragraph whose text in ``channel`` covers this unnumbered one, if any."""
        anchor = _anchor(coordinate)
        return anchor if anchor and self.store.get([anchor], channel) else None
