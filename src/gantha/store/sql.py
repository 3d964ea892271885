"""One small SQL interface over SQLite (the embedded store's side files) and PostgreSQL (the shared store).

Statements are written once with ``?`` placeholders and portable SQL (``ON CONFLICT … DO …``, no
``rowid``, no ``PRAGMA``); PostgreSQL gets ``%s`` placeholders and binary collation for text, so that
ordering and prefix ranges (``>= 'pari' AND < 'pari\\U0010ffff'``) mean the same on both.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from gantha.store.base import ReadOnlyIndex, StoreError

Dialect = Literal["sqlite", "postgres"]
_TEXT_TYPE = re.compile(r"\bTEXT\b(?!\s+COLLATE|\[)")
_BLOB_TYPE = re.compile(r"\bBLOB\b")
IDLE_CHECK = 2.0  # seconds a pooled connection may rest before it is tested again when lent


class DatabaseError(StoreError):
    """The database cannot be reached or used."""


class StatementTimeout(StoreError):
    """The database stopped a statement at its timeout."""


class Database:
    """A connection (a pool of them for PostgreSQL) with a lock, transactions and bulk inserts."""

    dialect: Dialect

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        raise NotImplementedError

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        """Run one statement (in the open transaction, if any); return the rows it changed."""
        raise NotImplementedError

    def insert(self, table: str, rows: Iterable[Sequence[Any]], width: int, conflict: str = "") -> None:
        """Insert many rows (``conflict``: an ``ON CONFLICT`` clause such as ``(key) DO NOTHING``)."""
        raise NotImplementedError

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Every statement inside commits together, or none does."""
        raise NotImplementedError

    def script(self, ddl: str) -> None:
        """Run schema statements separated by ``;`` (``TEXT`` columns compare bytewise on both)."""
        with self.transaction():
            for statement in (s.strip() for s in ddl.split(";")):
                if statement:
                    self.execute(statement)

    def has_table(self, name: str) -> bool:
        """Whether a table of this name exists."""
        if self.dialect == "sqlite":
            return bool(self.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)))
        return self.query("SELECT to_regclass(?) IS NOT NULL", (name,))[0][0]

    def close(self) -> None:
        raise NotImplementedError


class SqliteDatabase(Database):
    dialect: Dialect = "sqlite"

    def __init__(self, path: Path, timeout: float = 30):
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=timeout, isolation_level=None)
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        with self._lock:
            return self._db.execute(sql, args).rowcount

    def insert(self, table: str, rows: Iterable[Sequence[Any]], width: int, conflict: str = "") -> None:
        marks = ",".join("?" * width)
        clause = f" ON CONFLICT {conflict}" if conflict else ""
        with self.transaction():
            self._db.executemany(f"INSERT INTO {table} VALUES ({marks}){clause}", rows)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            if self._db.in_transaction:  # nested: part of the outer one
                yield
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()


class PostgresDatabase(Database):
    """A PostgreSQL database by URL through a pool of connections (``psycopg_pool``): a statement borrows one,
    a transaction or a session lock keeps its own until it ends. Statements outside a transaction (reads)
    stop after ``statement_timeout`` seconds (0: never)."""

    dialect: Dialect = "postgres"

    def __init__(self, url: str, *, statement_timeout: float = 0, pool_size: int = 8, wait: float = 5):
        import psycopg
        from psycopg_pool import ConnectionPool

        self.url = url
        self._psycopg = psycopg
        self._timeout_ms = int(statement_timeout * 1000)
        self._pinned = threading.local()  # the connection of this thread's open transaction
        self._locks: dict[int, Any] = {}  # session advisory locks held: key → the connection holding it
        self._guard = threading.Lock()
        self._last_use: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()
        try:  # fail now, with the server's own words, if it cannot be reached
            psycopg.connect(url, connect_timeout=int(wait)).close()
        except psycopg.Error as exc:
            raise DatabaseError(f"cannot connect to {redacted(url)}: {exc}") from exc
        self._pool = ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            configure=self._configure,
            check=self._check,
            reset=self._returned,
            timeout=wait,  # a statement waits this long for a connection (the database gone: then it fails)
            open=True,
        )

    def _check(self, conn: Any) -> None:
        """Before a connection is lent: a round trip to test it, if it has been idle long enough to have gone
        stale (a busy server's connections come back within milliseconds: testing each costs a round trip)."""
        from psycopg_pool import ConnectionPool

        if time.monotonic() - self._last_use.get(conn, 0.0) > IDLE_CHECK:
            ConnectionPool.check_connection(conn)

    def _returned(self, conn: Any) -> None:
        self._last_use[conn] = time.monotonic()

    def _configure(self, conn: Any) -> None:
        if self._timeout_ms:
            conn.execute(f"SET statement_timeout = {self._timeout_ms}")

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A connection for a few statements: this thread's pinned one, else one borrowed from the pool."""
        pinned = getattr(self._pinned, "conn", None)
        if pinned is not None:
            yield pinned
            return
        with self._errors(), self._pool.connection() as conn:
            yield conn

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """psycopg's errors as the store's: unreachable, read-only, stopped at the statement timeout, damaged."""
        from psycopg import errors
        from psycopg_pool import PoolTimeout

        try:
            yield
        except errors.ReadOnlySqlTransaction as exc:
            raise ReadOnlyIndex(
                f"{redacted(self.url)} is read-only (a replica or a read-only role): writes go to the primary"
            ) from exc
        except errors.QueryCanceled as exc:
            raise StatementTimeout(f"the database stopped a statement at its timeout ({self._timeout_ms} ms)") from exc
        except (errors.DataCorrupted, errors.IndexCorrupted) as exc:  # e.g. a BM25 index reading a rewritten table
            raise StoreError(
                f"the database reports damaged data ({exc}); if docs was rewritten (VACUUM FULL, CLUSTER), "
                "REINDEX its bm25 indexes and restart PostgreSQL"
            ) from exc
        except (self._psycopg.OperationalError, PoolTimeout) as exc:
            raise DatabaseError(f"cannot reach {redacted(self.url)}: {exc}".strip()) from exc

    @staticmethod
    def _sql(sql: str, args: Sequence[Any]) -> str:
        sql = _BLOB_TYPE.sub("BYTEA", _TEXT_TYPE.sub('TEXT COLLATE "C"', sql))
        return sql.replace("%", "%%").replace("?", "%s") if args else sql

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        return self.fetch(self._sql(sql, args), args or None)

    def fetch(self, sql: str, args: Sequence[Any] | None = None) -> list[tuple]:
        """Rows of a statement as written (psycopg's ``%s`` placeholders, no rewriting). A read on a connection
        the database dropped (it restarted: pooled connections are not tested while in use) is tried once more,
        after the pool has tested its idle connections."""
        try:
            return self._fetch(sql, args)
        except DatabaseError as exc:
            in_transaction = getattr(self._pinned, "conn", None) is not None
            if in_transaction or not isinstance(exc.__cause__, self._psycopg.OperationalError):
                raise
            self._pool.check()
        return self._fetch(sql, args)

    def _fetch(self, sql: str, args: Sequence[Any] | None) -> list[tuple]:
        with self.connection() as conn, self._errors(), conn.cursor() as cur:
            cur.execute(sql, args)
            return cur.fetchall()

    def fetch_planned(self, sql: str, settings: dict[str, str], timeout_ms: int | None = None) -> list[tuple]:
        """Rows of a read under planner settings of its own (``SET LOCAL``, in a transaction of its own, with
        the statement timeout of reads, or ``timeout_ms`` if shorter: :class:`StatementTimeout` past it)."""
        timeout = min((t for t in (self._timeout_ms, timeout_ms) if t), default=0)  # 0: none
        with self._errors(), self._pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            for name, value in {**settings, "statement_timeout": str(timeout)}.items():
                cur.execute(f"SET LOCAL {name} = {value}")
            cur.execute(sql)
            return cur.fetchall()

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        with self.connection() as conn, self._errors(), conn.cursor() as cur:
            cur.execute(self._sql(sql, args), args or None)
            return cur.rowcount

    def insert(self, table: str, rows: Iterable[Sequence[Any]], width: int, conflict: str = "") -> None:
        rows = list(rows)
        if not rows:
            return
        if conflict:  # COPY cannot resolve conflicts: stage the rows, then insert them
            with self.transaction():
                self.execute(f"CREATE TEMP TABLE IF NOT EXISTS _stage_{table} (LIKE {table}) ON COMMIT DROP")
                self.copy(f"_stage_{table}", rows)
                self.execute(f"INSERT INTO {table} SELECT * FROM _stage_{table} ON CONFLICT {conflict}")
            return
        self.copy(table, rows)

    def copy(self, table: str, rows: Iterable[Sequence[Any]], columns: Sequence[str] = ()) -> None:
        """Bulk load with COPY (the fastest way in)."""
        names = f" ({', '.join(columns)})" if columns else ""
        with (
            self.connection() as conn,
            self._errors(),
            conn.cursor() as cur,
            cur.copy(f"COPY {table}{names} FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        pinned = getattr(self._pinned, "conn", None)
        if pinned is not None:  # nested: a savepoint in the outer one
            with self._errors(), pinned.transaction():
                yield
            return
        with self._errors(), self._pool.connection() as conn:
            self._pinned.conn = conn
            try:
                with conn.transaction():
                    if self._timeout_ms:  # writes (a vocabulary, a lexicon) run as long as they take
                        conn.execute("SET LOCAL statement_timeout = 0")
                    yield
            finally:
                self._pinned.conn = None

    def script(self, ddl: str) -> None:
        """Run the schema statements unless everything they create exists already, so that a role
        without ``CREATE``, or a read replica, opens an index the writer made."""
        names = _CREATED.findall(ddl)
        extensions = _EXTENSION.findall(ddl)
        if names or extensions:
            present = (
                self.query("SELECT count(to_regclass(n)) FROM unnest(?::text[]) n", (names,))[0][0]
                + self.query("SELECT count(*) FROM pg_extension WHERE extname = ANY(?)", (extensions,))[0][0]
            )
            if present == len(names) + len(extensions):
                return
        super().script(ddl)

    def advisory_lock(self, key: int) -> bool:
        """Take a session-level advisory lock if free: a connection of the pool holds it until released."""
        with self._guard:
            if key in self._locks:
                return False
            with self._errors():
                conn = self._pool.getconn()
            if conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                self._locks[key] = conn
                return True
            self._pool.putconn(conn)
            return False

    def advisory_unlock(self, key: int) -> None:
        with self._guard:
            conn = self._locks.pop(key, None)
        if conn is not None:
            with contextlib.suppress(self._psycopg.Error):
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))
            self._pool.putconn(conn)

    def close(self) -> None:
        with self._guard:
            for conn in self._locks.values():
                self._pool.putconn(conn)
            self._locks.clear()
        self._pool.close()


_CREATED = re.compile(r"CREATE (?:TABLE|INDEX|UNIQUE INDEX|SEQUENCE) IF NOT EXISTS (\w+)", re.IGNORECASE)
_EXTENSION = re.compile(r"CREATE EXTENSION IF NOT EXISTS (\w+)", re.IGNORECASE)


def redacted(url: str) -> str:
    """A database URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)
