"""The canon as word ids: every book's paragraphs, word by word, in book order, with the size of every book and
how often each written form occurs — what a frequency per 10,000 words and an association measure are counted
against, and what the collocates of a word are counted in without reading a paragraph again.

One pass over the canon's paragraphs (about half a minute for the whole Tipiṭaka, seconds for a few books),
kept in memory and beside the index (``desk-tally.json``, the forms and books; ``desk-words.npy``, the ids) for
as long as no book changes (each book's source signature is part of the key): the next process reads it in a
fraction of a second.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import threading
from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from gantha.store.base import Store
from gantha.text.pali import WORD_RE, canon

CORPUS = "cst"
FILE = "desk-tally.json"
WORDS_FILE = "desk-words.npy"
BREAK = 0  # the id that ends each paragraph (no window reaches across it)
log = logging.getLogger(__name__)


@dataclass(slots=True)
class Tally:
    """The indexed books of the canon as word ids (canonical forms, ``vocab[id]``, in sorted order): ``text``
    holds every paragraph's words, each paragraph followed by :data:`BREAK`, book after book (``spans``: each
    book's slice); ``books``, the words per book; ``forms``, the occurrences per written form."""

    key: str
    books: dict[str, int]
    vocab: list[str]
    text: np.ndarray
    spans: dict[str, tuple[int, int]]
    forms: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        counts = np.bincount(self.text, minlength=len(self.vocab)).tolist()
        self.forms = {w: n for w, n in zip(self.vocab[1:], counts[1:], strict=True) if n}

    @property
    def words(self) -> int:
        return sum(self.books.values())

    def ids(self, forms: Iterable[str]) -> np.ndarray:
        """The ids of the forms that occur (the rest left out)."""
        vocab = self.vocab
        found = {i for f in forms if f and (i := bisect_left(vocab, f)) < len(vocab) and vocab[i] == f}
        return np.fromiter(found, dtype=np.uint32, count=len(found))

    def mask(self, forms: Iterable[str]) -> np.ndarray:
        """Which ids are of these forms (a boolean per id)."""
        found = np.zeros(len(self.vocab), dtype=bool)
        found[self.ids(forms)] = True
        return found

    def occurrences(self, forms: Iterable[str], books: Iterable[str] | None = None) -> dict[str, int]:
        """The forms' occurrences per book (None: every book)."""
        found = self.mask(forms)
        spans = self.spans if books is None else {b: self.spans[b] for b in books if b in self.spans}
        return {b: int(np.count_nonzero(found[self.text[s:e]])) for b, (s, e) in spans.items()}

    def parts(self, books: Iterable[str] | None) -> list[np.ndarray]:
        """The text of these books (None: the whole canon), a slice each (one slice when whole)."""
        if books is None:
            return [self.text]
        return [self.text[s:e] for s, e in (self.spans[b] for b in books if b in self.spans)]


def _key(store: Store) -> str:
    records = sorted((b, r.signature, r.passages) for b, r in store.books(CORPUS).items())
    return hashlib.sha1(orjson.dumps(records)).hexdigest()


def count(store: Store) -> Tally:
    """Read every paragraph of the canon once, as word ids."""
    ids: defaultdict[str, int] = defaultdict(itertools.count(BREAK + 1).__next__, {"": BREAK})  # new: next id
    number = ids.__getitem__
    text = array("I")
    books: dict[str, int] = {}
    spans: dict[str, tuple[int, int]] = {}
    for rec in store.books(CORPUS).values():
        book, start, paragraphs = rec.info.book, len(text), 0
        for p in store.book_passages(CORPUS, book, "pali"):
            text.extend(map(number, WORD_RE.findall(canon(p.text))))
            text.append(BREAK)
            paragraphs += 1
        spans[book] = (start, len(text))
        books[book] = len(text) - start - paragraphs
    vocab = sorted(ids)  # the break ("") first
    rank = {w: i for i, w in enumerate(vocab)}
    renumber = np.fromiter((rank[w] for w in ids), dtype=np.uint32, count=len(ids))  # ids are in insertion order
    return Tally(_key(store), books, vocab, renumber[np.frombuffer(text, dtype=np.uint32)], spans)


class Tallies:
    """The tally of one store, counted once while its books are unchanged (in memory, and in the index folder
    where it can be written)."""

    def __init__(self, store: Store, keep: bool = True):
        self.store, self.keep = store, keep  # keep: write the tally beside the index
        self._tally: Tally | None = None
        self._lock = threading.Lock()

    def _folder(self) -> Path | None:
        try:
            return Path(self.store.files())
        except (AttributeError, NotImplementedError, OSError):
            return None

    def get(self) -> Tally:
        key = _key(self.store)
        with self._lock:
            if self._tally is not None and self._tally.key == key:
                return self._tally
            folder = self._folder() if self.keep else None
            if folder is not None and (folder / FILE).is_file():
                self._tally = _read(folder, key)
                if self._tally is not None:
                    return self._tally
            self._tally = count(self.store)
            if folder is not None:
                _write(folder, self._tally)
            return self._tally


def _read(folder: Path, key: str) -> Tally | None:
    """The tally kept in ``folder`` if it is this key's (None: another's, or unreadable)."""
    try:
        data = orjson.loads((folder / FILE).read_bytes())
        if data.get("key") != key:
            return None
        text = np.load(folder / WORDS_FILE, mmap_mode="r")
        if len(text) != data["length"]:
            raise ValueError("the word ids are another tally's")
        spans = {b: (s, e) for b, (s, e) in data["spans"].items()}
        return Tally(key, data["books"], data["vocab"], text, spans)
    except (OSError, ValueError, KeyError, orjson.JSONDecodeError) as e:
        log.warning("the desk's tally in %s is unreadable (%s): counting again", folder, e)
        return None


def _write(folder: Path, tally: Tally) -> None:
    """Both files written beside and renamed, the ids first: a reader never sees half a tally (the length in
    the second names the first)."""
    data = {
        "key": tally.key,
        "length": len(tally.text),
        "books": tally.books,
        "spans": tally.spans,
        "vocab": tally.vocab,
    }
    try:
        part = folder / (WORDS_FILE + ".part")
        with part.open("wb") as f:
            np.save(f, tally.text)
        part.replace(folder / WORDS_FILE)
        part = folder / (FILE + ".part")
        part.write_bytes(orjson.dumps(data))
        part.replace(folder / FILE)
    except OSError:  # a read-only index: kept in memory only
        pass
