"""The summaries tables: each outline node's stored summary with its vector, and the model-written
summaries by content hash (kept when a book is re-ingested, so an unchanged text is never summarised twice).

Created on the first write, so an index that was never summarised is opened (and read) as it is."""

from __future__ import annotations

import base64

import numpy as np

from gantha.model import SummaryRecord
from gantha.store.sql import Database

SUMMARIES_SCHEMA = """
CREATE TABLE IF NOT EXISTS node_summaries (coordinate TEXT PRIMARY KEY, corpus TEXT, book TEXT, level TEXT,
    signature TEXT, method TEXT, text TEXT, vector TEXT);
CREATE INDEX IF NOT EXISTS node_summaries_book ON node_summaries (corpus, book);
CREATE TABLE IF NOT EXISTS summary_cache (signature TEXT PRIMARY KEY, method TEXT, text TEXT)
"""
_COLUMNS = "coordinate, corpus, book, level, signature, method, text, vector"


def _pack(vector: list[float] | None) -> str | None:
    return None if vector is None else base64.b64encode(np.asarray(vector, dtype=np.float32).tobytes()).decode()


def _unpack(text: str | None) -> list[float] | None:
    return None if not text else np.frombuffer(base64.b64decode(text), dtype=np.float32).tolist()


class SummaryTable:
    """Stored summaries over ``db``, cached per book until the next write."""

    db: Database
    _summaries_cache: dict[tuple[str, str], dict[str, SummaryRecord]] | None = None

    _summarised_cache: dict[tuple[str, str], int] | None = None

    def _forget_summaries(self) -> None:
        self._summaries_cache = self._summarised_cache = None

    def _summary_tables(self) -> bool:
        return self.db.has_table("summary_cache")

    def node_summaries(self, corpus: str, book: str) -> dict[str, SummaryRecord]:
        """The stored summaries of one book's nodes, by node coordinate (none if it was never summarised)."""
        if self._summaries_cache is None:
            self._summaries_cache = {}
        key = (corpus, book)
        if key not in self._summaries_cache:
            rows = (
                self.db.query(f"SELECT {_COLUMNS} FROM node_summaries WHERE corpus=? AND book=?", key)
                if self._summary_tables()
                else []
            )
            self._summaries_cache[key] = {r[0]: SummaryRecord(*r[:7], _unpack(r[7])) for r in rows}
        return self._summaries_cache[key]

    def set_summaries(self, corpus: str, book: str, rows: list[SummaryRecord], keep_only: bool = False) -> None:
        """Store these summaries of one book's nodes (replacing theirs), in one transaction; ``keep_only``:
        and drop the book's other ones (nodes the text no longer has)."""
        if not self._summary_tables():
            self.db.script(SUMMARIES_SCHEMA)
        with self.db.transaction():
            if keep_only:
                self.db.execute("DELETE FROM node_summaries WHERE corpus=? AND book=?", (corpus, book))
            else:
                for r in rows:
                    self.db.execute("DELETE FROM node_summaries WHERE coordinate=?", (r.coordinate,))
            values = [(r.coordinate, r.corpus, r.book, r.level, r.signature, r.method, r.text) for r in rows]
            self.db.insert("node_summaries", [(*v, _pack(r.vector)) for v, r in zip(values, rows, strict=True)], 8)
        self._forget_summaries()

    def drop_summaries(self, corpus: str, book: str) -> None:
        """Forget a book's node summaries (its text changed or is gone); the content-hash cache stays."""
        if self._summary_tables():
            self.db.execute("DELETE FROM node_summaries WHERE corpus=? AND book=?", (corpus, book))
            self._forget_summaries()

    def cached_summary(self, signature: str) -> str | None:
        """A model-written summary of this content hash, if one was written before."""
        if not self._summary_tables():
            return None
        rows = self.db.query("SELECT text FROM summary_cache WHERE signature=?", (signature,))
        return rows[0][0] if rows else None

    def cache_summary(self, signature: str, method: str, text: str) -> None:
        """Keep a model-written summary by its content hash (written at once: a task killed later keeps it)."""
        if not self._summary_tables():
            self.db.script(SUMMARIES_SCHEMA)
        self.db.execute(
            "INSERT INTO summary_cache VALUES (?, ?, ?) ON CONFLICT (signature) DO UPDATE SET text=excluded.text",
            (signature, method, text),
        )

    def summarised_books(self) -> dict[tuple[str, str], int]:
        """(corpus, book) → how many of its nodes have a stored summary (kept until the next write)."""
        if self._summarised_cache is None:
            rows = (
                self.db.query("SELECT corpus, book, COUNT(*) FROM node_summaries GROUP BY corpus, book")
                if self._summary_tables()
                else []
            )
            self._summarised_cache = {(c, b): int(n) for c, b, n in rows}
        return dict(self._summarised_cache)
