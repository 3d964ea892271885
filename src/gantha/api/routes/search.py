"""``GET /api/v3/search``, in the original design's contract (page, page_size, resource_type, results).

The answers of the last :data:`ANSWERS_KEPT` distinct requests are kept while the index is unchanged (its
generation is part of the key): the same search asked again — a page reloaded, an agent's repeated call,
a popular word — is answered from them, with its own ``took`` and the header ``X-Gantha-Cache: hit``.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from gantha.api import contract
from gantha.api.errors import ERRORS
from gantha.api.live import LiveIndex
from gantha.api.responses import CompactSearchEnvelope, SearchData, SearchEnvelope
from gantha.model import MAX_LIMIT, MAX_OFFSET, QueryInfo, SearchMode, SearchRequest, comma_list
from gantha.research import Research
from gantha.research.similar import MAX_SIMILAR_CHARS
from gantha.search.counts import Kept
from gantha.search.errors import SearchError
from gantha.search.plan import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from gantha.search.service import compact

ANSWERS_KEPT = 256  # distinct search requests whose answers are kept while the index is unchanged


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()
    answers: Kept[dict[str, Any]] = Kept(ANSWERS_KEPT)

    @api.get("/api/v3/search", summary="Search passages", responses=ERRORS)
    def search(
        request: Request,
        q: Annotated[
            str,
            Query(
                max_length=MAX_QUERY_CHARS,
                description='words, "a phrase", -excluded, prefix*, word NEAR/3 word (at most 3 words between, '
                f"either order; NEAR alone: 5); any script or ASCII scheme (at most {MAX_QUERY_WORDS} words)",
            ),
        ] = "",
        search_mode: SearchMode = SearchMode.FUZZY,
        resource_type: Annotated[
            str | None,
            Query(
                description="comma-separated: origin_text, translation, nissaya, dictionary, term, article, "
                "or a corpus: cst (pali, tipitaka), bible, md, dict"
            ),
        ] = None,
        granularity: Annotated[
            str | None,
            Query(
                pattern="^(paragraph|sentence|book|chapter|sutta|section|auto)$",
                description="paragraph (default), sentence, or whole texts: book, chapter, sutta, section "
                "(results in data.nodes), or auto (descends chapter → section → paragraphs while sure)",
            ),
        ] = None,
        language: Annotated[str | None, Query(description="comma-separated languages, e.g. pali")] = None,
        category: Annotated[
            str | None,
            Query(description="comma-separated: mula (pali), atthakatha (commentary), tika (subcommentary), anya"),
        ] = None,
        tags: Annotated[str | None, Query(description="comma-separated tags, e.g. vinaya,sutta,digha")] = None,
        topic: Annotated[
            str | None,
            Query(
                description="comma-separated taxonomy categories of the passage's chapter (or book): "
                "monastic-discipline, meditation, ethics-lay-life, doctrine-analysis, cosmology, "
                "narratives-biography, devotional-verse, language-grammar, uncategorized"
            ),
        ] = None,
        topic_tags: Annotated[
            str | None, Query(description="comma-separated soft tags (taxonomy categories): any of them")
        ] = None,
        book: Annotated[str | None, Query(description="comma-separated book ids, e.g. vin02m3.mul")] = None,
        page_refs: Annotated[str | None, Query(description="a page reference: P2.0031, P2.31, PTS Vin II 31")] = None,
        page: Annotated[int, Query(ge=1, le=MAX_OFFSET)] = 1,
        page_size: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 20,
        scheme: Annotated[str, Query(pattern="^(auto|iast|velthuis|hk)$")] = "auto",
        forms: Annotated[str | None, Query(description="comma-separated exact forms; any matches")] = None,
        lemma: Annotated[str | None, Query(description="expand this lemma to its attested forms first")] = None,
        bold: Annotated[bool, Query(description="only where a searched word stands in bold")] = False,
        inflections: Annotated[
            bool, Query(description="fuzzy mode: each Pali word matches every attested form of its lemma")
        ] = True,
        compounds: Annotated[bool, Query(description="with lemma: the compounds holding it match too")] = True,
        derivatives: Annotated[
            bool, Query(description="with lemma: its derivatives match too (pārivāsika of parivāsa)")
        ] = True,
        order: Annotated[str, Query(pattern="^(score|reading)$", description="score or reading order")] = "score",
        variants: Annotated[bool, Query(description="look in the variant readings of other editions too")] = False,
        comments_on: Annotated[
            str | None,
            Query(
                max_length=1000,
                description="only the commentaries on these root paragraphs, comma-separated: vin02m3.mul/75-110",
            ),
        ] = None,
        fields: Annotated[
            str | None, Query(description="comma-separated hit fields to keep, e.g. coordinate,book,path,snippet")
        ] = None,
        related_id: Annotated[str | None, Query(description="a verse reference: Rom 3:24, 罗马书 3:24")] = None,
        similar: Annotated[
            str | None,
            Query(max_length=MAX_SIMILAR_CHARS, description="sentences like this one, whatever the inflection"),
        ] = None,
        min_similarity: Annotated[
            float, Query(ge=0, le=1, description="with similar: leave out sentences less similar than this, 0–1")
        ] = 0.0,
    ) -> SearchEnvelope | CompactSearchEnvelope:
        started = time.perf_counter()
        research = index.research()
        key = (research.store.generation(), tuple(sorted(request.query_params.multi_items())))
        if (kept := answers.get(key)) is not None:
            return _json({**kept, "data": {**kept["data"], "took": _ms(started)}}, cached=True)
        check_page(page, page_size)
        req = SearchRequest(
            q=q,
            mode=search_mode,
            page_ref=page_refs,
            books=[book] if book else [],
            categories=[category] if category else [],
            tags=[tags] if tags else [],
            topics=comma_list(topic),
            topic_tags=comma_list(topic_tags),
            languages=[language] if language else [],
            resource_types=comma_list(resource_type),
            granularity=granularity,
            limit=page_size,
            offset=(page - 1) * page_size,
            scheme=scheme,
            forms=comma_list(forms),
            bold_only=bold,
            inflections=inflections,
            compounds=compounds,
            derivatives=derivatives,
            order=order,
            variants=variants,
            comments_on=comma_list(comments_on),
            related_id=related_id,
        )
        data, query_info = answer(research, req, lemma=lemma, similar=similar, min_similarity=min_similarity)
        body = SearchEnvelope(data=data, query_info=query_info).model_dump(mode="json")
        if fields:  # compact hits: plain JSON of the fields asked for
            body = compact(body, comma_list(fields))
        answers.put(key, body)
        return _json(body)

    return api


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 2)


def _json(body: dict[str, Any], cached: bool = False) -> Response:
    return Response(
        orjson.dumps(body), media_type="application/json", headers={"X-Gantha-Cache": "hit" if cached else "miss"}
    )


def check_page(page: int, page_size: int) -> None:
    """A page must start within the first :data:`MAX_OFFSET` results (checked before a request is built)."""
    if (page - 1) * page_size > MAX_OFFSET:
        raise SearchError("invalid_parameter", f"page {page} of {page_size} starts past result {MAX_OFFSET:,}")


def answer(
    research: Research,
    req: SearchRequest,
    lemma: str | None = None,
    similar: str | None = None,
    min_similarity: float = 0.0,
) -> tuple[SearchData, QueryInfo]:
    """Run one search (or, with ``similar``, a search for like sentences, at least ``min_similarity`` alike) as
    the HTTP surfaces answer it: ``GET /api/v3/search`` and ``POST /api/v1/search`` alike."""
    page_size = req.limit
    page = req.offset // page_size + 1
    if similar:
        res = research.similar(
            similar,
            limit=page_size,
            offset=req.offset,
            min_similarity=min_similarity,
            books=req.books,
            categories=req.categories,
            tags=req.tags,
        )
    else:
        res = research.search(req, lemma=lemma)
    data = SearchData(
        total=res.total,
        page=page,
        page_size=page_size,
        took=res.took_ms,
        results=contract.results(research, res.hits, res.query_info),
        aggregations=res.aggregations,
        outcome=res.outcome,
        message=res.message,
        suggestions=res.suggestions,
        weak=res.weak,
        nodes=res.nodes,
    )
    return data, res.query_info
