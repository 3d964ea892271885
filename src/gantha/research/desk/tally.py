"""The size of every book of the Pali canon in words, and how often each written form occurs: what a
frequency per 10,000 words and an association measure are counted against.

One pass over the canon's paragraphs (about a minute for the whole Tipiṭaka, seconds for a few books), kept
in memory and beside the index (``desk-tally.json``) for as long as no book changes (each book's source
signature is part of the key): the next process reads it in a fraction of a second.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import orjson

from gantha.store.base import Store
from gantha.text.pali import WORD_RE, canon

CORPUS = "cst"
FILE = "desk-tally.json"
log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Tally:
    """Words per book and occurrences per written form (canonical) over the indexed books of the canon."""

    key: str
    books: dict[str, int]
    forms: dict[str, int]

    @property
    def words(self) -> int:
        return sum(self.books.values())


def _key(store: Store) -> str:
    records = sorted((b, r.signature, r.passages) for b, r in store.books(CORPUS).items())
    return hashlib.sha1(orjson.dumps(records)).hexdigest()


def count(store: Store) -> Tally:
    """Count every book's words and every form's occurrences (one pass over the paragraphs)."""
    books: dict[str, int] = {}
    forms: Counter[str] = Counter()
    key = _key(store)
    for rec in store.books(CORPUS).values():
        book = rec.info.book
        text = canon("\n".join(p.text for p in store.book_passages(CORPUS, book, "pali")))
        words = WORD_RE.findall(text)
        books[book] = len(words)
        forms.update(words)
    return Tally(key, books, dict(forms))


class Tallies:
    """The tally of one store, counted once while its books are unchanged (in memory, and in the index folder
    where it can be written)."""

    def __init__(self, store: Store, keep: bool = True):
        self.store, self.keep = store, keep  # keep: write the tally beside the index
        self._tally: Tally | None = None
        self._lock = threading.Lock()

    def _file(self) -> Path | None:
        try:
            return Path(self.store.files()) / FILE
        except (AttributeError, NotImplementedError, OSError):
            return None

    def get(self) -> Tally:
        key = _key(self.store)
        with self._lock:
            if self._tally is not None and self._tally.key == key:
                return self._tally
            path = self._file() if self.keep else None
            if path is not None and path.is_file():
                try:
                    data = orjson.loads(path.read_bytes())
                    if data.get("key") == key:
                        self._tally = Tally(key, data["books"], data["forms"])
                        return self._tally
                except (OSError, orjson.JSONDecodeError, KeyError):
                    log.warning("the desk's tally at %s is unreadable: counting again", path)
            self._tally = count(self.store)
            if path is not None:
                try:  # written beside and renamed: a reader never sees half a file
                    part = path.with_suffix(".part")
                    part.write_bytes(orjson.dumps({"key": key, "books": self._tally.books, "forms": self._tally.forms}))
                    part.replace(path)
                except OSError:  # a read-only index: kept in memory only
                    pass
            return self._tally
