"""Search: turn a SearchRequest into an analysed store query, run it, and explain it.

Backend-agnostic: it speaks to any ``Store``. Fuzzy mode matches diacritic-folded words, exact
mode the canonical form as typed; bold occurrences rank first; a page reference selects the
paragraphs on that page of that edition, the one the page begins in first.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from gantha.model import (
    Aside,
    Bucket,
    Category,
    Hit,
    Passage,
    QueryInfo,
    SearchMode,
    SearchRequest,
    SearchResponse,
    comma_list,
)
from gantha.search import resources
from gantha.search.fusion import rrf, weighted
from gantha.search.highlight import snippet
from gantha.search.query import ParsedQuery, parse_query
from gantha.search.rerank import Judge, coverage
from gantha.search.semantic import SemanticRoute
from gantha.search.words import Family, Inflection
from gantha.store.base import Clause, Store, StoreQuery, StoreResult
from gantha.text.chinese import has_chinese
from gantha.text.english import content_words
from gantha.text.gloss import gloss
from gantha.text.pali import WORD_RE, canon, canon_word, fold, normalize_query_text
from gantha.text.refs import EDITIONS, parse_page_ref

HYBRID_DEPTH = 50  # candidates each route contributes to a fused ranking
REFUSAL_DEPTH = 10  # candidates judged before refusing, whatever page was asked for
# weight in RRF of a route beyond lexical and vector (the dictionary bridge): fitted on eval/calibration.jsonl
EXTRA_WEIGHT = 0.5
MAX_PREFIXES, MIN_PREFIX = 4, 2  # prefix* terms of one query (a one-letter prefix expands to ~1/20 of the words)
MAX_WILDCARDS, MIN_WILDCARD = 2, 3  # leading wildcards scan the term dictionary (~0.3 s each on the canon)
LEMMA_RANKED = 1000  # matches of a lemma search ranked by its frequency (fetched whole; more: BM25 over its forms)
BM25_K1, BM25_B = 1.2, 0.75
CHAPTER_BUCKETS = 30  # chapters listed in the aggregation by chapter (the densest)
PER_TEXT = 2  # paragraphs of one sutta among the best meaning-search hits before the next sutta's
DEFAULT_CORPUS = "cst"  # searched unless a corpus or a book is named; other corpora answer when asked for
ORIGINALS = {"cst": "pali"}  # corpus → its original channel: aligned translations there stand for it


def original_of(doc_id: str) -> str:
    """The document a hit shows for a matched one: an aligned translation's original (…/106@en → …/106@pali)."""
    coordinate, _, channel = doc_id.rpartition("@")
    original = ORIGINALS.get(coordinate.partition("/")[0])
    return f"{coordinate}@{original}" if original and channel != original else doc_id


class SearchError(ValueError):
    """A request that cannot be answered as asked; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


HIT_FIELDS = tuple(Hit.model_fields)


def tag_groups(values: list[str]) -> list[list[str]]:
    """Tag filters as groups: ``,`` joins tags a passage must all have, ``;`` separates alternatives
    ("vinaya,khandhaka;abhidhamma" → [["vinaya", "khandhaka"], ["abhidhamma"]]); several values join with ``,``."""
    expression = ",".join(v for v in values if v.strip())
    groups = [[fold(t.strip()) for t in part.split(",") if t.strip()] for part in expression.split(";")]
    return [g for g in groups if g]


def compact(data: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """A dumped search result with each hit (``hits``/``results``/``weak``) cut to ``fields``: agent-sized."""
    if not fields:
        return data
    if unknown := [f for f in fields if f not in HIT_FIELDS]:
        raise SearchError("invalid_parameter", f"unknown hit field {unknown[0]!r}; one of {', '.join(HIT_FIELDS)}")
    keep = set(fields)
    for holder in (data, data.get("data") or {}):
        for key in ("hits", "results", "weak"):
            if isinstance(holder.get(key), list):
                holder[key] = [{k: v for k, v in hit.items() if k in keep} for hit in holder[key]]
    return data


class Searcher:
    """Answers search requests against one store."""

    def __init__(
        self,
        store: Store,
        semantic: SemanticRoute | None = None,
        fusion: str = "rrf",
        judge: Judge | None = None,
        inflect: Callable[[str], Inflection | None] | None = None,
    ):
        self.store = store
        self.semantic = semantic
        self.fusion = fusion
        self.judge = judge
        self.inflect = inflect  # a word → every attested form of its lemma (the ordinary search's expansion)
        self.vector_problem: str | None = None  # why the vectors could not be read, if they could not

    # --- request → store query ---------------------------------------------------------------

    def _filters(self, req: SearchRequest) -> dict[str, list[str]]:
        books_known = self.store.books(channel=None)
        filters: dict[str, list[str]] = {}
        books = comma_list(req.books)
        if books:
            by_id = {rec.info.book: rec for rec in books_known.values()}
            unknown = [b for b in books if b not in by_id and b not in books_known]
            if unknown:
                raise SearchError(
                    "unknown_book",
                    f"unknown book {unknown[0]!r}: books are ids such as vin02m3.mul (see /api/v3/books)",
                )
            filters["book"] = [b.split("/", 1)[1] if b in books_known else b for b in books]
        categories = [resources.category(fold(c).replace("-", "")) for c in comma_list(req.categories)]
        valid = [c.value for c in Category]
        if bad := [c for c in categories if c not in valid]:
            names = ", ".join([*valid, *resources.CATEGORIES])
            raise SearchError("unknown_category", f"unknown category {bad[0]!r}; one of {names}")
        if categories:
            filters["category"] = categories
        known_tags = {t for rec in books_known.values() for t in rec.info.tags}
        for group in tag_groups(req.tags):
            if bad := [t for t in group if t not in known_tags]:
                raise SearchError("unknown_tag", f"unknown tag {bad[0]!r}; known tags: {', '.join(sorted(known_tags))}")
        for name, values in (("language", req.languages), ("channel", req.channels), ("corpus", req.corpora)):
            if vals := comma_list(values):
                filters[name] = vals
        channels = self.store.all_channels()
        known = {
            "language": {x for c in channels for x in (c.language, c.language.split("-")[0])},
            "channel": {c.name for c in channels},
        }
        for name, values in known.items():
            if bad := [v for v in filters.get(name, []) if v not in values]:
                raise SearchError(
                    f"unknown_{name}", f"unknown {name} {bad[0]!r}; this index has {', '.join(sorted(values))}"
                )
        if kinds := comma_list(req.resource_types):  # the original API's resource types: corpora and channels
            try:
                corpora, channels = resources.channels_of(kinds, self.store.records())
            except KeyError as exc:
                raise SearchError(
                    "unknown_resource_type",
                    f"unknown resource_type {exc.args[0]!r}; one of {', '.join(resources.known())}",
                ) from exc
            filters["corpus"] = sorted(set(filters.get("corpus", corpora)) & corpora) or ["none"]
            if channels is not None:
                filters["channel"] = sorted(set(filters.get("channel", channels)) & channels) or ["none"]
        canon_indexed = any(rec.info.corpus == DEFAULT_CORPUS for rec in books_known.values())
        if "corpus" not in filters and "book" not in filters and canon_indexed:  # the default scope: the canon
            filters["corpus"] = [DEFAULT_CORPUS]

        if req.granularity not in (None, "paragraph", "sentence"):
            raise SearchError("invalid_parameter", f"unknown granularity {req.granularity!r}; paragraph or sentence")
        if req.granularity == "paragraph":
            filters["granularity"] = ["paragraph"]
        return filters

    def plan(self, req: SearchRequest, own_forms: list[str] | None = None) -> tuple[StoreQuery, QueryInfo, ParsedQuery]:
        """The store query for a request, with the explanation shown to the caller. ``bold_forms``: the
        forms whose bold occurrences rank first (default: all of ``req.forms``)."""
        normalized, steps = normalize_query_text(req.q, req.scheme)
        parsed = parse_query(normalized)
        info = QueryInfo(original=req.q, mode=req.mode, normalized=normalized, steps=steps, bold_only=req.bold_only)
        forms = list(dict.fromkeys(canon_word(f) for f in req.forms if f.strip()))
        if parsed.empty and not req.page_ref and not forms:
            raise SearchError("empty_query", "empty query: give words to search for, forms, or a page reference")
        folded = req.mode != SearchMode.EXACT and not forms
        analysed = parsed.analysed(folded)
        field = "fold" if folded else "exact"
        info.field = field
        info.terms, info.phrases = analysed.terms, analysed.phrases
        info.prefixes = analysed.prefixes
        info.excluded = analysed.excluded + [p + "*" for p in analysed.excluded_prefixes]
        info.forms = forms

        sq = StoreQuery(limit=req.limit, offset=req.offset, filters=self._filters(req), order=req.order)
        sq.tag_groups = tag_groups(req.tags)
        if "language" not in sq.filters and "channel" not in sq.filters:
            sq.filters["primary"] = ["yes"]  # originals, not aligned translations, unless a language is asked
        words = {t: [t] for t in analysed.terms}
        if folded and req.inflections and self.inflect:  # inflection-blind: every attested form of the lemma
            for t in analysed.terms:
                if (inf := self.inflect(t)) and len(inf.forms) > 1:
                    words[t] = list(dict.fromkeys([t, *inf.forms]))
                    info.inflections.append(
                        {"word": t, "lemma": inf.lemma, "forms": list(inf.forms), "others": list(inf.others)}
                    )
        sq.must += [Clause(field, words[t]) for t in analysed.terms]
        sq.must += [Clause(field, p, "phrase") for p in analysed.phrases]
        sq.must += [Clause(field, [p], "prefix") for p in analysed.prefixes]
        prefixes = analysed.prefixes + analysed.excluded_prefixes
        if len(prefixes) > MAX_PREFIXES or any(len(p) < MIN_PREFIX for p in prefixes):
            raise SearchError(
                "invalid_query",
                f"at most {MAX_PREFIXES} prefix* terms, each of {MIN_PREFIX} letters or more: a prefix expands to "
                "every word it begins",
            )
        wildcards = [(s, "suffix") for s in analysed.suffixes] + [(s, "infix") for s in analysed.infixes]
        if len(wildcards) > MAX_WILDCARDS or any(len(s) < MIN_WILDCARD for s, _ in wildcards):
            raise SearchError(
                "invalid_query",
                f"at most {MAX_WILDCARDS} leading wildcards (*word, *part*), each of {MIN_WILDCARD} letters or more: "
                "they are matched against every word of the index",
            )
        sq.must += [Clause(field, [s], kind) for s, kind in wildcards]
        sq.rank_first += [Clause(f"bold_{field}", [s], kind) for s, kind in wildcards]
        info.prefixes += ["*" + s for s in analysed.suffixes] + ["*" + s + "*" for s in analysed.infixes]
        sq.must_not += [Clause(field, [t]) for t in analysed.excluded]
        sq.must_not += [Clause(field, [p], "prefix") for p in analysed.excluded_prefixes]
        bold_field = f"bold_{field}"
        sq.rank_first += [Clause(bold_field, words[t]) for t in analysed.terms]
        sq.rank_first += [Clause(bold_field, p, "phrase") for p in analysed.phrases]
        sq.rank_first += [Clause(bold_field, [p], "prefix") for p in analysed.prefixes]
        if forms and own_forms and len(forms) > len(own_forms):  # a lemma with its compounds: match any
            sq.must.append(Clause("exact", forms, "set"))  # (thousands for dhamma), rank by its own forms
            sq.scoring.append(Clause("exact", own_forms))
            sq.rank_first.append(Clause("bold_exact", own_forms))
        elif forms:
            sq.must.append(Clause("exact", forms))
            sq.rank_first.append(Clause("bold_exact", own_forms or forms))
        if req.bold_only:  # at least one searched word must stand in bold
            sq.should = list(sq.rank_first)

        if req.page_ref:
            ref = parse_page_ref(req.page_ref)
            sq.must.append(Clause("page_refs", [ref.key]))
            sq.rank_first = [Clause("page_starts", [ref.key])]
            sq.book_pattern = ref.books
            sq.order = "reading" if parsed.empty else "score"
            info.page_ref = {
                "key": ref.key,
                "short": ref.short,
                "edition": EDITIONS[ref.edition],
                "volume": ref.volume,
                "page": ref.page,
                "books": ref.books,
                "label": ref.label,
            }
            info.bold_ranking = False
        info.filters = {k: v for k, v in sq.filters.items()}
        return sq, info, analysed

    # --- run ---------------------------------------------------------------------------------

    def search(self, req: SearchRequest, family: Family | None = None) -> SearchResponse:
        """``family``: the lemma whose forms and compounds ``req.forms`` holds: its matches are ranked by its
        frequency, its own forms' bold occurrences first, and each hit says which forms matched."""
        if req.mode in (SearchMode.SEMANTIC, SearchMode.HYBRID):
            return self.search_fused(req)
        started = time.perf_counter()
        sq, info, analysed = self.plan(req, family.words(False) if family else None)
        info.routes = ["lexical"]
        if family and sq.order == "score" and not req.page_ref:
            result = self._by_lemma(sq, set(family.words()), info)
        else:
            result = self.store.search(sq)
        every = set(family.words()) if family else set(info.forms)  # forms whose occurrences each hit lists
        own = set(family.words(False)) if family else every  # the rest are compounds holding the lemma
        analyse = fold if info.field == "fold" else canon
        terms = set(analysed.terms) | set(info.forms)
        hits = []
        for rank, h in enumerate(result.hits, start=req.offset + 1):
            p = h.passage
            text, _ = snippet(
                p.text, analyse, terms, analysed.phrases, analysed.prefixes, inner=analysed.suffixes + analysed.infixes
            )
            hit = self.hit(p, rank, text, round(h.score, 4), bold_match=h.ranked_first and not req.page_ref)
            if every:  # a forms or lemma search: which of them stand here, and whether inside a compound
                hit.matched = list(dict.fromkeys(w for w in (canon(x) for x in WORD_RE.findall(p.text)) if w in every))
                hit.in_compound = any(w not in own for w in hit.matched)
            hits.append(hit)
        return SearchResponse.timed(started, result.total, hits, info, aggregations=self.buckets(result.aggregations))

    def _by_lemma(self, sq: StoreQuery, forms: set[str], info: QueryInfo) -> StoreResult:
        """Every match ranked by the lemma's frequency in it (BM25 with all its forms counted as one word,
        so a paragraph that repeats parivāsaṃ twenty times outranks one naming five rare compounds once),
        bold occurrences first; beyond ``LEMMA_RANKED`` matches, tantivy's BM25 over the forms."""
        counted = self.store.search(sq)  # the page as BM25 over the forms ranks it, the total, the aggregations
        if counted.total > LEMMA_RANKED:
            info.notes.append(f"{counted.total} matches: ranked by BM25 over the forms, not by the lemma's frequency")
            return counted
        every = self.store.search(replace(sq, limit=max(counted.total, 1), offset=0, aggregate=()))
        words = {id(h): WORD_RE.findall(h.passage.text.lower()) for h in every.hits}  # stored text is canonical
        average = sum(len(w) for w in words.values()) / max(len(words), 1) or 1
        for h in every.hits:
            tf = sum(w in forms for w in words[id(h)])
            norm = 1 - BM25_B + BM25_B * len(words[id(h)]) / average
            h.score = tf * (BM25_K1 + 1) / (tf + BM25_K1 * norm)
        ranked = sorted(every.hits, key=lambda h: (not h.ranked_first, -h.score))
        info.notes.append("ranked by the lemma's frequency in each paragraph (BM25, forms counted as one word)")
        return StoreResult(counted.total, ranked[sq.offset : sq.offset + sq.limit], counted.aggregations)

    def buckets(self, aggregations: dict[str, list[tuple[str, int]]]) -> dict[str, list[Bucket]]:
        records = self.store.books(channel=None).values()
        titles = {rec.info.book: rec.info.title for rec in records}
        corpora = {rec.info.book: rec.info.corpus for rec in records}
        out = {
            name: [
                Bucket.model_construct(key=k, count=c, title=titles.get(k) if name == "book" else None)
                for k, c in buckets[: CHAPTER_BUCKETS if name == "chapter" else None]
            ]
            for name, buckets in aggregations.items()
        }
        for bucket in out.get("chapter", []):  # "vin02m3.mul/ch3" → "Cūḷavaggapāḷi › 3. Samuccayakkhandhakaṃ"
            book, _, number = bucket.key.rpartition("/ch")
            heading = self.store.chapter_title(corpora.get(book, DEFAULT_CORPUS), book, int(number))
            bucket.title = " › ".join(t for t in (titles.get(book), heading) if t)
        if "channel" in out:  # the original API's aggregations: by language and by resource type
            kinds = {
                r.channel.name: (r.channel.language, resources.resource_type(r.info.corpus, r.channel.type))
                for r in self.store.records()
            }
            for i, name in enumerate(("language", "resource_type")):
                counts: Counter[str] = Counter()
                for bucket in out["channel"]:
                    counts[kinds.get(bucket.key, ("", ""))[i] or "unknown"] += bucket.count
                out[name] = [Bucket.model_construct(key=k, count=c, title=None) for k, c in counts.most_common()]
        return out

    # --- semantic and hybrid ----------------------------------------------------------------------

    def is_pali(self, text: str) -> bool:
        """Every word of the query is a Pali word of the index (not English, not Chinese)."""
        if has_chinese(text):
            return False
        words = WORD_RE.findall(fold(text))
        return bool(words) and all(self.store.forms_by_fold(w) for w in words)

    def lexical_ranking(
        self, req: SearchRequest, depth: int = HYBRID_DEPTH, *, translations: bool = False
    ) -> tuple[list[tuple[str, float]], QueryInfo]:
        """The lexical route as a ranking of document ids; words are ORed (ranked by BM25), phrases kept.

        ``translations``: aligned translations are searched too (their words are another language's).
        """
        pali = self.is_pali(req.q)  # a Pali query matches its words' inflections, another language's words as typed
        update = {"mode": SearchMode.FUZZY, "limit": depth, "offset": 0, "inflections": pali and req.inflections}
        sq, info, _ = self.plan(req.model_copy(update=update))
        words = [c for c in sq.must if c.kind == "term" and c.field in ("fold", "exact")]
        sq.must = [c for c in sq.must if c not in words]
        sq.should, sq.aggregate = words, ()
        if not pali:  # a question in English: its function words match every paragraph
            kept = set(content_words([c.tokens[0] for c in sq.should]))
            sq.should = [c for c in sq.should if c.tokens[0] in kept]
        if translations:  # a Pali query searches the originals, any other the translations aligned to them
            corpora = sq.filters.get("corpus") or []
            if corpora and all(c in ORIGINALS for c in corpora) and not pali:
                sq.filters["primary"] = ["no"]
            else:
                sq.filters.pop("primary", None)
        result = self.store.search(sq)
        return [(h.passage.doc_id, h.score) for h in result.hits], info

    def vector_ranking(self, req: SearchRequest, depth: int = HYBRID_DEPTH) -> list[tuple[str, float]]:
        if self.semantic is None:
            raise SearchError(
                "mode_unavailable",
                self.vector_problem
                or f"search mode {req.mode.value!r} needs vectors: build them with "
                "`gantha embed` (corpora in GANTHA_VECTOR_CORPORA)",
            )
        filters = self._filters(req)
        return self.semantic.search(
            req.q,
            depth,
            corpora=filters.get("corpus"),
            channels=filters.get("channel"),
            languages=filters.get("language"),
            books=filters.get("book"),
        )

    def search_fused(
        self,
        req: SearchRequest,
        extra: list[list[tuple[str, float]]] | None = None,
        extra_routes: list[str] | None = None,
    ) -> SearchResponse:
        """Semantic (vector only) or hybrid (lexical + vector [+ extra routes], fused) search.

        Without a language or channel asked for, a match in an aligned translation counts for its
        original: the hit is the Pali paragraph, with the translation beside it. The reranker judges
        the best ``REFUSAL_DEPTH`` candidates, so refusing does not depend on the page asked for.
        """
        started = time.perf_counter()
        fused, evidence, info = self.fused_ranking(req, extra, extra_routes)
        page = fused[req.offset : req.offset + req.limit]
        judged = list(dict.fromkeys([d for d, _ in fused[:REFUSAL_DEPTH]] + [d for d, _ in page]))
        analysed = parse_query(info.normalized or req.q).analysed(folded=True)
        terms = set(analysed.terms)
        shown = self.store.get_ids(judged)
        confidence = self._confidences(req.q, judged, shown, evidence) if self.judge else {}
        hits = []
        for rank, (doc_id, score) in enumerate(page, start=req.offset + 1):
            if p := shown.get(doc_id):
                text, _ = snippet(p.text, fold, terms, analysed.phrases, analysed.prefixes)
                hits.append(self.hit(p, rank, text, round(score, 4), confidence=confidence.get(doc_id)))
        if evidence:  # translations counted for their originals: show them beside
            self.attach_translations(hits, terms)
        info.notes.append(f"{req.mode.value}: ranked candidates, not an exhaustive count")
        res = SearchResponse.timed(started, len(fused), hits, info)
        if self.judge and confidence:
            info.notes.append(self.judge.note())
            best = max(confidence.get(d, 0.0) for d, _ in fused[:REFUSAL_DEPTH])
            pali_found = self.is_pali(req.q) and any(coverage(req.q, p.text) == 1.0 for p in shown.values())
            if pali_found:  # Pali words that occur are in the texts whatever their English neighbours say
                info.notes.append("Pali words found in the texts: not refused")
            elif best < self.judge.calibration.threshold:
                top = [d for d, _ in fused[:5]]
                res.weak = [
                    self.hit(shown[d], i, snippet(shown[d].text, fold, terms)[0], 0.0, confidence=confidence.get(d))
                    for i, d in enumerate(top, start=1)
                    if d in shown
                ]
                res.outcome, res.hits = "not_found", []
                res.message = (
                    f"nothing relevant enough: best confidence {best:.2f} is below "
                    f"{self.judge.calibration.threshold}; the closest candidates are listed as weak, not as answers"
                )
        return res

    def fused_ranking(
        self,
        req: SearchRequest,
        extra: list[list[tuple[str, float]]] | None = None,
        extra_routes: list[str] | None = None,
    ) -> tuple[list[tuple[str, float]], dict[str, list[str]], QueryInfo]:
        """The fused ranking of shown documents, the documents that matched for each, and the explanation."""
        depth = max(HYBRID_DEPTH, req.offset + req.limit)
        filters = self._filters(req)
        collapse = "language" not in filters and "channel" not in filters
        vector = self.vector_ranking(req, depth)
        if req.mode == SearchMode.SEMANTIC:
            info = QueryInfo(original=req.q, mode=req.mode, normalized=req.q, routes=["vector"])
            routes = [vector]
        else:
            lexical, info = self.lexical_ranking(req, depth, translations=collapse)
            info.mode, info.routes = req.mode, ["lexical", "vector", *(extra_routes or [])]
            routes = [lexical, vector, *(extra or [])]
            weights = [1.0, 1.0, *([EXTRA_WEIGHT] * len(extra or []))]
            info.fusion = self.fusion
            if collapse and has_chinese(req.q) and (english := gloss(req.q)):
                # a Chinese question reaches the English aligned to the Pali through its dictionary gloss too,
                # by words and by meaning (each weighted as the question's own routes: fitted on the calibration set)
                english_req = req.model_copy(update={"q": english})
                routes += [
                    self.lexical_ranking(english_req, depth, translations=True)[0],
                    self.vector_ranking(english_req, depth),
                ]
                weights += [1.0, 1.0]
                info.routes += ["gloss-lexical", "gloss-vector"]
                info.notes.append(f"gloss (CC-CEDICT): {english}")
        evidence: dict[str, list[str]] = {}  # shown document → the documents that matched for it
        if collapse:
            routes = [_collapsed(r, evidence) for r in routes]
        if len(routes) == 1:
            fused = routes[0]
        elif self.fusion == "weighted":
            fused = weighted(routes, [0.7, 0.3, *([0.3] * (len(routes) - 2))])
        else:
            fused = rrf([[d for d, _ in r] for r in routes], weights=weights)
        return self._diversified(fused, depth), evidence, info

    def _diversified(self, fused: list[tuple[str, float]], depth: int) -> list[tuple[str, float]]:
        """At most ``PER_TEXT`` paragraphs of one named text (a sutta) among the best ``depth``; the rest follow."""
        head = fused[:depth]
        passages = self.store.get_ids([d for d, _ in head])
        seen: dict[object, int] = {}
        first, later = [], []
        for doc_id, score in head:
            p = passages.get(doc_id)
            named = self.store.text_at(p.corpus, p.book, p.seq) if p else None
            key = (p.book, named.uid) if p and named else doc_id
            seen[key] = seen.get(key, 0) + 1
            (first if seen[key] <= PER_TEXT else later).append((doc_id, score))
        return first + later + fused[depth:]

    def evidence_passages(
        self, doc_ids: list[str], shown: dict[str, Passage], evidence: dict[str, list[str]]
    ) -> list[tuple[str, Passage]]:
        """(shown document, a passage that matched for it) pairs: what the reranker judges."""
        matched = {d: evidence.get(d) or [d] for d in doc_ids}
        found = self.store.get_ids([m for ms in matched.values() for m in ms if m not in shown])
        found.update(shown)
        return [(d, found[m]) for d, ms in matched.items() for m in ms if m in found]

    def _confidences(
        self, query: str, doc_ids: list[str], shown: dict[str, Passage], evidence: dict[str, list[str]]
    ) -> dict[str, float]:
        """Confidence per shown document: the best of the documents that matched for it (its translation …)."""
        assert self.judge is not None
        pairs = self.evidence_passages(doc_ids, shown, evidence)
        scores = self.judge.confidences(query, [p for _, p in pairs])
        out: dict[str, float] = {}
        for (d, _), c in zip(pairs, scores, strict=True):
            out[d] = max(out.get(d, 0.0), c)
        return out

    def attach_translations(self, hits: list[Hit], terms: set[str]) -> None:
        """Attach the translations of each original hit's paragraph (English, Burmese …), snippets marked."""
        channels = {
            (h.corpus, h.book): [
                r.channel.name for r in self.store.channels(h.corpus, h.book) if r.channel.type == "translation"
            ]
            for h in hits
            if h.channel == ORIGINALS.get(h.corpus)
        }
        wanted = [f"{h.coordinate}@{ch}" for h in hits for ch in channels.get((h.corpus, h.book), ())]
        found = self.store.get_ids(wanted)
        for h in hits:
            for ch in channels.get((h.corpus, h.book), ()):
                if t := found.get(f"{h.coordinate}@{ch}"):
                    h.translations.append(
                        Aside(channel=t.channel, language=t.language, snippet=snippet(t.text, fold, terms)[0])
                    )

    def hit(self, p: Passage, rank: int, text: str, score: float, **extra) -> Hit:
        """A hit, with the named text (sutta, rule) that holds it."""
        hit = Hit.of(p, rank, text, score, **extra)
        if (named := self.store.text_at(p.corpus, p.book, p.seq)) is not None:
            hit.sutta, hit.sutta_title = named.label, named.title or None
        return hit


def _collapsed(route: list[tuple[str, float]], evidence: dict[str, list[str]]) -> list[tuple[str, float]]:
    """A route's ranking with translations replaced by their original (first place kept); records evidence."""
    out: dict[str, float] = {}
    for doc_id, score in route:
        shown = original_of(doc_id)
        evidence.setdefault(shown, [])
        if doc_id not in evidence[shown]:
            evidence[shown].append(doc_id)
        out.setdefault(shown, score)
    return list(out.items())
