"""Documents and their tasks (``/api/v1``, behind ``GANTHA_ADMIN_KEY``).

Adding or deleting a document is an asynchronous task: the request answers 202 with the task,
``GET /api/v1/documents/tasks/{id}`` reports its progress, result or error. A delete is idempotent:
a document the index does not hold answers 200 (nothing to do), one whose deletion is already queued
answers that task again.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from gantha.api.live import LiveIndex
from gantha.api.v1.envelope import ApiError, Reply, answers
from gantha.api.v1.models import (
    ChannelData,
    Classification,
    DeletedData,
    DocumentData,
    DocumentDetail,
    DocumentPage,
    TaskData,
    TaskPage,
    TopicFix,
)
from gantha.config import settings
from gantha.model import TopicRecord
from gantha.research.tree import MAX_DEPTH, MAX_NODES, outline_tree
from gantha.sources import SOURCES, UPLOAD_SOURCES
from gantha.store.base import Store
from gantha.store.queue import Task
from gantha.tasks import save_upload
from gantha.topics import scope

MAX_UPLOAD = 50 * 2**20
MAX_NAME = 255  # bytes of an upload's file name in UTF-8: the longest a file system keeps (NAME_MAX)
STATES = "^(queued|running|done|failed)$"


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
        raise ApiError(503, "admin_disabled", "the admin API is off: set GANTHA_ADMIN_KEY")
    given = x_api_key or (authorization or "").removeprefix("Bearer ").strip()
    if not given or not secrets.compare_digest(given.encode(), expected.encode()):
        raise ApiError(401, "unauthorized", "missing or wrong API key (X-API-Key header)")


def document(store: Store, key: str) -> DocumentData:
    """A document by its key (``corpus/book``), all its channels; 404 if the index does not hold it."""
    corpus, _, book = key.partition("/")
    records = store.channels(corpus, book) if book else []
    if not records:
        raise ApiError(404, "not_found", f"no document {key} in the index")
    first = records[0]
    return DocumentData(
        key=key,
        corpus=corpus,
        book=book,
        title=first.info.title,
        category=first.info.category,
        tags=first.info.tags,
        group_path=first.info.group_path,
        channels=[
            ChannelData(
                channel=r.channel.name,
                language=r.channel.language,
                passages=r.passages,
                page_refs=r.page_refs,
                bold_terms=r.bold_terms,
                source=r.source,
                ingested_at=r.ingested_at,
            )
            for r in records
        ],
        passages=sum(r.passages for r in records),
        ingested_at=max(r.ingested_at for r in records),
    )


def classification(store: Store, record: TopicRecord) -> Classification:
    return Classification(
        coordinate=record.coordinate,
        topic=record.topic,
        label=scope.labels(store).get(record.topic, record.topic),
        confidence=record.confidence,
        tags=record.tags,
        fixed=record.fixed,
    )


def accepted(task: Task) -> JSONResponse:
    """202 with the task, and where to follow it."""
    body = Reply[TaskData](data=TaskData.of(task), message=f"task {task.state}").model_dump(mode="json")
    return JSONResponse(body, status_code=202, headers={"Location": f"/api/v1/documents/tasks/{task.id}"})


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter(
        prefix="/api/v1", dependencies=[Depends(require_key)], tags=["admin"], responses=answers(401, 413, 422, 503)
    )

    def store() -> Store:
        return index.research().store

    @api.get("/documents/tasks", summary="Ingestion and deletion tasks, newest first")
    def tasks(
        page: Annotated[int, Query(ge=1, le=10_000)] = 1,
        page_size: Annotated[int, Query(ge=1, le=500)] = 50,
        state: Annotated[str | None, Query(pattern=STATES, description="queued, running, done or failed")] = None,
    ) -> Reply[TaskPage]:
        queue = store().tasks()
        items = [TaskData.of(t) for t in queue.list(page_size, (page - 1) * page_size, state)]
        return Reply(data=TaskPage(total=queue.count(state), page=page, page_size=page_size, items=items))

    @api.get("/documents/tasks/{task_id}", summary="A task's state, progress, result or error", responses=answers(404))
    def task(task_id: str) -> Reply[TaskData]:
        found = store().tasks().get(task_id)
        if found is None:
            raise ApiError(404, "not_found", f"no task {task_id} (finished tasks are kept GANTHA_TASK_RETENTION_*)")
        return Reply(data=TaskData.of(found))

    @api.get("/documents", summary="Indexed documents (books, files) with their channels, a page at a time")
    def documents(
        corpus: str | None = None,
        page: Annotated[int, Query(ge=1, le=10_000)] = 1,
        page_size: Annotated[int, Query(ge=1, le=500)] = 50,
    ) -> Reply[DocumentPage]:
        s = store()
        keys = sorted(s.books(corpus, channel=None))
        chosen = keys[(page - 1) * page_size : page * page_size]
        items = [document(s, k) for k in chosen]
        return Reply(data=DocumentPage(total=len(keys), page=page, page_size=page_size, items=items))

    @api.post(
        "/documents",
        status_code=202,
        response_model=Reply[TaskData],
        responses=answers(400, 403),
        summary="Add a source: JSON {source, path} (a server path) or a multipart upload (file, source)",
        openapi_extra={"requestBody": INGEST_BODY},
    )
    async def add(request: Request) -> JSONResponse:
        if request.headers.get("content-type", "").startswith("multipart/form-data"):
            params = await _upload(request, store())
        else:
            params = await _server_path(request)
        return accepted(store().tasks().submit("ingest", params))

    @api.get(
        "/documents/{key:path}",
        summary="One document: its channels, and its outline (book › chapter › section) with sizes and summaries",
        responses=answers(400, 404),
    )
    def detail(
        key: str,
        depth: Annotated[int, Query(ge=0, le=MAX_DEPTH, description="levels of the outline below the book")] = 4,
        summaries: Annotated[
            bool, Query(description="a summary per node: a stored model summary, else the extractive one")
        ] = True,
    ) -> Reply[DocumentDetail]:
        research = index.research()
        doc = document(research.store, key)
        tree = outline_tree(research, key, depth=depth, summaries=summaries, limit=MAX_NODES)
        whole = next((t for t in research.store.topics(doc.corpus, doc.book) if t.chapter == 0), None)
        topic = classification(research.store, whole) if whole else None
        return Reply(data=DocumentDetail(**doc.model_dump(), outline=tree, classification=topic))

    @api.put(
        "/topics/{coordinate:path}",
        summary="Fix the topic of a document or chapter by hand (kept when it is classified again); null drops it",
        responses=answers(400, 404),  # 400: a body that is not JSON
    )
    def fix(coordinate: str, body: TopicFix) -> Reply[Classification]:
        s = store()
        corpus, _, rest = coordinate.partition("/")
        record = next((t for t in s.topics(corpus, rest.partition("/")[0]) if t.coordinate == coordinate), None)
        if record is None:
            raise ApiError(404, "not_found", f"no classified document or chapter {coordinate} (gantha classify)")
        if body.topic is not None and body.topic not in scope.known_topics(s):
            known = ", ".join(scope.known_topics(s))
            raise ApiError(422, "invalid_parameter", f"unknown topic {body.topic!r}; one of {known}")
        s.fix_topic(coordinate, body.topic)
        fixed = next(t for t in s.topics(record.corpus, record.book) if t.coordinate == coordinate)
        return Reply(data=classification(s, fixed), message="fixed" if body.topic else "given back to the classifier")

    @api.delete(
        "/documents/{key:path}",
        status_code=202,
        response_model=Reply[TaskData],
        summary="Delete a document (all channels) as a task; idempotent",
        responses={200: {"model": Reply[DeletedData], "description": "the index does not hold it: nothing to do"}},
    )
    def delete(key: str) -> JSONResponse:
        s = store()
        queue = s.tasks()
        corpus, _, book = key.partition("/")
        for task in queue.pending("delete"):
            if task.params == {"corpus": corpus, "book": book}:
                return accepted(task)  # asked again while queued: the same task
        if not (book and s.channels(corpus, book)):
            data = DeletedData(key=key, message=f"no document {key} in the index: nothing to delete")
            return JSONResponse(Reply[DeletedData](data=data, message=data.message).model_dump(mode="json"))
        return accepted(queue.submit("delete", {"corpus": corpus, "book": book}))

    return api


async def _upload(request: Request, store: Store) -> dict[str, str]:
    """The task parameters of a multipart upload, its file kept beside the index."""
    form = await request.form()
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        raise ApiError(400, "invalid_parameter", "multipart upload needs a 'file' field")
    name = _upload_name(upload.filename or "")
    data = await upload.read()
    if len(data) > MAX_UPLOAD:
        raise ApiError(413, "too_large", f"upload larger than {MAX_UPLOAD // 2**20} MiB")
    suffix = Path(name.removesuffix(".gz")).suffix.lower()
    source = str(form.get("source") or UPLOAD_SOURCES.get(suffix) or "")
    if source not in set(UPLOAD_SOURCES.values()):
        allowed = ", ".join(f"{s} ({n})" for s, n in UPLOAD_SOURCES.items())
        raise ApiError(400, "invalid_parameter", f"cannot ingest {name!r}: upload one of {allowed}, or .gz")
    try:
        path = save_upload(store, name, data)
    except ValueError as exc:
        raise ApiError(400, "invalid_parameter", str(exc)) from exc
    return {"source": source, "path": str(path), "upload": name}


def _upload_name(filename: str) -> str:
    """An upload's file name without its folders (``/`` or ``\\``); 400 for none, or one no file system keeps."""
    name = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if not name.strip(". "):
        raise ApiError(400, "invalid_parameter", f"invalid file name {filename!r}: the upload needs a file name")
    if len(name.encode()) > MAX_NAME:
        raise ApiError(
            400,
            "invalid_parameter",
            f"file name too long: {len(name.encode()):,} bytes in UTF-8, at most {MAX_NAME} bytes — rename the file",
        )
    return name


async def _server_path(request: Request) -> dict[str, str]:
    """The task parameters of JSON ``{source, path}``: a path inside ``GANTHA_INGEST_ROOTS`` only."""
    try:
        body = IngestRequest.model_validate_json(await request.body())
    except ValueError as exc:
        raise ApiError(422, "invalid_request", f"expected JSON {{source, path}}: {exc}") from exc
    if body.source not in SOURCES:
        raise ApiError(400, "invalid_parameter", f"unknown source {body.source!r}; one of {', '.join(SOURCES)}")
    roots = settings().allowed_roots()
    if not roots:
        raise ApiError(
            403,
            "forbidden_path",
            "the server ingests no server path unless GANTHA_INGEST_ROOTS names the folders it may read "
            "— upload the file instead",
        )
    target = Path(body.path).resolve() if body.path.strip() else None
    outside = _outside(target, roots) if target else Path()
    if outside is not None:
        via = f" (by its link {outside})" if target and outside != target else ""
        raise ApiError(
            403,
            "forbidden_path",
            f"{body.path!r}{via} is outside the folders the server ingests from "
            f"({', '.join(map(str, roots))}; GANTHA_INGEST_ROOTS) — upload the file instead",
        )
    if not target.exists():
        raise ApiError(400, "invalid_parameter", f"no such file or folder on the server: {body.path}")
    return {"source": body.source, "path": str(target)}


def _outside(target: Path, roots: list[Path]) -> Path | None:
    """``target`` (resolved) if it lies outside ``roots``; else, for a folder, the first file or folder in it
    whose links lead outside them (the ingesters follow links), or None."""

    def inside(path: Path) -> bool:
        return any(path == r or path.is_relative_to(r) for r in roots)

    if not inside(target):
        return target
    seen: set[Path] = set()
    for folder, dirs, files in os.walk(target, followlinks=True):
        if (real := Path(folder).resolve()) in seen:  # a link back up: walked already
            dirs.clear()
            continue
        seen.add(real)
        for name in dirs + files:
            if not inside((Path(folder) / name).resolve()):
                return Path(folder) / name
    return None
