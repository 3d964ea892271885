"""HTTP API (FastAPI). Every answer is JSON: under ``/api/v3`` ``{success: true, data, ...}`` or
``{success: false, error: {code, message}}`` with a 4xx status for a bad request; under ``/api/v1``
(the document service) ``{code, data, message}``, ``code`` 0 or a numeric error code (:mod:`gantha.api.v1.envelope`)."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gantha import __version__
from gantha.api import pages, v1
from gantha.api.bounded import BodyLimitMiddleware, DeadlineMiddleware, OneHeavy
from gantha.api.live import Leases, LiveIndex
from gantha.api.routes import chat, search, status, verbs
from gantha.api.v1.documents import MAX_UPLOAD
from gantha.api.v1.envelope import ApiError, error_response, table
from gantha.config import settings
from gantha.deadline import DeadlineExceeded
from gantha.model import CoordinateError
from gantha.rag.errors import ServiceError
from gantha.search.errors import SearchError
from gantha.store.base import ReadOnlyIndex, StoreError
from gantha.tasks import TaskRunner
from gantha.text.refs import PageRefError

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
MAX_BODY = 2**20  # bytes of a request body outside uploads (a chat question, an ingest request)
# the pages' Content-Security-Policy: their own scripts, styles, fonts and API only, images of their own or inline
# (the favicon), style attributes (the distribution chart's legend colours); no plugins, no <base>, no framing
PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# /docs (Swagger UI) and /redoc load their scripts and styles from jsDelivr, ReDoc its fonts from Google; both
# style inline and ReDoc searches in a blob: worker. /docs adds the hash of its inline start-up script.
DOCS = ("/docs", "/redoc")
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net https://fonts.googleapis.com; "
    "img-src 'self' data: https://fastapi.tiangolo.com; font-src 'self' https://fonts.gstatic.com; "
    "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)

# the status and code of each user error raised below the surfaces
USER_ERRORS: dict[type[Exception], tuple[int, str]] = {
    PageRefError: (400, "invalid_page_ref"),
    CoordinateError: (400, "invalid_coordinate"),
    StoreError: (503, "index_unavailable"),
    ReadOnlyIndex: (503, "read_only"),
    DeadlineExceeded: (503, "deadline_exceeded"),
}


def _error(
    request: Request, status: int, code: str, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    """An error in the envelope of the request's API: ``/api/v1``'s ``{code, data, message}``, else
    ``{success: false, error: {code, message}}``."""
    if _v1(request):
        return error_response(status, code, message, headers, **extra)
    body = {"success": False, "error": {"code": code, "message": message, **extra}}
    return JSONResponse(body, status_code=status, headers=headers)


def _v1(request: Request) -> bool:
    return request.url.path.startswith("/api/v1/")


def create_app(location: str | Path) -> FastAPI:
    """The API, web pages and admin over the index at ``location`` (a folder or a database URL)."""
    index = LiveIndex(str(location))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        s = settings()
        if s.admin_key:  # the admin API's writes, and what follows them
            runner: TaskRunner | None = TaskRunner(index.location).start()
        elif s.warm_words:  # no writes here: only the frequent words' inflections, prepared once
            runner = TaskRunner(index.location, kinds=("expand",)).start()
        else:
            runner = None
        yield
        if runner:
            runner.stop()

    app = FastAPI(
        title="gantha",
        version=__version__,
        description="Search the Pali canon and other texts; every result carries a citable coordinate.\n\n"
        "The document service (`/api/v1`) answers `{code, data, message}`: `code` 0 on success, else one of "
        "these, its HTTP status kept (4xx: 1xxx, 5xx: 2xxx; the middle digits are the status's last two):\n\n"
        + table(),
        lifespan=lifespan,
        docs_url=None,  # served by _docs, with its policy
    )

    app.add_middleware(SecurityHeaders)
    app.add_middleware(Leases, index=index)  # a request holds the index it reads until its response is sent
    app.add_middleware(  # sees disconnects; one heavy request at a time per index
        DeadlineMiddleware, seconds=settings().request_timeout, heavy=OneHeavy(index.location)
    )
    app.add_middleware(BodyLimitMiddleware, limit=_body_limit, refuse=_too_large)  # outermost: reads the body first

    _handle_errors(app)
    _docs(app)
    app.include_router(v1.router(index))
    for routes in (status, search, verbs, chat):
        app.include_router(routes.router(index))
    pages.mount(app)
    return app


def _body_limit(path: str) -> int:
    """The bytes a request body to ``path`` may hold."""
    return MAX_UPLOAD + 2**20 if path.startswith("/api/v1/documents") else MAX_BODY


def _too_large(scope: Scope, limit: int) -> Response:
    """The 413 of a body over ``limit``, in the envelope of the request's API."""
    request = Request(scope)
    headers = _security_headers(request.url.path)
    return _error(request, 413, "too_large", f"request body over {limit // 2**10:,} KiB", headers=headers)


class SecurityHeaders:
    """Pages may not be framed and run only their own scripts (:data:`PAGE_POLICY`): the headers of
    :func:`_security_headers` added to every HTTP response that lacks them (a plain ASGI middleware: it costs a
    request nothing else)."""

    def __init__(self, app: ASGIApp):
        self.app = app
        self.encoded = {path: _encoded(path) for path in (*DOCS, "")}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        extra = self.encoded.get(scope["path"]) or self.encoded[""]

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                message["headers"] = [*message.get("headers", []), *(h for h in extra if h[0] not in present)]
            await send(message)

        await self.app(scope, receive, sending)


def _encoded(path: str) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode(), v.encode()) for k, v in _security_headers(path).items()]


def _security_headers(path: str) -> dict[str, str]:
    """What every response carries: no framing, no sniffing, no referrer, the page's (or docs') policy."""
    return {
        "X-Frame-Options": "DENY",
        "Content-Security-Policy": DOCS_POLICY if path in DOCS else PAGE_POLICY,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
    }


def _docs(app: FastAPI) -> None:
    """``/docs``: FastAPI's Swagger UI page, its inline start-up script allowed by its hash."""

    @app.get("/docs", include_in_schema=False)
    async def docs(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        page = get_swagger_ui_html(openapi_url=root + str(app.openapi_url), title=f"{app.title} - Swagger UI")
        scripts = INLINE_SCRIPT.findall(bytes(page.body).decode())
        hashes = "".join(f" 'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts)
        page.headers["Content-Security-Policy"] = DOCS_POLICY.replace("script-src 'self'", "script-src 'self'" + hashes)
        return page


def _handle_errors(app: FastAPI) -> None:
    """Every error a request can meet as ``{success: false, error: {code, message}}`` and its status."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "query")
        return _error(
            request,
            422,
            "invalid_request" if _v1(request) else "invalid_parameter",
            f"{where}: {first.get('msg', 'invalid value')}",
            details=[{"loc": list(e.get("loc", ())), "msg": e.get("msg")} for e in exc.errors()],
        )

    @app.exception_handler(ApiError)
    async def _api(request: Request, exc: ApiError) -> JSONResponse:
        return _error(request, exc.status, exc.reason, str(exc))

    @app.exception_handler(SearchError)
    async def _search_error(request: Request, exc: SearchError) -> JSONResponse:
        status = 404 if _v1(request) and exc.code == "not_found" else 400  # /api/v3 keeps its 400
        return _error(request, status, exc.code, str(exc))

    @app.exception_handler(ServiceError)
    async def _service(request: Request, exc: ServiceError) -> JSONResponse:  # the model or a web engine
        return _error(request, 400 if exc.unconfigured else 502, exc.code, str(exc))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:  # logged by the server as ever
        if _v1(request):
            return _error(request, 500, "internal_error", "internal error")
        return PlainTextResponse("Internal Server Error", status_code=500)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        if "Allow" in headers:  # a 405 names the methods of the path's first route: name those of all its routes
            routes = request.app.router.routes
            allowed = [
                m for m in METHODS if any(r.matches({**request.scope, "method": m})[0] is Match.FULL for r in routes)
            ]
            headers["Allow"] = ", ".join(allowed)
        code = "not_found" if exc.status_code == 404 else "http_error"
        if exc.status_code == 405 and _v1(request):
            code = "method_not_allowed"
        return _error(request, exc.status_code, code, str(exc.detail), headers=headers)

    for kind, (answer, code) in USER_ERRORS.items():

        async def _user(request: Request, exc: Exception, answer: int = answer, code: str = code) -> JSONResponse:
            return _error(request, answer, code, str(exc))

        app.add_exception_handler(kind, _user)
