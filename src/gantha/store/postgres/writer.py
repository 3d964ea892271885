"""The one writer of a PostgreSQL index: its own connection holding the writer's advisory lock, every change
since the last commit in one open transaction (readers see it all at once, or none of it, and a writer that
dies leaves the last commit).

Passages go in by COPY, on a second thread: PostgreSQL parses one batch while Python analyses the next. The
document frequencies (``lexemes``) and the field lengths' totals (meta ``doc_stats``) are counted by PostgreSQL
itself (``unnest``, ``GROUP BY``) over the rows not counted yet (ids above meta ``counted_to``) at each commit,
less the counted rows deleted. A first ingest (an empty table) loads without the GIN indexes (and without the
vocabulary's index) and counts nothing until its end, where it writes the counts its analysis summed
(a :class:`~gantha.store.postgres.rows.Tally` of the committed rows; counted by PostgreSQL instead if it deleted
any) and builds the indexes, two jobs at a time. With BM25 indexes (pg_textsearch) these are built there too,
and a later write goes into them as into the GIN indexes, in its transaction.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from functools import cache
from typing import Any

import orjson

from gantha.model import Passage
from gantha.store.base import IndexBusy, ReadOnlyIndex, StoreError
from gantha.store.postgres.rows import Tally, copy_text, doc_row
from gantha.store.postgres.schema import (
    BM25,
    BY_NAME,
    DOC_COLUMNS,
    FIELD_IDS,
    FIELDS,
    REVERSED_INDEX,
    TRIGRAM_INDEX,
    UNPENDED,
    search_indexes,
)
from gantha.store.vocabulary import CHANNEL

# advisory lock keys: the document writer, the task runner, whoever creates the schema
WRITER_LOCK, TASK_LOCK, SCHEMA_LOCK = 0x67616E7401, 0x67616E7402, 0x67616E7403
STATS = "doc_stats"  # meta key: {"docs": N, "lengths": {field: sum of its lengths}}
COUNTED = "counted_to"  # meta key: the highest document number counted into ``lexemes`` and ``doc_stats``
BLOCK = 100_000  # document numbers taken from the sequence at once
ANALYSED_APART = 200  # passages of a batch from which it is analysed in the second process
BULK = True  # a first ingest loads without indexes and builds them at its end (else: kept up to date throughout)
# a first ingest's load, left alone by autovacuum (at work mid-load, it slowed the CST's streaming: 124 s without
# it, 148 s with it; the table only grows, and is vacuumed and analysed at the end), then given back to it
LOADING = "SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)"
LOADED = "RESET (autovacuum_enabled, toast.autovacuum_enabled)"
LOADING_LEFT = (
    "SELECT coalesce('autovacuum_enabled=off' = ANY(reloptions), false) FROM pg_class WHERE oid = 'docs'::regclass"
)
PENDED = (  # the GIN indexes that keep a pending list
    "SELECT c.relname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE a.amname = 'gin' "
    "AND c.relnamespace = current_schema()::regnamespace AND NOT coalesce(c.reloptions, '{}') @> '{fastupdate=off}'"
)


class Writer:
    def __init__(self, url: str, location: str, ranking: str = "tsvector", *, trigrams: bool = True):
        self.url, self.location, self.ranking = url, location, ranking
        self._lexeme_index = TRIGRAM_INDEX if trigrams else REVERSED_INDEX
        self._conn: Any = None
        self._units: dict[tuple, int] = {}
        self._numbers = iter(())  # document numbers reserved
        self._copier = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gantha-copy")
        self._copying: deque[Future] = deque()  # COPYs queued on the copying thread, oldest first
        self._bulk = False  # a first ingest: counted and indexed at the end
        self._pending = Tally()  # the rows copied since the last commit (summed in a first ingest only)
        self._tallied: Tally | None = None  # a first ingest's committed rows (None: PostgreSQL counts them)
        self._added: set[tuple[str, str, str]] = set()  # (corpus, book, channel) written by this writer
        self.tracking = False  # the Pali forms' changes recorded for the vocabulary (it exists: updated, not made)
        self._touched: set[tuple[str, str, str]] = set()  # (corpus, book, channel) changed since the last commit

    @property
    def conn(self) -> Any:
        """The writer's connection, idle (its last COPY finished)."""
        while self._copying:
            self._copying.popleft().result()
        if self._conn is None:
            self._conn = self._connect()
        return self._conn

    def _connect(self) -> Any:
        import psycopg

        try:
            conn = psycopg.connect(self.url)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.location}: {exc}") from exc
        try:
            read_only = "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool"
            if conn.execute(read_only).fetchone()[0]:
                raise ReadOnlyIndex(
                    f"{self.location} is read-only (a replica or a read-only role): write to the primary"
                )
            if not conn.execute("SELECT pg_try_advisory_lock(%s)", (WRITER_LOCK,)).fetchone()[0]:
                raise IndexBusy(f"the index in {self.location} is being written by another process")
            self._bulk = BULK and not conn.execute("SELECT EXISTS (SELECT 1 FROM docs)").fetchone()[0]
            self._tallied, self._pending = (Tally() if self._bulk else None), Tally()
            self.tracking = not self._bulk and conn.execute("SELECT EXISTS (SELECT 1 FROM vocab)").fetchone()[0]
            if missing := [
                c
                for f in FIELDS
                for c in f.columns
                if c.endswith("_words")
                and not conn.execute(
                    "SELECT 1 FROM information_schema.columns WHERE table_name = 'docs' AND column_name = %s", (c,)
                ).fetchone()
            ]:  # an index made before the ranked fields' text
                conn.execute("".join(f"ALTER TABLE docs ADD COLUMN {c} TEXT NOT NULL DEFAULT '';" for c in missing))
            if self._bulk:  # the first documents fix how the index is ranked
                self._put_meta(conn, "ranking", self.ranking)
            if self._bulk or conn.execute(LOADING_LEFT).fetchone()[0]:  # (left by a first ingest that died)
                conn.execute(f"ALTER TABLE docs {LOADING if self._bulk else LOADED}")
            for name, target in [*search_indexes(self.ranking).items(), self._lexeme_index]:
                if self._bulk:
                    conn.execute(f"DROP INDEX IF EXISTS {name}")  # loaded first, then indexed once
                else:
                    conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {target}")  # an earlier first ingest died
            for (name,) in conn.execute(PENDED).fetchall():  # made by an earlier gantha: written row by row now
                conn.execute(f"ALTER INDEX {name} SET ({UNPENDED})")
                conn.execute("SELECT gin_clean_pending_list(%s::regclass)", (name,))
            self._units = {
                tuple(r[1:]): r[0]
                for r in conn.execute("SELECT id, corpus, book, category, chapter, channel FROM units")
            }
            conn.commit()
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _mark(cur: Any, *, locked: bool = False) -> int:
        """Meta ``counted_to`` (``locked``: held until the transaction ends)."""
        row = cur.execute(f"SELECT value FROM meta WHERE key = '{COUNTED}'{' FOR UPDATE' if locked else ''}").fetchone()
        return int(row[0]) if row else 0

    # --- adding ------------------------------------------------------------------------------------------

    def _number(self) -> int:
        """The next document number (a block of them reserved from the sequence at once)."""
        if (number := next(self._numbers, None)) is None:
            last = self.conn.execute(f"SELECT setval('doc_numbers', nextval('doc_numbers') + {BLOCK - 1})").fetchone()
            self._numbers = iter(range(last[0] - BLOCK + 1, last[0] + 1))
            number = next(self._numbers)
        return number

    def _unit(self, p: Passage, new: list[tuple]) -> int:
        """The passage's unit (numbered here: one writer), recording a new one in ``new``."""
        key = (p.corpus, p.book, p.category, p.chapter, p.channel)
        if key not in self._units:
            self._units[key] = max(self._units.values(), default=0) + 1
            new.append((self._units[key], *key, p.chapter_title))  # the title of its first passage
        return self._units[key]

    def add(self, passages: Iterable[Passage]) -> int:
        """Analyse the passages (in a second process, or here) and COPY them on the copying thread, in the
        writer's transaction: while a book is read here, the one before is analysed and the one before that
        copied."""
        batch = list(passages)
        if not batch:
            return 0
        new: list[tuple] = []
        numbers = [self._number() for _ in batch]
        units = [self._unit(p, new) for p in batch]
        self._added |= {(p.corpus, p.book, p.channel) for p in batch}
        self._touched |= {(p.corpus, p.book, p.channel) for p in batch}
        tallied = self._tallied is not None  # a first ingest sums what it writes
        rows: Future | tuple[str, Tally | None]
        if (analyser := _analyser()) and len(batch) >= ANALYSED_APART:  # any script: analysis needs no state
            rows = analyser.submit(rows_text, numbers, units, batch, tallied, self.ranking == BM25)
        else:
            rows = rows_text(numbers, units, batch, tallied, self.ranking == BM25)
        while len(self._copying) >= 2:  # at most two batches in flight
            self._copying.popleft().result()
        if self._conn is None:
            self._conn = self._connect()
        conn = self._conn

        def copy() -> None:
            text, tally = rows if isinstance(rows, tuple) else rows.result()
            with conn.cursor() as cur:
                if new:
                    with cur.copy("COPY units FROM STDIN") as copy_units:
                        for row in new:
                            copy_units.write_row(row)
                with cur.copy(f"COPY docs ({DOC_COLUMNS}) FROM STDIN") as copy_rows:
                    for start in range(0, len(text), 1 << 20):
                        copy_rows.write(text[start : start + (1 << 20)])
            if self._tallied is not None and tally is not None:
                self._pending.merge(tally)

        self._copying.append(self._copier.submit(copy))
        return len(batch)

    # --- deleting ----------------------------------------------------------------------------------------

    def delete_book(self, corpus: str, book: str, channel: str) -> None:
        if self._conn is None:
            self._conn = self._connect()
        if self._bulk and (corpus, book, channel) not in self._added:  # a first ingest holds only what it added:
            return  # nothing to wait for (the last COPY goes on while the next book is read)
        self.delete_where("corpus=? AND book=? AND channel=?", (corpus, book, channel))

    def delete_where(self, where: str, args: tuple) -> None:
        """Remove the documents matching a condition on ``docs`` (``?`` placeholders), with their counts."""
        with self.conn.cursor() as cur:
            cur.execute("CREATE TEMP TABLE IF NOT EXISTS gone (id BIGINT PRIMARY KEY)")
            cur.execute("TRUNCATE gone")
            cur.execute(f"INSERT INTO gone SELECT id FROM docs WHERE {where.replace('?', '%s')}", args)
            if not cur.execute("SELECT EXISTS (SELECT 1 FROM gone)").fetchone()[0]:
                return
            self._tallied = None  # a first ingest's sums would count them: PostgreSQL counts at its end
            books = "SELECT DISTINCT corpus, book, channel FROM docs WHERE id IN (SELECT id FROM gone)"
            self._touched |= {tuple(r) for r in cur.execute(books).fetchall()}
            self._count(cur, f"id IN (SELECT id FROM gone) AND id <= {self._mark(cur)}", -1, self.tracking)
            cur.execute("DELETE FROM docs WHERE id IN (SELECT id FROM gone)")
            cur.execute("DELETE FROM lexemes WHERE df <= 0")

    # --- counting and committing -------------------------------------------------------------------------

    @staticmethod
    def _count(cur: Any, where: str, sign: int, forms: bool = False) -> None:
        """Add (``sign`` +1) or take away (-1) the document frequencies and lengths of the rows ``where``, and
        (``forms``) their Pali written forms' paragraphs and bold paragraphs to ``vocab_changes``."""
        for f in FIELDS:
            cur.execute(
                f"INSERT INTO lexemes SELECT {FIELD_IDS[f.name]}, lexeme, {sign} * count(*) "
                f"FROM docs, unnest(tsvector_to_array({f.name})) lexeme WHERE {where} GROUP BY lexeme "
                "ON CONFLICT (field, lexeme) DO UPDATE SET df = lexemes.df + excluded.df"
            )
        sums = ", ".join(f"COALESCE(sum({f.name}_len), 0)" for f in FIELDS)
        row = cur.execute(f"SELECT count(*), {sums} FROM docs WHERE {where}").fetchone()
        Writer._add_stats(cur, sign * row[0], {f.name: sign * int(n) for f, n in zip(FIELDS, row[1:], strict=True)})
        if forms:
            pali = f"({where}) AND channel = '{CHANNEL}'"
            cur.execute(
                f"INSERT INTO vocab_changes SELECT form, {sign} * sum(n), {sign} * sum(b) FROM ("
                f"SELECT lexeme, 1, 0 FROM docs, unnest(tsvector_to_array(exact)) lexeme WHERE {pali} UNION ALL "
                f"SELECT lexeme, 0, 1 FROM docs, unnest(tsvector_to_array(bold_exact)) lexeme WHERE {pali}"
                ") t (form, n, b) GROUP BY form ON CONFLICT (form) DO UPDATE SET "
                "paragraphs = vocab_changes.paragraphs + excluded.paragraphs, bold = vocab_changes.bold + excluded.bold"
            )

    @staticmethod
    def _add_stats(cur: Any, docs: int, lengths: dict[str, int]) -> None:
        """Add to the documents' number and the fields' length totals (meta ``doc_stats``)."""
        old = cur.execute(f"SELECT value FROM meta WHERE key = '{STATS}' FOR UPDATE").fetchone()
        stats = orjson.loads(old[0]) if old else {"docs": 0, "lengths": {}}
        stats["docs"] += docs
        for name, n in lengths.items():
            stats["lengths"][name] = stats["lengths"].get(name, 0) + n
        Writer._put_meta(cur, STATS, orjson.dumps(stats).decode())

    @staticmethod
    def _put_meta(cur: Any, key: str, value: str) -> None:
        cur.execute(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value", (key, value)
        )

    @classmethod
    def count_new(cls, cur: Any, forms: bool = False) -> None:
        """Count the rows above meta ``counted_to`` (``forms``: their Pali forms too) and move the mark to the
        last row."""
        mark = cls._mark(cur, locked=True)
        last = cur.execute("SELECT max(id) FROM docs").fetchone()[0]
        if last is None or last <= mark:
            return
        cls._count(cur, f"id > {int(mark)}", +1, forms)
        cls._put_meta(cur, COUNTED, str(last))

    @classmethod
    def count_tallied(cls, cur: Any, tally: Tally) -> bool:
        """Count the rows above meta ``counted_to`` from a first ingest's tally of them, as :meth:`count_new`
        would count them, without re-reading their vectors: False (nothing written) unless ``lexemes`` is empty
        and the tally holds as many rows as there are."""
        mark = cls._mark(cur, locked=True)
        rows, last = cur.execute(f"SELECT count(*), max(id) FROM docs WHERE id > {mark}").fetchone()
        if rows != tally.docs or cur.execute("SELECT EXISTS (SELECT 1 FROM lexemes)").fetchone()[0]:
            return False
        if not rows:
            return True
        with cur.copy("COPY lexemes FROM STDIN") as copy:
            for name, counts in tally.df.items():  # in the primary key's order under the C collation (any is right)
                quote = (lambda v: v) if BY_NAME[name].text else copy_text  # words need no escaping
                ordered = sorted(counts)
                for start in range(0, len(ordered), 50_000):
                    part = ordered[start : start + 50_000]
                    copy.write("".join(f"{FIELD_IDS[name]}\t{quote(w)}\t{counts[w]}\n" for w in part))
        cls._add_stats(cur, tally.docs, tally.lengths)
        cls._put_meta(cur, COUNTED, str(last))
        return True

    def commit(self) -> None:
        """Count what was added since the last commit (not in a first ingest: at its end), then commit."""
        if self._conn is None:
            return
        conn = self.conn
        with conn.cursor() as cur:
            if not self._bulk:
                self.count_new(cur, self.tracking)
            for corpus, book, channel in sorted(self._touched):  # the counts kept for them are recounted
                cur.execute(
                    "INSERT INTO book_changes VALUES (%s, %s, %s, nextval('book_versions')) "
                    "ON CONFLICT (corpus, book, channel) DO UPDATE SET version = excluded.version",
                    (corpus, book, channel),
                )
        conn.commit()
        self._touched.clear()
        if self._tallied is not None:
            self._tallied.merge(self._pending)
        self._pending = Tally()

    def close(self, *, finished: bool = False) -> None:
        """Give up what is not committed and release the lock (``finished``: count and index what a first
        ingest left to its end)."""
        if self._conn is None:
            return
        while self._copying:
            self._copying.popleft().exception()  # wait for them: a failure is given up with the rest
        self._conn.rollback()
        if finished and self._bulk:
            finish_bulk(self.url, self._tallied, self.ranking, self._lexeme_index)
        self._pending, self._tallied, self.tracking = Tally(), None, False
        self._touched.clear()
        self._conn.close()
        self._conn = None
        self._units.clear()
        self._added.clear()
        self._numbers = iter(())


def finish_bulk(
    url: str, tally: Tally | None = None, ranking: str = "tsvector", lexeme_index: tuple[str, str] = TRIGRAM_INDEX
) -> None:
    """Count every row not counted yet (from ``tally``, a first ingest's sums of them, where it holds them; then
    index the vocabulary) and build the missing GIN (and BM25) indexes: two jobs at a time, each on its own
    connection (one PostgreSQL process each)."""
    import psycopg

    def count() -> None:
        with psycopg.connect(url) as conn, conn.cursor() as cur:
            if tally is None or not Writer.count_tallied(cur, tally):
                Writer.count_new(cur)
        build(*lexeme_index)

    def build(name: str, target: str) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET maintenance_work_mem = '256MB'")
            conn.execute("SET max_parallel_maintenance_workers = 0")  # two builds at once already
            conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {target}")

    with ThreadPoolExecutor(max_workers=2) as pool:
        indexes = sorted(search_indexes(ranking).items(), key=lambda item: "bm25" not in item[0])  # longest first
        jobs = [pool.submit(count)] + [pool.submit(build, *item) for item in indexes]
        for job in jobs:
            job.result()


def rows_text(
    numbers: list[int], units: list[int], batch: list[Passage], tallied: bool, bm25: bool = False
) -> tuple[str, Tally | None]:
    """The batch's lines for ``COPY docs``, and (``tallied``) their tally; ``bm25``: with the ranked fields' text."""
    tally = Tally() if tallied else None
    lines = (doc_row(n, u, p, tally, bm25) for n, u, p in zip(numbers, units, batch, strict=True))
    return "".join(lines), tally


@cache
def _analyser() -> ProcessPoolExecutor | None:
    """A second process analysing passages (the analysis is Python: one core; PostgreSQL and the reading of the
    next book have the other). Forked (Linux): it runs only the analysis, none of the threads it was forked beside,
    and needs no ``__main__`` guard of the program that writes; elsewhere the analysis runs here."""
    if sys.platform != "linux":
        return None
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("fork"))
