"""The PostgreSQL store's tables.

``docs`` holds one row per passage: its filter columns, the passage as JSON, a unit (the book, category,
chapter and channel that aggregations count by, with the chapter's title: ``units``), and for every analysed
field a ``tsvector`` of the field's tokens as gantha's own analysis cut them (with their positions, no
stemming, no stop words), the field's length as BM25 sees it, and for the long text fields a ``_top``
vector of the tokens that weigh most in the passage (see :mod:`gantha.store.postgres.rows`). Each vector
has a GIN index. ``lexemes`` is the vocabulary of every field with its document frequencies (BM25's idf),
trigram-indexed for leading wildcards. ``prepared_counts`` keeps, for one generation, the totals and
aggregations of frequent words' searches that a background task counted ahead (see
:meth:`~gantha.store.postgres.store.PostgresStore.prepare`). Adding an analysed field (a ``lemma`` field of
lemma ids) is one more :class:`Field`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Field:
    """An analysed field: a ``tsvector`` column ``name`` with ``name_len``, and ``name_top`` if ``tiered``."""

    name: str
    tiered: bool = False  # long text: a vector of its heaviest tokens narrows the ranking of frequent words
    text: bool = True  # words of a text (several words ranked by BM25), else raw keys (page references)

    @property
    def columns(self) -> tuple[str, ...]:
        return (self.name, f"{self.name}_len", *((f"{self.name}_top",) if self.tiered else ()))

    @property
    def vectors(self) -> tuple[str, ...]:
        """The tsvector columns (each GIN-indexed)."""
        return (self.name, *((f"{self.name}_top",) if self.tiered else ()))


FIELDS = (
    Field("fold", tiered=True),
    Field("exact", tiered=True),
    Field("bold_fold"),
    Field("bold_exact"),
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
    for f in FIELDS
)

SCHEMA = f"""
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
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
CREATE TABLE IF NOT EXISTS prepared_counts (key TEXT PRIMARY KEY, generation TEXT NOT NULL, value TEXT NOT NULL)
"""

# the GIN index of every vector column: dropped for a first ingest's bulk load and built once at its end
SEARCH_INDEXES = {f"docs_{column}": f"docs USING gin ({column})" for f in FIELDS for column in f.vectors}
LEXEME_INDEX = ("lexemes_trigrams", "lexemes USING gin (lexeme gin_trgm_ops)")  # leading wildcards; likewise
