"""Counting a lemma search: the total and the aggregations of the union of a lemma's forms and compounds.

The union is most of a lemma search's time: thousands of compound words (4,925 for dhamma), each looked up
in the term dictionary of every segment. It is counted in two parts. The paragraphs holding one of the
lemma's own forms (a few dozen terms) are counted for each query. The paragraphs holding only compounds
are counted once per lemma — per book and chapter, in the scope the query's paragraph-level filters leave
(corpus, channel, language, granularity, original or translation) — and a query's book-level filters
(books, categories, tags, topics) select among those chapters. A query with anything else (other words,
exclusions, bold only, several corpora or channels) is counted whole. Both parts are kept while the index
is unchanged, so a new filter on a lemma costs the count of its own forms.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from gantha.model import BookInfo, Bucket
from gantha.store.base import Clause, Store, StoreHit, StoreQuery, StoreResult
from gantha.text.pali import fold

V = TypeVar("V")

KEPT = 128  # lemma queries (and lemmas' compound-only counts) kept while the index is unchanged
PARAGRAPH_FILTERS = ("corpus", "channel", "language", "granularity", "primary")  # the rest are a book's
MERGED = frozenset(("book", "category", "chapter", "channel"))  # aggregations the two parts add up in


@dataclass(slots=True)
class Counted:
    """What a lemma query keeps while the index is unchanged: its total and aggregations, the aggregations as
    presented, and its best matches ranked by the lemma's frequency (the window every page of it starts from)."""

    result: StoreResult
    buckets: dict[str, list[Bucket]]
    head: list[StoreHit] | None = None


class Kept(Generic[V]):
    """The last :data:`KEPT` values by key, for any number of threads."""

    def __init__(self, size: int = KEPT):
        self.size, self._kept, self._lock = size, OrderedDict[tuple, V](), threading.Lock()

    def get(self, key: tuple) -> V | None:
        with self._lock:
            if (found := self._kept.get(key)) is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key: tuple, value: V) -> None:
        with self._lock:
            self._kept[key] = value
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


@dataclass(slots=True)
class _CompoundsOnly:
    """The paragraphs holding only compounds of a lemma, in one paragraph-level scope: per chapter key."""

    channel: str
    chapters: dict[str, int] = field(default_factory=dict)


class LemmaCounter:
    """Totals and aggregations of lemma queries over one store (see the module docstring)."""

    def __init__(self, store: Store):
        self.store = store
        self._compounds_only: Kept[tuple[_CompoundsOnly | None]] = Kept()

    def count(self, q: StoreQuery, own: list[str], compounds: list[str]) -> StoreResult:
        """The total and aggregations of ``q`` (``limit`` 0), whose one ``must`` clause is the set of ``own``
        forms and ``compounds``."""
        scope = {k: v for k, v in q.filters.items() if k in PARAGRAPH_FILTERS}
        if not self._splittable(q, own, compounds) or len(scope.get("corpus", ())) != 1:
            return self.store.search(q)
        key = (self.store.generation(), tuple(own), tuple(compounds), repr(sorted(scope.items())))
        if (kept := self._compounds_only.get(key)) is None:
            kept = (self._count_compounds_only(scope, own, compounds),)
            self._compounds_only.put(key, kept)
        if (only := kept[0]) is None:  # several channels hold compound-only paragraphs: counted whole
            return self.store.search(q)
        counted = self.store.search(replace(q, must=[Clause("exact", own, "set")]))
        books = {r.info.book: r.info for r in self.store.books(scope["corpus"][0], channel=None).values()}
        chosen = {c: n for c, n in only.chapters.items() if _selected(q, books, c)}
        return _added(counted, chosen, only.channel, {book: info.category for book, info in books.items()})

    def clear(self) -> None:
        self._compounds_only.clear()

    @staticmethod
    def _splittable(q: StoreQuery, own: list[str], compounds: list[str]) -> bool:
        return (
            bool(own and compounds)
            and len(q.must) == 1
            and q.must[0].kind == "set"
            and not (q.should or q.alternatives or q.must_not or q.book_pattern)
            and set(q.aggregate) <= MERGED
        )

    def _count_compounds_only(
        self, scope: dict[str, list[str]], own: list[str], compounds: list[str]
    ) -> _CompoundsOnly | None:
        """Per chapter, the paragraphs of ``scope`` holding a compound and none of the own forms; None when
        they lie in several channels."""
        q = StoreQuery(
            must=[Clause("exact", compounds, "set")],
            must_not=[Clause("exact", own, "set")],
            filters=scope,
            limit=0,
            aggregate=("chapter", "channel"),
        )
        found = self.store.search(q)
        channels = found.aggregations.get("channel", [])
        if len(channels) > 1:
            return None
        return _CompoundsOnly(channels[0][0] if channels else "", dict(found.aggregations.get("chapter", [])))


def _selected(q: StoreQuery, books: dict[str, BookInfo], chapter: str) -> bool:
    """Whether the book-level filters of ``q`` keep a chapter (``vin02m3.mul/ch3``) of these books."""
    book, _, number = chapter.rpartition("/ch")
    if (info := books.get(book)) is None:
        return False
    if (wanted := q.filters.get("book")) and book not in wanted:
        return False
    if (categories := q.filters.get("category")) and info.category not in categories:
        return False
    tags = {fold(t) for t in info.tags}
    if q.tag_groups and not any(all(t in tags for t in group) for group in q.tag_groups):
        return False
    return not q.scopes or any(
        c == info.corpus and b == book and (not chapters or int(number) in chapters) for c, b, chapters in q.scopes
    )


def _added(counted: StoreResult, chapters: dict[str, int], channel: str, categories: dict[str, str]) -> StoreResult:
    """``counted`` with the compound-only paragraphs of ``chapters`` added to its total and aggregations."""
    extra = sum(chapters.values())
    if not extra:
        return counted
    sums: dict[str, dict[str, int]] = {name: dict(buckets) for name, buckets in counted.aggregations.items()}
    for key, n in chapters.items():
        book = key.rpartition("/ch")[0]
        buckets = {"chapter": key, "book": book, "category": categories.get(book, ""), "channel": channel}
        for name, bucket in buckets.items():
            if name in sums:
                sums[name][bucket] = sums[name].get(bucket, 0) + n
    aggregations = {name: sorted(b.items(), key=lambda kv: (-kv[1], kv[0])) for name, b in sums.items()}
    return StoreResult(counted.total + extra, [], aggregations)
