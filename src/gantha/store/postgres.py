"""The PostgreSQL store: the whole index in one database that several gantha servers share.

Documents are rows of ``docs`` (filter columns, the stored passage as JSON); their analysed fields
are an inverted index in ``postings`` (field, term, document, term frequency, field length,
positions), with document frequencies in ``terms`` and token totals in ``field_stats``, so that
ranking is BM25 as in the embedded store (same analysis, same formula: k1 1.2, b 0.75, field lengths
rounded as tantivy stores them), totals and aggregations exact. Side tables, the lexicon,
the task queue and the vectors (pgvector) live beside them in the same database.

One writer at a time (an advisory lock; another gets :class:`IndexBusy`): its changes run in one
open transaction on its own connection and become visible together at ``commit``; a writer that
dies mid-way leaves the last commit, since PostgreSQL rolls the rest back. Readers never wait.

Needs PostgreSQL 13+ with the ``vector`` extension (pgvector) available; the role must be able to
create tables (and the extension, unless an administrator created it).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import orjson
from platformdirs import user_data_dir

from gantha import deadline
from gantha.model import Passage
from gantha.store import vocabulary
from gantha.store.base import (
    BookRecord,
    Clause,
    IndexBusy,
    StoreError,
    StoreHit,
    StoreQuery,
    StoreResult,
    Vectors,
    chapter_key,
)
from gantha.store.lexicon import Lexicon
from gantha.store.queue import TaskQueue
from gantha.store.sql import DatabaseError, PostgresDatabase, redacted
from gantha.store.tables import TableStore
from gantha.store.vectors import RowMeta, doc_of
from gantha.store.vocabulary import LAST
from gantha.text.analysis import index_texts
from gantha.text.pali import WORD_RE

FIELDS = ("fold", "exact", "bold_fold", "bold_exact", "page_refs", "page_starts")
FIELD = {name: i for i, name in enumerate(FIELDS)}
TEXT_FIELDS = ("fold", "exact", "bold_fold", "bold_exact")  # tokenized, ranked by BM25
RANK_FIRST_SCORE = 1000.0
BM25_K1, BM25_B = 1.2, 0.75
LONGEST_TOKEN = 120  # bytes, as the embedded analyzer drops longer tokens
DOCS = -1  # the row of field_stats that counts documents
WRITER_LOCK, TASK_LOCK = 0x67616E7401, 0x67616E7402  # advisory lock keys: the document writer, the task runner
SCHEMA = """
CREATE EXTENSION IF NOT EXISTS vector;
CREATE SEQUENCE IF NOT EXISTS doc_numbers;
CREATE TABLE IF NOT EXISTS docs (id BIGINT PRIMARY KEY, doc_id TEXT NOT NULL UNIQUE, corpus TEXT, book TEXT,
    category TEXT, channel TEXT, granularity TEXT, is_primary BOOLEAN, language TEXT[], tags TEXT[], seq INTEGER,
    chapter INTEGER, passage TEXT);
CREATE INDEX IF NOT EXISTS docs_book ON docs (corpus, book, channel, seq);
CREATE INDEX IF NOT EXISTS docs_chapter ON docs (corpus, book, chapter, seq);
CREATE TABLE IF NOT EXISTS postings (field SMALLINT, term TEXT, doc BIGINT, tf INTEGER, len INTEGER, pos INTEGER[]);
CREATE INDEX IF NOT EXISTS postings_doc ON postings USING BRIN (doc);
CREATE TABLE IF NOT EXISTS terms (field SMALLINT, term TEXT, df BIGINT, rev TEXT, PRIMARY KEY (field, term));
CREATE INDEX IF NOT EXISTS terms_rev ON terms (field, rev);
CREATE TABLE IF NOT EXISTS field_stats (field SMALLINT PRIMARY KEY, tokens BIGINT);
CREATE TABLE IF NOT EXISTS vectors (embedder TEXT, row_id TEXT, doc_id TEXT, corpus TEXT, channel TEXT,
    language TEXT, book TEXT, crc BIGINT, is_primary BOOLEAN, embedding vector);
CREATE INDEX IF NOT EXISTS vectors_doc ON vectors (embedder, doc_id)
"""


_TERM_INDEX = "CREATE INDEX IF NOT EXISTS postings_terms ON postings (field, term, doc) INCLUDE (tf, len)"


def _fieldnorms() -> list[int]:
    """The field lengths BM25 sees in tantivy, which keeps a length in one byte: exact up to 40, then eight
    steps per doubling (40, 42 … 56, 60 … 88, 96 …); a length counts as the largest of these not above it."""
    out, value, step = list(range(41)), 40, 2
    while len(out) < 256:
        for _ in range(min(8, 256 - len(out))):
            value += step
            out.append(value)
        step *= 2
    return out


FIELDNORMS = _fieldnorms()


def fieldnorm(length: int) -> int:
    return FIELDNORMS[bisect_right(FIELDNORMS, length) - 1]


def _text(value: str) -> str:
    """A value in COPY's text format."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def _array(values: list[str]) -> str:
    """A text array in COPY's text format."""
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return _text("{" + ",".join(quoted) + "}")


def _tokens(text: str) -> list[str]:
    """The words of an analysed field, as the embedded store's tokenizer cuts them."""
    return [t for t in WORD_RE.findall(text.lower()) if len(t.encode()) < LONGEST_TOKEN]


class _Writer:
    """The one writer of a database: its own connection, holding the writer's advisory lock, with every
    change since the last commit in one open transaction."""

    def __init__(self, url: str, location: str):
        self.url, self.location = url, location
        self._conn: Any = None

    @property
    def conn(self) -> Any:
        if self._conn is None:
            import psycopg

            conn = psycopg.connect(self.url)
            if not conn.execute("SELECT pg_try_advisory_lock(%s)", (WRITER_LOCK,)).fetchone()[0]:
                conn.close()
                raise IndexBusy(f"the index in {self.location} is being written by another process")
            try:
                if conn.execute("SELECT NOT EXISTS (SELECT 1 FROM postings)").fetchone()[0]:
                    conn.execute("DROP INDEX IF EXISTS postings_terms")  # a first ingest loads, then builds it once
                else:
                    conn.execute(_TERM_INDEX)  # an earlier first ingest stopped before building it
                conn.commit()
            except psycopg.Error as exc:  # a read-only role or a replica
                conn.close()
                raise StoreError(f"cannot write the index in {self.location}: {exc}".strip()) from exc
            self._conn = conn
        return self._conn

    def add(self, passages: Iterable[Passage]) -> int:
        """Write the passages and their postings in the writer's transaction (COPY, rows as text)."""
        conn = self.conn
        batch = list(passages)
        if not batch:
            return 0
        docs, postings = [], []
        df: Counter[tuple[int, str]] = Counter()
        tokens: Counter[int] = Counter({DOCS: len(batch)})
        numbers = conn.execute("SELECT nextval('doc_numbers') FROM generate_series(1, %s)", (len(batch),)).fetchall()
        for (number,), p in zip(numbers, batch, strict=True):
            folded, exact = index_texts(p.text)
            fields = {"fold": folded, "exact": exact}
            if p.bold:
                fields["bold_fold"], fields["bold_exact"] = index_texts(" \n ".join(p.bold))
            for name, text in fields.items():
                words = _tokens(text)
                field = FIELD[name]
                tokens[field] += len(words)
                where: dict[str, list[int]] = {}
                for i, w in enumerate(words):
                    where.setdefault(w, []).append(i)
                norm = fieldnorm(len(words))
                for term, pos in where.items():  # tokens hold letters, marks and digits only: safe in COPY text
                    postings.append(f"{field}\t{term}\t{number}\t{len(pos)}\t{norm}\t{{{','.join(map(str, pos))}}}\n")
                    df[field, term] += 1
            for name in ("page_refs", "page_starts"):  # one token per value, as a raw field
                values = list(dict.fromkeys(getattr(p, name)))
                field = FIELD[name]
                tokens[field] += len(values)
                norm = fieldnorm(len(values))
                for term in values:
                    postings.append(f"{field}\t{_text(term)}\t{number}\t1\t{norm}\t{{0}}\n")
                    df[field, term] += 1
            row = (number, p.doc_id, p.corpus, p.book, p.category, p.channel, p.granularity)
            docs.append(
                "\t".join(_text(str(v)) for v in row)
                + f"\t{'t' if p.primary else 'f'}\t{_array(sorted({p.language, p.language.split('-')[0]}))}"
                + f"\t{_array(p.tags)}\t{p.seq}\t{p.chapter}\t{_text(orjson.dumps(p).decode())}\n"
            )
        with conn.cursor() as cur:
            with cur.copy("COPY docs FROM STDIN") as copy:
                copy.write("".join(docs))
            with cur.copy("COPY postings FROM STDIN") as copy:
                for i in range(0, len(postings), 50_000):
                    copy.write("".join(postings[i : i + 50_000]))
            self._count_terms(cur, df, tokens, +1)
        return len(batch)

    @staticmethod
    def _count_terms(cur: Any, df: Counter[tuple[int, str]], tokens: Counter[int], sign: int) -> None:
        """Add (``sign`` +1) or take away (-1) these document frequencies and token totals."""
        cur.execute("CREATE TEMP TABLE IF NOT EXISTS term_delta (field SMALLINT, term TEXT, df BIGINT, rev TEXT)")
        cur.execute("TRUNCATE term_delta")
        with cur.copy("COPY term_delta FROM STDIN") as copy:
            for (field, term), n in df.items():
                copy.write_row((field, term, sign * n, term[::-1]))
        cur.execute(
            "INSERT INTO terms SELECT * FROM term_delta ON CONFLICT (field, term) "
            "DO UPDATE SET df = terms.df + excluded.df"
        )
        for field, n in tokens.items():
            cur.execute(
                "INSERT INTO field_stats VALUES (%s, %s) ON CONFLICT (field) DO UPDATE "
                "SET tokens = field_stats.tokens + excluded.tokens",
                (field, sign * n),
            )

    def delete_where(self, where: str, args: tuple) -> None:
        """Remove the documents matching a condition on ``docs``, with their postings and term counts."""
        with self.conn.cursor() as cur:
            cur.execute("CREATE TEMP TABLE IF NOT EXISTS gone (id BIGINT PRIMARY KEY)")
            cur.execute("TRUNCATE gone")
            cur.execute(f"INSERT INTO gone SELECT id FROM docs WHERE {where.replace('?', '%s')}", args)
            rows = cur.execute(
                "SELECT p.field, p.term, count(*), sum(p.tf) FROM postings p JOIN gone g ON g.id = p.doc "
                "WHERE p.doc BETWEEN (SELECT min(id) FROM gone) AND (SELECT max(id) FROM gone) GROUP BY p.field, p.term"
            ).fetchall()
            df = Counter({(f, t): n for f, t, n, _ in rows})
            tokens: Counter[int] = Counter({DOCS: cur.execute("SELECT count(*) FROM gone").fetchone()[0]})
            for f, _, _, tf in rows:
                tokens[f] += tf
            if tokens[DOCS]:
                self._count_terms(cur, df, tokens, -1)
                cur.execute("DELETE FROM terms WHERE df <= 0")
            cur.execute(  # a book's documents have consecutive numbers: the range finds them in the BRIN index
                "DELETE FROM postings WHERE doc BETWEEN (SELECT min(id) FROM gone) AND (SELECT max(id) FROM gone) "
                "AND doc IN (SELECT id FROM gone)"
            )
            cur.execute("DELETE FROM docs WHERE id IN (SELECT id FROM gone)")

    def commit(self) -> None:
        if self._conn is not None:
            self._conn.commit()

    def close(self, *, finished: bool = False) -> None:
        """Give up what is not committed and release the lock (``finished``: build the term index if a first
        ingest left it to the end)."""
        if self._conn is None:
            return
        self._conn.rollback()
        if finished:
            self._conn.execute(_TERM_INDEX)
            self._conn.commit()
        self._conn.close()
        self._conn = None


class PostgresStore(TableStore):
    """Store in a PostgreSQL database (see module docstring)."""

    def __init__(self, url: str, *, create: bool = True):
        self.url = url
        self.location = redacted(url)
        try:
            self.db = PostgresDatabase(url)
            if not create and not self.db.query("SELECT to_regclass('docs')")[0][0]:
                raise StoreError(f"no index in {self.location} (run `gantha ingest … --store URL` first)")
            with self.db.transaction():
                self.db.execute("SELECT pg_advisory_xact_lock(?)", (WRITER_LOCK + 1,))  # one schema creator
                self.db.script(SCHEMA)
            self._init_tables(self.location)
        except DatabaseError as exc:
            raise StoreError(str(exc)) from exc
        except Exception as exc:  # psycopg errors: missing extension, no privilege …
            if type(exc).__module__.startswith("psycopg"):
                raise StoreError(f"cannot open the index in {self.location}: {exc}") from exc
            raise
        self._writer = _Writer(url, self.location)
        self._changed = False
        self._chapter_titles: dict[tuple[str, str, int], str] = {}

    # --- writing -----------------------------------------------------------------------------------

    @property
    def writer(self) -> Any:
        """The writer's connection (taking the writer's lock: IndexBusy if another process holds it)."""
        return self._writer.conn

    def add(self, passages: Iterable[Passage]) -> int:
        """Write the passages and their postings in the writer's transaction."""

        def watched() -> Iterator[Passage]:
            for p in passages:
                self._changed |= p.channel == vocabulary.CHANNEL
                yield p

        return self._writer.add(watched())

    def delete_book(self, corpus: str, book: str, channel: str = "pali") -> None:
        self._changed |= channel == vocabulary.CHANNEL
        self._writer.delete_where("corpus=? AND book=? AND channel=?", (corpus, book, channel))
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
        """Release the writer and tabulate the vocabulary if documents changed."""
        self._writer.close(finished=True)  # nothing uncommitted is kept
        if self._changed or self.vocabulary_due():
            self.rebuild_vocabulary()
            for table in ("docs", "postings", "terms"):  # fresh statistics for the planner, visibility for
                self.db.execute(f"VACUUM (ANALYZE) {table}")  # index-only scans
            self._changed = False
            self._bump()

    def _bump(self) -> None:
        """Tell the readers of every server that the index changed."""
        self.db.execute(
            "INSERT INTO meta VALUES ('generation', '1') ON CONFLICT (key) DO UPDATE "
            "SET value = (CAST(meta.value AS BIGINT) + 1)::text"
        )

    def close(self) -> None:
        self._writer.close()
        self.db.close()

    # --- reading -----------------------------------------------------------------------------------

    def count(self) -> int:
        rows = self.db.query("SELECT tokens FROM field_stats WHERE field=?", (DOCS,))
        return int(rows[0][0]) if rows else 0

    def _stats(self) -> tuple[int, dict[int, float]]:
        """Documents in the index and the average length of each text field (BM25's N and avgdl)."""
        tokens = {f: int(n) for f, n in self.db.query("SELECT field, tokens FROM field_stats")}
        n = tokens.get(DOCS) or 1
        return n, {i: max(tokens.get(i, 0) / n, 1e-9) for i in range(len(FIELDS))}

    def search(self, q: StoreQuery) -> StoreResult:
        """One statement: the candidates are found once, then the page and the aggregations read them."""
        deadline.check()
        if q.limit == 0:  # the total and the aggregations only
            return replace(self.search(replace(q, limit=1)), hits=[])
        plan = _Plan(self, q)
        rows = self.db.query(*plan.statement())
        page = [r for r in rows if r[0] == 0]
        counts = [r[5:] for r in rows if r[0] == 1]
        total = next((row[-1] for row in counts if row[-2] == 0b1111), None)
        if total is None:  # no aggregations asked: the total came with the page (or the page is past the end)
            total = page[0][4] if page else (self.db.query(*plan.total())[0][0] if q.offset else 0)
        reading = q.order == "reading"
        hits = [
            StoreHit(Passage(**orjson.loads(passage)), 1.0 if reading else float(score), bool(first and q.rank_first))
            for _, passage, score, first, *_ in page
        ]
        return StoreResult(total, hits, plan.buckets(counts) if q.aggregate else {})

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

    def chapter_title(self, corpus: str, book: str, chapter: int) -> str:
        key = (corpus, book, chapter)
        if key not in self._chapter_titles:
            rows = self.db.query(
                "SELECT passage FROM docs WHERE corpus=? AND book=? AND chapter=? ORDER BY seq LIMIT 1",
                (corpus, book, chapter),
            )
            self._chapter_titles[key] = Passage(**orjson.loads(rows[0][0])).chapter_title if rows else ""
        return self._chapter_titles[key]

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
            "SELECT term, df FROM terms WHERE field=? AND term >= ? AND term < ? ORDER BY term LIMIT ?",
            (FIELD["page_refs"], prefix, prefix + LAST, limit),
        )
        return [(t, int(n)) for t, n in rows]

    def _pali_terms(self) -> tuple[list[tuple[str, int]], dict[str, int]]:
        def counted(field: str) -> list[tuple[str, int]]:
            return self.db.query(
                "SELECT p.term, count(*) AS n FROM postings p JOIN docs d ON d.id = p.doc "
                "WHERE p.field = ? AND d.channel = 'pali' GROUP BY p.term ORDER BY n DESC, p.term",
                (FIELD[field],),
            )

        return [(t, int(n)) for t, n in counted("exact")], {t: int(n) for t, n in counted("bold_exact")}

    def generation(self) -> str:
        return self.get_meta("generation") or "0"

    def size(self) -> int:
        return int(self.db.query("SELECT pg_database_size(current_database())")[0][0])

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


class _Plan:
    """A StoreQuery as SQL: a candidate table of (doc, score, first) built from the clauses, then filtered."""

    def __init__(self, store: PostgresStore, q: StoreQuery):
        self.store, self.q = store, q
        self.n, self.avg = store._stats()
        self.args: list[Any] = []
        self.parts: list[str] = []  # SELECT doc, s, role, k, grp  (role: must, should, alt, not, score, first)
        for k, c in enumerate(q.must):
            self._clause(c, "must", k, 0, ranked=True)
        for c in q.should:
            self._clause(c, "should", 0, 0, ranked=True)
        for g, group in enumerate(q.alternatives):
            for k, c in enumerate(group):
                self._clause(c, "alt", k, g, ranked=True)
        for c in q.must_not:
            self._clause(c, "not", 0, 0, ranked=False)
        for c in q.scoring:
            self._clause(c, "score", 0, 0, ranked=True)
        for c in q.rank_first:
            self._clause(c, "first", 0, 0, ranked=False)
        self.selecting = bool(q.must or q.should or any(q.alternatives))
        self.filters = self._filters()

    def _arg(self, value: Any) -> str:
        self.args.append(value)
        return "?"

    def _clause(self, c: Clause, role: str, k: int, group: int, *, ranked: bool) -> None:
        field = FIELD[c.field]
        tag = f"'{role}', {k}, {group}"
        if c.kind == "phrase" and len(c.tokens) > 1:
            self.parts.append(self._phrase(field, c.tokens, tag))
            return
        if c.kind == "near":
            self.parts.append(self._near(field, c.groups, c.distance, tag))
            return
        terms = c.tokens
        if c.kind in ("prefix", "suffix", "infix"):
            terms = self._expand(field, c.tokens, c.kind)
            ranked = False
        elif c.kind == "set":
            ranked = False
        if ranked:
            avg = self.avg[field]
            idf = "1.0" if c.kind == "forms" else "w.idf"  # the forms of one word: not ranked by their rarity
            self.parts.append(
                f"SELECT p.doc, SUM({idf} * p.tf * {BM25_K1 + 1} / (p.tf + {BM25_K1} * "
                f"(1 - {BM25_B} + {BM25_B} * p.len / {avg}))), {tag} FROM postings p JOIN "
                f"(SELECT term, ln(1 + ({self.n} - df + 0.5) / (df + 0.5)) AS idf FROM terms "
                f"WHERE field = {field} AND term = ANY({self._arg(list(terms))})) w ON w.term = p.term "
                f"WHERE p.field = {field} GROUP BY p.doc"
            )
        else:
            self.parts.append(
                f"SELECT DISTINCT p.doc, 1.0, {tag} FROM postings p "
                f"WHERE p.field = {field} AND p.term = ANY({self._arg(list(terms))})"
            )

    def _expand(self, field: int, parts: list[str], kind: str) -> list[str]:
        """The indexed terms a prefix, suffix or infix stands for (as tantivy walks its term dictionary)."""
        found: list[str] = []
        for part in parts:
            if kind == "prefix":
                sql, args = (
                    "SELECT term FROM terms WHERE field=? AND term >= ? AND term < ?",
                    (field, part, part + LAST),
                )
            elif kind == "suffix":
                rev = part[::-1]
                sql, args = "SELECT term FROM terms WHERE field=? AND rev >= ? AND rev < ?", (field, rev, rev + LAST)
            else:
                sql, args = "SELECT term FROM terms WHERE field=? AND strpos(term, ?) > 0", (field, part)
            found += [r[0] for r in self.store.db.query(sql + " AND df > 0", args)]
        return found

    def _phrase(self, field: int, tokens: list[str], tag: str) -> str:
        """Documents holding the tokens at consecutive positions, ranked by BM25 of the phrase's frequency
        (the idf of a phrase is the sum of its terms' idfs, as in tantivy)."""
        idf = (  # placeholders are filled in the order they stand in the text
            f"(SELECT COALESCE(SUM(ln(1 + ({self.n} - df + 0.5) / (df + 0.5))), 0) FROM terms "
            f"WHERE field = {field} AND term = ANY({self._arg(list(tokens))}))"
        )
        avg = self.avg.get(field, 1.0)
        score = f"{idf} * tf * {BM25_K1 + 1} / (tf + {BM25_K1} * (1 - {BM25_B} + {BM25_B} * len / {avg}))"
        follows = " AND ".join(f"a + {i} = ANY(p{i}.pos)" for i in range(1, len(tokens)))
        joins = " ".join(
            f"JOIN postings p{i} ON p{i}.doc = p0.doc AND p{i}.field = {field} AND p{i}.term = {self._arg(t)}"
            for i, t in enumerate(tokens[1:], start=1)
        )
        first = self._arg(tokens[0])
        return (
            f"SELECT doc, {score}, {tag} FROM (SELECT p0.doc, p0.len, "
            f"(SELECT count(*) FROM unnest(p0.pos) a WHERE {follows}) AS tf FROM postings p0 {joins} "
            f"WHERE p0.field = {field} AND p0.term = {first}) m WHERE tf > 0"
        )

    def _near(self, field: int, groups: list[list[str]], distance: int, tag: str) -> str:
        """Documents holding a token of each group at two positions with at most ``distance`` words between
        them, either order; unranked (1.0)."""
        second = self._arg(list(groups[1]))  # placeholders are filled in the order they stand in the text
        first = self._arg(list(groups[0]))
        return (
            f"SELECT DISTINCT a.doc, 1.0, {tag} FROM postings a JOIN postings b ON b.doc = a.doc "
            f"AND b.field = {field} AND b.term = ANY({second}) WHERE a.field = {field} AND a.term = ANY({first}) "
            "AND EXISTS (SELECT 1 FROM unnest(a.pos) x, unnest(b.pos) y "
            f"WHERE x <> y AND abs(x - y) <= {int(distance) + 1})"
        )

    def _filters(self) -> str:
        q, out = self.q, []
        columns = {"corpus": "corpus", "book": "book", "category": "category", "channel": "channel"}
        columns["granularity"] = "granularity"
        for name, values in q.filters.items():
            if not values:
                continue
            if name in columns:
                out.append(f"d.{columns[name]} = ANY({self._arg(list(values))})")
            elif name == "primary":
                out.append(f"d.is_primary = ANY({self._arg([v == 'yes' for v in values])})")
            elif name == "language":
                out.append(f"d.language && {self._arg(list(values))}::text[]")
            elif name == "tags":
                out.append(f"d.tags && {self._arg(list(values))}::text[]")
        if q.book_pattern:
            out.append(f"d.book ~ {self._arg('^(?:' + q.book_pattern + ')')}")
        if q.tag_groups:
            groups = " OR ".join(f"d.tags @> {self._arg(list(g))}::text[]" for g in q.tag_groups)
            out.append(f"({groups})")
        if q.scopes:
            scopes = " OR ".join(
                f"(d.corpus = {self._arg(corpus)} AND d.book = {self._arg(book)}"
                + (f" AND d.chapter = ANY({self._arg(list(chapters))}::int[]))" if chapters else ")")
                for corpus, book, chapters in q.scopes
            )
            out.append(f"({scopes})")
        return " AND ".join(out) or "TRUE"

    def _candidates(self) -> str:
        """``matched`` (doc, score, first and the columns pages and aggregations read): the documents that
        pass the clauses and the filters. Which clauses a document matched is a bit mask per role."""
        q = self.q
        if not self.parts:
            hits = "SELECT NULL::bigint AS doc, 0.0 AS s, ''::text AS role, 0 AS k, 0 AS grp WHERE FALSE"
        else:
            hits = " UNION ALL ".join(f"({p})" for p in self.parts)
        conditions = []
        if q.must:
            conditions.append(f"BIT_OR(1::bigint << k) FILTER (WHERE role = 'must') = {(1 << len(q.must)) - 1}")
        if q.should:
            conditions.append("BOOL_OR(role = 'should')")
        if complete := [
            f"BIT_OR(1::bigint << k) FILTER (WHERE role = 'alt' AND grp = {g}) = {(1 << len(group)) - 1}"
            for g, group in enumerate(q.alternatives)
            if group
        ]:
            conditions.append(f"({' OR '.join(complete)})")
        agg = (
            "SELECT doc, COALESCE(SUM(s) FILTER (WHERE role IN ('must', 'should', 'alt', 'score')), 0) AS score, "
            "BOOL_OR(role = 'first') AS first, BOOL_OR(role = 'not') AS excluded, "
            f"({' AND '.join(conditions) or 'TRUE'}) AS selected FROM hits GROUP BY doc"
        )
        columns = "d.id AS doc, d.corpus, d.book, d.seq, d.category, d.chapter, d.channel"
        head = f"WITH hits (doc, s, role, k, grp) AS ({hits}), agg AS ({agg})"
        if self.selecting:
            return (
                f"{head}, matched AS (SELECT {columns}, a.score, a.first FROM agg a "
                f"JOIN docs d ON d.id = a.doc WHERE a.selected AND NOT a.excluded AND {self.filters})"
            )
        filtered = self.q.filters or self.q.tag_groups or self.q.scopes
        base = 0.0 if filtered else 1.0  # as tantivy scores its filters and all-query
        return (
            f"{head}, matched AS (SELECT {columns}, {base} + COALESCE(a.score, 0) AS score, "
            f"COALESCE(a.first, FALSE) AS first FROM docs d LEFT JOIN agg a ON a.doc = d.id "
            f"WHERE NOT COALESCE(a.excluded, FALSE) AND {self.filters})"
        )

    def statement(self) -> tuple[str, list[Any]]:
        """Rows ``(0, passage, score, first, total)`` of the page, then ``(1, …, book, category, chapter,
        grouping, count)`` of the aggregations (the empty grouping: the total)."""
        q = self.q
        rank = f"m.score + CASE WHEN m.first THEN {RANK_FIRST_SCORE} ELSE 0 END"
        order = "m.first DESC, m.corpus, m.book, m.seq" if q.order == "reading" else f"{rank} DESC, m.doc"
        sql = (
            f"{self._candidates()}, page AS (SELECT m.doc, m.score, m.first, COUNT(*) OVER () AS total, "
            f"ROW_NUMBER() OVER (ORDER BY {order}) AS n FROM matched m ORDER BY {order} "
            f"LIMIT {int(q.limit)} OFFSET {int(q.offset)}) "
            "SELECT 0 AS part, d.passage, p.score, p.first, p.total, NULL::text AS book, NULL::text AS category, "
            "NULL::integer AS chapter, NULL::text AS channel, NULL::integer AS grouping, p.n "
            "FROM page p JOIN docs d ON d.id = p.doc"
        )
        if q.aggregate:
            sql += (
                " UNION ALL SELECT 1, NULL, NULL, NULL, NULL, book, category, chapter, channel, "
                "GROUPING(book, category, chapter, channel), count(*) FROM matched "
                "GROUP BY GROUPING SETS ((book), (category), (book, chapter), (channel), ())"
            )
        return sql + " ORDER BY part, 11", self.args

    def total(self) -> tuple[str, list[Any]]:
        return f"{self._candidates()} SELECT count(*) FROM matched", self.args

    def buckets(self, counts: list[tuple]) -> dict[str, list[tuple[str, int]]]:
        out: dict[str, list[tuple[str, int]]] = {name: [] for name in self.q.aggregate}
        for book, category, chapter, channel, grouping, n in counts:
            if grouping == 0b0111 and "book" in out:
                out["book"].append((book, n))
            elif grouping == 0b1011 and "category" in out:
                out["category"].append((category, n))
            elif grouping == 0b0101 and "chapter" in out:
                out["chapter"].append((chapter_key(book, chapter), n))
            elif grouping == 0b1110 and "channel" in out:
                out["channel"].append((channel, n))
        return {name: sorted(buckets, key=lambda kv: (-kv[1], kv[0])) for name, buckets in out.items()}


class PgVectors:
    """One embedder's vectors in the ``vectors`` table (pgvector): row ids and filters in memory, the
    vectors in the database; changes are staged and written together at ``save``."""

    def __init__(self, store: PostgresStore, embedder: str, dim: int):
        self.store, self.embedder, self.dim = store, embedder, dim
        rows = store.db.query(
            "SELECT row_id, corpus, channel, language, crc, is_primary FROM vectors WHERE embedder=? ORDER BY row_id",
            (embedder,),
        )
        self.ids: list[str] = [r[0] for r in rows]
        self.meta: list[RowMeta] = [(c, ch, lang, int(crc), bool(pr)) for _, c, ch, lang, crc, pr in rows]
        self._added: list[tuple[str, np.ndarray, RowMeta]] = []
        self._removed: set[str] = set()  # documents whose rows go at save
        self._reindex()

    def _reindex(self) -> None:
        self._rows: dict[str, list[int]] = {}
        for i, row_id in enumerate(self.ids):
            self._rows.setdefault(doc_of(row_id), []).append(i)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._rows

    def documents(self) -> int:
        return len(self._rows)

    def checksum(self, doc_id: str) -> int | None:
        rows = self._rows.get(doc_id)
        return None if not rows else self.meta[rows[0]][3]

    def add(self, ids: list[str], vectors: Any, meta: list[RowMeta]) -> None:
        """Add rows; a document given here loses the rows it had before."""
        replaced = {doc_of(i) for i in ids} & self._rows.keys()
        if replaced:
            self.remove(list(replaced))
        matrix = np.asarray(vectors, dtype=np.float32)
        for row_id, vector, m in zip(ids, matrix, meta, strict=True):
            self._added.append((row_id, vector, m))
            self.ids.append(row_id)
            self.meta.append(m)
            self._rows.setdefault(doc_of(row_id), []).append(len(self.ids) - 1)

    def remove(self, doc_ids: list[str]) -> None:
        gone = set(doc_ids) & self._rows.keys()
        if not gone:
            return
        self._removed |= gone
        self._added = [a for a in self._added if doc_of(a[0]) not in gone]
        keep = [i for i, row_id in enumerate(self.ids) if doc_of(row_id) not in gone]
        self.ids = [self.ids[i] for i in keep]
        self.meta = [self.meta[i] for i in keep]
        self._reindex()

    def retain(self, corpus: str, doc_ids: set[str], channels: set[str] | None = None) -> int:
        gone = {
            doc_of(row_id)
            for row_id, m in zip(self.ids, self.meta, strict=True)
            if m[0] == corpus and (channels is None or m[1] in channels) and doc_of(row_id) not in doc_ids
        }
        before = len(self.ids)
        self.remove(list(gone))
        return before - len(self.ids)

    def save(self) -> None:
        db = self.store.db
        with db.transaction():
            if self._removed:
                db.execute(
                    "DELETE FROM vectors WHERE embedder=? AND doc_id = ANY(?)", (self.embedder, list(self._removed))
                )
            db.copy(
                "vectors",
                (
                    (self.embedder, row_id, doc_of(row_id), *m[:3], row_id.split("/")[1], m[3], m[4], _literal(v))
                    for row_id, v, m in self._added
                ),
            )
        self._added, self._removed = [], set()
        self.store._bump()

    def export(self, corpus: str, channel: str | None = None) -> tuple[list[str], list[RowMeta], np.ndarray]:
        """The saved rows of one corpus (in one channel): ids, meta and their vectors."""
        where, args = "embedder=? AND corpus=?", [self.embedder, corpus]
        if channel is not None:
            where, args = where + " AND channel=?", [*args, channel]
        rows = self.store.db.query(f"SELECT row_id, embedding::text FROM vectors WHERE {where} ORDER BY row_id", args)
        index = {row_id: i for i, row_id in enumerate(self.ids)}
        ids = [r[0] for r in rows if r[0] in index]
        matrix = np.asarray([orjson.loads(r[1]) for r in rows if r[0] in index], dtype=np.float32)
        return ids, [self.meta[index[i]] for i in ids], matrix.reshape(len(ids), self.dim)

    def similarity(self, doc_id: str, query: Any) -> float | None:
        rows = self.store.db.query(
            "SELECT max(1 - (embedding <=> ?::vector)) FROM vectors WHERE embedder=? AND doc_id=?",
            (_literal(query), self.embedder, doc_id),
        )
        return None if not rows or rows[0][0] is None else float(rows[0][0])

    def mean(self, doc_ids: list[str]) -> np.ndarray | None:
        """The unit-length mean of the rows of these documents (None when none has a vector)."""
        wanted = [d for d in doc_ids if d in self._rows]
        if not wanted:
            return None
        rows = self.store.db.query(
            "SELECT avg(embedding)::text FROM vectors WHERE embedder=? AND doc_id = ANY(?)", (self.embedder, wanted)
        )
        if not rows or rows[0][0] is None:
            return None
        v = np.asarray(orjson.loads(rows[0][0]), dtype=np.float32)
        return v / max(float(np.linalg.norm(v)), 1e-12)

    def search(
        self,
        query: Any,
        k: int = 10,
        corpora: list[str] | None = None,
        channels: list[str] | None = None,
        languages: list[str] | None = None,
        primary_only: bool = False,
        books: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest documents (cosine of their best row) that pass the filters: (document id, score)."""
        where, args = ["embedder = ?"], [self.embedder]
        for column, values in (("corpus", corpora), ("channel", channels), ("book", books)):
            if values:
                where.append(f"{column} = ANY(?)")
                args.append(list(values))
        if languages:
            where.append("split_part(language, '-', 1) = ANY(?)")
            args.append([lang.split("-")[0] for lang in languages])
        if primary_only:
            where.append("is_primary")
        rows = self.store.db.query(
            f"SELECT doc_id, 1 - (embedding <=> ?::vector) AS score FROM vectors WHERE {' AND '.join(where)} "
            "ORDER BY embedding <=> ?::vector LIMIT ?",
            (_literal(query), *args, _literal(query), k * 4),
        )
        best: dict[str, float] = {}
        for doc_id, score in rows:
            best.setdefault(doc_id, float(score))
        return list(best.items())[:k]


def _literal(vector: Any) -> str:
    """A vector as pgvector's text form (no client-side adapter needed)."""
    return "[" + ",".join(f"{x:.6g}" if math.isfinite(x) else "0" for x in np.asarray(vector, dtype=np.float32)) + "]"
