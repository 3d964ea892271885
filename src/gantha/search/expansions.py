"""Word expansions computed once per machine: the inflection of a typed word (its lemma and every attested
form) and the paradigm of a lemma (its attested forms and their paragraphs) kept in ``expansions.sqlite``
beside the index, so that a server's workers, and a server started again, read what one of them computed
instead of each computing the paradigm again (tens of milliseconds for a cold word, a second for dhamma's).
After a write, a background task fills it for the most frequent words (:meth:`gantha.search.words.Words.warm`).

The file is a cache: its rows hold for one vocabulary and lexicon (``stamp``) and are dropped when they
change; a file that cannot be read or written is set aside and searches compute as before.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

import orjson

log = logging.getLogger(__name__)

FILE = "expansions.sqlite"
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS stamp (value TEXT)",
    "CREATE TABLE IF NOT EXISTS inflection (word TEXT PRIMARY KEY, value BLOB)",
    "CREATE TABLE IF NOT EXISTS paradigm (word TEXT PRIMARY KEY, value BLOB)",
)
TABLES = ("inflection", "paradigm")
MISSING = object()  # not kept (None is a kept answer: the word has no inflection)


class Expansions:
    """The expansions kept in ``folder`` for the vocabulary and lexicon ``stamp``."""

    def __init__(self, folder: Path, stamp: str):
        self.path = Path(folder) / FILE
        self.stamp = stamp
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        try:
            self._db = self._open()
        except (sqlite3.Error, OSError) as exc:
            log.warning("word expansions are not kept (%s): %s", self.path, exc)
            self._db = None

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except sqlite3.DatabaseError:  # damaged: a cache, made again
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.path}{suffix}").unlink(missing_ok=True)
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, timeout=2, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=OFF")  # a cache: a row lost in a crash is computed again
            for statement in _SCHEMA:
                db.execute(statement)
            kept = db.execute("SELECT value FROM stamp").fetchall()
            if [r[0] for r in kept] != [self.stamp]:  # another vocabulary or lexicon: start again
                db.execute("BEGIN IMMEDIATE")
                for table in TABLES:
                    db.execute(f"DELETE FROM {table}")
                db.execute("DELETE FROM stamp")
                db.execute("INSERT INTO stamp VALUES (?)", (self.stamp,))
                db.execute("COMMIT")
        except BaseException:
            db.close()
            raise
        return db

    @property
    def usable(self) -> bool:
        """Whether the file can be read and written (else nothing is kept)."""
        return self._db is not None

    def get(self, word: str, table: str = "inflection") -> object:
        """The kept value for ``word`` in ``table`` (decoded JSON), or :data:`MISSING`."""
        if self._db is None:
            return MISSING
        try:
            with self._lock:
                row = self._db.execute(  # only while the file is this vocabulary's (another process may restamp it)
                    f"SELECT value FROM {_checked(table)} WHERE word=? AND (SELECT value FROM stamp) = ?",
                    (word, self.stamp),
                ).fetchone()
        except sqlite3.Error as exc:
            self._give_up(exc)
            return MISSING
        return MISSING if row is None else orjson.loads(row[0])

    def put(self, word: str, value: object, table: str = "inflection") -> None:
        if self._db is None:
            return
        try:
            with self._lock:
                self._db.execute(  # only while the file is this vocabulary's: an index replaced writes nothing
                    f"INSERT INTO {_checked(table)} SELECT ?, ? WHERE (SELECT value FROM stamp) = ? "
                    "ON CONFLICT (word) DO NOTHING",
                    (word, orjson.dumps(value), self.stamp),
                )
        except sqlite3.OperationalError:  # busy: another worker writes; computed again next time
            return
        except sqlite3.Error as exc:
            self._give_up(exc)

    def kept(self, words: list[str], table: str = "inflection") -> set[str]:
        """Which of ``words`` are kept in ``table``."""
        if self._db is None or not words:
            return set()
        found: set[str] = set()
        try:
            with self._lock:
                for i in range(0, len(words), 500):
                    chunk = words[i : i + 500]
                    marks = ",".join("?" * len(chunk))
                    sql = (
                        f"SELECT word FROM {_checked(table)} WHERE word IN ({marks}) AND (SELECT value FROM stamp) = ?"
                    )
                    found.update(r[0] for r in self._db.execute(sql, [*chunk, self.stamp]))
        except sqlite3.Error as exc:
            self._give_up(exc)
        return found

    def _give_up(self, exc: Exception) -> None:
        log.warning("word expansions are not kept any more (%s): %s", self.path, exc)
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db = None

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
            self._db = None


def _checked(table: str) -> str:
    if table not in TABLES:
        raise ValueError(f"no such table of expansions: {table}")
    return table
