"""The research verbs, each declared once: its parameters (a pydantic model with bounds and help), its
handler over :class:`Research` and its result model.

The HTTP routes (``GET /api/v3/<name>``), the CLI commands (``gantha <name>``) and the MCP tools are
generated from these declarations (:mod:`gantha.api.routes.verbs`, :mod:`gantha.api.cli`,
:mod:`gantha.tools`), so a parameter, its bounds and its help are written here only. The first line of a
verb's doc is its summary; the whole doc is written for the model that calls the tool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Field, create_model

from gantha.budget import MAX_BYTES, MIN_BYTES, fit, lean
from gantha.model import CompactSearchResponse, SearchResponse, comma_list
from gantha.research import (
    ChapterResult,
    DistResult,
    FormsResult,
    GetResult,
    LinksResult,
    OutlineResult,
    Research,
    SuggestResult,
    VersionsResult,
    WordResult,
)
from gantha.research.citing import CiteResult, cite
from gantha.research.desk import CollocatesResult, ConcordanceResult, DeskQuery, ProfileResult
from gantha.research.desk.concordance import SORT_KEYS
from gantha.research.similar import MAX_SIMILAR_CHARS
from gantha.search.errors import SearchError
from gantha.search.present import HIT_FIELDS, compact, unrepeated
from gantha.text.pali import canon

Names = Annotated[list[str], BeforeValidator(comma_list)]
Word = Annotated[str, Field(min_length=1, max_length=200, description="a Pali word, with or without diacritics")]
Coordinate = Annotated[
    str,
    Field(min_length=1, max_length=200, description="a coordinate (cst/vin02m3.mul/75) or a reference (MN 10)"),
]


class Budget(BaseModel):
    """The reply budget every verb takes (:mod:`gantha.budget`); :class:`Verb` adds it to their parameters."""

    max_bytes: int | None = Field(
        None, ge=MIN_BYTES, le=MAX_BYTES, description="reply budget in bytes; what is cut to fit is named in omitted"
    )


class FormsParams(BaseModel):
    word: Word
    compounds: bool = Field(True, description="list the compounds holding the lemma")
    derivatives: bool = Field(True, description="list the lemma's derivatives (pārivāsika of parivāsa)")
    unattested: bool = Field(False, description="list the proposed forms the texts never write")


class WordParams(BaseModel):
    word: Word


class DistParams(BaseModel):
    forms: Names = Field(default_factory=list, description="exact forms, comma-separated or repeated")
    lemma: str | None = Field(None, max_length=200, description="expand this lemma to its attested forms")
    bold: bool = Field(False, description="count only bold occurrences")
    category: Names = Field(default_factory=list, description="mula, atthakatha, tika, anya")


class GetParams(BaseModel):
    coordinates: Names = Field(min_length=1, max_length=200, description="e.g. cst/vin02m3.mul/75, MN 10")
    channel: Names = Field(
        default_factory=list, description="channels: pali, my, en, pli-ms, kjv, cuv (default: the original)"
    )
    tokens: bool = Field(False, description="add each Pali word's lemma and grammar")
    display: bool = Field(False, description="add display: the text as Markdown (**bold**, [^n] notes) if it differs")


class ChapterParams(BaseModel):
    coordinate: Coordinate
    confirm: bool = Field(False, description="return the text, not only its size")
    channel: str = Field("pali", description="the channel to read: pali, my, en …")
    script: str = Field("Roman", description="Pali: Roman, Burmese, Sinhala, Thai, Devanagari; Chinese: Hant, Hans")
    section: bool = Field(False, description="only the innermost heading's section")


class OutlineParams(BaseModel):
    coordinate: str = Field(
        min_length=1,
        max_length=200,
        description="a corpus (cst), a book (cst/vin02m3.mul), a node (cst/vin02m3.mul/ch3.2), a paragraph or MN 10",
    )
    summaries: bool = Field(True, description="give each node its extractive summary")


class VersionsParams(BaseModel):
    coordinate: Coordinate


class SuggestParams(BaseModel):
    q: str = Field(min_length=1, max_length=200, description="the beginning of a word, a Chinese term or a page ref")
    type: Literal["term", "pali_romanized", "page_ref"] = "term"
    limit: int = Field(10, ge=1, le=50, description="suggestions, 1–50")
    language: str | None = Field(None, description="language of the suggestions: pali (default) or zh")


class SimilarParams(BaseModel):
    sentence: str = Field(
        min_length=1, max_length=MAX_SIMILAR_CHARS, description="a Pali sentence, any inflection or sandhi"
    )
    limit: int = Field(10, ge=1, le=100, description="sentences, 1–100")
    offset: int = Field(0, ge=0, le=1000, description="sentences to skip, 0–1,000")
    book: Names = Field(default_factory=list, description="book ids, e.g. vin02m3.mul")
    category: Names = Field(default_factory=list, description="mula, atthakatha, tika, anya")
    min_similarity: float = Field(0.0, ge=0, le=1, description="leave out sentences less similar than this, 0–1")
    fields: Names = Field(
        default_factory=list,
        description=f"keep only these fields of each hit (compact results), any of: {', '.join(HIT_FIELDS)}",
    )


class LinksParams(BaseModel):
    coordinate: str = Field(
        min_length=1,
        max_length=200,
        description="any reference get takes: cst/vin02m3.mul/75, …/75-110, …/ch2, MN 10, mahāva. 86, PTS Vin II 31",
    )
    kind: Names = Field(
        default_factory=list,
        description="root, commentary, subcommentary, cites, cited_by, parallels, variants (default: all)",
    )
    limit: int = Field(10, ge=0, le=100, description="links of each kind, 0–100 (0: only the totals)")
    offset: int = Field(0, ge=0, le=10_000, description="links of each kind to skip, 0–10,000")


def _dist(r: Research, p: DistParams) -> DistResult:
    if not p.forms and not p.lemma:
        raise SearchError("empty_query", "give forms or a lemma")
    return r.dist(p.forms, lemma=p.lemma, bold_only=p.bold, categories=p.category)


def _get(r: Research, p: GetParams) -> GetResult:
    """The original text unless channels are named; ``display`` only when asked for (it repeats the text)."""
    res = r.get(p.coordinates, p.channel or None, p.tokens)
    if not p.display:
        for item in res.items:
            item.display = None
    return res


def _similar(r: Research, p: SimilarParams) -> SearchResponse:
    res = r.similar(p.sentence, p.limit, p.offset, p.min_similarity, books=p.book, categories=p.category)
    if not p.fields:
        return res
    return CompactSearchResponse.model_validate(compact(res.model_dump(exclude_none=True), p.fields))


@dataclass(frozen=True)
class Verb:
    """One research verb: its name on every surface, its parameters, its handler and its result."""

    name: str
    doc: str
    params: type[BaseModel]
    result: Any  # a model, or a union of models
    run: Callable[[Research, Any], BaseModel]
    arguments: tuple[str, ...] = ()  # the parameters the CLI takes positionally
    tool: str = ""  # the MCP tool's name where it differs
    route: str = ""  # the HTTP route's last segment where it differs

    def __post_init__(self) -> None:
        if not issubclass(self.params, Budget):  # every verb takes the reply budget
            budgeted = create_model(self.params.__name__, __base__=(Budget, self.params), __module__=__name__)
            object.__setattr__(self, "params", budgeted)

    def reply(self, result: BaseModel, params: BaseModel) -> dict[str, Any]:
        """A result as JSON data; with a budget (``max_bytes``), lean (no empty or repeated fields) and cut
        to fit it."""
        data = result.model_dump(mode="json", exclude_none=True)
        budget = getattr(params, "max_bytes", None)
        return data if budget is None else fit(lean(unrepeated(data)), budget)

    @property
    def summary(self) -> str:
        return self.doc.split("\n")[0].rstrip(".")

    @property
    def tool_name(self) -> str:
        return self.tool or self.name

    @property
    def path(self) -> str:
        return f"/api/v3/{self.route or self.name}"


VERBS = (
    Verb(
        "forms",
        "Expand a Pali word to its lemma and every form attested in the canon.\n\n"
        "A verb's participles, gerundives and absolutives included, with paragraph and bold counts and "
        "which source proposed each form; its derivatives apart (-ika, -ya, -in, -tā, -tta: pārivāsika of "
        "parivāsa, aniccatā of anicca), each with its forms, counts and the evidence that it is the lemma's "
        "(derivatives=false: none); the compounds holding the lemma apart, with their members "
        "(compounds=false: none); the forms the tables propose that never occur only with "
        "unattested=true. Use before an exact search.",
        FormsParams,
        FormsResult,
        lambda r, p: r.forms(p.word, compounds=p.compounds, unattested=p.unattested, derivatives=p.derivatives),
        ("word",),
    ),
    Verb(
        "word",
        "Dictionary meanings and morphology of a Pali word.\n\n"
        "Meanings in English, Chinese and Sinhala; the word's lemma, case and number.",
        WordParams,
        WordResult,
        lambda r, p: r.word(p.word),
        ("word",),
    ),
    Verb(
        "dist",
        "How the paragraphs holding these forms spread over books.\n\n"
        "Title, category (root text / commentary / subcommentary), tags and counts of each book, most "
        "first. Give forms or a lemma.",
        DistParams,
        DistResult,
        _dist,
        ("forms",),
    ),
    Verb(
        "get",
        "Paragraphs by coordinate, with citations.\n\n"
        "Each with its heading path, the page refs of every edition and ready citations. A channel "
        'without text there comes back with status "missing": say so rather than translate yourself.',
        GetParams,
        GetResult,
        _get,
        ("coordinates",),
    ),
    Verb(
        "chapter",
        "The chapter around a coordinate: its size, or its text with confirm.\n\n"
        "The whole sutta a reference names (MN 10), or a paragraph range (cst/vin02m3.mul/150-160); "
        "section=true: only the innermost heading's section. Check the size before asking for the text.",
        ChapterParams,
        ChapterResult,
        lambda r, p: r.chapter(p.coordinate, p.confirm, p.channel, p.script, p.section),
        ("coordinate",),
    ),
    Verb(
        "outline",
        "The outline of a text: a node, its parents and its children, with sizes and summaries.\n\n"
        "Nodes are the corpus (cst: its books), a book (cst/vin02m3.mul), its chapters (…/ch3) and their "
        "sections (…/ch3.2, …/ch3.2.1); a paragraph coordinate or a sutta reference names the smallest node "
        "holding it. Each node has its first and last paragraph, paragraphs, characters, the named text it "
        "holds whole (MN 10), an extractive summary (from the English where the canon has it) and its topic "
        "in the taxonomy with a confidence (a section: its chapter's). Use it to "
        "see what a book or chapter is about before reading it with `chapter`.",
        OutlineParams,
        OutlineResult,
        lambda r, p: r.outline(p.coordinate, p.summaries),
        ("coordinate",),
    ),
    Verb(
        "links",
        "From a paragraph to its root text, commentary, subcommentary, citations, parallels and variants.\n\n"
        "Each kind is a paged list (its total, then limit items from offset) of coordinates with a short text "
        "and the reason: root (what a commentary paragraph explains), commentary (aṭṭhakathā paragraphs on it, "
        "each with the paragraphs continuing it), subcommentary (ṭīkā), cites (paragraphs its citations name), "
        "cited_by (paragraphs citing it), parallels (paragraphs repeating a stretch of it, with the stretch; "
        "SuttaCentral's curated parallels marked curated), variants (other editions' readings with the "
        "editions named). A range or a named text (MN 10) gives the links of all its paragraphs. Use it to "
        "read what the commentaries say on a rule without reading whole chapters.",
        LinksParams,
        LinksResult,
        lambda r, p: r.links(p.coordinate, p.kind or None, p.limit, p.offset),
        ("coordinate",),
    ),
    Verb(
        "versions",
        "Channels present and missing at a coordinate.\n\n"
        "Which channels (original, translations) have text there, with language, translator and provenance.",
        VersionsParams,
        VersionsResult,
        lambda r, p: r.versions(p.coordinate),
        ("coordinate",),
    ),
    Verb(
        "suggest",
        "Complete a word, a Chinese term or a page reference.\n\n"
        "ASCII → Pali with diacritics by frequency, a Chinese term → Pali headwords, or a page reference "
        "(type page_ref).",
        SuggestParams,
        SuggestResult,
        lambda r, p: r.suggest(p.q, p.type, p.limit, p.language),
        ("q",),
        route="search-suggest",
    ),
    Verb(
        "similar",
        "Sentences whose lemmas match this one, whatever the inflection and sandhi.\n\n"
        "Each with a 0–1 similarity (1.0: the same lemmas in the same order). For finding parallels. "
        "Most of a long answer is often far from the sentence: ask min_similarity=0.5 and "
        'fields=["coordinate","snippet","similarity"] for an agent-sized one.',
        SimilarParams,
        SearchResponse | CompactSearchResponse,
        _similar,
        ("sentence",),
        tool="similar_sentences",
    ),
)


class CiteParams(BaseModel):
    coordinate: Coordinate
    format: str | None = Field(None, pattern="^(bibtex|ris|csl-json)$", description="bibtex, ris or csl-json")
    style: Names = Field(default_factory=list, description="CSL styles: apa, mla, chicago … (default: apa, mla)")


VERBS = (
    *VERBS,
    Verb(
        "cite",
        "A passage, range or named text cited as scholars write it, or exported.\n\n"
        "Reference, book, chapter, CST paragraphs, the PTS and VRI pages it begins and ends on "
        "(S V 420–421), reference-list entries in CSL styles; format: BibTeX, RIS or CSL-JSON.",
        CiteParams,
        CiteResult,
        lambda r, p: cite(r, p.coordinate, p.format, p.style),
        ("coordinate",),
    ),
)


class DeskParams(BaseModel):
    """What the desk's three views look for, with search's filters."""

    q: str = Field(
        "", max_length=200, description='a word, a "phrase", word NEAR/5 word; with lemma=true one lemma (parivāsa)'
    )
    lemma: bool = Field(False, description="q is a lemma: its forms, derivatives and compounds")
    forms: Names = Field(default_factory=list, description="exact forms, comma-separated (instead of q)")
    mode: Literal["fuzzy", "exact"] = Field("fuzzy", description="fuzzy: diacritics and inflections free")
    inflections: bool = Field(True, description="fuzzy mode: a word matches every attested form of its lemma")
    compounds: bool = Field(True, description="a lemma: the compounds it stands in count too")
    derivatives: bool = Field(True, description="a lemma: its derivatives count too (pārivāsika of parivāsa)")
    book: Names = Field(default_factory=list, description="book ids, e.g. vin02m3.mul")
    category: Names = Field(default_factory=list, description="layers: mula, atthakatha, tika, anya")
    tags: Names = Field(default_factory=list, description="book tags (vinaya, sutta …)")
    topic: Names = Field(default_factory=list, description="taxonomy categories of the chapters")

    def query(self) -> DeskQuery:
        if not self.q.strip() and not self.forms:
            raise SearchError("empty_query", "give a word (q) or forms")
        return DeskQuery(
            q=self.q,
            lemma=self.lemma,
            forms=self.forms,
            mode=self.mode,
            inflections=self.inflections,
            compounds=self.compounds,
            derivatives=self.derivatives,
            books=self.book,
            categories=self.category,
            tags=self.tags,
            topics=self.topic,
        )


class ConcordanceParams(DeskParams):
    sort: Names = Field(
        default_factory=list,
        description="book (default), form, right1–right3, left1–left3; right1 alone sorts by right1, right2, right3",
    )
    context: int = Field(6, ge=1, le=30, description="words either side of the form, 1–30")
    limit: int = Field(50, ge=1, le=1000, description="lines per page, 1–1,000")
    offset: int = Field(0, ge=0, le=1_000_000, description="lines to skip")
    collocate: str | None = Field(None, max_length=200, description="only lines with this lemma within window words")
    window: int = Field(5, ge=1, le=20, description="collocate: words either side, 1–20")
    format: Literal["json", "tsv", "csv"] = Field(
        "json", description="tsv, csv: every line as a file with its coordinate (HTTP, CLI)"
    )


class CollocatesParams(DeskParams):
    measure: Literal["logdice", "mi", "tscore"] = Field(
        "logdice", description="logdice (default: independent of corpus size, neither rare nor ubiquitous words lifted)"
    )
    window: int = Field(5, ge=1, le=20, description="words either side of each occurrence, 1–20")
    min_freq: int = Field(3, ge=1, le=10_000, description="co-occurrences a collocate needs at least")
    limit: int = Field(50, ge=1, le=500, description="collocates, 1–500")


class ProfileParams(DeskParams):
    format: Literal["json", "csv", "png", "svg"] = Field(
        "json", description="csv: the table; png, svg: a bar chart (HTTP, CLI)"
    )


def _concordance(r: Research, p: ConcordanceParams) -> ConcordanceResult:
    bad = [s for s in p.sort if s not in SORT_KEYS]
    if bad:
        raise SearchError("invalid_parameter", f"unknown sort {bad[0]!r}; one of {', '.join(SORT_KEYS)}")
    return r.concordance(
        p.query(),
        sort=p.sort,
        context=p.context,
        limit=p.limit,
        offset=p.offset,
        fmt=p.format,
        collocate=canon(p.collocate) if p.collocate else None,
        window=p.window,
    )


VERBS = (
    *VERBS,
    Verb(
        "concordance",
        "Every occurrence of a word, one line each, the form centred between its context (a concordance).\n\n"
        "q is a word (every inflected form in fuzzy mode), a phrase or NEAR; lemma=true: the lemma with its "
        "derivatives and compounds; forms: exact forms. Each line has its coordinate; sort by the words right "
        "(right1, right2, right3) or left of the form, by form, or in book order (default); the counts of each "
        "form and the paragraphs per book come with every page. collocate: only the lines where that lemma "
        "stands within window words (the links of `collocates`). format tsv/csv: every line as a file.",
        ConcordanceParams,
        ConcordanceResult,
        _concordance,
        ("q",),
    ),
    Verb(
        "collocates",
        "The words that keep a word company, by lemma, ranked by an association measure.\n\n"
        "Lemmas within window words of its occurrences (a compound's other members count: suddhanta in "
        "suddhantaparivāsa), with their co-occurrences, corpus frequency, forms and a link to their "
        "concordance lines. measure: logdice (default: the same scale in a subcorpus as in the canon, lifting "
        "neither words seen once nor the particles everywhere), mi (favours rare words), tscore (frequent ones).",
        CollocatesParams,
        CollocatesResult,
        lambda r, p: r.collocates(p.query(), measure=p.measure, window=p.window, min_freq=p.min_freq, limit=p.limit),
        ("q",),
    ),
    Verb(
        "profile",
        "Where a word is dense or rare: its occurrences per layer, collection and book, per 10,000 words.\n\n"
        "Root texts, commentaries, subcommentaries and other books; each collection (Vinayapiṭaka, Dīghanikāya "
        "…) and every book, with its size in words. format csv: the table; png/svg: a bar chart.",
        ProfileParams,
        ProfileResult,
        lambda r, p: r.profile(p.query(), p.format),
        ("q",),
    ),
)
