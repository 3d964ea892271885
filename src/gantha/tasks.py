"""Asynchronous ingestion: a durable task queue in SQLite beside the index, and the runner that works it.

A task is queued (``POST /api/v1/documents`` answers 202 with its id), claimed atomically by one
server process, run under a lock file (one writer per index), and its progress, result or error
written back. The queue survives a restart: a task left ``running`` by a process that no longer
exists is queued again and resumed (ingestion skips what was already committed).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from gantha.config import settings
from gantha.ingest import LEXICON_SOURCES, STORE_INGESTERS, embed_corpora, ingest_lexicon, vectors_after
from gantha.store.embedded import EmbeddedStore, IndexBusy, StoreError
from gantha.store.lexicon import Lexicon
from gantha.store.vectors import VectorIndex, doc_of

MAX_ATTEMPTS = 3  # a task whose process died this many times while running it is given up


class Task(BaseModel):
    id: str
    kind: str  # ingest | delete
    params: dict[str, Any]
    state: str  # queued | running | done | failed
    done: int = 0  # files or books handled so far
    total: int = 0
    passages: int = 0
    message: str = ""
    result: dict[str, Any] | None = None
    error: str | None = None
    attempts: int = 0
    created_at: str
    updated_at: str
    worker: str | None = Field(None, exclude=True)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _alive(worker: str | None) -> bool:
    if not worker:
        return False
    try:
        os.kill(int(worker), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


class TaskQueue:
    """The tasks of one index, in ``tasks.sqlite``."""

    COLUMNS = (
        "id, kind, params, state, done, total, passages, message, result, error, attempts, created_at, "
        "updated_at, worker"
    )

    def __init__(self, index: Path) -> None:
        self.index = Path(index)
        self.index.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.index / "tasks.sqlite", check_same_thread=False, timeout=30)
        self._lock = threading.Lock()
        with self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                """CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, kind TEXT, params TEXT, state TEXT,
                done INTEGER, total INTEGER, passages INTEGER, message TEXT, result TEXT, error TEXT,
                attempts INTEGER, created_at TEXT, updated_at TEXT, worker TEXT)"""
            )

    def _task(self, row: tuple) -> Task:
        d = dict(zip([c.strip() for c in self.COLUMNS.split(",")], row, strict=True))
        d["params"] = json.loads(d["params"])
        d["result"] = json.loads(d["result"]) if d["result"] else None
        return Task(**d)

    def submit(self, kind: str, params: dict[str, Any]) -> Task:
        task_id = uuid.uuid4().hex[:16]
        now = _now()
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO tasks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (task_id, kind, json.dumps(params), "queued", 0, 0, 0, "queued", None, None, 0, now, now, None),
            )
        task = self.get(task_id)
        assert task is not None
        return task

    def get(self, task_id: str) -> Task | None:
        with self._lock:
            row = self._db.execute(f"SELECT {self.COLUMNS} FROM tasks WHERE id=?", (task_id,)).fetchone()
        return self._task(row) if row else None

    def list(self, limit: int = 50) -> list[Task]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT {self.COLUMNS} FROM tasks ORDER BY created_at DESC, rowid DESC LIMIT ?", (limit,)
            ).fetchall()
        return [self._task(r) for r in rows]

    def update(self, task_id: str, **fields: Any) -> None:
        if "result" in fields:
            fields["result"] = json.dumps(fields["result"])
        fields["updated_at"] = _now()
        assignments = ", ".join(f"{k}=?" for k in fields)
        with self._lock, self._db:
            self._db.execute(f"UPDATE tasks SET {assignments} WHERE id=?", (*fields.values(), task_id))

    def recover(self) -> int:
        """Queue again the tasks left running by a process that is gone; return how many."""
        with self._lock:
            rows = self._db.execute("SELECT id, worker FROM tasks WHERE state='running'").fetchall()
        orphans = [task_id for task_id, worker in rows if not _alive(worker)]
        for task_id in orphans:
            self.update(task_id, state="queued", worker=None, message="interrupted by a restart; queued again")
        return len(orphans)

    def requeue(self, task_id: str, message: str) -> None:
        """Queue a task again without counting the attempt (it could not start)."""
        with self._lock, self._db:
            self._db.execute(
                "UPDATE tasks SET state='queued', worker=NULL, attempts=MAX(attempts-1, 0), message=?, updated_at=? "
                "WHERE id=?",
                (message, _now(), task_id),
            )

    def claim(self) -> Task | None:
        """Take the oldest queued task for this process (atomically: no two processes get the same)."""
        me = str(os.getpid())
        with self._lock, self._db:
            self._db.execute(  # a task that stopped its process MAX_ATTEMPTS times is not run again
                "UPDATE tasks SET state='failed', worker=NULL, updated_at=?, message=?, error=? "
                "WHERE state='queued' AND attempts >= ?",
                (_now(), "given up", f"stopped the server {MAX_ATTEMPTS} times: not run again", MAX_ATTEMPTS),
            )
            row = self._db.execute(
                "SELECT id FROM tasks WHERE state='queued' ORDER BY created_at, rowid LIMIT 1"
            ).fetchone()
            if not row:
                return None
            cur = self._db.execute(
                "UPDATE tasks SET state='running', worker=?, attempts=attempts+1, message='started', updated_at=? "
                "WHERE id=? AND state='queued'",
                (me, _now(), row[0]),
            )
            if cur.rowcount != 1:
                return None
        return self.get(row[0])


@contextlib.contextmanager
def writer_lock(index: Path) -> Iterator[bool]:
    """Hold the index's writer lock file if free; yield whether it was acquired."""
    with (Path(index) / ".writer.lock").open("w") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run_task(task: Task, queue: TaskQueue) -> dict[str, Any]:
    """Do one task; return its result (raises on failure)."""
    index = queue.index
    if task.kind == "delete":
        return _delete(index, task.params["corpus"], task.params["book"])
    return _ingest(index, task, queue)


def _ingest(index: Path, task: Task, queue: TaskQueue) -> dict[str, Any]:
    source, path = task.params["source"], Path(task.params["path"])
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    if source in LEXICON_SOURCES:
        return asdict(ingest_lexicon(Lexicon(index), source, path))
    counts = {"done": 0, "passages": 0, "written": 0.0}  # kept here; written to the queue at most every 0.3 s

    def progress(name: str, passages: int, total: int) -> None:
        counts["passages"] += passages
        counts["done"] += 1 if passages else 0
        if time.monotonic() - counts["written"] > 0.3 or counts["done"] >= total:
            counts["written"] = time.monotonic()
            queue.update(task.id, done=counts["done"], passages=counts["passages"], total=total, message=name)

    store = EmbeddedStore(index)
    try:
        summary = STORE_INGESTERS[source](store, path, progress=progress)
        targets = vectors_after(source, settings().vector_corpora)
        embedded = None
        if targets:
            from gantha.embed import make_embedder

            queue.update(task.id, message=f"embedding {','.join(targets)}")
            embedded = asdict(embed_corpora(store, make_embedder(settings().embedder), targets))
    finally:
        store.finish()
        store.close()
    result = asdict(summary)
    if embedded:
        result["embedded"] = embedded
    return result


def _delete(index: Path, corpus: str, book: str) -> dict[str, Any]:
    store = EmbeddedStore(index)
    try:
        records = store.channels(corpus, book)
        if not records:
            raise StoreError(f"no document {corpus}/{book} in the index")
        for r in records:
            store.delete_book(corpus, book, r.channel.name)
        store.commit()
        store.finish()
    finally:
        store.close()
    removed = 0
    vectors = index / "vectors"
    for folder in vectors.iterdir() if vectors.is_dir() else []:
        vi = VectorIndex(index, folder.name, 0)
        before = len(vi)
        vi.retain(corpus, {doc_of(i) for i in vi.ids if not i.startswith(f"{corpus}/{book}/")})
        if len(vi) != before:
            removed += before - len(vi)
            vi.save()
    return {"deleted": f"{corpus}/{book}", "channels": [r.channel.name for r in records], "vectors_removed": removed}


class TaskRunner:
    """A daemon thread in the server process that works the queue, one task at a time."""

    def __init__(self, queue: TaskQueue, idle: float = 0.5) -> None:
        self.queue = queue
        self.idle = idle
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="gantha-tasks", daemon=True)

    def start(self) -> TaskRunner:
        self.queue.recover()
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.is_set():
            if not self.step():
                self._stop.wait(self.idle)

    def step(self) -> bool:
        """Run the next task if the writer lock is free; return whether one ran."""
        with writer_lock(self.queue.index) as free:
            if not free:
                return False
            self.queue.recover()
            task = self.queue.claim()
            if task is None:
                return False
            try:
                result = run_task(task, self.queue)
            except IndexBusy:  # a CLI ingest beside the server: queued again, tried when the index is free
                self.queue.requeue(task.id, "the index is being written by another process; will retry")
                return False
            except Exception as exc:  # any failure is the task's outcome, reported, never the server's crash
                self.queue.update(task.id, state="failed", error=f"{type(exc).__name__}: {exc}", message="failed")
            else:
                self.queue.update(task.id, state="done", result=result, message="done")
            return True


def save_upload(index: Path, filename: str, data: bytes) -> Path:
    """Keep an uploaded file under the index (``uploads/<id>/<name>``) for its ingestion task."""
    name = Path(filename).name
    if not name or name.startswith("."):
        raise ValueError(f"invalid file name {filename!r}")
    folder = Path(index) / "uploads" / uuid.uuid4().hex[:12]
    folder.mkdir(parents=True)
    target = folder / name
    target.write_bytes(data)
    return target
