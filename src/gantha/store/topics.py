"""The topics table: each document's and chapter's category in the taxonomy, kept in SQL beside the books.

Created on the first write, so an index that was never classified is opened (and read) as it is."""

from __future__ import annotations

from typing import Any

import orjson

from gantha.model import TopicRecord
from gantha.store.base import chapter_key
from gantha.store.sql import Database

TOPICS_SCHEMA = """
CREATE TABLE IF NOT EXISTS topics (coordinate TEXT PRIMARY KEY, corpus TEXT, book TEXT, chapter INTEGER,
    topic TEXT, confidence REAL, tags TEXT, signature TEXT);
CREATE INDEX IF NOT EXISTS topics_book ON topics (corpus, book);
CREATE TABLE IF NOT EXISTS topic_fixes (coordinate TEXT PRIMARY KEY, topic TEXT)
"""
_COLUMNS = "coordinate, corpus, book, chapter, topic, confidence, tags, signature"
META_KEY = "topics"  # the taxonomy the stored topics were computed with: {"digest", "ids", "labels", "source"}


class TopicTable:
    """Topics over ``db``, cached in memory until the next write (``_forget_topics``)."""

    db: Database
    _topics_cache: list[TopicRecord] | None = None
    _topics_by_chapter: dict[str, TopicRecord] | None = None
    _topics_meta: dict[str, Any] | None = None

    def _forget_topics(self) -> None:
        self._topics_cache = self._topics_by_chapter = self._topics_meta = None

    def topics_meta(self) -> dict[str, Any]:
        """The taxonomy the stored topics were computed with (``ids``, ``labels`` …; empty: never classified),
        read once until the next write (every search names its topics' labels)."""
        if self._topics_meta is None:
            rows = self.db.query("SELECT value FROM meta WHERE key=?", (META_KEY,))
            self._topics_meta = orjson.loads(rows[0][0]) if rows else {}
        return self._topics_meta

    def set_topics(self, corpus: str, book: str, rows: list[TopicRecord]) -> None:
        """Replace the topics of one book (the book and its chapters) with these, in one transaction."""
        if not self.db.has_table("topic_fixes"):
            self.db.script(TOPICS_SCHEMA)
        with self.db.transaction():
            self.db.execute("DELETE FROM topics WHERE corpus=? AND book=?", (corpus, book))
            self.db.insert(
                "topics",
                [_row(r) for r in rows],
                8,
            )
        self._forget_topics()

    def topic_fixes(self) -> dict[str, str]:
        """Topics a person set (node coordinate → category id): classification keeps them."""
        return (
            dict(self.db.query("SELECT coordinate, topic FROM topic_fixes")) if self.db.has_table("topic_fixes") else {}
        )

    def fix_topic(self, coordinate: str, topic: str | None) -> None:
        """Set a node's topic by hand (confidence 1), or give it back to the classifier (``None``: the fix is
        dropped; the node keeps its topic until the book is classified again)."""
        if not self.db.has_table("topic_fixes"):
            self.db.script(TOPICS_SCHEMA)
        with self.db.transaction():
            self.db.execute("DELETE FROM topic_fixes WHERE coordinate=?", (coordinate,))
            if topic is not None:
                self.db.execute("INSERT INTO topic_fixes VALUES (?, ?)", (coordinate, topic))
                self.db.execute("UPDATE topics SET topic=?, confidence=1.0 WHERE coordinate=?", (topic, coordinate))
        self._forget_topics()

    def topics(self, corpus: str | None = None, book: str | None = None) -> list[TopicRecord]:
        """Topics of every classified document and chapter (of one corpus, one book), in book order."""
        if self._topics_cache is None:
            rows = (
                self.db.query(f"SELECT {_COLUMNS} FROM topics ORDER BY corpus, book, chapter")
                if self.db.has_table("topics")
                else []
            )
            fixes = self.topic_fixes()
            self._topics_cache = [
                TopicRecord(c, corpus_, book_, int(ch), topic, float(conf), orjson.loads(tags), sig, c in fixes)
                for c, corpus_, book_, ch, topic, conf, tags, sig in rows
            ]
        return [
            r for r in self._topics_cache if (corpus is None or r.corpus == corpus) and (book is None or r.book == book)
        ]

    def topics_by_chapter(self) -> dict[str, TopicRecord]:
        """Every classified node by its chapter key (``vin02m3.mul/ch3``; ``vin02m3.mul/ch0``: the book)."""
        if self._topics_by_chapter is None:
            self._topics_by_chapter = {chapter_key(t.book, t.chapter): t for t in self.topics()}
        return self._topics_by_chapter


def _row(r: TopicRecord) -> tuple:
    tags = orjson.dumps(r.tags).decode()
    return (r.coordinate, r.corpus, r.book, r.chapter, r.topic, r.confidence, tags, r.signature)
