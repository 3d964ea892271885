"""The operator's API (``/api/v1``, behind ``GANTHA_ADMIN_KEY``): overview, documents, ingestion tasks.

Adding or deleting a document is an asynchronous task: the request answers 202 with the task,
``GET /api/v1/documents/tasks/{id}`` reports its progress, result or error.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from gantha.api.errors import answers
from gantha.config import settings
from gantha.sources import SOURCES, UPLOAD_SOURCES
from gantha.store.base import Store
from gantha.store.queue import TaskQueue
from gantha.tasks import Task, save_upload

MAX_UPLOAD = 50 * 2**20


class AdminError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


class IngestRequest(BaseModel):
    source: str
    path: str


# the two bodies ``POST /api/v1/documents`` reads itself (JSON, or a multipart upload), for the OpenAPI schema
INGEST_BODY = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "required": ["source", "path"],
                "properties": {
                    "source": {"type": "string", "enum": list(SOURCES)},
                    "path": {"type": "string", "description": "a file or folder on the server (GANTHA_INGEST_ROOTS)"},
                },
            }
        },
        "multipart/form-data": {
            "schema": {
                "type": "object",
                "required": ["file"],
                "properties": {
                    "file": {
                        "type": "string",
                        "format": "binary",
                        "description": f"a {', '.join(UPLOAD_SOURCES)} file, or one gzipped",
                    },
                    "source": {"type": "string", "enum": sorted(set(UPLOAD_SOURCES.values()))},
                },
            }
        },
    },
}


def require_key(
    x_api_key: Annotated[str | None, Header()] = None, authorization: Annotated[str | None, Header()] = None
) -> None:
    """The admin key from ``X-API-Key`` or ``Authorization: Bearer``; 503 while none is configured."""
    expected = settings().admin_key
    if not expected:
        raise AdminError(503, "admin_disabled", "the admin API is off: set GANTHA_ADMIN_KEY")
    given = x_api_key or (authorization or "").removeprefix("Bearer ").strip()
    if not given or not secrets.compare_digest(given.encode(), expected.encode()):
        raise AdminError(401, "unauthorized", "missing or wrong API key (X-API-Key header)")


def _document(store: Store, key: str) -> dict[str, Any]:
    corpus, _, book = key.partition("/")
    records = store.channels(corpus, book)
    if not records:
        raise HTTPException(404, f"no document {key} in the index")
    first = records[0]
    return {
        "key": key,
        "corpus": corpus,
        "book": book,
        "title": first.info.title,
        "category": first.info.category,
        "tags": first.info.tags,
        "group_path": first.info.group_path,
        "channels": [
            {
                "channel": r.channel.name,
                "language": r.channel.language,
                "passages": r.passages,
                "page_refs": r.page_refs,
                "bold_terms": r.bold_terms,
                "source": r.source,
                "ingested_at": r.ingested_at,
            }
            for r in records
        ],
        "passages": sum(r.passages for r in records),
        "ingested_at": max(r.ingested_at for r in records),
    }


def router(store: Callable[[], Store]) -> APIRouter:
    api = APIRouter(
        prefix="/api/v1", dependencies=[Depends(require_key)], tags=["admin"], responses=answers(401, 413, 422, 503)
    )

    def queue() -> TaskQueue:
        return store().tasks()

    def accepted(task: Task) -> JSONResponse:
        return JSONResponse(
            {"success": True, "data": task.model_dump()},
            status_code=202,
            headers={"Location": f"/api/v1/documents/tasks/{task.id}"},
        )

    @api.get("/overview", summary="Corpora, passages, index size, last ingests, categories and tags")
    def overview() -> dict[str, Any]:
        s = store()
        records = list(s.books(channel=None).values())
        every = [c for r in records for c in s.channels(r.info.corpus, r.info.book)]
        corpora: dict[str, dict[str, int]] = {}
        for r in every:
            c = corpora.setdefault(r.info.corpus, {"books": 0, "passages": 0})
            c["passages"] += r.passages
        for r in records:
            corpora[r.info.corpus]["books"] += 1
        size = s.size()
        latest = sorted(every, key=lambda r: r.ingested_at, reverse=True)[:10]
        return {
            "success": True,
            "data": {
                "passages": s.count(),
                "books": len(records),
                "index_bytes": size,
                "corpora": [{"corpus": k, **v} for k, v in sorted(corpora.items())],
                "channels": sorted(Counter(r.channel.name for r in every).items()),
                "categories": sorted(Counter(r.info.category for r in records).items()),
                "tags": sorted(Counter(t for r in records for t in r.info.tags).items(), key=lambda kv: -kv[1]),
                "last_ingests": [
                    {
                        "key": f"{r.info.corpus}/{r.info.book}",
                        "title": r.info.title,
                        "channel": r.channel.name,
                        "passages": r.passages,
                        "ingested_at": r.ingested_at,
                    }
                    for r in latest
                ],
                "tasks": [t.model_dump() for t in queue().list(10)],
            },
        }

    @api.get("/documents/tasks", summary="Recent ingestion and deletion tasks")
    def tasks(limit: int = 50) -> dict[str, Any]:
        return {"success": True, "data": [t.model_dump() for t in queue().list(max(1, min(limit, 500)))]}

    @api.get("/documents/tasks/{task_id}", summary="A task's state, progress, result or error", responses=answers(404))
    def task(task_id: str) -> dict[str, Any]:
        found = queue().get(task_id)
        if found is None:
            raise HTTPException(404, f"no task {task_id}")
        return {"success": True, "data": found.model_dump()}

    @api.get("/documents", summary="Indexed documents (books, files) with their channels")
    def documents(corpus: str | None = None) -> dict[str, Any]:
        s = store()
        keys = sorted(s.books(corpus, channel=None))
        return {"success": True, "data": [_document(s, k) for k in keys]}

    @api.post(
        "/documents",
        status_code=202,
        responses=answers(400, 403),
        summary="Add a source: JSON {source, path} (a server path) or a multipart upload (file, source)",
        openapi_extra={"requestBody": INGEST_BODY},
    )
    async def add(request: Request) -> JSONResponse:
        if request.headers.get("content-type", "").startswith("multipart/form-data"):
            form = await request.form()
            upload = form.get("file")
            if upload is None or isinstance(upload, str):
                raise AdminError(400, "invalid_parameter", "multipart upload needs a 'file' field")
            name = upload.filename or ""
            data = await upload.read()
            if len(data) > MAX_UPLOAD:
                raise AdminError(413, "too_large", f"upload larger than {MAX_UPLOAD // 2**20} MiB")
            suffix = Path(name.removesuffix(".gz")).suffix.lower()
            source = str(form.get("source") or UPLOAD_SOURCES.get(suffix) or "")
            if source not in set(UPLOAD_SOURCES.values()):
                allowed = ", ".join(f"{s} ({n})" for s, n in UPLOAD_SOURCES.items())
                raise AdminError(400, "invalid_parameter", f"cannot ingest {name!r}: upload one of {allowed}, or .gz")
            try:
                path = save_upload(store(), name, data)
            except ValueError as exc:
                raise AdminError(400, "invalid_parameter", str(exc)) from exc
            params = {"source": source, "path": str(path), "upload": name}
        else:
            try:
                body = IngestRequest.model_validate_json(await request.body())
            except ValueError as exc:
                raise AdminError(422, "invalid_parameter", f"expected JSON {{source, path}}: {exc}") from exc
            if body.source not in SOURCES:
                known = ", ".join(SOURCES)
                raise AdminError(400, "invalid_parameter", f"unknown source {body.source!r}; one of {known}")
            target = Path(body.path).resolve() if body.path.strip() else None
            roots = settings().allowed_roots()
            if target is None or not any(target == r or target.is_relative_to(r) for r in roots):
                raise AdminError(
                    403,
                    "forbidden_path",
                    f"{body.path!r} is outside the folders the server ingests from "
                    f"({', '.join(map(str, roots))}; GANTHA_INGEST_ROOTS) — upload the file instead",
                )
            if not target.exists():
                raise AdminError(400, "invalid_parameter", f"no such file or folder on the server: {body.path}")
            params = {"source": body.source, "path": str(target)}
        return accepted(queue().submit("ingest", params))

    @api.get(
        "/documents/{key:path}",
        summary="One document: title, category, channels with counts and sources",
        responses=answers(404),
    )
    def document(key: str) -> dict[str, Any]:
        return {"success": True, "data": _document(store(), key)}

    @api.delete(
        "/documents/{key:path}",
        status_code=202,
        summary="Delete a document (all channels) as a task",
        responses=answers(404),
    )
    def delete(key: str) -> JSONResponse:
        _document(store(), key)  # 404 now rather than a failed task
        corpus, _, book = key.partition("/")
        return accepted(queue().submit("delete", {"corpus": corpus, "book": book}))

    return api
