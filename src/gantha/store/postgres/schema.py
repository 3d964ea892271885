"""The PostgreSQL store's tables.

``docs`` holds one row per passage: its filter columns, the passage as JSON, a unit (the book, category,
chapter and channel that aggregations count by, with the chapter's title: ``units``), and for every analysed
field a ``tsvector`` of the field's tokens as gantha's own analysis cut them (with their positions, no
stemming, no stop words), the field's length as BM25 sees it, and for the long text fields a ``_top``
vector of the tokens that weigh most in the passage (see :mod:`gantha.store.postgres.rows`). Each vector
has a GIN index. ``lexemes`` is the vocabulary of every field with its document frequencies (BM25's idf),
trigram-indexed for leading wildcards. ``prepared_counts`` keeps, for one generation, the totals and
aggregations of frequent words' searches that a background task counted ahead (see
:meth:`~gantha.store.postgres.store.PostgresStore.prepare`). ``book_changes`` numbers each book's last change (a
sequence, in the transaction that changed its rows); ``kept`` keeps what frequent searches counted and ranked,
as of a number: counts by unit, recounted only in the books changed since, and the first matches of a page
ranked first, used while nothing changed (see :meth:`~gantha.store.postgres.store.PostgresStore._kept`); the
most recently stored :data:`~gantha.store.postgres.store.KEPT_MOST` of them.
Adding an analysed field (a ``lemma`` field of lemma ids) is one more :class:`Field`.

Where the server has the ``pg_textsearch`` extension (loaded by ``shared_preload_libraries``), the fields
the page is ranked by (:attr:`Field.ranked`) also keep their tokens as text, ``name_words`` (the same tokens
as the vector, space-separated, in order), with a BM25 index (:data:`BM25_INDEXES`, ``text_config='simple'``:
PostgreSQL's parser cuts these tokens back exactly as gantha's analysis cut them); their pages are the
index's top-k (:mod:`~gantha.store.postgres.compiler`); the ``_top`` vectors stay for a streaming replica,
where pg_textsearch 1.0's index does not follow the primary's writes (:data:`BM25_ON_REPLICA`). The store's
ranking is fixed when its first documents are written (meta ``ranking``: ``bm25`` or ``tsvector``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Field:
    """An analysed field: a ``tsvector`` column ``name`` with ``name_len``, and ``name_top`` if ``tiered``."""

    name: str
    tiered: bool = False  # long text: a vector of its heaviest tokens narrows the ranking of frequent words
    text: bool = True  # words of a text (several words ranked by BM25), else raw keys (page references)
    ranked: bool = False  # a page ranked by this field alone comes from its BM25 index (pg_textsearch)

    @property
    def columns(self) -> tuple[str, ...]:
        return (
            self.name,
            f"{self.name}_len",
            *((f"{self.name}_top",) if self.tiered else ()),
            *((f"{self.name}_words",) if self.ranked else ()),
        )

    @property
    def vectors(self) -> tuple[str, ...]:
        """The tsvector columns (each GIN-indexed)."""
        return (self.name, *((f"{self.name}_top",) if self.tiered else ()))


FIELDS = (
    Field("fold", tiered=True, ranked=True),
    Field("exact", tiered=True, ranked=True),
    Field("bold_fold", ranked=True),
    Field("bold_exact", ranked=True),
    Field("variants_fold"),
    Field("variants_exact"),
    Field("page_refs", text=False),
    Field("page_starts", text=False),
)
BY_NAME = {f.name: f for f in FIELDS}
FIELD_IDS = {f.name: i for i, f in enumerate(FIELDS)}  # a field's number in ``lexemes``

DOC_COLUMNS = (
    "id, doc_id, unit, corpus, book, category, channel, granularity, is_primary, language, tags, seq, chapter, "
    "passage, " + ", ".join(c for f in FIELDS for c in f.columns)
)
_FIELD_DDL = ", ".join(
    f"{f.name} tsvector NOT NULL DEFAULT '', {f.name}_len INTEGER NOT NULL DEFAULT 0"
    + (f", {f.name}_top tsvector NOT NULL DEFAULT ''" if f.tiered else "")
    + (f", {f.name}_words TEXT NOT NULL DEFAULT ''" if f.ranked else "")
    for f in FIELDS
)

SCHEMA = f"""
CREATE EXTENSION IF NOT EXISTS vector;
CREATE SEQUENCE IF NOT EXISTS doc_numbers;
CREATE TABLE IF NOT EXISTS units (id INTEGER PRIMARY KEY, corpus TEXT, book TEXT, category TEXT, chapter INTEGER,
    channel TEXT, title TEXT, UNIQUE (corpus, book, category, chapter, channel));
CREATE TABLE IF NOT EXISTS docs (id BIGINT PRIMARY KEY, doc_id TEXT NOT NULL UNIQUE, unit INTEGER, corpus TEXT,
    book TEXT, category TEXT, channel TEXT, granularity TEXT, is_primary BOOLEAN, language text[], tags text[],
    seq INTEGER, chapter INTEGER, passage TEXT, {_FIELD_DDL}) WITH (toast_tuple_target = 128);
CREATE INDEX IF NOT EXISTS docs_book ON docs (corpus, book, channel, seq);
CREATE INDEX IF NOT EXISTS docs_chapter ON docs (corpus, book, chapter, seq);
CREATE TABLE IF NOT EXISTS lexemes (field SMALLINT, lexeme TEXT, df INTEGER, PRIMARY KEY (field, lexeme));
CREATE TABLE IF NOT EXISTS vectors (embedder TEXT, row_id TEXT, doc_id TEXT, corpus TEXT, channel TEXT,
    language TEXT, book TEXT, crc BIGINT, is_primary BOOLEAN, embedding vector);
CREATE INDEX IF NOT EXISTS vectors_doc ON vectors (embedder, doc_id);
CREATE TABLE IF NOT EXISTS prepared_counts (key TEXT PRIMARY KEY, generation TEXT NOT NULL, value TEXT NOT NULL);
CREATE SEQUENCE IF NOT EXISTS book_versions;
CREATE TABLE IF NOT EXISTS book_changes (corpus TEXT, book TEXT, channel TEXT, version BIGINT NOT NULL,
    PRIMARY KEY (corpus, book, channel));
CREATE TABLE IF NOT EXISTS kept (key TEXT PRIMARY KEY, as_of BIGINT NOT NULL, value TEXT NOT NULL, stored BIGSERIAL)
"""

BM25 = "bm25"  # meta ``ranking`` of a store whose pages come from pg_textsearch's BM25 indexes (else "tsvector")
# the first pg_textsearch whose index a streaming replica keeps up to date (1.3: its in-memory part made pages
# logged in the WAL); before it, a standby's BM25 index stays as it was first read: measured with 1.0.0, rows
# the primary added were never found there, on the same connection or a new one, even after a spill
BM25_ON_REPLICA = (1, 3)


# GIN indexes written row by row, not through a pending list: each search scans the whole of a pending list, once
# for every tsquery of its condition (a family's forms are many), so a book written into an index with one made a
# family's count 100 times slower (0.05 → 5.5 s, the whole CST) until a vacuum merged it; a book written so costs
# about a second more
UNPENDED = "fastupdate = off"


def search_indexes(ranking: str) -> dict[str, str]:
    """The indexes of ``docs`` a store ranking so keeps (name → target): the GIN index of every vector column,
    and with BM25 indexes the BM25 index of each ranked field. Dropped for a first ingest's bulk load and built
    once at its end."""
    out = {f"docs_{column}": f"docs USING gin ({column}) WITH ({UNPENDED})" for f in FIELDS for column in f.vectors}
    return out | (BM25_INDEXES if ranking == BM25 else {})


BM25_INDEXES = {
    f"docs_{f.name}_bm25": f"docs USING bm25 ({f.name}_words) WITH (text_config = 'simple')" for f in FIELDS if f.ranked
}
# leading wildcards: trigrams where pg_trgm is installed, else the reversed words (suffixes; infixes are scanned)
TRIGRAM_INDEX = ("lexemes_trigrams", f"lexemes USING gin (lexeme gin_trgm_ops) WITH ({UNPENDED})")
REVERSED_INDEX = ("lexemes_reversed", 'lexemes (field, reverse(lexeme) COLLATE "C")')
