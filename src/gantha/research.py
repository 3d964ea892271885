"""The research verbs: forms, word, search by forms, dist, get, chapter, versions, suggest.

Each returns a pydantic model that the CLI prints, the HTTP API returns and the MCP tools hand to a
model. Every text returned carries a coordinate that ``get`` resolves to the same text.
"""

from __future__ import annotations

import html
import os
import re
import time
from dataclasses import replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from gantha.config import settings
from gantha.corpus.bible import parse_reference
from gantha.model import (
    Coordinate,
    CoordinateError,
    Hit,
    Passage,
    QueryInfo,
    SearchMode,
    SearchRequest,
    SearchResponse,
    TextRecord,
)
from gantha.search.fusion import rrf
from gantha.search.highlight import snippet
from gantha.search.rerank import Calibration, EmbeddingReranker, Judge
from gantha.search.semantic import SemanticRoute, VectorsUnreadable
from gantha.search.service import Searcher, SearchError
from gantha.search.words import Family, FormInfo, LemmaCandidate, Words
from gantha.store.base import Clause, Store, StoreQuery
from gantha.store.factory import open_store
from gantha.store.lexicon import Lexicon
from gantha.text import chinese
from gantha.text.chinese import has_chinese, to_simplified
from gantha.text.inflect import analyse, grammar_label, grammar_short
from gantha.text.pali import SCRIPTS, WORD_RE, canon, fold, from_roman, normalize_query_text
from gantha.text.refs import citation_pages, cite_page, covering_uid, parse_page_ref, parse_text_ref
from gantha.text.sentences import SENTENCE_SUFFIX, similarity
from gantha.text.sentences import split as split_sentences

MAX_COORDINATES = 100
MAX_BRIDGES = 3  # Pali lemmas one query may bridge to
COMMON_BRIDGE = 0.01  # share of the Pali paragraphs above which a term inside a longer query is not bridged
MAX_CHAPTER_PARAGRAPHS = 5000
SIMILAR_CANDIDATES = 300  # paragraphs examined for similar sentences
SENTENCE_PARAGRAPHS = 1000  # paragraphs split for a sentence-granularity search
PARAGRAPH_RANGE = re.compile(r"^([^/]+/[^/]+)/(\d+)-(\d+)$")  # cst/vin02m3.mul/150-160
MAX_RANGE = 500  # paragraphs a range may span
LISTED_COMPOUNDS = 50  # compounds named in a lemma search's query_info (the most frequent; all in `forms`)
CJK = re.compile(r"[\u3400-\u9fff]")


# --- results -------------------------------------------------------------------------------------------


class FormsResult(BaseModel):
    query: str
    lemma: str | None
    lemmas: list[LemmaCandidate]
    forms: list[FormInfo]  # inflected forms (a verb's participles, gerundives … among them), attested
    compounds: list[FormInfo] = Field(default_factory=list)  # attested compounds holding the lemma, with members
    total_paragraphs: int = 0  # paragraphs holding any inflected form
    compound_paragraphs: int = 0  # paragraphs holding a form or a compound
    unattested_count: int = 0  # forms the tables propose that the texts never write
    unattested: list[str] | None = None  # those forms, on request
    message: str | None = None


class Entry(BaseModel):
    word: str
    dictionary: str
    language: str
    pos: str
    grammar: str
    meanings: list[str]
    note: str = ""
    factors: str = ""


class Morphology(BaseModel):
    lemma: str
    pos: str
    grammar: str
    probability: float
    source: str


class WordResult(BaseModel):
    query: str
    word: str
    entries: list[Entry]
    morphology: list[Morphology]
    lemmas: list[str]
    message: str | None = None


class BookCount(BaseModel):
    book: str
    title: str
    category: str
    tags: list[str]
    count: int


class DistResult(BaseModel):
    forms: list[str]
    total: int
    books: list[BookCount]
    by_category: dict[str, int]
    query_info: dict[str, Any] = Field(default_factory=dict)


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


class ChapterPassage(BaseModel):
    coordinate: str
    para: str
    kind: str
    text: str
    display: str
    page_starts: list[str] = Field(default_factory=list)  # edition pages beginning in this paragraph


class ChapterResult(BaseModel):
    coordinate: str
    book: str
    book_title: str
    chapter: str
    channel: str
    paragraphs: int
    characters: int
    approx_tokens: int
    confirmed: bool
    passages: list[ChapterPassage] | None = None
    message: str | None = None


class ChannelStatus(BaseModel):
    channel: str
    language: str
    type: str
    author: str
    licence: str
    provenance: str
    status: str  # available | part_of | missing
    anchor: str | None = None


class VersionsResult(BaseModel):
    coordinate: str
    channels: list[ChannelStatus]


class Suggestion(BaseModel):
    text: str
    kind: str  # pali | dictionary | page_ref
    count: int = 0
    note: str | None = None
    pali: str | None = None  # the Pali word (the original API's fields)
    romanized: str | None = None  # the Pali word without diacritics
    frequency: int | None = None  # paragraphs holding it


class SuggestResult(BaseModel):
    q: str
    type: str
    suggestions: list[Suggestion]


def _is_pali_text(passages: list[Passage]) -> bool:
    """Whether a chapter's passages are Pali (transliterable), not a translation."""
    return bool(passages) and passages[0].language == "pali"


def chapter_name(title: str) -> str:
    """``2. Pārivāsikakkhandhakaṃ`` → ``Pārivāsikakkhandhaka`` (number and nominative ending dropped)."""
    name = re.sub(r"^[\d\-–.()\s]+", "", title).strip()
    return name[:-1] if name.endswith("ṃ") else name


def _mark_tokens(text: str, marked: set[int]) -> str:
    """HTML-escaped text with the words at these token positions in <mark>."""
    out, pos = [], 0
    for i, m in enumerate(WORD_RE.finditer(text)):
        if i in marked:
            out += [html.escape(text[pos : m.start()]), f"<mark>{html.escape(m.group())}</mark>"]
            pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _section_of(passages: list[Passage], p: Passage) -> list[Passage]:
    """The contiguous passages around ``p`` that stand under the same headings."""
    at = next((i for i, x in enumerate(passages) if x.seq == p.seq), None)
    if at is None:
        return [p]
    start = at
    while start > 0 and passages[start - 1].path == p.path:
        start -= 1
    end = at
    while end + 1 < len(passages) and passages[end + 1].path == p.path:
        end += 1
    return passages[start : end + 1]


def _anchor(coordinate: str) -> str | None:
    """``…/75.3`` → ``…/75``: the numbered paragraph an unnumbered one follows (None for a numbered one)."""
    base, _, para = coordinate.rpartition("/")
    head, sep, _ = para.rpartition(".")
    return f"{base}/{head}" if sep and head != "0" else None


# --- the verbs -----------------------------------------------------------------------------------------


class Research:
    """The research verbs over one index and its lexicon."""

    @classmethod
    def open(cls, location: str | Path, embedder: str | None = None, fusion: str | None = None) -> Research:
        """The verbs over the index at ``location`` (a folder or a database URL); embedder and fusion
        default to the settings."""
        s = settings()
        store = open_store(location, create=False)
        problem = None
        try:
            semantic = SemanticRoute.open(store, embedder or s.embedder)
        except VectorsUnreadable as exc:  # lexical search and the verbs answer; meaning search says why not
            semantic, problem = None, str(exc)
        research = cls(store, store.lexicon(), semantic, fusion or s.fusion)
        research.searcher.vector_problem = problem
        return research

    def __init__(self, store: Store, lexicon: Lexicon, semantic: SemanticRoute | None = None, fusion: str = "rrf"):
        self.store = store
        self.lexicon = lexicon
        judge = (
            Judge(EmbeddingReranker(semantic.embedder, semantic.vectors), Calibration.load(store)) if semantic else None
        )
        self.words = Words(lexicon, store)
        inflect = self.words.inflection if lexicon is not None else None
        self.searcher = Searcher(store, semantic, fusion, judge, inflect=inflect)
        self._analyse = lru_cache(maxsize=65536)(self._analyse_uncached)

    @cached_property
    def _pali_paragraphs(self) -> int:
        return self.store.search(StoreQuery(filters={"channel": ["pali"]}, limit=1, aggregate=())).total

    @property
    def judge(self) -> Judge | None:
        """The reranker and its calibration (None without vectors)."""
        return self.searcher.judge

    # forms ---------------------------------------------------------------------------------------

    def lemmas(self, word: str) -> list[LemmaCandidate]:
        """Candidate lemmas of a form, most likely first."""
        return self.words.lemmas(word)

    def _resolve(self, word: str) -> str:
        """Canonical form of typed input; diacritic-free input becomes its most frequent written form."""
        word, _ = normalize_query_text(word)
        word = word.strip()
        if word == fold(word) and not self.lexicon.is_lemma(word) and not self.lexicon.bases_of(word):
            written = self.store.forms_by_fold(word)
            if written:
                return written[0][0]
        return word

    def _count(self, field: str, forms: list[str]) -> int:
        """Paragraphs of the Pali original holding any of these forms in a field (exact, bold_exact)."""
        query = StoreQuery(must=[Clause(field, forms)], filters={"channel": ["pali"]}, limit=1, aggregate=())
        return self.store.search(query).total

    def _likely_lemma(self, word: str) -> tuple[str, list[LemmaCandidate], str]:
        """Typed input as written (``_resolve``), its candidate lemmas, and the most likely one."""
        word = self._resolve(word)
        candidates = self.lemmas(word)
        return word, candidates, candidates[0].lemma if candidates else word

    def family(self, word: str, compounds: bool = True) -> Family:
        """The attested forms (and compounds) of the most likely lemma of ``word``."""
        return self.words.family(self._likely_lemma(word)[2], compounds)

    def forms(self, word: str, compounds: bool = True, unattested: bool = False) -> FormsResult:
        """The candidate lemmas of ``word`` and every attested form of the best one, the compounds it
        stands in apart (``compounds``), the forms the tables propose in vain on request (``unattested``)."""
        query = word
        word, candidates, lemma = self._likely_lemma(word)
        family = self.words.family(lemma, compounds)
        total = self._count("exact", family.words(False)) if family.forms else 0
        with_compounds = self._count("exact", family.words()) if family.compounds else total
        message = None
        if not family.forms:
            message = (
                f"no form of {lemma!r} occurs in the indexed texts"
                if candidates or family.unattested
                else f"{word!r} is not known to the lexicon; load it with `gantha ingest wordstats|grammar|dict`"
            )
        return FormsResult(
            query=query,
            lemma=lemma if (candidates or family.forms) else None,
            lemmas=candidates,
            forms=[f.model_copy() for f in family.forms],
            compounds=[f.model_copy() for f in family.compounds],
            total_paragraphs=total,
            compound_paragraphs=with_compounds,
            unattested_count=len(family.unattested),
            unattested=family.unattested if unattested else None,
            message=message,
        )

    # word ----------------------------------------------------------------------------------------

    def word(self, word: str) -> WordResult:
        """Dictionary meanings of a word and, when it is an inflected form, its morphology."""
        query = word
        word = self._resolve(word)
        entries = self.lexicon.entries(word) or (self.lexicon.entries(word, folded=True) if word == fold(word) else [])
        candidates = self.lemmas(word)
        morphology: list[Morphology] = []
        lemma_names = [c.lemma for c in candidates if c.lemma != word]
        if lemma_names and candidates[0].lemma != word:  # an inflected form (a headword is its own lemma)
            top = lemma_names[0]
            genders = {e.grammar for e in self.lexicon.entries(top) if e.grammar}
            for a in analyse(word, self.lexicon.endings, self.lexicon.sandhi):
                if a.lemma != top:
                    continue
                gender = a.grammar.split("$")[0]
                if genders and gender.startswith((".m.", ".f.", ".nt.")) and gender not in genders:
                    continue
                morphology.append(
                    Morphology(
                        lemma=a.lemma,
                        pos=a.pos.strip("."),
                        grammar=grammar_label(a.grammar),
                        probability=a.probability,
                        source=a.source,
                    )
                )
            if not morphology:  # a participle: analysed through its stem (parivasanto → parivasanta → parivasati)
                best = candidates[0]
                morphology = [
                    Morphology(lemma=top, pos="", grammar=g, probability=best.score, source=best.sources[0])
                    for g in best.grammar
                ]
            for name in lemma_names[:3]:
                entries += self.lexicon.entries(name)
        message = None if entries or morphology else f"{word!r} is in none of the loaded dictionaries"
        return WordResult(
            query=query,
            word=word,
            lemmas=lemma_names,
            entries=[
                Entry(
                    word=e.word,
                    dictionary=e.dictionary,
                    language=e.language,
                    pos=e.pos,
                    grammar=e.grammar,
                    meanings=e.meanings,
                    note=e.note,
                    factors=e.factors,
                )
                for e in entries
            ],
            morphology=morphology,
            message=message,
        )

    # search --------------------------------------------------------------------------------------

    @cached_property
    def synonyms(self) -> dict[str, str]:
        """Term → Pali lemma: the list shipped with gantha, then the file named by GANTHA_SYNONYMS."""
        files = [Path(__file__).parent / "data" / "synonyms.tsv"]
        if extra := os.environ.get("GANTHA_SYNONYMS"):
            files.append(Path(extra))
        out: dict[str, str] = {}
        for f in files:
            for line in f.read_text(encoding="utf-8").splitlines():
                term, _, lemma = line.partition("\t")
                if lemma.strip() and not term.startswith("#"):
                    out[to_simplified(term.strip()).lower()] = canon(lemma.strip())
        return out

    def bridges(self, text: str) -> list[dict[str, Any]]:
        """Pali lemmas (with their attested forms) that a Chinese or English query names.

        The whole query first; failing that, each Chinese term inside a longer Chinese query
        (``佛陀关于四圣谛的教导`` → 四圣谛 → ariyasacca). A lemma spelt with ``ṇ`` where the texts
        write ``n`` (bhikkhuṇī → bhikkhunī) takes the spelling the texts use.
        """
        found = [(text, lemma, source) for lemma, source in self.lexicon.bridge(text, self.synonyms)]
        inside = not found and has_chinese(text)
        if inside:  # the query's own terms, one lemma each
            for term, _, _ in chinese.tokens(text):
                if term in chinese.FUNCTION_WORDS:
                    continue
                if len(term) > 1 and (named := self.lexicon.bridge(term, self.synonyms)):
                    found.append((term, *named[0]))
        out: list[dict[str, Any]] = []
        for term, lemma, source in found:
            spellings = dict.fromkeys([lemma, lemma.replace("ṇ", "n")])
            expansion = max((self.forms(s, compounds=False) for s in spellings), key=lambda f: f.total_paragraphs)
            lemma = expansion.lemma or lemma
            if inside and expansion.total_paragraphs > COMMON_BRIDGE * self._pali_paragraphs:
                continue  # a word of every other paragraph (佛陀, 比丘) says nothing about the question
            if expansion.forms and all(b["to"] != lemma for b in out):
                forms = [f.form for f in expansion.forms]
                out.append({"from": term, "to": lemma, "source": source, "forms": forms})
        return out[:MAX_BRIDGES]

    def _bridge_ranking(self, bridges: list[dict[str, Any]], req: SearchRequest, depth: int) -> list:
        """The Pali passages holding a bridged lemma's forms, under the request's filters, best first."""
        forms = sorted({f for b in bridges for f in b["forms"]})
        only_forms = {"q": "", "forms": forms, "limit": depth, "offset": 0, "mode": SearchMode.FUZZY}
        sq, _, _ = self.searcher.plan(req.model_copy(update=only_forms))
        return [(h.passage.doc_id, h.score) for h in self.store.search(sq).hits]

    def verse(self, reference: str) -> str:
        """The coordinate of a verse reference (``Rom 3:24``, ``罗马书 3:24``) among the indexed Bibles."""
        books = self.store.books("bible", channel=None)
        names = {alias: rec.info.book for rec in books.values() for alias in rec.info.aliases}
        try:
            ref = parse_reference(reference, names, [rec.info.book for rec in books.values()])
        except ValueError as exc:  # not a reference, or an unknown book
            raise SearchError("invalid_parameter", str(exc)) from exc
        if ref.coordinate is None:
            raise SearchError("invalid_parameter", f"{reference!r} names a chapter; give a verse (e.g. Rom 3:24)")
        return ref.coordinate

    def _related(self, req: SearchRequest) -> SearchResponse:
        """The paragraphs of a named text (``MN 10``: Pali, English beside), or every channel's text of a verse."""
        started = time.perf_counter()
        if named := self.named(req.related_id or ""):
            paragraphs = self.store.book_passages(named.corpus, named.book, "pali", (named.first_seq, named.last_seq))
            page = paragraphs[req.offset : req.offset + req.limit]
            hits = [
                self.searcher.hit(p, rank, html.escape(p.text), 1.0)
                for rank, p in enumerate(page, start=req.offset + 1)
            ]
            self.searcher.attach_translations(hits, set())
            info = QueryInfo(
                original=req.related_id or "",
                mode=req.mode,
                normalized=f"{named.label} = {named.corpus}/{named.book}/{named.first_para}–{named.last_para}",
                routes=["reference"],
            )
            return SearchResponse.timed(started, len(paragraphs), hits, info)
        coordinate = self.verse(req.related_id or "")
        channels = [c.name for c in self.store.all_channels()]
        passages = [p for ch in channels if (p := self.store.get([coordinate], ch).get(coordinate))]
        if req.languages:
            passages = [p for p in passages if p.language.split("-")[0] in {x.split("-")[0] for x in req.languages}]
        hits = [Hit.of(p, i, html.escape(p.text), 1.0) for i, p in enumerate(passages, start=1)]
        info = QueryInfo(original=req.related_id or "", mode=req.mode, normalized=coordinate, routes=["reference"])
        return SearchResponse.timed(time.perf_counter(), len(hits), hits, info)

    def search(self, req: SearchRequest, lemma: str | None = None) -> SearchResponse:
        """Search, expanding ``lemma`` to its attested forms first; explain an empty answer."""
        if req.related_id:
            return self._related(req)
        bridges = (
            self.bridges(req.q)
            if req.q.strip()
            and not (lemma or req.forms or req.page_ref)
            and req.mode != "exact"
            and req.granularity != "sentence"
            and not self.searcher.is_pali(req.q)
            else []
        )
        if bridges:
            return self._bridged(req, bridges)
        family = None
        if lemma:
            family = self.family(lemma, req.compounds)
            if not family.forms:
                raise SearchError("unattested_lemma", f"no attested forms of {lemma!r} (see `gantha forms {lemma}`)")
            req = req.model_copy(update={"forms": [*req.forms, *family.words()]})
        res = self._sentence_search(req) if req.granularity == "sentence" else self.searcher.search(req, family)
        if family:
            res.query_info.lemma = {
                "lemma": family.lemma,
                "forms": family.words(False),
                "compounds": [f.form for f in family.compounds[:LISTED_COMPOUNDS]],
                "compound_count": len(family.compounds),
                "sources": sorted({s for f in family.forms for s in f.sources}),
            }
            res.query_info.forms = []  # listed once, under lemma
        if res.outcome == "past_end":
            res.message = f"no hits on this page: {res.total:,} in all, and the page starts at hit {req.offset + 1:,}"
        if res.total == 0 and "none" in res.query_info.filters.get("channel", []) + res.query_info.filters.get(
            "corpus", []
        ):
            res.message = f"this index holds no documents of resource type {', '.join(req.resource_types)}"
            return res
        if res.total == 0 and req.mode in ("fuzzy", "exact") and not (lemma or req.forms or req.page_ref):
            self._did_you_mean(res)
        if res.total == 0 and req.languages and not req.corpora and not req.books:
            res.message = (
                f"no {', '.join(req.languages)} text matches in the default scope (the Tipiṭaka and its "
                "translations); other corpora answer when asked for (resource_type / --corpus: bible, md)"
            )
        elif res.total == 0 and req.mode in ("fuzzy", "exact"):
            words = res.query_info.forms or res.query_info.terms
            for w in words:
                headword = canon(w) if res.query_info.field == "exact" else w
                if self.lexicon.is_lemma(headword) or self.lexicon.entries(headword, folded=True):
                    attested = self.forms(headword)
                    res.outcome = "unattested_form"
                    res.message = (
                        f"{headword!r} is a dictionary headword, but this form does not occur in the "
                        f"indexed texts; its attested forms are listed in suggestions "
                        f"(see `gantha forms {headword}`)"
                    )
                    res.suggestions = [f.form for f in attested.forms[:20]]
                    break
        return res

    def _did_you_mean(self, res: SearchResponse) -> None:
        """For a query without hits: the attested words nearest to the first word the texts never write."""
        for word in res.query_info.terms:
            folded = fold(word)
            if self.store.forms_by_fold(folded):
                continue
            near = self.store.nearest_words(folded)
            if near:
                res.suggestions = [form for form, _ in near]
                res.message = (
                    f"no hits: {word!r} does not occur in the texts; did you mean {', '.join(res.suggestions)}?"
                )
            return

    def _bridged(self, req: SearchRequest, bridges: list[dict[str, Any]]) -> SearchResponse:
        """The query's own route fused (RRF) with the Pali passages of the lemmas it names."""
        if req.mode in ("semantic", "hybrid"):
            bridge = self._bridge_ranking(bridges, req, max(50, req.offset + req.limit))
            res = self.searcher.search_fused(req, extra=[bridge], extra_routes=["bridge"])
        else:  # the query's own words, or a form of a bridged lemma: exact totals and aggregations from one
            # store query, the page from the two rankings fused (their scores are not comparable)
            started = time.perf_counter()
            forms = sorted({f for b in bridges for f in b["forms"]})
            sq, info, analysed = self.searcher.plan(req)
            own = list(sq.must)
            count = replace(sq, must=[], alternatives=[g for g in (own, [Clause("exact", forms)]) if g], limit=1)
            result = self.store.search(count)
            depth = max(50, req.offset + req.limit)
            rankings = [
                [h.passage.doc_id for h in self.store.search(replace(sq, limit=depth, offset=0, aggregate=())).hits]
                if own
                else [],
                [d for d, _ in self._bridge_ranking(bridges, req, depth)],
            ]
            page = rrf(rankings)[req.offset : req.offset + req.limit]
            passages = self.store.get_ids([d for d, _ in page])
            terms = set(forms) | {canon(t) for t in analysed.terms}
            hits = [
                self.searcher.hit(p, rank, snippet(p.text, canon, terms)[0], round(score, 4))
                for rank, (d, score) in enumerate(page, req.offset + 1)
                if (p := passages.get(d))
            ]
            info.routes, info.fusion = ["lexical", "bridge"], "rrf"
            res = SearchResponse.timed(
                started, result.total, hits, info, aggregations=self.searcher.buckets(result.aggregations)
            )
        res.query_info.bridges = bridges
        return res

    def _sentence_search(self, req: SearchRequest) -> SearchResponse:
        """Sentence hits: the matching sentences of the best matching paragraphs, in their order."""
        started = time.perf_counter()
        sq, info, analysed = self.searcher.plan(req.model_copy(update={"granularity": None}))
        sq.limit, sq.offset, sq.aggregate = SENTENCE_PARAGRAPHS, 0, ()
        result = self.store.search(sq)
        analyse_word = fold if info.field == "fold" else canon
        terms = set(analysed.terms) | set(info.forms)
        found: list[tuple[Passage, int, str]] = []
        for h in result.hits:
            for k, sentence in enumerate(split_sentences(h.passage.text), start=1):
                marked, count = snippet(
                    sentence, analyse_word, terms, analysed.phrases, analysed.prefixes, width=10_000
                )
                if count:
                    found.append((h.passage, k, marked))
        if result.total > SENTENCE_PARAGRAPHS:
            info.notes.append(f"sentences of the {SENTENCE_PARAGRAPHS} best of {result.total} matching paragraphs")
        page = found[req.offset : req.offset + req.limit]
        hits = [Hit.of(p, rank, marked, 1.0, sentence=k) for rank, (p, k, marked) in enumerate(page, req.offset + 1)]
        return SearchResponse.timed(started, len(found), hits, info)

    def dist(self, forms: list[str], lemma: str | None = None, **filters: Any) -> DistResult:
        """Hits per book (with title, category and tags) for any of the forms, most first."""
        req = SearchRequest(forms=forms, limit=1, **filters)
        res = self.search(req, lemma=lemma)
        books = self.store.books()
        rows = []
        for bucket in res.aggregations.get("book", []):
            rec = books.get(f"cst/{bucket.key}")
            info = rec.info if rec else None
            rows.append(
                BookCount(
                    book=bucket.key,
                    title=info.title if info else bucket.key,
                    category=info.category if info else "",
                    tags=info.tags if info else [],
                    count=bucket.count,
                )
            )
        rows.sort(key=lambda r: (-r.count, r.book))
        return DistResult(
            forms=res.query_info.forms,
            total=res.total,
            books=rows,
            by_category={b.key: b.count for b in res.aggregations.get("category", [])},
            query_info=res.query_info.model_dump(),
        )

    def _lemma_of(self, surface: str) -> str:
        return self._analyse(surface).lemma or canon(surface)

    def similar(self, text: str, limit: int = 10, offset: int = 0, **filters: Any) -> SearchResponse:
        """Sentences whose lemma sequence matches the query's, whatever the inflection or sandhi.

        Candidate paragraphs hold a form of every query lemma; their sentences are scored by
        ``gantha.text.sentences.similarity`` (1.0: the lemmas in the same order, side by side).
        """
        started = time.perf_counter()
        normalized, steps = normalize_query_text(text)
        words = WORD_RE.findall(normalized)
        if not words:
            raise SearchError("empty_query", "give a sentence to compare with")
        lemmas = [self._lemma_of(w) for w in words]
        forms: dict[str, list[str]] = {}
        for lemma, w in zip(lemmas, words, strict=True):
            if lemma not in forms:
                attested = (
                    [f.form for f in self.forms(lemma).forms]
                    if lemma != canon(w) or self.lexicon.is_lemma(lemma)
                    else []
                )
                forms[lemma] = sorted({*attested, canon(w)})
        req = SearchRequest(limit=1, **filters)
        sq, info, _ = self.searcher.plan(req.model_copy(update={"forms": [canon(w) for w in words]}))
        sq.must = [c for c in sq.must if c.field != "exact"] + [Clause("exact", f) for f in forms.values()]
        sq.rank_first, sq.limit, sq.offset, sq.aggregate = [], SIMILAR_CANDIDATES, 0, ()
        result = self.store.search(sq)
        scored: list[tuple[float, Passage, int, str, list[int]]] = []
        for h in result.hits:
            for k, sentence in enumerate(split_sentences(h.passage.text), start=1):
                tokens = WORD_RE.findall(sentence)
                s_lemmas = [self._lemma_of(t) for t in tokens]
                score = similarity(lemmas, s_lemmas)
                if score > 0:
                    marked = [i for i, lem in enumerate(s_lemmas) if lem in forms]
                    scored.append((score, h.passage, k, sentence, marked))
        scored.sort(key=lambda t: (-t[0], t[1].book, t[1].seq, t[2]))
        hits = [
            Hit.of(p, rank, _mark_tokens(sentence, set(marked)), score, sentence=k, similarity=score)
            for rank, (score, p, k, sentence, marked) in enumerate(scored[offset : offset + limit], offset + 1)
        ]
        info.steps = steps
        info.forms = sorted({f for fs in forms.values() for f in fs})
        info.similar = {
            "lemmas": lemmas,
            "forms": forms,
            "paragraphs_examined": len(result.hits),
            "paragraphs_matching": result.total,
        }
        return SearchResponse.timed(started, len(scored), hits, info)

    # get / chapter / versions --------------------------------------------------------------------

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

    def named(self, reference: str) -> TextRecord | None:
        """The named text (sutta, rule) a reference such as ``MN 10``, ``sn56.11`` or ``Dhp 183`` points to.

        Raises SearchError when the reference is well formed but names nothing in the index.
        """
        uid = parse_text_ref(reference)
        if uid is None:
            return None
        record = self.store.text(uid)
        if record is None and (m := re.match(r"^(.*?)\d+$", uid)):
            ranges = [r.uid for r in self.store.texts(m.group(1))]
            found = covering_uid(uid, ranges)
            record = self.store.text(found) if found else None
        if record is None:
            raise SearchError(
                "not_found",
                f"{reference!r} ({uid}) is not among the indexed texts: ingest the SuttaCentral texts "
                "(`gantha ingest suttacentral PATH`) to resolve sutta references",
            )
        return record

    def resolve(self, text: str) -> str:
        """A coordinate as written, or the first paragraph of the named text a reference (``MN 10``) points to."""
        if record := self.named(text):
            return f"{record.corpus}/{record.book}/{record.first_para}"
        return str(Coordinate.parse(text))

    def citations(self, p: Passage) -> Citations:
        pages = citation_pages(p.page_refs, p.page_starts)
        refs = "; ".join(cite_page(pages[e], p.book) for e in "PVMT" if e in pages and e != "M" and e != "T")
        chapter = chapter_name(p.chapter_title) if p.chapter_title else ""
        where = ", ".join(x for x in (p.book_title, chapter) if x)
        named = self.store.text_at(p.corpus, p.book, p.seq)
        label = f"{named.label}{f' {named.title}' if named.title else ''}: " if named else ""
        default = f"{label}{where}, CST para {p.para}" + (f" ({refs})" if refs else "")
        apa = (
            f"Vipassana Research Institute. (n.d.). {p.book_title}"
            + (f": {chapter}" if chapter else "")
            + f" (CST para. {p.para}) [Pali text]. Chaṭṭha Saṅgāyana Tipiṭaka 4.0. {p.coordinate}"
        )
        mla = (
            f"{p.book_title}" + (f", “{chapter}”" if chapter else "") + f", para. {p.para}. "
            f"Chaṭṭha Saṅgāyana Tipiṭaka 4.0, Vipassana Research Institute" + (f" ({refs})." if refs else ".")
        )
        return Citations(default=default, apa=apa, mla=mla)

    def get(self, coordinates: list[str], channels: list[str] | None = None, tokens: bool = False) -> GetResult:
        """The paragraphs at these coordinates in each channel asked; absent ones say so, item by item.

        Without ``channels``: the Pali for CST coordinates, every recorded channel for other corpora.
        """
        if len(coordinates) > MAX_COORDINATES:
            raise SearchError("too_many", f"at most {MAX_COORDINATES} coordinates per call")
        parsed: list[str] = []
        items: list[GetItem] = []
        with_translations: set[str] = set()  # coordinates asked for by a sutta reference: English shown too
        for c in coordinates:
            try:
                parsed.append(self.resolve(c))
                if parse_text_ref(c):
                    with_translations.add(parsed[-1])
            except (CoordinateError, SearchError) as exc:
                parsed.append("")
                items.append(
                    GetItem(coordinate=c, channel=(channels or ["pali"])[0], status="not_found", message=str(exc))
                )
        valid = [c for c in parsed if c]
        sentences = {c: m for c in valid if (m := SENTENCE_SUFFIX.match(c.rsplit("/", 1)[1]))}
        paragraph_of = {c: (c.rsplit("/", 1)[0] + "/" + m.group("para")) for c, m in sentences.items()}
        valid = [paragraph_of.get(c, c) for c in valid]
        wanted = {c: channels or self._default_channels(c, c in with_translations) for c in valid}
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
                if ch == "pali":
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
        return GetResult(items=items)

    def _default_channels(self, coordinate: str, translations: bool = False) -> list[str]:
        corpus, _, rest = coordinate.partition("/")
        if corpus == "cst":  # the original; with its translations when asked by a sutta reference
            if not translations:
                return ["pali"]
            book = rest.rpartition("/")[0]
            records = self.store.channels(corpus, book)
            return ["pali", *sorted({r.channel.name for r in records if r.channel.type == "translation"})]
        book = rest.rpartition("/")[0]
        return [r.channel.name for r in self.store.channels(corpus, book)] or ["pali"]

    def _part_of(self, coordinate: str, channel: str) -> str | None:
        """The numbered paragraph whose text in ``channel`` covers this unnumbered one, if any."""
        anchor = _anchor(coordinate)
        return anchor if anchor and self.store.get([anchor], channel) else None

    def _pali(self, coordinate: str) -> Passage:
        """The passage at a coordinate (or a sutta reference): the Pali original, else the first channel with it."""
        c = self.resolve(coordinate)
        for channel in ["pali", *(ch.name for ch in self.store.all_channels() if ch.name != "pali")]:
            if p := self.store.get([c], channel).get(c):
                return p
        raise SearchError("not_found", f"no such coordinate: {c}")

    def chapter(
        self,
        coordinate: str,
        confirm: bool = False,
        channel: str = "pali",
        script: str = "Roman",
        section: bool = False,
    ) -> ChapterResult:
        """The chapter around a coordinate: its size, and with ``confirm`` its text (Pali in ``script``).
        A sutta reference gives that sutta; a paragraph range (``cst/vin02m3.mul/150-160``) those paragraphs;
        ``section`` only the innermost heading's section around the coordinate."""
        if script not in SCRIPTS:
            raise SearchError("invalid_parameter", f"unknown script {script!r}; one of {', '.join(SCRIPTS)}")
        if span := self._paragraph_range(coordinate, channel):
            p, passages = span[0], span
            channel = p.channel
            title = f"{p.book_title} {p.para}–{passages[-1].para}"
        else:
            p = self._pali(coordinate)
            channel = channel if p.channel == "pali" else p.channel
            if named := self.named(coordinate):  # a sutta reference: that sutta, not the chapter holding it
                passages = self.store.book_passages(p.corpus, p.book, channel, (named.first_seq, named.last_seq))
                title = f"{named.label} {named.title or named.pali_title}".strip()
            else:
                passages = self.store.chapter(p.corpus, p.book, p.chapter, channel)
                title = p.chapter_title or (p.path[-1] if p.path else "")
            if section:  # the run of passages under the same headings as the coordinate's
                passages = _section_of(passages, p)
                title = " › ".join(p.path) or title
        chars = sum(len(x.text) for x in passages)
        result = ChapterResult(
            coordinate=p.coordinate,
            book=p.book,
            book_title=p.book_title,
            chapter=title,
            channel=channel,
            paragraphs=len(passages),
            characters=chars,
            approx_tokens=chars // 4,
            confirmed=confirm,
        )
        if not confirm:
            result.message = (
                f"{len(passages)} paragraphs, ~{chars // 4:,} tokens: ask again with confirm to get the text"
            )
        elif len(passages) > MAX_CHAPTER_PARAGRAPHS:
            result.confirmed = False
            result.message = f"chapter too large ({len(passages)} paragraphs); use get on chosen coordinates"
        else:
            convert = (lambda t: from_roman(t, script)) if _is_pali_text(passages) and script != "Roman" else str
            result.passages = [
                ChapterPassage(
                    coordinate=x.coordinate,
                    para=x.para,
                    kind=x.kind,
                    text=convert(x.text),
                    display=convert(x.display),
                    page_starts=x.page_starts,
                )
                for x in passages
            ]
        return result

    def _paragraph_range(self, coordinate: str, channel: str) -> list[Passage] | None:
        """The passages of ``corpus/book/A-B`` (paragraphs A to B with their unnumbered followers), or None
        when the coordinate is not a range (a paragraph numbered ``429-430`` in the text is a paragraph)."""
        m = PARAGRAPH_RANGE.match(coordinate.strip())
        if not m or self.store.get([coordinate.strip()], channel):
            return None
        base, first, last = m.group(1), int(m.group(2)), int(m.group(3))
        if last < first or last - first > MAX_RANGE:
            raise SearchError("invalid_parameter", f"a paragraph range runs forward, {MAX_RANGE} paragraphs at most")
        start, end = self._pali(f"{base}/{first}"), self._pali(f"{base}/{last}")
        following = self.store.book_passages(end.corpus, end.book, end.channel, (end.seq, end.seq + MAX_RANGE))
        tail = [x for x in following if x.para == end.para or x.para.startswith(f"{end.para}.")]
        last_seq = max([end.seq, *(x.seq for x in tail)])
        return self.store.book_passages(start.corpus, start.book, start.channel, (start.seq, last_seq))

    def versions(self, coordinate: str) -> VersionsResult:
        """Which channels have text at a coordinate, and explicitly which do not."""
        p = self._pali(coordinate)
        known: dict[str, Any] = {}
        for rec in self.store.all_channels():
            known.setdefault(rec.name, rec)
        statuses = []
        relevant = {r.channel.name for r in self.store.channels(p.corpus, p.book)} | {p.channel}
        if p.corpus != "cst":  # a Bible's channels are its translations, not the Pali ones
            known = {name: info for name, info in known.items() if name in relevant}
        for name, info in known.items():
            here = name == p.channel or p.coordinate in self.store.get([p.coordinate], name)
            anchor = None if here else self._part_of(p.coordinate, name)
            status = "available" if here else "part_of" if anchor else "missing"
            statuses.append(
                ChannelStatus(
                    channel=name,
                    language=info.language,
                    type=info.type,
                    author=info.author,
                    licence=info.licence,
                    provenance=info.provenance,
                    status=status,
                    anchor=anchor,
                )
            )
        statuses.sort(key=lambda s: (s.channel != "pali", s.status != "available", s.channel))
        return VersionsResult(coordinate=p.coordinate, channels=statuses)

    # suggest -------------------------------------------------------------------------------------

    def suggest(self, q: str, type: str = "term", limit: int = 10, language: str | None = None) -> SuggestResult:
        """Completions: Pali forms with diacritics by frequency, Chinese dictionary terms, page refs.
        ``language`` zh: the Chinese renderings of the Pali words completed (or found by their Chinese)."""
        q = q.strip()
        out: list[Suggestion] = []
        if not q:
            return SuggestResult(q=q, type=type, suggestions=[])
        chinese_wanted = (language or "").startswith("zh")
        if type == "page_ref":
            out = self._suggest_page_ref(q, limit)
        elif CJK.search(q):
            for word, meaning in self.lexicon.headwords_by_meaning(q, limit):
                text = meaning if chinese_wanted else word
                out.append(Suggestion(text=text, kind="dictionary", note=meaning, pali=word, romanized=fold(word)))
        else:
            text, _ = normalize_query_text(q)
            words = text.split()
            if words:
                head = " ".join(words[:-1])
                for folded, form, count in self.store.vocabulary(words[-1], limit * (3 if chinese_wanted else 1)):
                    found = Suggestion(
                        text=f"{head} {form}".strip(), kind="pali", count=count, pali=form, romanized=folded
                    )
                    if chinese_wanted:  # the word's Chinese meaning, when a dictionary gives one
                        lemma = next((c.lemma for c in self.lemmas(form)), form)
                        if not (meaning := self.lexicon.chinese_meaning(lemma)):
                            continue
                        found.text, found.note, found.kind = meaning, lemma, "dictionary"
                    out.append(found)
        for s in out:
            s.frequency = s.count
        return SuggestResult(q=q, type=type, suggestions=out[:limit])

    def _suggest_page_ref(self, q: str, limit: int) -> list[Suggestion]:
        try:
            ref = parse_page_ref(q)
            key = ref.key
        except ValueError:
            m = re.match(r"^([MVPTO])\s?(\d{1,2})(?:\.(\d{0,4}))?$", q.strip(), re.IGNORECASE)
            if not m:
                return []
            key = f"{m.group(1).upper()}{int(m.group(2))}." + (m.group(3) or "")
        return [Suggestion(text=k, kind="page_ref", count=n) for k, n in self.store.page_keys(key, limit)]
