"""The side services of an index kept in a folder: lexicon, vectors, task queue, writer lock, files."""

from __future__ import annotations

import contextlib
import fcntl
import sqlite3
from collections.abc import Iterator
from functools import cached_property
from pathlib import Path

from gantha.store.base import LexiconUnreadable, TasksUnreadable, Vectors, VectorsUnreadable
from gantha.store.lexicon import Lexicon
from gantha.store.queue import TaskQueue
from gantha.store.sql import SqliteDatabase
from gantha.store.vectors import VectorIndex


class FolderServices:
    """For a store whose index lives in the folder ``path``: its SQLite side files beside the index."""

    path: Path

    @cached_property
    def _lexicon(self) -> Lexicon:
        path = self.path / "lexicon.sqlite"
        try:
            return Lexicon(SqliteDatabase(path))
        except sqlite3.DatabaseError as exc:
            raise LexiconUnreadable(
                f"the lexicon cannot be read ({exc}): delete {path} and run "
                "`gantha ingest wordstats|grammar|dict` again"
            ) from exc

    def lexicon(self) -> Lexicon:
        return self._lexicon

    def vectors(self, embedder: str, dim: int, previous: Vectors | None = None) -> VectorIndex:
        try:
            return VectorIndex(self.path, embedder, dim, previous if isinstance(previous, VectorIndex) else None)
        except (OSError, ValueError, KeyError, EOFError, TypeError) as exc:  # a damaged side file: say so
            folder = VectorIndex.folder(self.path, embedder)
            raise VectorsUnreadable(
                f"the {embedder} vectors cannot be read ({exc}): delete {folder} and run `gantha embed`"
            ) from exc

    def has_vectors(self, embedder: str) -> bool:
        return (VectorIndex.folder(self.path, embedder) / "meta.json").exists()

    def vector_sets(self) -> list[str]:
        folder = self.path / "vectors"
        return sorted(f.name for f in folder.iterdir() if (f / "meta.json").exists()) if folder.is_dir() else []

    @cached_property
    def _tasks(self) -> TaskQueue:
        path = self.path / "tasks.sqlite"
        try:
            return TaskQueue(SqliteDatabase(path))
        except sqlite3.DatabaseError as exc:  # not cached: read again once the file is replaced
            raise TasksUnreadable(
                f"the task queue cannot be read ({exc}): delete {path} (its tasks are lost) and submit them again"
            ) from exc

    def tasks(self) -> TaskQueue:
        return self._tasks

    @contextlib.contextmanager
    def writer_lock(self) -> Iterator[bool]:
        """Hold the index's writer lock file if free; yield whether it was acquired."""
        with (self.path / ".writer.lock").open("w") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def files(self) -> Path:
        return self.path
