"""The task queue of an index: durable ingestion and deletion tasks, in the store's database.

A task is queued, claimed atomically by one server process (``UPDATE … WHERE state='queued'``: two
servers on one database never take the same task), and its progress, result or error written back.
A task left ``running`` by a process that is gone is queued again; one that stopped its process
``MAX_ATTEMPTS`` times is given up.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from gantha.store.sql import Database

MAX_ATTEMPTS = 3  # a task whose process died this many times while running it is given up
STALE = timedelta(minutes=10)  # a task of another machine silent this long is taken for dead
_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (id TEXT PRIMARY KEY, kind TEXT, params TEXT, state TEXT, done INTEGER,
    total INTEGER, passages INTEGER, message TEXT, result TEXT, error TEXT, attempts INTEGER, created_at TEXT,
    updated_at TEXT, worker TEXT, n INTEGER)
"""
COLUMNS = (
    "id, kind, params, state, done, total, passages, message, result, error, attempts, created_at, updated_at, worker"
)


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


def this_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(worker: str | None, updated_at: str) -> bool:
    """A task's process still runs: on this machine by its pid, on another by a recent update."""
    if not worker:
        return False
    host, _, pid = worker.rpartition(":")
    if host != socket.gethostname():
        return datetime.now(UTC) - datetime.fromisoformat(updated_at) < STALE
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def remove_upload(params: dict[str, Any]) -> None:
    """Remove the uploaded file of a task that has ended (``uploads/<id>/<name>`` beside the index)."""
    if params.get("upload") and (path := Path(params.get("path", ""))).parent.parent.name == "uploads":
        shutil.rmtree(path.parent, ignore_errors=True)


class TaskQueue:
    """The tasks of one index."""

    def __init__(self, db: Database) -> None:
        self.db = db
        db.script(_SCHEMA)

    def _task(self, row: tuple) -> Task:
        d = dict(zip([c.strip() for c in COLUMNS.split(",")], row, strict=True))
        d["params"] = json.loads(d["params"])
        d["result"] = json.loads(d["result"]) if d["result"] else None
        return Task(**d)

    def submit(self, kind: str, params: dict[str, Any]) -> Task:
        task_id = uuid.uuid4().hex[:16]
        now = _now()
        with self.db.transaction():
            n = self.db.query("SELECT COALESCE(MAX(n), 0) + 1 FROM tasks")[0][0]
            self.db.execute(
                f"INSERT INTO tasks ({COLUMNS}, n) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (task_id, kind, json.dumps(params), "queued", 0, 0, 0, "queued", None, None, 0, now, now, None, n),
            )
        task = self.get(task_id)
        assert task is not None
        return task

    def get(self, task_id: str) -> Task | None:
        rows = self.db.query(f"SELECT {COLUMNS} FROM tasks WHERE id=?", (task_id,))
        return self._task(rows[0]) if rows else None

    def list(self, limit: int = 50, offset: int = 0, state: str | None = None) -> list[Task]:
        """The newest tasks first (of one ``state``, if given)."""
        where, args = ("WHERE state=? ", (state,)) if state else ("", ())
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM tasks {where}ORDER BY n DESC LIMIT ? OFFSET ?", (*args, limit, offset)
        )
        return [self._task(r) for r in rows]

    def count(self, state: str | None = None) -> int:
        where, args = ("WHERE state=?", (state,)) if state else ("", ())
        return int(self.db.query(f"SELECT COUNT(*) FROM tasks {where}", args)[0][0])

    def states(self) -> dict[str, int]:
        """How many tasks are in each state."""
        return {state: int(n) for state, n in self.db.query("SELECT state, COUNT(*) FROM tasks GROUP BY state")}

    def pending(self, kind: str) -> list[Task]:
        """The tasks of ``kind`` queued or running, oldest first."""
        rows = self.db.query(
            f"SELECT {COLUMNS} FROM tasks WHERE kind=? AND state IN ('queued', 'running') ORDER BY n", (kind,)
        )
        return [self._task(r) for r in rows]

    def prune(self, done_age: timedelta, failed_age: timedelta, keep: int) -> int:
        """Remove finished tasks: done ones older than ``done_age``, failed ones older than ``failed_age``
        (by their last update), and all but the newest ``keep`` finished ones. Return how many went."""
        now = datetime.now(UTC)
        with self.db.transaction():
            removed = self.db.execute(
                "DELETE FROM tasks WHERE (state='done' AND updated_at < ?) OR (state='failed' AND updated_at < ?)",
                ((now - done_age).isoformat(timespec="seconds"), (now - failed_age).isoformat(timespec="seconds")),
            )
            removed += self.db.execute(
                "DELETE FROM tasks WHERE state IN ('done', 'failed') AND n NOT IN "
                "(SELECT n FROM tasks WHERE state IN ('done', 'failed') ORDER BY n DESC LIMIT ?)",
                (keep,),
            )
        return removed

    def update(self, task_id: str, **fields: Any) -> None:
        if "result" in fields:
            fields["result"] = json.dumps(fields["result"])
        fields["updated_at"] = _now()
        assignments = ", ".join(f"{k}=?" for k in fields)
        self.db.execute(f"UPDATE tasks SET {assignments} WHERE id=?", (*fields.values(), task_id))

    def recover(self) -> int:
        """Queue again the tasks left running by a process that is gone; return how many."""
        rows = self.db.query("SELECT id, worker, updated_at FROM tasks WHERE state='running'")
        orphans = [task_id for task_id, worker, updated in rows if not _alive(worker, updated)]
        for task_id in orphans:
            self.update(task_id, state="queued", worker=None, message="interrupted by a restart; queued again")
        return len(orphans)

    def requeue(self, task_id: str, message: str) -> None:
        """Queue a task again without counting the attempt (it could not start)."""
        self.db.execute(
            "UPDATE tasks SET state='queued', worker=NULL, attempts=CASE WHEN attempts > 0 THEN attempts - 1 "
            "ELSE 0 END, message=?, updated_at=? WHERE id=?",
            (message, _now(), task_id),
        )

    def claim(self, kinds: tuple[str, ...] | None = None) -> Task | None:
        """Take the oldest queued task (of ``kinds``: any) for this process (atomically: no two processes get the
        same)."""
        with self.db.transaction():
            given_up = self.db.query("SELECT params FROM tasks WHERE state='queued' AND attempts >= ?", (MAX_ATTEMPTS,))
            self.db.execute(  # a task that stopped its process MAX_ATTEMPTS times is not run again
                "UPDATE tasks SET state='failed', worker=NULL, updated_at=?, message=?, error=? "
                "WHERE state='queued' AND attempts >= ?",
                (_now(), "given up", f"stopped the server {MAX_ATTEMPTS} times: not run again", MAX_ATTEMPTS),
            )
            of = f" AND kind IN ({','.join('?' * len(kinds))})" if kinds else ""
            rows = self.db.query(f"SELECT id FROM tasks WHERE state='queued'{of} ORDER BY n LIMIT 1", kinds or ())
            changed = 0
            if rows:
                changed = self.db.execute(
                    "UPDATE tasks SET state='running', worker=?, attempts=attempts+1, message='started', "
                    "updated_at=? WHERE id=? AND state='queued'",
                    (this_worker(), _now(), rows[0][0]),
                )
        for (params,) in given_up:  # a task given up has ended: its upload goes, as when a task ends
            remove_upload(json.loads(params))
        return self.get(rows[0][0]) if changed == 1 else None

    def close(self) -> None:
        self.db.close()
