"""The PostgreSQL store: the whole index in one database that several gantha servers share.

PostgreSQL is the search engine here: passages are rows of ``docs`` whose analysed fields are ``tsvector``
columns with GIN indexes (:mod:`~gantha.store.postgres.schema`), queries are ``tsquery`` conditions, pages
ranked by BM25 — from pg_textsearch's BM25 indexes (top-k) where the server has that extension, else in SQL
(:mod:`~gantha.store.postgres.compiler`) —, totals and aggregations a ``GROUP BY`` over the matches,
vectors pgvector rows with an HNSW index (:mod:`~gantha.store.postgres.vectors`). Side tables, the lexicon
and the task queue live beside them (:mod:`gantha.store.tables`).

One writer at a time (an advisory lock; another gets :class:`IndexBusy`) in one open transaction
(:mod:`~gantha.store.postgres.writer`); readers never wait, through a pool of connections whose statements
stop at ``GANTHA_PG_STATEMENT_TIMEOUT``. A server may read from a streaming replica: :meth:`database` says
which database it reads, whether a replica, how far behind, and writes there are refused
(:class:`ReadOnlyIndex`).

Needs PostgreSQL 13+ with the ``vector`` (pgvector) extension; the writer's role must be able to create
tables (and the extensions, unless an administrator created them). ``pg_textsearch`` (PostgreSQL 17+, in
``shared_preload_libraries``) gives the BM25 indexes; without it a new index is ranked the slower way and
the store says so when it opens (a warning, and ``ranking`` in :meth:`database`); an index made with BM25
indexes on a server that lost the extension is refused. ``pg_trgm``, where present, indexes the vocabulary's
trigrams for ``*suffix`` and ``*infix*`` (else suffixes use the reversed words, and infixes scan them).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
from platformdirs import user_data_dir

from gantha import deadline
from gantha.model import Passage
from gantha.store import vocabulary
from gantha.store.base import BookRecord, StoreError, StoreHit, StoreQuery, StoreResult, Vectors, chapter_key
from gantha.store.lexicon import Lexicon
from gantha.store.postgres.compiler import Plan, Stats, lit, scored_words, within
from gantha.store.postgres.schema import BM25, BM25_ON_REPLICA, FIELD_IDS, FIELDS, SCHEMA
from gantha.store.postgres.vectors import PgVectors
from gantha.store.postgres.writer import LOADED, SCHEMA_LOCK, STATS, TASK_LOCK, Writer
from gantha.store.queue import TaskQueue
from gantha.store.sql import PostgresDatabase, StatementTimeout, redacted
from gantha.store.tables import TableStore
from gantha.store.vocabulary import LAST

PREPARED_ABOVE = 700  # documents holding a query's ranked words above which its counts and ranking may be kept ready
RANKED_KEPT = 100  # a prepared search's first matches kept in score order: its pages up to there are read
GENERATION = "COALESCE((SELECT value FROM meta WHERE key = 'generation'), '0')"
STATS_FRESH = 1.0  # seconds BM25's collection statistics are used before the generation is looked at again
BM25_INDEXES = (
    "SELECT c.relname FROM pg_class c JOIN pg_am a ON a.oid = c.relam "
    "WHERE c.relkind = 'i' AND a.amname = 'bm25' AND c.relnamespace = current_schema()::regnamespace"
)
_COUNTER = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gantha-pg-count")  # counts beside the page
FIRST_SCORED = 64  # matches ranked first up to which each is scored by pg_textsearch (0.4 ms each), else walked
FIRST_WALK_MS = 100  # the longest a page's matches ranked first are looked for down a BM25 index, else ranked in SQL
KEPT_FROM = 2_000  # matches from which a search's counts by unit are kept, recounted only where books changed
KEPT_MOST = 20_000  # searches kept (the least recently stored dropped beyond them: a value is up to ~25 KB)
TRIM_EVERY = 200  # a process's stores between two trims of what is kept
RANKING = "ranking"  # meta key: how the index's pages are ranked, "bm25" (pg_textsearch) or "tsvector"
log = logging.getLogger("gantha")


class PostgresStore(TableStore):
    """Store in a PostgreSQL database (see module docstring)."""

    def __init__(self, url: str, *, create: bool = True):
        from gantha.config import settings

        self.url = url
        self.location = redacted(url)
        config = settings()
        try:
            self.db = PostgresDatabase(url, statement_timeout=config.pg_statement_timeout, pool_size=config.pg_pool)
            if not create and not self.db.query("SELECT to_regclass('docs')")[0][0]:
                raise StoreError(f"no index in {self.location} (run `gantha ingest … --store URL` first)")
            if self.db.query("SELECT to_regclass('postings')")[0][0]:
                raise StoreError(
                    f"the index in {self.location} was made by an earlier gantha (postings tables): ingest into a "
                    "new database"
                )
            extensions = self._extensions()
            with self.db.transaction():
                self.db.execute("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK,))  # one schema creator
                self.db.script(SCHEMA + "".join(f";CREATE EXTENSION IF NOT EXISTS {e}" for e in extensions))
            self._init_tables(self.location)
            self.trigrams = "pg_trgm" in extensions
            self.ranking = self._ranking("pg_textsearch" in extensions)
            self.bm25_pages = self.ranking == BM25 and self._bm25_here()
            self.writable = not self.db.fetch(  # a primary and a role that may write: counts are kept
                "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only')::bool"
            )[0][0]
            self.lexicon()  # their tables too, made on the primary before a replica copies them
            self.tasks()
        except StoreError:
            raise
        except Exception as exc:  # psycopg errors: missing extension, no privilege …
            if type(exc).__module__.startswith("psycopg"):
                raise StoreError(f"cannot open the index in {self.location}: {exc}") from exc
            raise
        self._writer = Writer(url, self.location, self.ranking, trigrams=self.trigrams)
        self._changed = False
        self._chapter_titles: dict[tuple[str, str, int], str] = {}
        self._stats: tuple[str, Stats] | None = None  # by generation
        self._bm25_built: set[str] = set()  # the BM25 indexes there (read with the statistics)
        self._stats_read = 0.0  # when the generation was last looked at for them
        self._units: dict[int, tuple[str, str, str, int, str, str]] = {}
        self._units_read = ""  # the generation the units were read at
        self._stores = 0  # searches this process kept (see _keep_rows)

    def _extensions(self) -> list[str]:
        """The optional extensions this server can give the index (installed, or installable; pg_textsearch only
        where ``shared_preload_libraries`` loads it, installed or not)."""
        rows = self.db.fetch(
            "SELECT name, 'pg_textsearch' = ANY(string_to_array(replace(current_setting('shared_preload_libraries'), "
            "' ', ''), ',')) FROM pg_available_extensions WHERE name IN ('pg_textsearch', 'pg_trgm')"
        )
        return sorted(name for name, preloaded in rows if name != "pg_textsearch" or preloaded)

    def _ranking(self, bm25: bool) -> str:
        """How this index's pages are ranked: as its first documents were written (meta ``ranking``), else with
        BM25 indexes if the server has pg_textsearch. Said when it cannot (a warning), refused when the index
        was made with them and the server has it no longer."""
        made = self.get_meta(RANKING)
        if made is None and self.db.fetch("SELECT EXISTS (SELECT 1 FROM docs)")[0][0]:
            made = "tsvector"  # written before the ranking was recorded
        if made == BM25 and not bm25:
            raise StoreError(
                f"the index in {self.location} was made with BM25 indexes (pg_textsearch) and this server does not "
                "load that extension: add pg_textsearch to shared_preload_libraries and restart it"
            )
        ranking = made or (BM25 if bm25 else "tsvector")
        if ranking != BM25:
            log.warning(
                "PostgreSQL store %s: %s: pages are ranked in SQL from the tsvector columns (frequent words are "
                "slower, and their counts and rankings are prepared ahead)",
                self.location,
                "the index was made without BM25 indexes" if made else "the server has no pg_textsearch extension",
            )
        return ranking

    def _bm25_here(self) -> bool:
        """Whether this database's BM25 indexes can rank pages: on a primary, and on a streaming replica only from
        pg_textsearch :data:`BM25_ON_REPLICA` (said when not: such a replica ranks the slower way)."""
        replica, version = self.db.fetch(
            "SELECT pg_is_in_recovery(), (SELECT extversion FROM pg_extension WHERE extname = 'pg_textsearch')"
        )[0]
        if not replica or tuple(int(n) for n in version.split(".")[:2]) >= BM25_ON_REPLICA:
            return True
        log.warning(
            "PostgreSQL store %s: a streaming replica with pg_textsearch %s, whose BM25 indexes do not follow the "
            "primary's writes there: pages are ranked in SQL from the tsvector columns",
            self.location,
            version,
        )
        return False

    @property
    def counts_ahead(self) -> bool:  # type: ignore[override]
        """With BM25 indexes nothing is prepared ahead: a frequent word's page is a top-k like any other."""
        return self.ranking != BM25

    # --- writing -----------------------------------------------------------------------------------

    @property
    def writer(self) -> Any:
        """The writer's connection (taking the writer's lock: IndexBusy if another process holds it)."""
        return self._writer.conn

    def add(self, passages: Iterable[Passage]) -> int:
        """Write the passages in the writer's transaction."""

        def watched() -> Iterator[Passage]:
            for p in passages:
                self._changed |= p.channel == vocabulary.CHANNEL
                yield p

        return self._writer.add(watched())

    def delete_book(self, corpus: str, book: str, channel: str = "pali") -> None:
        self._changed |= channel == vocabulary.CHANNEL
        self._writer.delete_book(corpus, book, channel)
        self._unrecord_book(corpus, book, channel)
        self._forget()
        self._chapter_titles.clear()

    def delete(self, coordinates: Iterable[str], channel: str = "pali") -> None:
        ids = [f"{c}@{channel}" for c in coordinates]
        if ids:
            self._changed |= channel == vocabulary.CHANNEL
            self._writer.delete_where("doc_id = ANY(?)", (ids,))

    def commit(self, books: Iterable[BookRecord] = ()) -> None:
        if self._changed:
            self.mark_vocabulary_stale()
        self._writer.commit()
        self._record_books(list(books))  # only after the documents are durable: a crash re-ingests the book
        self._bump()
        self._forget()
        self._chapter_titles.clear()

    def finish(self) -> None:
        """Release the writer (building the indexes a first ingest left to the end) and bring the vocabulary up
        to date if documents changed: updated by the forms the writes changed where it existed when they began
        (the rest of the index as it was: the planner's statistics left to autovacuum), else tabulated, the
        planner's statistics taken afresh."""
        tracked = self._writer.tracking
        self._writer.close(finished=True)  # nothing uncommitted is kept
        if self._changed or self.vocabulary_due():
            if tracked and self.has_vocabulary():
                self.update_vocabulary()
            else:
                self.rebuild_vocabulary()
                import psycopg

                with psycopg.connect(self.url, autocommit=True) as conn:
                    for table in ("docs", "lexemes"):
                        conn.execute(f"VACUUM (ANALYZE) {table}")
                    conn.execute(f"ALTER TABLE docs {LOADED}")  # autovacuum's again, after a first ingest's load
            self._changed = False
            self._bump()

    def _bump(self) -> None:
        """Tell the readers of every server that the index changed (the counts prepared for it go)."""
        with self.db.transaction():
            self.db.execute(
                "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE "
                "SET value = (CAST(meta.value AS BIGINT) + 1)::text"
            )
            self.db.execute("DELETE FROM prepared_counts")
        self._stats_read = 0.0  # this process's readers see it at once

    def close(self) -> None:
        self._writer.close()
        self.db.close()

    # --- searching ---------------------------------------------------------------------------------

    def count(self) -> int:
        return self._collection().docs

    def _collection(self) -> Stats:
        """BM25's statistics of the index as committed (read again when the generation changes, which is looked
        at once every :data:`STATS_FRESH` seconds: totals and matches never wait for it, BM25's averages may)."""
        now = time.monotonic()
        if self._stats is not None and now - self._stats_read < STATS_FRESH:
            return self._stats[1]
        self._stats_read = now
        generation = self.generation()
        if self._stats is None or self._stats[0] != generation:
            if self.bm25_pages:  # a first ingest builds them at its end: until then, pages ranked in SQL
                # the catalog rows alone: pg_indexes opens each index, and fails on one an ingest drops meanwhile
                self._bm25_built = {r[0] for r in self.db.fetch(BM25_INDEXES)}
            row = self.get_meta(STATS)
            stats = orjson.loads(row) if row else {"docs": 0, "lengths": {}}
            docs = int(stats["docs"])
            avg = {f.name: stats["lengths"].get(f.name, 0) / max(docs, 1) for f in FIELDS}
            self._stats = (generation, Stats(docs, avg))
        return self._stats[1]

    def _df(self, words: set[tuple[str, str]]) -> dict[tuple[str, str], int]:
        """Document frequencies of (field, word) pairs."""
        if not words:
            return {}
        pairs = sorted(words)
        rows = self.db.fetch(
            "SELECT l.field, l.lexeme, l.df FROM lexemes l JOIN unnest(%s::smallint[], %s::text[]) w(f, t) "
            "ON l.field = w.f AND l.lexeme = w.t",
            ([FIELD_IDS[f] for f, _ in pairs], [t for _, t in pairs]),
        )
        names = {i: name for name, i in FIELD_IDS.items()}
        return {(names[f], t): int(n) for f, t, n in rows}

    def _expand(self, field: str, kind: str, part: str) -> list[str]:
        """The words of a field's vocabulary ending with (``suffix``) or holding (``infix``) ``part``, found by
        the trigram index of ``lexemes``."""
        escaped = part.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        if kind == "suffix" and not self.trigrams:  # the reversed words' index: a prefix of them
            where, pattern = 'reverse(lexeme) COLLATE "C" LIKE %s', escaped[::-1] + "%"
        else:
            where, pattern = "lexeme LIKE %s", f"%{escaped}" if kind == "suffix" else f"%{escaped}%"
        rows = self.db.fetch(
            f"SELECT lexeme FROM lexemes WHERE field = %s AND {where} AND df > 0", (FIELD_IDS[field], pattern)
        )
        return sorted(r[0] for r in rows)

    def plan(self, q: StoreQuery) -> Plan:
        """The SQL of a store query, with this index's statistics and its words' document frequencies."""
        return Plan(q, self._collection(), self._df(scored_words(q)), self._expand)

    def search(self, q: StoreQuery) -> StoreResult:
        """The count (grouped by unit) beside the page: two statements on two connections."""
        deadline.check()
        plan = self.plan(q)
        if self.bm25_pages and q.limit and f"docs_{plan.bm25()}_bm25" in self._bm25_built:
            return self._search_bm25(plan)
        prepared = self._prepared(plan)
        if q.limit == 0:
            total, aggregations = self._counted(plan, prepared.get(_key(plan.count())))
            return StoreResult(total, [], aggregations)
        counting = _COUNTER.submit(self._counted, plan, prepared.get(_key(plan.count())))
        try:
            within = prepared and q.order != "reading" and q.offset + q.limit <= RANKED_KEPT  # a light plan: none kept
            ranked = prepared.get(_key(plan.ranking(RANKED_KEPT))) if within else None
            if q.order == "reading":
                rows = self.db.fetch(plan.reading())
            elif ranked is not None:  # every match ranked ahead: the page read from them
                window = ranked[q.offset : q.offset + q.limit]
                ids = [r[0] for r in window]
                found = dict(self.db.fetch("SELECT id, passage FROM docs WHERE id = ANY(%s)", (ids,)))
                rows = [(i, score, first, None, found[i]) for i, score, first in window if i in found]
            else:  # from the heaviest passages of frequent words, if they fill the page, else from wider
                rows, need, tiers = [], q.offset + q.limit, plan.tiers()
                first_only = False
                if tiers and q.rank_first:
                    first = prepared.get(_key(plan.first_count()))
                    if first is None:
                        first = sum(n for _, n in self._kept(plan.first_units(), plan))
                    first_only = first >= need
                for tier in [*tiers, None]:
                    known = None if tier is None else prepared.get(_key(plan.candidates(tier, first_only=first_only)))
                    if known is not None and known < need:  # too few candidates to fill the page: the next tier
                        continue
                    rows = self.db.fetch(plan.page(tier, first_only=first_only))
                    if tier is None or (rows and rows[0][3] >= need):
                        break
        finally:
            total, aggregations = counting.result()
        reading = q.order == "reading"
        hits = [
            StoreHit(Passage(**orjson.loads(passage)), 1.0 if reading else float(score), bool(first and q.rank_first))
            for _, score, first, _, passage in rows
        ]
        return StoreResult(total, hits, aggregations)

    def _search_bm25(self, plan: Plan) -> StoreResult:
        """A page from a field's BM25 index (the count beside it): the matches ranked first (the best that fill
        the page), then the index's top-k of the rest, then matches holding none of the ranked words."""
        q = plan.q
        counting = _COUNTER.submit(self._counted, plan)
        try:
            need = q.offset + q.limit
            first = []
            if (
                q.rank_first and sum(n for _, n in self._kept(plan.first_units(), plan)) > FIRST_SCORED
            ):  # many: down the index
                first = self._ranked_first(plan, need)
            elif q.rank_first:  # a few: each scored by the index's statistics (not found down the index)
                first = self.db.fetch_planned(plan.bm25_first(need), {"enable_indexscan": "off"})
            rows = [(i, s, True, p) for i, s, p in first]
            if len(rows) < need:
                seen = {r[0] for r in rows}
                top = self.db.fetch(plan.bm25_top(need + len(rows)))
                rows += sorted(((i, s, False, p) for i, s, p in top if i not in seen), key=lambda r: (-r[1], r[0]))
                rows = rows[:need]
                zero = plan.bm25_zero(need) if len(rows) < need and len(top) < need + len(seen) else None
                if zero:  # the top-k ran out, and some matches may score 0
                    seen |= {r[0] for r in rows}
                    rows += [(i, s, False, p) for i, s, p in self.db.fetch(zero) if i not in seen]
        finally:
            total, aggregations = counting.result()
        fixed = plan.bm25_fixed()
        hits = [
            StoreHit(Passage(**orjson.loads(passage)), fixed + float(score), f)
            for _, score, f, passage in rows[q.offset : need]
        ]
        return StoreResult(total, hits, aggregations)

    def _counted(self, plan: Plan, prepared: Any = None) -> tuple[int, dict[str, list[tuple[str, int]]]]:
        """The total and the aggregations (book, category, chapter, channel) of the plan's matches (counted, or
        the ``prepared`` rows)."""
        counts = prepared if prepared is not None else self._kept(plan.count(), plan)
        if any(unit not in self._units for unit, _ in counts):
            self._load_units()
        sums: dict[str, dict[str, int]] = {name: {} for name in plan.q.aggregate}
        for unit, n in counts:
            _, book, category, chapter, channel, _ = self._units[unit]
            keys = {"book": book, "category": category, "chapter": chapter_key(book, chapter), "channel": channel}
            for name, bucket in sums.items():
                bucket[keys[name]] = bucket.get(keys[name], 0) + n
        aggregations = {name: sorted(b.items(), key=lambda kv: (-kv[1], kv[0])) for name, b in sums.items()}
        return sum(n for _, n in counts), aggregations

    def _ranked_first(self, plan: Plan, need: int) -> list[tuple[int, float, str]]:
        """Rows (id, score, passage) of the best ``need`` of many matches ranked first: down the field's BM25 index,
        filtered (the embedded store's order, near enough), unless the walk passes so many other matches first that
        it takes :data:`FIRST_WALK_MS`: then ranked in SQL from the heaviest passages (quicker, and further from it).
        For a frequent search kept (their ids and scores), used while no book has changed since."""
        statement = plan.page(None, first_only=True, window=(need, 0))
        key = _key(statement)
        mark, as_of, value = self._look_up(key)
        if value is not None and as_of == mark:
            ranked = orjson.loads(value)
            found = dict(self.db.fetch("SELECT id, passage FROM docs WHERE id = ANY(%s)", ([i for i, _ in ranked],)))
            if len(found) == len(ranked):
                return [(i, score, found[i]) for i, score in ranked]
        try:
            walk = {"enable_bitmapscan": "off", "enable_seqscan": "off"}
            rows = [(i, float(s), p) for i, s, p in self.db.fetch_planned(plan.bm25_first(need), walk, FIRST_WALK_MS)]
        except StatementTimeout:
            rows = [(i, float(score), passage) for i, score, _, _, passage in self.db.fetch(statement)]
        if self.writable and plan.held() >= KEPT_FROM:
            self._keep_rows(key, mark, [(i, score) for i, score, _ in rows])
        return rows

    def _look_up(self, key: str) -> tuple[int, int | None, str | None]:
        """The last change's number, and what is kept under ``key`` (as of which number), if anything."""
        return self.db.fetch(
            "SELECT (SELECT coalesce(max(version), 0) FROM book_changes), k.as_of, k.value "
            "FROM (SELECT 1) one LEFT JOIN kept k ON k.key = %s",
            (key,),
        )[0]

    def _keep_rows(self, key: str, as_of: int, rows: list) -> None:
        """Keep ``rows`` under ``key`` as of a change's number; now and then only the :data:`KEPT_MOST` stored last."""
        self.db.execute(
            "INSERT INTO kept (key, as_of, value) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET as_of = "
            "excluded.as_of, value = excluded.value, stored = nextval(pg_get_serial_sequence('kept', 'stored'))",
            (key, as_of, orjson.dumps(rows).decode()),
        )
        self._stores += 1
        if self._stores % TRIM_EVERY == 0:
            self.db.execute(
                "DELETE FROM kept WHERE stored <= (SELECT stored FROM kept ORDER BY stored DESC OFFSET ? LIMIT 1)",
                (KEPT_MOST,),
            )

    def _counts(self, statement: str, plan: Plan) -> list[tuple]:
        """Rows of a statement counting the plan's matches: found by the GIN indexes wherever the match has words.
        The planner does not know what reading each row's vector costs (it is detoasted), and for a family of very
        frequent forms scans the whole table instead: *na*'s count by unit 1.9 s so, 0.15 s by the indexes."""
        if plan.worded:
            return self.db.fetch_planned(statement, {"enable_seqscan": "off"})
        return self.db.fetch(statement)

    def _kept(self, statement: str, plan: Plan) -> list[tuple[int, int]]:
        """The rows (unit, matches) of a statement counting by unit: those kept of it, the books changed since they
        were counted (``book_changes``) counted again, else all counted; kept if they hold :data:`KEPT_FROM`
        matches, as of the last change they saw. A write drops nothing: it only marks the books it changed. Only
        looked for where the words held (a bound of the matches) reach as many."""
        if plan.held() < KEPT_FROM:
            return self._counts(statement, plan)  # type: ignore[return-value]
        key = _key(statement)
        mark, as_of, value = self._look_up(key)
        if value is None:
            rows = [tuple(r) for r in self._counts(statement, plan)]
        else:
            rows = [tuple(r) for r in orjson.loads(value)]
            if as_of == mark:
                return rows  # type: ignore[return-value]
            changed = {
                tuple(r)
                for r in self.db.fetch("SELECT corpus, book, channel FROM book_changes WHERE version > %s", (as_of,))
            }
            if any(unit not in self._units for unit, _ in rows):
                self._load_units()
            rows = [(unit, n) for unit, n in rows if self._book_of(unit) not in changed]
            rows += [tuple(r) for r in self._counts(within(statement, sorted(changed)), plan)]
        if self.writable and sum(n for _, n in rows) >= KEPT_FROM:  # a replica reads those its primary keeps
            self._keep_rows(key, mark, rows)
        return rows  # type: ignore[return-value]

    def _book_of(self, unit: int) -> tuple[str, str, str]:
        """A unit's (corpus, book, channel), as ``book_changes`` names a book."""
        corpus, book, _, _, channel, _ = self._units[unit]
        return corpus, book, channel

    # --- counts prepared ahead --------------------------------------------------------------------

    def _prepared(self, plan: Plan) -> dict[str, Any]:
        """The counts kept ready for this generation of a plan's statements, by key (only a heavy plan's are
        looked for: a light one is counted as fast as it is looked up)."""
        if plan.held() <= PREPARED_ABOVE:
            return {}
        tiers = [plan.candidates(t, first_only=f) for t in plan.tiers() for f in (False, True)]
        keys = [_key(s) for s in (plan.count(), plan.first_count(), plan.ranking(RANKED_KEPT), *tiers)]
        rows = self.db.fetch(
            f"SELECT key, value FROM prepared_counts WHERE key = ANY(%s) AND generation = {GENERATION}", (keys,)
        )
        return {key: orjson.loads(value) for key, value in rows}

    def prepare(self, q: StoreQuery) -> bool:
        """Count a heavy query's matches (its total and aggregations, its matches ranked first, and the
        candidates of its page's tiers up to one that fills its page) and rank its first :data:`RANKED_KEPT`
        over every match, and keep them for this generation, so that the same search reads them instead of
        visiting each match again (the counting and ranking are most of a frequent word's search here), and its
        pages are those of the whole ranking, not of the heaviest passages' tiers. Returns whether it was
        counted; one already kept for this generation is not counted again."""
        plan = self.plan(q)
        if plan.held() <= PREPARED_ABOVE:
            return False
        kept, ranking = self._prepared(plan), plan.ranking(RANKED_KEPT)
        if q.order != "reading" and _key(ranking) not in kept:  # its first pages, whatever their size
            self._keep(ranking, rows=True)
        if _key(plan.count()) in kept:
            return False
        need = q.offset + q.limit
        first = self._keep(plan.first_count()) if q.rank_first else 0
        for tier in plan.tiers() if q.order != "reading" else []:
            if self._keep(plan.candidates(tier, first_only=bool(q.rank_first) and first >= need)) >= need:
                break
        self._keep(plan.count(), rows=True)
        return True

    def _keep(self, statement: str, *, rows: bool = False) -> int:
        """Run a counting statement and keep what it counts (``rows``: every row, else its one number) with
        the generation read in the same statement (both from one snapshot); returns the number."""
        found = self.db.fetch(f"SELECT {GENERATION}, c.* FROM ({statement}) c")
        if not found:
            return 0
        value = [[float(v) if isinstance(v, Decimal) else v for v in r[1:]] for r in found] if rows else found[0][1]
        self.db.execute(
            "INSERT INTO prepared_counts VALUES (?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET generation = excluded.generation, value = excluded.value",
            (_key(statement), found[0][0], orjson.dumps(value).decode()),
        )
        return value if not rows else len(value)

    def prepared(self) -> int:
        return int(self.db.fetch(f"SELECT count(*) FROM prepared_counts WHERE generation = {GENERATION}")[0][0])

    # --- reading -----------------------------------------------------------------------------------

    def _passages(self, where: str, args: tuple, order: str = "seq") -> list[Passage]:
        rows = self.db.query(f"SELECT passage FROM docs WHERE {where} ORDER BY {order}", args)
        return [Passage(**orjson.loads(r[0])) for r in rows]

    def get(self, coordinates: list[str], channel: str = "pali") -> dict[str, Passage]:
        found = self.get_ids([f"{c}@{channel}" for c in coordinates])
        return {p.coordinate: p for p in found.values()}

    def get_ids(self, doc_ids: list[str]) -> dict[str, Passage]:
        if not doc_ids:
            return {}
        return {p.doc_id: p for p in self._passages("doc_id = ANY(?)", (list(doc_ids),), "id")}

    def chapter(self, corpus: str, book: str, chapter: int, channel: str = "pali") -> list[Passage]:
        return self._passages("corpus=? AND book=? AND channel=? AND chapter=?", (corpus, book, channel, chapter))

    def _load_units(self) -> None:
        """The units (corpus, book, category, chapter, channel, chapter title), and the chapters' titles."""
        self._units_read = self.generation()
        units = self.db.fetch("SELECT * FROM units ORDER BY channel <> 'pali', id")
        self._units = {r[0]: tuple(r[1:]) for r in units}  # type: ignore[misc]
        self._chapter_titles = {}
        for corpus, book, _, chapter, _, title in self._units.values():
            self._chapter_titles.setdefault((corpus, book, chapter), title or "")

    def chapter_title(self, corpus: str, book: str, chapter: int) -> str:
        """The heading of a book's chapter (the title of its first passage, recorded with its unit), or ""."""
        if (corpus, book, chapter) not in self._chapter_titles and self._units_read != self.generation():
            self._load_units()
        return self._chapter_titles.get((corpus, book, chapter), "")

    def book_passages(
        self, corpus: str, book: str, channel: str = "pali", seqs: tuple[int, int] | None = None
    ) -> list[Passage]:
        if seqs:
            return self._passages(
                "corpus=? AND book=? AND channel=? AND seq BETWEEN ? AND ?", (corpus, book, channel, *seqs)
            )
        return self._passages("corpus=? AND book=? AND channel=?", (corpus, book, channel))

    def iter_passages(self, corpus: str, channel: str | None = None) -> list[Passage]:
        if channel:
            return self._passages("corpus=? AND channel=?", (corpus, channel), "id")
        return self._passages("corpus=?", (corpus,), "id")

    def page_keys(self, prefix: str, limit: int = 10) -> list[tuple[str, int]]:
        rows = self.db.query(
            "SELECT lexeme, df FROM lexemes WHERE field=? AND lexeme >= ? AND lexeme < ? AND df > 0 "
            "ORDER BY lexeme LIMIT ?",
            (FIELD_IDS["page_refs"], prefix, prefix + LAST, limit),
        )
        return [(t, int(n)) for t, n in rows]

    def _pali_terms(self) -> tuple[list[tuple[str, int]], dict[str, int]]:
        """The exact forms of the Pali channel with their paragraphs: the exact field's document frequencies when
        the index holds nothing else, else counted over the Pali rows."""
        only_pali = not self.db.fetch(f"SELECT 1 FROM docs WHERE channel <> {lit(vocabulary.CHANNEL)} LIMIT 1")

        def counted(field: str) -> list[tuple[str, int]]:
            if only_pali:
                sql = f"SELECT lexeme, df FROM lexemes WHERE field = {FIELD_IDS[field]} AND df > 0"
            else:
                sql = (
                    f"SELECT lexeme, count(*) FROM docs, unnest(tsvector_to_array({field})) lexeme "
                    f"WHERE channel = {lit(vocabulary.CHANNEL)} GROUP BY lexeme"
                )
            with self.db.transaction():  # a long read: no statement timeout
                rows = self.db.fetch(f'SELECT * FROM ({sql}) t (lexeme, n) ORDER BY n DESC, lexeme COLLATE "C"')
            return [(t, int(n)) for t, n in rows]

        return counted("exact"), dict(counted("bold_exact"))

    def generation(self) -> str:
        return self.get_meta("generation") or "0"

    def size(self) -> int:
        return int(self.db.query("SELECT pg_database_size(current_database())")[0][0])

    def database(self) -> dict[str, Any]:
        """Which database this store reads, whether a replica, and what is wrong with it (``problems``)."""
        parts = urlsplit(self.url)
        params = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)
        out: dict[str, Any] = {
            "engine": "postgresql",
            "host": parts.hostname or params.get("host", ""),
            "port": parts.port or int(params.get("port", 5432)),
            "database": parts.path.lstrip("/") or params.get("dbname", ""),
            "ranking": self.ranking if self.bm25_pages or self.ranking != BM25 else "tsvector (a replica)",
            "problems": [],
        }
        try:
            replica, paused, lag, receiving = self.db.fetch(
                "SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN pg_is_wal_replay_paused() END, "
                "extract(epoch FROM now() - pg_last_xact_replay_timestamp()), "
                "EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming')"
            )[0]
            behind = (
                replica
                and self.db.fetch("SELECT pg_last_wal_receive_lsn() IS DISTINCT FROM pg_last_wal_replay_lsn()")[0][0]
            )
            out.update(role="replica" if replica else "primary", generation=self.generation())
        except StoreError as exc:
            out.update(role="unreachable", problems=[f"database unreachable: {exc}"])
            return out
        if replica:
            out["replay_lag_seconds"] = round(float(lag), 3) if lag is not None else None
            if not receiving:
                out["problems"].append("the replica is not streaming from its primary: it answers from what it holds")
            if paused:
                out["problems"].append("the replica's replay is paused: it answers from an older state of the index")
            elif behind:
                out["problems"].append(f"the replica lags its primary ({out['replay_lag_seconds']} s behind)")
        return out

    # --- side services -----------------------------------------------------------------------------

    @cached_property
    def _lexicon(self) -> Lexicon:
        return Lexicon(self.db)

    def lexicon(self) -> Lexicon:
        return self._lexicon

    def vectors(self, embedder: str, dim: int, previous: Vectors | None = None) -> PgVectors:
        return PgVectors(self, embedder, dim)

    def vector_sets(self) -> list[str]:
        return [r[0] for r in self.db.query("SELECT DISTINCT embedder FROM vectors ORDER BY embedder")]

    def has_vectors(self, embedder: str) -> bool:
        return bool(self.db.query("SELECT 1 FROM vectors WHERE embedder=? LIMIT 1", (embedder,)))

    @cached_property
    def _tasks(self) -> TaskQueue:
        return TaskQueue(self.db)

    def tasks(self) -> TaskQueue:
        return self._tasks

    @contextlib.contextmanager
    def writer_lock(self) -> Iterator[bool]:
        """The task runners' lock (one task at a time across every server on this database)."""
        if not self.db.advisory_lock(TASK_LOCK):
            yield False
            return
        try:
            yield True
        finally:
            self.db.advisory_unlock(TASK_LOCK)

    def files(self) -> Path:
        """GANTHA_FILES (a folder every server can read, for uploads), else a per-user folder for this database."""
        from gantha.config import settings

        name = hashlib.sha1(self.location.encode()).hexdigest()[:12]
        folder = settings().files or Path(user_data_dir("gantha")) / "stores" / name
        folder.mkdir(parents=True, exist_ok=True)
        return folder


def _key(statement: str) -> str:
    """A counting statement's key in ``prepared_counts``."""
    return hashlib.sha1(statement.encode()).hexdigest()
