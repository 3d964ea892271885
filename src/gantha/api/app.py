"""HTTP API (FastAPI). Every answer is JSON: ``{success: true, data, ...}`` or
``{success: false, error: {code, message}}`` with a 4xx status for a bad request."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import ORJSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from gantha import __version__
from gantha.model import MAX_LIMIT, MAX_OFFSET, CoordinateError, SearchMode, SearchRequest
from gantha.search.service import Searcher, SearchError
from gantha.store.embedded import EmbeddedStore, StoreError
from gantha.text.refs import PageRefError

RESOURCE_TYPES = {"cst": "cst", "pali": "cst", "tipitaka": "cst"}


def _error(status: int, code: str, message: str, **extra: Any) -> ORJSONResponse:
    return ORJSONResponse({"success": False, "error": {"code": code, "message": message, **extra}}, status_code=status)


def create_app(index: Path) -> FastAPI:
    """The API over the index at ``index`` (opened once, shared by all requests)."""
    app = FastAPI(
        title="gantha",
        version=__version__,
        default_response_class=ORJSONResponse,
        description="Search the Pali canon and other texts; every result carries a citable coordinate.",
    )
    state: dict[str, Searcher] = {}

    def searcher() -> Searcher:
        if "s" not in state:
            state["s"] = Searcher(EmbeddedStore(index, create=False))
        return state["s"]

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> ORJSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "query")
        return _error(
            422,
            "invalid_parameter",
            f"{where}: {first.get('msg', 'invalid value')}",
            details=[{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()],
        )

    @app.exception_handler(SearchError)
    async def _search_error(_: Request, exc: SearchError) -> ORJSONResponse:
        return _error(400, exc.code, str(exc))

    @app.exception_handler(PageRefError)
    async def _page_ref(_: Request, exc: PageRefError) -> ORJSONResponse:
        return _error(400, "invalid_page_ref", str(exc))

    @app.exception_handler(CoordinateError)
    async def _coordinate(_: Request, exc: CoordinateError) -> ORJSONResponse:
        return _error(400, "invalid_coordinate", str(exc))

    @app.exception_handler(StoreError)
    async def _store(_: Request, exc: StoreError) -> ORJSONResponse:
        return _error(503, "index_unavailable", str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> ORJSONResponse:
        return _error(exc.status_code, "not_found" if exc.status_code == 404 else "http_error", str(exc.detail))

    @app.get("/api/v3/health", summary="Index status")
    def health() -> dict[str, Any]:
        s = searcher()
        books = s.store.books()
        return {
            "success": True,
            "data": {
                "status": "ok",
                "version": __version__,
                "passages": s.store.count(),
                "books": len(books),
                "corpora": sorted({r.info.corpus for r in books.values()}),
            },
        }

    @app.get("/api/v3/search", summary="Search passages")
    def search(
        q: Annotated[str, Query(description='words, "a phrase", -excluded, prefix*; any script or ASCII scheme')] = "",
        search_mode: SearchMode = SearchMode.FUZZY,
        resource_type: Annotated[str | None, Query(description="corpus: cst (alias pali, tipitaka)")] = None,
        granularity: Annotated[str | None, Query(description="paragraph")] = None,
        language: Annotated[str | None, Query(description="comma-separated languages, e.g. pali")] = None,
        category: Annotated[str | None, Query(description="comma-separated: mula, atthakatha, tika, anya")] = None,
        tags: Annotated[str | None, Query(description="comma-separated tags, e.g. vinaya,sutta,digha")] = None,
        book: Annotated[str | None, Query(description="comma-separated book ids, e.g. vin02m3.mul")] = None,
        page_refs: Annotated[str | None, Query(description="a page reference: P2.0031, P2.31, PTS Vin II 31")] = None,
        page: Annotated[int, Query(ge=1, le=MAX_OFFSET // MAX_LIMIT)] = 1,
        page_size: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 10,
        scheme: Annotated[str, Query(pattern="^(auto|iast|velthuis|hk)$")] = "auto",
    ) -> dict[str, Any]:
        corpora = []
        if resource_type:
            if resource_type not in RESOURCE_TYPES:
                raise SearchError(
                    "invalid_parameter",
                    f"unknown resource_type {resource_type!r}; one of {', '.join(sorted(RESOURCE_TYPES))}",
                )
            corpora = [RESOURCE_TYPES[resource_type]]
        req = SearchRequest(
            q=q,
            mode=search_mode,
            page_ref=page_refs,
            books=[book] if book else [],
            categories=[category] if category else [],
            tags=[tags] if tags else [],
            languages=[language] if language else [],
            corpora=corpora,
            granularity=granularity,
            limit=page_size,
            offset=(page - 1) * page_size,
            scheme=scheme,
        )
        res = searcher().search(req)
        return {
            "success": True,
            "data": {
                "total": res.total,
                "page": page,
                "page_size": page_size,
                "took": res.took_ms,
                "results": [h.model_dump() for h in res.hits],
                "aggregations": {k: [b.model_dump() for b in v] for k, v in res.aggregations.items()},
                "outcome": res.outcome,
            },
            "query_info": res.query_info.model_dump(),
        }

    return app
