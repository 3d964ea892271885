"""The side tables every backend keeps in SQL beside its documents: books, named texts, metadata, the
vocabulary (:mod:`gantha.store.vocabulary`), the topics (:mod:`gantha.store.topics`) and the summaries
(:mod:`gantha.store.summaries`). One implementation
over :class:`~gantha.store.sql.Database`, so the embedded store (SQLite) and the PostgreSQL store answer alike."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson

from gantha.model import PALI_CHANNEL, BookInfo, ChannelInfo, TextRecord
from gantha.store.base import BookRecord, StoreError
from gantha.store.descriptions import DescriptionTable
from gantha.store.links import LinkTable
from gantha.store.sql import Database
from gantha.store.summaries import SummaryTable
from gantha.store.topics import META_KEY as TOPICS_META_KEY
from gantha.store.topics import TopicTable
from gantha.store.vocabulary import Vocabulary
from gantha.text import chinese

T = TypeVar("T")
SCHEMA_VERSION = 3
_BOOK_COLUMNS = (
    "key, corpus, book, channel, info, channel_info, passages, page_refs, bold_terms, signature, source, ingested_at"
)
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS books (key TEXT PRIMARY KEY, corpus TEXT, book TEXT, channel TEXT, info TEXT,
    channel_info TEXT, passages INTEGER, page_refs INTEGER, bold_terms INTEGER, signature TEXT, source TEXT,
    ingested_at TEXT);
CREATE TABLE IF NOT EXISTS texts (uid TEXT PRIMARY KEY, label TEXT, collection TEXT, corpus TEXT, book TEXT,
    first_para TEXT, last_para TEXT, first_seq INTEGER, last_seq INTEGER, title TEXT, pali_title TEXT);
CREATE INDEX IF NOT EXISTS texts_book ON texts (corpus, book, first_seq);
CREATE TABLE IF NOT EXISTS vocab (fold TEXT, form TEXT, rev TEXT, paragraphs INTEGER, bold INTEGER);
CREATE INDEX IF NOT EXISTS vocab_fold ON vocab (fold);
CREATE INDEX IF NOT EXISTS vocab_form ON vocab (form);
CREATE INDEX IF NOT EXISTS vocab_rev ON vocab (rev);
CREATE TABLE IF NOT EXISTS vocab_top (prefix TEXT, rank INTEGER, fold TEXT, form TEXT, paragraphs INTEGER);
CREATE INDEX IF NOT EXISTS vocab_top_prefix ON vocab_top (prefix, rank);
CREATE TABLE IF NOT EXISTS vocab_changes (form TEXT PRIMARY KEY, paragraphs INTEGER NOT NULL, bold INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS vocab_lemmas (form TEXT NOT NULL, lemma TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS vocab_lemmas_form ON vocab_lemmas (form);
CREATE INDEX IF NOT EXISTS vocab_lemmas_lemma ON vocab_lemmas (lemma)
"""


def _text_row(r: TextRecord) -> tuple:
    return (r.corpus, r.book, r.first_para, r.last_para, r.first_seq, r.last_seq, r.title, r.pali_title)


def upsert(table: str, columns: str, key: str) -> str:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` of every column (the last row for a key wins)."""
    names = [c.strip() for c in columns.split(",")]
    updates = ", ".join(f"{c}=excluded.{c}" for c in names if c != key)
    marks = ",".join("?" * len(names))
    return f"INSERT INTO {table} ({columns}) VALUES ({marks}) ON CONFLICT ({key}) DO UPDATE SET {updates}"


class TableStore(Vocabulary, TopicTable, SummaryTable, LinkTable, DescriptionTable):
    """Books, texts, metadata, vocabulary, topics, summaries, links and descriptions over a database (a base of
    both backends)."""

    db: Database

    def _init_tables(self, where: str) -> None:
        self.db.script(SCHEMA)
        row = self.db.query("SELECT value FROM meta WHERE key='schema_version'")
        if not row:
            self.db.execute(
                "INSERT INTO meta VALUES ('schema_version', ?) ON CONFLICT (key) DO NOTHING", (str(SCHEMA_VERSION),)
            )
        elif int(row[0][0]) != SCHEMA_VERSION:
            raise StoreError(
                f"index at {where} has schema version {row[0][0]}, this gantha needs {SCHEMA_VERSION}: "
                "ingest into a new index"
            )
        self._books_cache: list[BookRecord] | None = None
        self._of_records: dict[Hashable, tuple[list[BookRecord], Any]] = {}
        self._texts_cache: dict[str, TextRecord] | None = None
        self._texts_by_book: dict[tuple[str, str], list[TextRecord]] = {}
        self._texts_starts: dict[tuple[str, str], list[int]] = {}
        if terms := self.get_meta("zh_terms"):  # the Chinese terms this index was segmented with
            chinese.register_words(terms.splitlines())

    def _forget(self) -> None:
        """Drop what is cached of the tables (after a write, or when another process wrote)."""
        self._books_cache = None
        self._of_records = {}
        self._texts_cache = None
        self._forget_topics()
        self._forget_summaries()
        self._forget_descriptions()

    # --- books ---------------------------------------------------------------------------------

    def _records(self) -> list[BookRecord]:
        if self._books_cache is None:
            rows = self.db.query(
                "SELECT info, channel_info, passages, page_refs, bold_terms, signature, source, ingested_at "
                "FROM books ORDER BY corpus, book, channel"
            )
            self._books_cache = [
                BookRecord(BookInfo(**orjson.loads(info)), ChannelInfo(**orjson.loads(channel)), *rest)
                for info, channel, *rest in rows
            ]
        return self._books_cache

    def books(self, corpus: str | None = None, channel: str | None = "pali") -> dict[str, BookRecord]:
        """Recorded books keyed ``corpus/book``; ``channel=None``: in any channel (the first recorded)."""

        def chosen(records: list[BookRecord]) -> dict[str, BookRecord]:
            out: dict[str, BookRecord] = {}
            for r in records:
                if (channel is None or r.channel.name == channel) and (corpus is None or r.info.corpus == corpus):
                    out.setdefault(f"{r.info.corpus}/{r.info.book}", r)
            return out

        return dict(self.from_records(("books", corpus, channel), chosen))

    def from_records(self, key: Hashable, make: Callable[[list[BookRecord]], T]) -> T:
        """``make(records)`` over every recorded book, made once per reading of the books table (a search asks
        for the same maps of titles and channels again and again)."""
        records = self._records()
        kept = self._of_records.get(key)
        if kept is None or kept[0] is not records:
            kept = self._of_records[key] = (records, make(records))
        return kept[1]

    def records(self) -> list[BookRecord]:
        """Every recorded book in every channel."""
        return list(self._records())

    def channels(self, corpus: str, book: str) -> list[BookRecord]:
        return [r for r in self._records() if r.info.corpus == corpus and r.info.book == book]

    def all_channels(self) -> list[ChannelInfo]:
        """Every channel in the index (the Pali original first)."""
        return self.from_records("channels", _channels)

    def _record_books(self, books: list[BookRecord]) -> None:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        sql = upsert("books", _BOOK_COLUMNS, "key")
        for r in books:
            key = f"{r.info.corpus}/{r.info.book}@{r.channel.name}"
            row = (key, r.info.corpus, r.info.book, r.channel.name, orjson.dumps(r.info).decode())
            row += (orjson.dumps(r.channel).decode(), r.passages, r.page_refs, r.bold_terms, r.signature, r.source)
            self.db.execute(sql, (*row, r.ingested_at or now))

    def _unrecord_book(self, corpus: str, book: str, channel: str) -> None:
        self.db.execute("DELETE FROM books WHERE key=?", (f"{corpus}/{book}@{channel}",))
        self.drop_summaries(corpus, book)  # written from the text that changed
        if channel == PALI_CHANNEL.name:
            self.drop_link_facts(corpus, book)

    # --- metadata ------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """A value recorded with the index (e.g. the signature of an aligned collection)."""
        rows = self.db.query("SELECT value FROM meta WHERE key=?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute(upsert("meta", "key, value", "key"), (key, value))
        if key == TOPICS_META_KEY:
            self._topics_meta = None

    def fix_chinese_terms(self, terms: list[str]) -> None:
        """Record, once, the Chinese terms the segmenter uses for this index (index and queries must agree)."""
        if self.get_meta("zh_terms") is None:
            self.set_meta("zh_terms", "\n".join(terms))
        chinese.register_words((self.get_meta("zh_terms") or "").splitlines())

    # --- texts: named divisions (suttas, rules) over ranges of paragraphs ------------------------

    def set_texts(self, collection: str, rows: list[TextRecord]) -> None:
        """Replace the texts of a collection (``mn``, ``vinaya`` …) with these."""
        unique = {r.uid: r for r in rows}
        with self.db.transaction():
            self.db.execute("DELETE FROM texts WHERE collection=?", (collection,))
            self.db.insert(
                "texts",
                [(r.uid, r.label, collection, *_text_row(r)) for r in unique.values()],
                11,
                "(uid) DO NOTHING",
            )
        self._texts_cache = None

    def _texts(self) -> dict[str, TextRecord]:
        if self._texts_cache is None:
            rows = self.db.query(
                "SELECT uid, label, corpus, book, first_para, last_para, first_seq, last_seq, title, pali_title "
                "FROM texts ORDER BY corpus, book, first_seq"
            )
            self._texts_cache = {r[0]: TextRecord(*r) for r in rows}
            for uid, d in self.descriptions().items():  # the Chinese name and the blurb, where given
                if (r := self._texts_cache.get(uid)) is not None:
                    r.zh_title, r.blurb = d.chinese, d.blurb
            self._texts_by_book = {}
            for r in self._texts_cache.values():  # in reading order (the query sorts by first_seq)
                self._texts_by_book.setdefault((r.corpus, r.book), []).append(r)
            self._texts_starts = {key: [r.first_seq for r in rows] for key, rows in self._texts_by_book.items()}
        return self._texts_cache

    def text(self, uid: str) -> TextRecord | None:
        """A named text (``mn10``) by its uid."""
        return self._texts().get(uid)

    def texts(self, prefix: str = "") -> list[TextRecord]:
        """Named texts whose uid starts with ``prefix``, in reading order."""
        return [r for r in self._texts().values() if r.uid.startswith(prefix)]

    def text_at(self, corpus: str, book: str, seq: int) -> TextRecord | None:
        """The innermost named text whose paragraphs include this one."""
        self._texts()
        rows = self._texts_by_book.get((corpus, book), [])
        k = bisect_right(self._texts_starts.get((corpus, book), []), seq)
        inside = [r for r in rows[max(0, k - 50) : k] if r.last_seq >= seq]  # texts nest shallowly
        return min(inside, key=lambda r: r.last_seq - r.first_seq, default=None)


def _channels(records: list[BookRecord]) -> list[ChannelInfo]:
    seen: dict[str, ChannelInfo] = {"pali": PALI_CHANNEL}
    for r in records:
        seen.setdefault(r.channel.name, r.channel)
    return list(seen.values())
