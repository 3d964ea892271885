"""Search: turn a SearchRequest into an analysed store query, run it, and explain it.

Backend-agnostic: it speaks to any ``Store``. Fuzzy mode matches diacritic-folded words, exact
mode the canonical form as typed; bold occurrences rank first; a page reference selects the
paragraphs on that page of that edition, the one the page begins in first.
"""

from __future__ import annotations

import time

from gantha.model import Bucket, Category, Hit, QueryInfo, SearchMode, SearchRequest, SearchResponse, comma_list
from gantha.search.fusion import rrf, weighted
from gantha.search.highlight import snippet
from gantha.search.query import ParsedQuery, parse_query
from gantha.search.semantic import SemanticRoute
from gantha.store.base import Clause, Store, StoreQuery
from gantha.text.pali import canon, fold, normalize_query_text
from gantha.text.refs import EDITIONS, parse_page_ref

HYBRID_DEPTH = 50  # candidates each route contributes to a fused ranking


class SearchError(ValueError):
    """A request that cannot be answered as asked; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class Searcher:
    """Answers search requests against one store."""

    def __init__(self, store: Store, semantic: SemanticRoute | None = None, fusion: str = "rrf"):
        self.store = store
        self.semantic = semantic
        self.fusion = fusion

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
        categories = [fold(c).replace("-", "") for c in comma_list(req.categories)]
        valid = [c.value for c in Category]
        if bad := [c for c in categories if c not in valid]:
            raise SearchError("unknown_category", f"unknown category {bad[0]!r}; one of {', '.join(valid)}")
        if categories:
            filters["category"] = categories
        tags = [fold(t) for t in comma_list(req.tags)]
        known_tags = {t for rec in books_known.values() for t in rec.info.tags}
        if bad := [t for t in tags if t not in known_tags]:
            raise SearchError("unknown_tag", f"unknown tag {bad[0]!r}; known tags: {', '.join(sorted(known_tags))}")
        if tags:
            filters["tags"] = tags
        for name, values in (("language", req.languages), ("channel", req.channels), ("corpus", req.corpora)):
            if vals := comma_list(values):
                filters[name] = vals

        if req.granularity not in (None, "paragraph", "sentence"):
            raise SearchError("invalid_parameter", f"unknown granularity {req.granularity!r}; paragraph or sentence")
        if req.granularity == "paragraph":
            filters["granularity"] = ["paragraph"]
        return filters

    def plan(self, req: SearchRequest) -> tuple[StoreQuery, QueryInfo, ParsedQuery]:
        """The store query for a request, with the explanation shown to the caller."""
        normalized, steps = normalize_query_text(req.q, req.scheme)
        parsed = parse_query(normalized)
        info = QueryInfo(original=req.q, mode=req.mode, normalized=normalized, steps=steps, bold_only=req.bold_only)
        forms = list(dict.fromkeys(canon(f) for f in req.forms if f.strip()))
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

        sq = StoreQuery(limit=req.limit, offset=req.offset, filters=self._filters(req))
        if "language" not in sq.filters and "channel" not in sq.filters:
            sq.filters["primary"] = ["yes"]  # originals, not aligned translations, unless a language is asked
        sq.must += [Clause(field, [t]) for t in analysed.terms]
        sq.must += [Clause(field, p, "phrase") for p in analysed.phrases]
        sq.must += [Clause(field, [p], "prefix") for p in analysed.prefixes]
        sq.must_not += [Clause(field, [t]) for t in analysed.excluded]
        sq.must_not += [Clause(field, [p], "prefix") for p in analysed.excluded_prefixes]
        bold_field = f"bold_{field}"
        sq.rank_first += [Clause(bold_field, [t]) for t in analysed.terms]
        sq.rank_first += [Clause(bold_field, p, "phrase") for p in analysed.phrases]
        sq.rank_first += [Clause(bold_field, [p], "prefix") for p in analysed.prefixes]
        if forms:
            sq.must.append(Clause("exact", forms))
            sq.rank_first.append(Clause("bold_exact", forms))
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

    def search(self, req: SearchRequest) -> SearchResponse:
        if req.mode in (SearchMode.SEMANTIC, SearchMode.HYBRID):
            return self.search_fused(req)
        started = time.perf_counter()
        sq, info, analysed = self.plan(req)
        info.routes = ["lexical"]
        result = self.store.search(sq)
        analyse = fold if info.field == "fold" else canon
        terms = set(analysed.terms) | set(info.forms)
        hits = []
        for rank, h in enumerate(result.hits, start=req.offset + 1):
            p = h.passage
            text, _ = snippet(p.text, analyse, terms, analysed.phrases, analysed.prefixes)
            hits.append(Hit.of(p, rank, text, round(h.score, 4), bold_match=h.ranked_first and not req.page_ref))
        return SearchResponse.timed(started, result.total, hits, info, aggregations=self._buckets(result.aggregations))

    def _buckets(self, aggregations: dict[str, list[tuple[str, int]]]) -> dict[str, list[Bucket]]:
        titles = {rec.info.book: rec.info.title for rec in self.store.books(channel=None).values()}
        return {
            name: [
                Bucket.model_construct(key=k, count=c, title=titles.get(k) if name == "book" else None)
                for k, c in buckets
            ]
            for name, buckets in aggregations.items()
        }

    # --- semantic and hybrid ----------------------------------------------------------------------

    def lexical_ranking(
        self, req: SearchRequest, depth: int = HYBRID_DEPTH
    ) -> tuple[list[tuple[str, float]], QueryInfo]:
        """The lexical route as a ranking of document ids; words are ORed (ranked by BM25), phrases kept."""
        sq, info, _ = self.plan(req.model_copy(update={"mode": SearchMode.FUZZY, "limit": depth, "offset": 0}))
        words = [c for c in sq.must if c.kind == "term" and c.field in ("fold", "exact")]
        sq.must = [c for c in sq.must if c not in words]
        sq.should, sq.aggregate = words, ()
        result = self.store.search(sq)
        return [(h.passage.doc_id, h.score) for h in result.hits], info

    def vector_ranking(self, req: SearchRequest, depth: int = HYBRID_DEPTH) -> list[tuple[str, float]]:
        if self.semantic is None:
            raise SearchError(
                "mode_unavailable",
                f"search mode {req.mode.value!r} needs vectors: build them with "
                "`gantha embed` (corpora in GANTHA_VECTOR_CORPORA)",
            )
        filters = self._filters(req)
        originals = "language" not in filters and "channel" not in filters  # as the lexical route's default
        return self.semantic.search(
            req.q,
            depth,
            corpora=filters.get("corpus"),
            channels=filters.get("channel"),
            languages=filters.get("language"),
            primary_only=originals,
            books=filters.get("book"),
        )

    def search_fused(
        self,
        req: SearchRequest,
        extra: list[list[tuple[str, float]]] | None = None,
        extra_routes: list[str] | None = None,
    ) -> SearchResponse:
        """Semantic (vector only) or hybrid (lexical + vector [+ extra routes], fused) search."""
        started = time.perf_counter()
        depth = max(HYBRID_DEPTH, req.offset + req.limit)
        vector = self.vector_ranking(req, depth)
        if req.mode == SearchMode.SEMANTIC:
            info = QueryInfo(original=req.q, mode=req.mode, normalized=req.q, routes=["vector"])
            fused = vector
        else:
            lexical, info = self.lexical_ranking(req, depth)
            info.mode, info.routes = req.mode, ["lexical", "vector"]
            routes = [lexical, vector, *(extra or [])]
            info.routes += extra_routes or []
            if self.fusion == "weighted":
                fused = weighted(routes, [0.7, 0.3, *([0.3] * len(extra or []))])
            else:
                fused = rrf([[d for d, _ in r] for r in routes])
            info.fusion = self.fusion
        page = fused[req.offset : req.offset + req.limit]
        passages = self.store.get_ids([d for d, _ in page])
        analysed = parse_query(info.normalized or req.q).analysed(folded=True)
        terms = set(analysed.terms)
        hits = []
        for rank, (doc_id, score) in enumerate(page, start=req.offset + 1):
            if p := passages.get(doc_id):
                text, _ = snippet(p.text, fold, terms, analysed.phrases, analysed.prefixes)
                hits.append(Hit.of(p, rank, text, round(score, 4)))
        info.notes.append(f"{req.mode.value}: ranked candidates, not an exhaustive count")
        return SearchResponse.timed(started, len(fused), hits, info)
