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
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

Dialect = Literal["sqlite", "postgres"]
_TEXT_TYPE = re.compile(r"\bTEXT\b(?!\s+COLLATE|\[)")
_BLOB_TYPE = re.compile(r"\bBLOB\b")


class DatabaseError(RuntimeError):
    """The database cannot be reached or used."""


class Database:
    """A connection (one per thread for PostgreSQL) with a lock, transactions and bulk inserts."""

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
    """A PostgreSQL database by URL; each thread has its own connection (readers never wait on each other)."""

    dialect: Dialect = "postgres"

    def __init__(self, url: str):
        import psycopg

        self.url = url
        self._psycopg = psycopg
        self._local = threading.local()
        self._connections: list[Any] = []
        self._guard = threading.Lock()
        self._connection()  # fail now if the server cannot be reached

    def _connection(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None or conn.closed:
            try:
                conn = self._psycopg.connect(self.url, autocommit=True)
            except self._psycopg.Error as exc:
                raise DatabaseError(f"cannot connect to {redacted(self.url)}: {exc}") from exc
            self._local.conn = conn
            with self._guard:
                self._connections.append(conn)
        return conn

    @staticmethod
    def _sql(sql: str, args: Sequence[Any]) -> str:
        sql = _BLOB_TYPE.sub("BYTEA", _TEXT_TYPE.sub('TEXT COLLATE "C"', sql))
        return sql.replace("%", "%%").replace("?", "%s") if args else sql

    def query(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        with self._connection().cursor() as cur:
            cur.execute(self._sql(sql, args), args or None)
            return cur.fetchall()

    def execute(self, sql: str, args: Sequence[Any] = ()) -> int:
        with self._connection().cursor() as cur:
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
        with self._connection().cursor() as cur, cur.copy(f"COPY {table}{names} FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        with self._connection().transaction():
            yield

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
        """Take a session-level advisory lock if free (held until released or the connection closes)."""
        return bool(self.query("SELECT pg_try_advisory_lock(?)", (key,))[0][0])

    def advisory_unlock(self, key: int) -> None:
        self.query("SELECT pg_advisory_unlock(?)", (key,))

    def close(self) -> None:
        with self._guard:
            for conn in self._connections:
                conn.close()
            self._connections.clear()


_CREATED = re.compile(r"CREATE (?:TABLE|INDEX|UNIQUE INDEX|SEQUENCE) IF NOT EXISTS (\w+)", re.IGNORECASE)
_EXTENSION = re.compile(r"CREATE EXTENSION IF NOT EXISTS (\w+)", re.IGNORECASE)


def redacted(url: str) -> str:
    """A database URL without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)
