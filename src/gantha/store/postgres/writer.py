"""The one writer of a PostgreSQL index: its own connection holding the writer's advisory lock, every change
since the last commit in one open transaction (readers see it all at once, or none of it, and a writer that
dies leaves the last commit).

Passages go in by COPY. The document frequencies (``lexemes``) and the field lengths' totals (``meta``
``doc_stats``) are counted by PostgreSQL itself at commit: ``ts_stat`` over the rows added since the last
commit, less those deleted. A first ingest loads into a table without its GIN indexes and builds them at
the end, two at a time.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson

from gantha.model import Passage
from gantha.store.base import IndexBusy, ReadOnlyIndex, StoreError
from gantha.store.postgres.rows import doc_row
from gantha.store.postgres.schema import DOC_COLUMNS, FIELD_IDS, FIELDS, SEARCH_INDEXES

WRITER_LOCK, TASK_LOCK = 0x67616E7401, 0x67616E7402  # advisory lock keys: the document writer, the task runner
STATS = "doc_stats"  # meta key: {"docs": N, "lengths": {field: sum of its lengths}}


def stats_delta(cur: Any, where: str, sign: int) -> dict[str, Any]:
    """The document count and length sums of the rows of ``docs`` matching ``where``, times ``sign``."""
    sums = ", ".join(f"COALESCE(sum({f.name}_len), 0)" for f in FIELDS)
    row = cur.execute(f"SELECT count(*), {sums} FROM docs WHERE {where}").fetchone()
    return {"docs": sign * row[0], "lengths": {f.name: sign * int(n) for f, n in zip(FIELDS, row[1:], strict=True)}}


class Writer:
    def __init__(self, url: str, location: str):
        self.url, self.location = url, location
        self._conn: Any = None
        self._units: dict[tuple, int] = {}
        self._mark = 0  # rows with a greater id were added since the last commit
        self._bulk = False  # a first ingest: the GIN indexes are built at the end

    @property
    def conn(self) -> Any:
        if self._conn is None:
            import psycopg

            try:
                conn = psycopg.connect(self.url)
            except psycopg.Error as exc:
                raise StoreError(f"cannot connect to {self.location}: {exc}") from exc
            try:
                if conn.execute(
                    "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'"
                ).fetchone()[0]:
                    raise ReadOnlyIndex(
                        f"{self.location} is read-only (a replica or a read-only role): write to the primary"
                    )
                if not conn.execute("SELECT pg_try_advisory_lock(%s)", (WRITER_LOCK,)).fetchone()[0]:
                    raise IndexBusy(f"the index in {self.location} is being written by another process")
                self._bulk = not conn.execute("SELECT EXISTS (SELECT 1 FROM docs)").fetchone()[0]
                for name, target in SEARCH_INDEXES.items():
                    if self._bulk:
                        conn.execute(f"DROP INDEX IF EXISTS {name}")  # loaded first, then indexed once
                    else:
                        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {target}")  # an earlier first ingest died
                self._mark = conn.execute("SELECT COALESCE(max(id), 0) FROM docs").fetchone()[0]
                self._units = {tuple(r[1:]): r[0] for r in conn.execute("SELECT * FROM units")}
                conn.commit()
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return self._conn

    def _unit(self, cur: Any, p: Passage) -> int:
        key = (p.corpus, p.book, p.category, p.chapter, p.channel)
        if key not in self._units:
            number = cur.execute(
                "INSERT INTO units VALUES ((SELECT COALESCE(max(id), 0) + 1 FROM units), %s, %s, %s, %s, %s) "
                "ON CONFLICT DO NOTHING RETURNING id",
                key,
            ).fetchone()
            self._units[key] = (
                number[0]
                if number
                else cur.execute(
                    "SELECT id FROM units WHERE (corpus, book, category, chapter, channel) = (%s, %s, %s, %s, %s)", key
                ).fetchone()[0]
            )
        return self._units[key]

    def add(self, passages: Iterable[Passage]) -> int:
        """Write the passages in the writer's transaction (one COPY)."""
        batch = list(passages)
        if not batch:
            return 0
        with self.conn.cursor() as cur:
            numbers = cur.execute("SELECT nextval('doc_numbers') FROM generate_series(1, %s)", (len(batch),)).fetchall()
            units = [self._unit(cur, p) for p in batch]
            rows = zip(numbers, units, batch, strict=True)
            with cur.copy(f"COPY docs ({DOC_COLUMNS}) FROM STDIN") as copy:
                for _ in range(0, len(batch), 2000):
                    copy.write("".join(doc_row(n, u, p) for (n,), u, p in itertools.islice(rows, 2000)))
        return len(batch)

    def delete_where(self, where: str, args: tuple) -> None:
        """Remove the documents matching a condition on ``docs`` (``?`` placeholders), with their counts."""
        with self.conn.cursor() as cur:
            cur.execute("CREATE TEMP TABLE IF NOT EXISTS gone (id BIGINT PRIMARY KEY)")
            cur.execute("TRUNCATE gone")
            cur.execute(f"INSERT INTO gone SELECT id FROM docs WHERE {where.replace('?', '%s')}", args)
            if not cur.execute("SELECT EXISTS (SELECT 1 FROM gone)").fetchone()[0]:
                return
            self._count(cur, "id IN (SELECT id FROM gone)", -1)
            cur.execute("DELETE FROM docs WHERE id IN (SELECT id FROM gone)")
            cur.execute("DELETE FROM lexemes WHERE df <= 0")

    def _count(self, cur: Any, where: str, sign: int) -> None:
        """Add (``sign`` +1) or take away (-1) the document frequencies and lengths of the rows ``where``."""
        for f in FIELDS:
            cur.execute(
                f"INSERT INTO lexemes SELECT {FIELD_IDS[f.name]}, word, {sign} * ndoc "
                f"FROM ts_stat('SELECT {f.name} FROM docs WHERE {where}') "
                "ON CONFLICT (field, lexeme) DO UPDATE SET df = lexemes.df + excluded.df"
            )
        delta = stats_delta(cur, where, sign)
        row = cur.execute(f"SELECT value FROM meta WHERE key = '{STATS}' FOR UPDATE").fetchone()
        stats = orjson.loads(row[0]) if row else {"docs": 0, "lengths": {}}
        stats["docs"] += delta["docs"]
        for name, n in delta["lengths"].items():
            stats["lengths"][name] = stats["lengths"].get(name, 0) + n
        cur.execute(
            "INSERT INTO meta VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (STATS, orjson.dumps(stats).decode()),
        )

    def commit(self) -> None:
        """Count what was added since the last commit, then commit."""
        if self._conn is None:
            return
        with self._conn.cursor() as cur:
            if cur.execute("SELECT EXISTS (SELECT 1 FROM docs WHERE id > %s)", (self._mark,)).fetchone()[0]:
                self._count(cur, f"id > {int(self._mark)}", +1)
                self._mark = cur.execute("SELECT max(id) FROM docs").fetchone()[0]
        self._conn.commit()

    def close(self, *, finished: bool = False) -> None:
        """Give up what is not committed and release the lock (``finished``: build the indexes a first ingest
        left to its end)."""
        if self._conn is None:
            return
        self._conn.rollback()
        if finished and self._bulk:
            build_indexes(self.url)
        self._conn.close()
        self._conn = None
        self._units.clear()


def build_indexes(url: str) -> None:
    """Build the missing GIN indexes, two at a time (each build is one process on the server)."""
    import psycopg

    def build(item: tuple[str, str]) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("SET maintenance_work_mem = '256MB'")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {item[0]} ON {item[1]}")

    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(build, SEARCH_INDEXES.items()))
