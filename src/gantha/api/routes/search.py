"""``GET /api/v3/search``, in the original design's contract (page, page_size, resource_type, results)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from gantha.api import contract
from gantha.api.errors import ERRORS
from gantha.api.live import LiveIndex
from gantha.api.responses import CompactSearchEnvelope, SearchData, SearchEnvelope
from gantha.model import MAX_LIMIT, MAX_OFFSET, QueryInfo, SearchMode, SearchRequest, comma_list
from gantha.research import Research
from gantha.research.similar import MAX_SIMILAR_CHARS
from gantha.search.errors import SearchError
from gantha.search.plan import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from gantha.search.service import compact


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()

    @api.get("/api/v3/search", summary="Search passages", responses=ERRORS)
    def search(
        q: Annotated[
            str,
            Query(
                max_length=MAX_QUERY_CHARS,
                description='words, "a phrase", -excluded, prefix*; any script or ASCII scheme '
                f"(at most {MAX_QUERY_WORDS} words)",
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
        order: Annotated[str, Query(pattern="^(score|reading)$", description="score or reading order")] = "score",
        fields: Annotated[
            str | None, Query(description="comma-separated hit fields to keep, e.g. coordinate,book,path,snippet")
        ] = None,
        related_id: Annotated[str | None, Query(description="a verse reference: Rom 3:24, 罗马书 3:24")] = None,
        similar: Annotated[
            str | None,
            Query(max_length=MAX_SIMILAR_CHARS, description="sentences like this one, whatever the inflection"),
        ] = None,
    ) -> SearchEnvelope | CompactSearchEnvelope:
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
            order=order,
            related_id=related_id,
        )
        data, query_info = answer(index.research(), req, lemma=lemma, similar=similar)
        envelope = SearchEnvelope(data=data, query_info=query_info)
        if fields:  # compact hits: plain JSON of the fields asked for
            return JSONResponse(compact(envelope.model_dump(mode="json"), comma_list(fields)))
        return envelope

    return api


def check_page(page: int, page_size: int) -> None:
    """A page must start within the first :data:`MAX_OFFSET` results (checked before a request is built)."""
    if (page - 1) * page_size > MAX_OFFSET:
        raise SearchError("invalid_parameter", f"page {page} of {page_size} starts past result {MAX_OFFSET:,}")


def answer(
    research: Research, req: SearchRequest, lemma: str | None = None, similar: str | None = None
) -> tuple[SearchData, QueryInfo]:
    """Run one search (or, with ``similar``, a search for like sentences) as the HTTP surfaces answer it:
    ``GET /api/v3/search`` and ``POST /api/v1/search`` alike."""
    page_size = req.limit
    page = req.offset // page_size + 1
    if similar:
        res = research.similar(
            similar, limit=page_size, offset=req.offset, books=req.books, categories=req.categories, tags=req.tags
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
