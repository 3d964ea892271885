"""The Store protocol: what search needs from an index, whatever backs it (tantivy, OpenSearch).

Queries reach a store already analysed: the search layer decides the terms, the store only
matches them. Analysed fields are logical names every backend provides:

* ``fold`` / ``exact`` — passage text, diacritics folded / canonical form as written;
* ``bold_fold`` / ``bold_exact`` — the same for the bold (defined) terms only;
* ``page_refs`` / ``page_starts`` — normalised page keys (``P2.0031``) the passage touches / begins;
* filter fields ``corpus``, ``book``, ``category``, ``tags``, ``channel``, ``language``, ``granularity``,
  ``primary`` (``yes`` for originals and stand-alone texts, ``no`` for translations aligned to an original).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal, Protocol

from gantha.model import PALI_CHANNEL, BookInfo, ChannelInfo, Passage

FILTER_FIELDS = ("corpus", "book", "category", "tags", "channel", "language", "granularity", "primary")


@dataclass(slots=True)
class Clause:
    """One condition on an analysed field: a term (any of ``tokens``, ranked by BM25), a set (any of
    ``tokens``, unranked: fast for thousands), a phrase, or a prefix, suffix or infix."""

    field: str
    tokens: list[str]
    kind: Literal["term", "set", "phrase", "prefix", "suffix", "infix"] = "term"


@dataclass(slots=True)
class StoreQuery:
    """A fully analysed query: every ``must`` matches, at least one ``should`` (if any), every clause of at
    least one group of ``alternatives`` (if any), no ``must_not``.

    ``rank_first`` clauses lift the passages they match above all others (bold hits, the paragraph
    a page begins in); ``order`` is ``score`` (relevance) or ``reading`` (book, then reading order).
    """

    must: list[Clause] = field(default_factory=list)
    should: list[Clause] = field(default_factory=list)
    alternatives: list[list[Clause]] = field(default_factory=list)  # at least one group matches whole
    must_not: list[Clause] = field(default_factory=list)
    rank_first: list[Clause] = field(default_factory=list)
    scoring: list[Clause] = field(default_factory=list)  # add to the score where they match; select nothing
    filters: dict[str, list[str]] = field(default_factory=dict)
    book_pattern: str | None = None  # regular expression over book ids
    tag_groups: list[list[str]] = field(default_factory=list)  # any group whose tags a passage has all of
    limit: int = 10
    offset: int = 0
    order: Literal["score", "reading"] = "score"
    aggregate: tuple[str, ...] = ("book", "category", "chapter")  # chapter keys: book/chN


@dataclass(slots=True)
class StoreHit:
    passage: Passage
    score: float
    ranked_first: bool = False


@dataclass(slots=True)
class StoreResult:
    total: int
    hits: list[StoreHit]
    aggregations: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


@dataclass(slots=True)
class BookRecord:
    """A book as the index knows it: its metadata, how many passages, and the source signature."""

    info: BookInfo
    channel: ChannelInfo = field(default_factory=lambda: PALI_CHANNEL)
    passages: int = 0
    page_refs: int = 0
    bold_terms: int = 0
    signature: str = ""
    source: str = ""
    ingested_at: str = ""


class Store(Protocol):
    """An index of passages: add, replace, delete, search, fetch by coordinate."""

    def add(self, passages: Iterable[Passage]) -> int:
        """Add passages (replacing any with the same coordinate is the caller's delete); return count."""
        ...

    def delete_book(self, corpus: str, book: str, channel: str = "pali") -> None: ...

    def delete(self, coordinates: Iterable[str], channel: str = "pali") -> None: ...

    def commit(self, books: Iterable[BookRecord] = ()) -> None:
        """Make every change since the last commit durable and visible, with these books recorded."""
        ...

    def search(self, query: StoreQuery) -> StoreResult: ...

    def get(self, coordinates: list[str], channel: str = "pali") -> dict[str, Passage]:
        """The passages at these coordinates in one channel (absent ones are left out)."""
        ...

    def chapter(self, corpus: str, book: str, chapter: int, channel: str = "pali") -> list[Passage]:
        """Every passage of one chapter of a book, in reading order."""
        ...

    def books(self, corpus: str | None = None, channel: str | None = "pali") -> dict[str, BookRecord]:
        """Recorded books of one channel (None: any) keyed ``corpus/book``."""
        ...

    def channels(self, corpus: str, book: str) -> list[BookRecord]:
        """Every channel recorded for a book."""
        ...

    def vocabulary(self, prefix: str, limit: int = 10) -> list[tuple[str, str, int]]:
        """Words whose folded form starts with ``prefix``: (folded, form, paragraphs), most frequent first."""
        ...

    def count(self) -> int: ...

    def close(self) -> None: ...
