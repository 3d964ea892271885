"""The Store protocol: everything search, research, ingest, tasks and the surfaces need from an index,
whatever backs it (tantivy and SQLite on one machine, PostgreSQL shared by many), with its one error type.

Queries reach a store already analysed: the search layer decides the terms, the store only
matches them. Analysed fields are logical names every backend provides:

* ``fold`` / ``exact`` — passage text, diacritics folded / canonical form as written;
* ``bold_fold`` / ``bold_exact`` — the same for the bold (defined) terms only;
* ``variants_fold`` / ``variants_exact`` — the same for the passage's variant readings (its notes): searched,
  never shown;
* ``page_refs`` / ``page_starts`` — normalised page keys (``P2.0031``) the passage touches / begins;
* filter fields ``corpus``, ``book``, ``category``, ``tags``, ``channel``, ``language``, ``granularity``,
  ``primary`` (``yes`` for originals and stand-alone texts, ``no`` for translations aligned to an original).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from gantha.model import PALI_CHANNEL, BookInfo, ChannelInfo, Passage, SummaryRecord, TextRecord, TopicRecord

if TYPE_CHECKING:
    from gantha.corpus.blurbs import Description
    from gantha.store.lexicon import Lexicon
    from gantha.store.queue import TaskQueue

T = TypeVar("T")

FILTER_FIELDS = ("corpus", "book", "category", "tags", "channel", "language", "granularity", "primary")


@dataclass(slots=True)
class Clause:
    """One condition on an analysed field: a term (any of ``tokens``, ranked by BM25), forms (any of
    ``tokens``, the forms of one word: ranked by BM25 without their rarity, so a paragraph repeating a common
    form outranks one naming a rare form once), a set (any of ``tokens``, unranked: fast for thousands), a
    phrase, or a prefix, suffix or infix.

    ``near`` (``tokens`` empty): some token of ``groups[0]`` and some token of ``groups[1]`` (exactly two
    groups, the forms of two words) at two positions with at most ``distance`` words between them, in
    either order; unranked, every match scores 1.0 (the words' own clauses rank)."""

    field: str
    tokens: list[str]
    kind: Literal["term", "forms", "set", "phrase", "prefix", "suffix", "infix", "near"] = "term"
    groups: list[list[str]] = field(default_factory=list)  # near: the two words' forms
    distance: int = 0  # near: the most words between them


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
    ids: list[str] = field(default_factory=list)  # document ids (coordinate@channel) a match must be among
    book_pattern: str | None = None  # regular expression over book ids
    tag_groups: list[list[str]] = field(default_factory=list)  # any group whose tags a passage has all of
    # passages of any of these books (corpus, book), each in any chapter (``()``) or in these chapter numbers
    scopes: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)
    limit: int = 10  # 0: no page, only the total and the aggregations
    offset: int = 0
    order: Literal["score", "reading"] = "score"
    aggregate: tuple[str, ...] = ("book", "category", "chapter", "channel")  # chapter keys: book/chN


@dataclass(slots=True)
class StoreHit:
    passage: Passage
    score: float
    ranked_first: bool = False


def chapter_key(book: str, chapter: int) -> str:
    """A chapter as the aggregation by chapter names it: ``vin02m3.mul/ch3`` (``/ch0``: outside chapters)."""
    return f"{book}/ch{chapter}"


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


class StoreError(RuntimeError):
    """The index cannot be used (missing, from another version, unreachable, locked)."""


class ReadOnlyIndex(StoreError):
    """The index is read here only (a replica, a read-only role): writes go to the primary."""


class IndexBusy(StoreError):
    """Another process holds the index's writer: try again when it is done."""


class VectorsUnreadable(StoreError):
    """An index's vectors are damaged; lexical search still answers."""


class LexiconUnreadable(StoreError):
    """An index's lexicon is damaged; search answers without inflections and meanings."""


class TasksUnreadable(StoreError):
    """An index's task queue is damaged; search answers, the admin API's writes wait for a new queue."""


class Store(Protocol):
    """An index of passages with its side tables: documents, books, named texts, metadata, the vocabulary
    of the Pali original, the lexicon, vectors and the task queue.

    Writes are batched: ``add``/``delete*`` take effect together at ``commit`` (durable and visible at
    once, with the books recorded); ``finish`` ends an ingest (tabulates the vocabulary, releases the
    writer). Any number of readers may search while one writer works.
    """

    location: str  # where the index is, for messages (a folder, or a database URL without its password)

    # --- documents ---------------------------------------------------------------------------------
    def add(self, passages: Iterable[Passage]) -> int:
        """Add passages (replacing any with the same coordinate is the caller's delete); return count."""
        ...

    def delete_book(self, corpus: str, book: str, channel: str = "pali") -> None: ...

    def delete(self, coordinates: Iterable[str], channel: str = "pali") -> None: ...

    def commit(self, books: Iterable[BookRecord] = ()) -> None:
        """Make every change since the last commit durable and visible, with these books recorded."""
        ...

    def finish(self) -> None:
        """End a write: tabulate the vocabulary if documents changed, release the writer."""
        ...

    def search(self, query: StoreQuery) -> StoreResult: ...

    counts_ahead: bool  # whether :meth:`prepare` keeps counts (an engine that counts as it reads keeps none)

    def prepare(self, query: StoreQuery) -> bool:
        """Count ahead, and keep for this generation of the index, what a search for ``query`` counts (its
        total and aggregations), where the store keeps such counts; whether it counted."""
        ...

    def prepared(self) -> int:
        """How many searches' counts are kept for this generation of the index."""
        ...

    def get(self, coordinates: list[str], channel: str = "pali") -> dict[str, Passage]:
        """The passages at these coordinates in one channel (absent ones are left out)."""
        ...

    def get_ids(self, doc_ids: list[str]) -> dict[str, Passage]:
        """Passages by document id (``coordinate@channel``)."""
        ...

    def chapter(self, corpus: str, book: str, chapter: int, channel: str = "pali") -> list[Passage]:
        """Every passage of one chapter of a book, in reading order."""
        ...

    def chapter_title(self, corpus: str, book: str, chapter: int) -> str:
        """The heading of a book's chapter (from its first passage), or ""."""
        ...

    def book_passages(
        self, corpus: str, book: str, channel: str = "pali", seqs: tuple[int, int] | None = None
    ) -> list[Passage]:
        """The passages of one book in one channel (``seq`` within ``seqs``, inclusive), in reading order."""
        ...

    def iter_passages(self, corpus: str, channel: str | None = None) -> list[Passage]:
        """Every passage of a corpus, in one channel or in any."""
        ...

    def count(self) -> int: ...

    def page_keys(self, prefix: str, limit: int = 10) -> list[tuple[str, int]]:
        """Indexed page keys starting with ``prefix`` (``P2.003``), in page order, with paragraph counts."""
        ...

    # --- books, texts, metadata --------------------------------------------------------------------
    def books(self, corpus: str | None = None, channel: str | None = "pali") -> dict[str, BookRecord]:
        """Recorded books of one channel (None: any) keyed ``corpus/book``."""
        ...

    def channels(self, corpus: str, book: str) -> list[BookRecord]:
        """Every channel recorded for a book."""
        ...

    def records(self) -> list[BookRecord]:
        """Every recorded book in every channel."""
        ...

    def from_records(self, key: Hashable, make: Callable[[list[BookRecord]], T]) -> T:
        """``make(records)`` over every recorded book, made once while the books table is unchanged."""
        ...

    def all_channels(self) -> list[ChannelInfo]: ...

    def set_texts(self, collection: str, rows: list[TextRecord]) -> None: ...

    def text(self, uid: str) -> TextRecord | None: ...

    def texts(self, prefix: str = "") -> list[TextRecord]: ...

    def text_at(self, corpus: str, book: str, seq: int) -> TextRecord | None: ...

    def get_meta(self, key: str) -> str | None: ...

    def set_topics(self, corpus: str, book: str, rows: list[TopicRecord]) -> None:
        """Replace the topics of one book (the book and its chapters)."""
        ...

    def topics(self, corpus: str | None = None, book: str | None = None) -> list[TopicRecord]:
        """The topics of classified documents and chapters (none if the index was never classified)."""
        ...

    def topics_by_chapter(self) -> dict[str, TopicRecord]:
        """The same topics by chapter key (``vin02m3.mul/ch3``; ``…/ch0``: the book), as aggregations count."""
        ...

    def topics_meta(self) -> dict[str, Any]:
        """The taxonomy the stored topics were computed with (``ids``, ``labels`` …; empty: never classified)."""
        ...

    def topic_fixes(self) -> dict[str, str]:
        """Topics set by hand: node coordinate → category id."""
        ...

    def fix_topic(self, coordinate: str, topic: str | None) -> None:
        """Set a node's topic by hand (kept by every classification), or drop the fix (``None``)."""
        ...

    def node_summaries(self, corpus: str, book: str) -> dict[str, SummaryRecord]:
        """The stored summaries of a book's outline nodes, by node coordinate (``gantha.summaries``)."""
        ...

    def set_summaries(self, corpus: str, book: str, rows: list[SummaryRecord], keep_only: bool = False) -> None:
        """Store summaries of a book's nodes (``keep_only``: and drop its others)."""
        ...

    def drop_summaries(self, corpus: str, book: str) -> None:
        """Forget a book's node summaries (the content-hash cache of model summaries stays)."""
        ...

    def descriptions(self) -> dict[str, Description]:
        """What the source says of its texts and divisions (SuttaCentral's blurbs and names), by uid."""
        ...

    def set_descriptions(self, rows: list[Description]) -> None:
        """Replace every description with these."""
        ...

    def cached_summary(self, signature: str) -> str | None:
        """A model-written summary of this content hash."""
        ...

    def cache_summary(self, signature: str, method: str, text: str) -> None:
        """Keep a model-written summary by its content hash."""
        ...

    def summarised_books(self) -> dict[tuple[str, str], int]:
        """(corpus, book) → how many of its nodes have a stored summary."""
        ...

    def set_meta(self, key: str, value: str) -> None: ...

    def fix_chinese_terms(self, terms: list[str]) -> None: ...

    def size(self) -> int:
        """Bytes the index takes (documents, side tables, vectors)."""
        ...

    def generation(self) -> str:
        """Changes whenever a write (documents, vectors, side tables) becomes visible: cheap, for reopening."""
        ...

    # --- vocabulary of the Pali original -------------------------------------------------------------
    def rebuild_vocabulary(self) -> int: ...

    def vocabulary_stamp(self) -> str:
        """Changes whenever the vocabulary is tabulated again (what a reader's word caches depend on)."""
        ...

    def vocabulary(self, prefix: str, limit: int = 10) -> list[tuple[str, str, int]]:
        """Words whose folded form starts with ``prefix``: (folded, form, paragraphs), most frequent first."""
        ...

    def frequent_words(self, limit: int) -> list[str]:
        """The ``limit`` folded words that stand in most paragraphs, most first."""
        ...

    def word_counts(self, forms: list[str]) -> dict[str, tuple[int, int]]: ...

    def words_around(self, part: str, *, ending: bool, limit: int = 2000) -> list[tuple[str, int, int]]: ...

    def nearest_words(self, folded: str, limit: int = 5, max_edits: int = 2) -> list[tuple[str, int]]: ...

    def forms_by_fold(self, folded: str) -> list[tuple[str, int, int]]: ...

    def form_lemmas_state(self) -> str:
        """What the forms' lemmas were computed for (lexicon key newline vocabulary stamp), '' if never."""
        ...

    def forms_without_lemmas(self, everything: bool = False) -> list[str]: ...

    def put_form_lemmas(self, lemmas: dict[str, Iterable[str]], state: str, *, replace: bool = False) -> None: ...

    def lemma_forms(self, lemma: str) -> list[tuple[str, int, int]]:
        """A lemma's attested written forms by the forms' lemmas: (form, paragraphs, bold paragraphs)."""
        ...

    # --- side services -----------------------------------------------------------------------------
    def lexicon(self) -> Lexicon:
        """The word analyses, ending tables and dictionaries loaded beside this index."""
        ...

    def vectors(self, embedder: str, dim: int, previous: Vectors | None = None) -> Vectors:
        """The vectors one embedder built for this index (empty if none yet); ``previous``, the same vectors
        opened before, may lend what has not changed since."""
        ...

    def vector_sets(self) -> list[str]:
        """The embedders that have vectors in this index."""
        ...

    def has_vectors(self, embedder: str) -> bool: ...

    def tasks(self) -> TaskQueue:
        """The durable queue of ingestion and deletion tasks."""
        ...

    def writer_lock(self) -> AbstractContextManager[bool]:
        """Hold the one-writer lock if free; yield whether it was acquired."""
        ...

    def files(self) -> Path:
        """A local folder for this index's files (uploads, ingest reports)."""
        ...

    def close(self) -> None: ...


class Vectors(Protocol):
    """Vectors of one embedder: rows keyed by document id (a long passage has one per chunk, ``…#1``)."""

    dim: int
    ids: list[str]

    def __len__(self) -> int: ...

    def __contains__(self, doc_id: str) -> bool: ...

    def documents(self) -> int: ...

    def checksum(self, doc_id: str) -> int | None: ...

    def add(self, ids: list[str], vectors: Any, meta: list[tuple[str, str, str, int, bool]]) -> None: ...

    def remove(self, doc_ids: list[str]) -> None: ...

    def retain(self, corpus: str, doc_ids: set[str], channels: set[str] | None = None) -> int: ...

    def save(self) -> None:
        """Make the rows added or removed since the last save visible to readers, all at once."""
        ...

    def similarity(self, doc_id: str, query: Any) -> float | None: ...

    def similarities(self, doc_ids: list[str], query: Any) -> dict[str, float]:
        """Cosine of the query with each document's closest row (the documents without a vector left out)."""
        ...

    def export(self, corpus: str, channel: str | None = None) -> tuple[list[str], list, Any]:
        """The rows of one corpus (in one channel): ids, meta and their vectors (a matrix)."""
        ...

    def mean(self, doc_ids: list[str]) -> Any:
        """The unit-length mean of the rows of these documents (None when none has a vector)."""
        ...

    def search(self, query: Any, k: int = 10, **filters: Any) -> list[tuple[str, float]]: ...
