"""The web pages: static HTML, CSS and JavaScript (no build step) calling the same HTTP API."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

WEB = Path(__file__).parent / "web"
PAGES = {"/": "index.html", "/dist": "dist.html", "/chat": "chat.html", "/admin": "admin.html", "/desk": "desk.html"}


def mount(app: FastAPI) -> None:
    """Serve the pages at ``/``, ``/dist``, ``/read/<coordinate>``, ``/chat``, ``/admin``, ``/desk``, and assets
    at ``/static``."""
    pages = APIRouter(include_in_schema=False)

    def page(name: str):
        def serve() -> FileResponse:
            return FileResponse(WEB / name, headers={"Cache-Control": "no-cache"})

        return serve

    for route, name in PAGES.items():
        pages.add_api_route(route, page(name), methods=["GET"])
    pages.add_api_route("/read/{coordinate:path}", page("read.html"), methods=["GET"])
    app.include_router(pages)
    app.mount("/static", StaticFiles(directory=WEB), name="static")
