"""HTTP API (FastAPI). Every answer is JSON: ``{success: true, data, ...}`` or
``{success: false, error: {code, message}}`` with a 4xx status for a bad request."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Generic, TypeVar

import orjson
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException

from gantha import __version__
from gantha.api import admin, contract, pages
from gantha.api.contract import Result
from gantha.api.errors import ERRORS, ErrorResponse
from gantha.config import settings
from gantha.model import (
    MAX_LIMIT,
    MAX_OFFSET,
    Bucket,
    CoordinateError,
    Hit,
    QueryInfo,
    SearchMode,
    SearchRequest,
    comma_list,
)
from gantha.rag.agent import Agent, ChatAnswer, ChatRequest, agent_from_settings
from gantha.rag.errors import ServiceError
from gantha.research import (
    ChapterResult,
    DistResult,
    FormsResult,
    GetResult,
    Research,
    SuggestResult,
    VersionsResult,
    WordResult,
)
from gantha.search.service import Searcher, SearchError, compact
from gantha.store.base import StoreError
from gantha.tasks import TaskRunner
from gantha.text.refs import PageRefError


class SearchData(BaseModel):
    total: int
    page: int
    page_size: int
    took: float  # milliseconds
    results: list[Result]
    aggregations: dict[str, list[Bucket]]
    outcome: str  # hits | no_hits | unattested_form | not_found
    message: str | None = None
    suggestions: list[str] = []
    weak: list[Hit] = []  # with not_found: the best candidates, below the confidence threshold


T = TypeVar("T")


class Envelope(BaseModel, Generic[T]):
    success: bool = True
    data: T


class SearchEnvelope(BaseModel):
    success: bool = True
    data: SearchData
    query_info: QueryInfo


class BookData(BaseModel):
    book: str
    corpus: str
    title: str
    category: str
    tags: list[str]
    group_path: list[str]
    passages: int
    page_refs: int
    bold_terms: int
    ingested_at: str


class BooksEnvelope(BaseModel):
    success: bool = True
    data: list[BookData]


class HealthData(BaseModel):
    status: str  # ok | degraded (some side file unreadable: see problems)
    version: str
    passages: int
    books: int
    corpora: list[str]
    problems: list[str] = []


class HealthEnvelope(BaseModel):
    success: bool = True
    data: HealthData


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"success": False, "error": {"code": code, "message": message, **extra}}, status_code=status)


MAX_BODY = 2**20  # bytes of a request body outside uploads (a chat question, an ingest request)


def create_app(location: str | Path) -> FastAPI:
    """The API, web pages and admin over the index at ``location`` (a folder or a database URL): opened
    once, reopened when another process changed it."""
    location = str(location)
    state: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        runner = TaskRunner(location).start() if settings().admin_key else None
        yield
        if runner:
            runner.stop()

    app = FastAPI(
        title="gantha",
        version=__version__,
        description="Search the Pali canon and other texts; every result carries a citable coordinate.",
        lifespan=lifespan,
    )

    @app.middleware("http")
    async def guarded(request: Request, call_next):  # type: ignore[no-untyped-def]
        """Bodies larger than the route allows are refused before they are read; pages may not be framed."""
        limit = admin.MAX_UPLOAD + 2**20 if request.url.path.startswith("/api/v1/documents") else MAX_BODY
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            return _error(413, "too_large", f"request body over {limit // 2**10:,} KiB")
        response = await call_next(request)
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Content-Security-Policy", "frame-ancestors 'none'")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        return response

    def research() -> Research:
        current = state.get("r")
        generation = current.store.generation() if current else None
        if current is None or state.get("generation") != generation:  # first use, or the index changed under us
            state["r"] = Research.open(location)
            state["generation"] = state["r"].store.generation()
            state.pop("agent", None)
            if current is not None:
                current.store.close()
        return state["r"]

    def agent() -> Agent:
        r = research()
        if "agent" not in state:
            state["agent"] = agent_from_settings(r, settings())
        return state["agent"]

    app.include_router(admin.router(lambda: research().store))

    @app.exception_handler(admin.AdminError)
    async def _admin(_: Request, exc: admin.AdminError) -> JSONResponse:
        return _error(exc.status, exc.code, str(exc))

    def searcher() -> Searcher:
        return research().searcher

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "query")
        return _error(
            422,
            "invalid_parameter",
            f"{where}: {first.get('msg', 'invalid value')}",
            details=[{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()],
        )

    @app.exception_handler(SearchError)
    async def _search_error(_: Request, exc: SearchError) -> JSONResponse:
        return _error(400, exc.code, str(exc))

    @app.exception_handler(PageRefError)
    async def _page_ref(_: Request, exc: PageRefError) -> JSONResponse:
        return _error(400, "invalid_page_ref", str(exc))

    @app.exception_handler(CoordinateError)
    async def _coordinate(_: Request, exc: CoordinateError) -> JSONResponse:
        return _error(400, "invalid_coordinate", str(exc))

    @app.exception_handler(StoreError)
    async def _store(_: Request, exc: StoreError) -> JSONResponse:
        return _error(503, "index_unavailable", str(exc))

    @app.exception_handler(ServiceError)
    async def _service(_: Request, exc: ServiceError) -> JSONResponse:  # the model or a web engine
        return _error(400 if exc.unconfigured else 502, exc.code, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return _error(exc.status_code, "not_found" if exc.status_code == 404 else "http_error", str(exc.detail))

    @app.get("/api/v3/health", summary="Index status", responses=ERRORS)
    def health() -> HealthEnvelope:
        s = searcher()
        books = s.store.books()
        corpora = sorted({r.info.corpus for r in s.store.books(channel=None).values()})
        return HealthEnvelope(
            data=HealthData(
                status="degraded" if s.vector_problem else "ok",
                version=__version__,
                passages=s.store.count(),
                books=len(books),
                corpora=corpora,
                problems=[s.vector_problem] if s.vector_problem else [],
            )
        )

    @app.get("/api/v3/books", summary="Indexed books with title, category, tags and counts", responses=ERRORS)
    def books(corpus: str | None = None) -> BooksEnvelope:
        records = sorted(searcher().store.books(corpus).values(), key=lambda r: (r.info.corpus, r.info.book))
        return BooksEnvelope(
            data=[
                BookData(
                    book=r.info.book,
                    corpus=r.info.corpus,
                    title=r.info.title,
                    category=r.info.category,
                    tags=r.info.tags,
                    group_path=r.info.group_path,
                    passages=r.passages,
                    page_refs=r.page_refs,
                    bold_terms=r.bold_terms,
                    ingested_at=r.ingested_at,
                )
                for r in records
            ]
        )

    @app.get("/api/v3/search", summary="Search passages", responses=ERRORS)
    def search(
        q: Annotated[str, Query(description='words, "a phrase", -excluded, prefix*; any script or ASCII scheme')] = "",
        search_mode: SearchMode = SearchMode.FUZZY,
        resource_type: Annotated[
            str | None,
            Query(
                description="comma-separated: origin_text, translation, nissaya, dictionary, term, article, "
                "or a corpus: cst (pali, tipitaka), bible, md, dict"
            ),
        ] = None,
        granularity: Annotated[str | None, Query(pattern="^(paragraph|sentence)$")] = None,
        language: Annotated[str | None, Query(description="comma-separated languages, e.g. pali")] = None,
        category: Annotated[
            str | None,
            Query(description="comma-separated: mula (pali), atthakatha (commentary), tika (subcommentary), anya"),
        ] = None,
        tags: Annotated[str | None, Query(description="comma-separated tags, e.g. vinaya,sutta,digha")] = None,
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
            str | None, Query(max_length=500, description="sentences like this one, whatever the inflection")
        ] = None,
    ) -> SearchEnvelope:
        if (page - 1) * page_size > MAX_OFFSET:
            raise SearchError("invalid_parameter", f"page {page} of {page_size} starts past result {MAX_OFFSET:,}")
        req = SearchRequest(
            q=q,
            mode=search_mode,
            page_ref=page_refs,
            books=[book] if book else [],
            categories=[category] if category else [],
            tags=[tags] if tags else [],
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
        if similar:
            res = research().similar(
                similar,
                limit=page_size,
                offset=(page - 1) * page_size,
                books=req.books,
                categories=req.categories,
                tags=req.tags,
            )
        else:
            res = research().search(req, lemma=lemma)
        data = SearchData(
            total=res.total,
            page=page,
            page_size=page_size,
            took=res.took_ms,
            results=contract.results(research(), res.hits, res.query_info),
            aggregations=res.aggregations,
            outcome=res.outcome,
            message=res.message,
            suggestions=res.suggestions,
            weak=res.weak,
        )
        envelope = SearchEnvelope(data=data, query_info=res.query_info)
        if fields:  # compact hits: plain JSON of the fields asked for
            return JSONResponse(compact(envelope.model_dump(mode="json"), comma_list(fields)))
        return envelope

    @app.get("/api/v3/search-suggest", summary="Complete a word, a Chinese term or a page reference", responses=ERRORS)
    def search_suggest(
        q: str,
        type: Annotated[str, Query(pattern="^(term|pali_romanized|page_ref)$")] = "term",
        limit: Annotated[int, Query(ge=1, le=50)] = 10,
        language: Annotated[
            str | None, Query(description="language of the suggestions: pali (default) or zh (Chinese renderings)")
        ] = None,
    ) -> Envelope[SuggestResult]:
        return Envelope(data=research().suggest(q, type, limit, language))

    @app.get("/api/v3/forms", summary="Lemma candidates and attested forms with counts", responses=ERRORS)
    def forms(
        word: Annotated[str, Query(min_length=1, max_length=200)],
        compounds: Annotated[bool, Query(description="list the compounds holding the lemma")] = True,
        unattested: Annotated[bool, Query(description="list the proposed forms the texts never write")] = False,
    ) -> Envelope[FormsResult]:
        return Envelope(data=research().forms(word, compounds=compounds, unattested=unattested))

    @app.get("/api/v3/word", summary="Dictionary meanings and morphology", responses=ERRORS)
    def word(word: Annotated[str, Query(min_length=1, max_length=200)]) -> Envelope[WordResult]:
        return Envelope(data=research().word(word))

    @app.get("/api/v3/dist", summary="Hits per book for forms or a lemma", responses=ERRORS)
    def dist(
        forms: Annotated[str | None, Query(description="comma-separated exact forms")] = None,
        lemma: str | None = None,
        bold: bool = False,
        category: str | None = None,
    ) -> Envelope[DistResult]:
        if not forms and not lemma:
            raise SearchError("empty_query", "give forms or a lemma")
        return Envelope(
            data=research().dist(comma_list(forms), lemma=lemma, bold_only=bold, categories=comma_list(category))
        )

    @app.get("/api/v3/get", summary="Paragraphs by coordinate, with citations", responses=ERRORS)
    def get(
        coordinates: Annotated[str, Query(description="comma-separated, e.g. cst/vin02m3.mul/75")],
        channel: Annotated[
            str | None,
            Query(description="channels: pali, my, en, pli-ms, kjv, cuv (default: original)"),
        ] = None,
        tokens: bool = False,
    ) -> Envelope[GetResult]:
        return Envelope(data=research().get(comma_list(coordinates), comma_list(channel) or None, tokens))

    @app.get("/api/v3/chapter", summary="The chapter around a coordinate: size, or text with confirm", responses=ERRORS)
    def chapter(
        coordinate: str,
        confirm: bool = False,
        channel: str = "pali",
        script: Annotated[str, Query(description="Pali script: Roman, Burmese, Sinhala, Thai, Devanagari")] = "Roman",
        section: Annotated[bool, Query(description="only the innermost heading's section")] = False,
    ) -> Envelope[ChapterResult]:
        return Envelope(data=research().chapter(coordinate, confirm, channel, script, section))

    @app.get("/api/v3/versions", summary="Channels present and missing at a coordinate", responses=ERRORS)
    def versions(coordinate: str) -> Envelope[VersionsResult]:
        return Envelope(data=research().versions(coordinate))

    @app.post(
        "/api/v3/chat",
        summary="Answer a question from the texts, citing them; stream=true sends Server-Sent Events",
        responses={
            **ERRORS,
            502: {"model": ErrorResponse, "description": "the model or the web engine failed"},
            200: {
                "description": "JSON `{success, data: {answer, outcome, sources, citations, query_info}}`, or with "
                "stream=true an event stream: `sources` (repeatable) → `token`… → `done` (the checked answer), "
                "or `error` last",
                "content": {"text/event-stream": {}},
            },
        },
    )
    def chat(req: ChatRequest) -> Envelope[ChatAnswer]:
        turn = agent()
        if req.stream:
            return StreamingResponse(  # type: ignore[return-value]
                _sse(turn.run(req)),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        return Envelope(data=turn.answer(req))

    pages.mount(app)
    return app


def _sse(events: Any) -> Any:
    """Server-Sent Events: ``event: <kind>`` and one JSON ``data:`` line each; errors become an ``error`` event."""
    try:
        for kind, data in events:
            yield f"event: {kind}\ndata: {orjson.dumps(data).decode()}\n\n"
    except Exception as exc:  # the stream has begun: report in-band rather than cut the connection
        yield f"event: error\ndata: {orjson.dumps({'code': 'internal_error', 'message': str(exc)}).decode()}\n\n"
