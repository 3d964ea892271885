"""The embedded store: tantivy for the index and stored passages, SQLite for books and ingest records.

Layout of an index directory::

    tantivy/        the tantivy index (one document per passage)
    gantha.sqlite   books (metadata, counts, source signature) and the schema version

Durability: tantivy keeps the last committed state on disk whatever happens to the process; the
books table is written only after the tantivy commit that contains them succeeds. An ingest that is
killed therefore leaves the previous commit searchable, and a book missing from the books table is
simply ingested again (deleting its partial documents first), so re-running never duplicates.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from bisect import bisect_right
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import orjson
import tantivy

from gantha.model import PALI_CHANNEL, BookInfo, ChannelInfo, Passage, TextRecord
from gantha.store.base import FILTER_FIELDS, BookRecord, Clause, StoreHit, StoreQuery, StoreResult
from gantha.text import chinese
from gantha.text.align import common_start
from gantha.text.analysis import index_texts
from gantha.text.pali import fold

SCHEMA_VERSION = 3
TOKEN_PATTERN = r"[\p{L}\p{M}\p{N}]+"  # same as gantha.text.pali.WORD_RE
RANK_FIRST_SCORE = 1000.0
VOCAB_COLUMNS = "fold TEXT, form TEXT, rev TEXT, paragraphs INTEGER, bold INTEGER"
SCORED_FIELDS = ("fold", "exact", "bold_fold", "bold_exact")  # text fields: a set of words is ranked, not flat
ZH_TERMS = "zh_terms.txt"
TOP_PREFIX_LEN = 3  # suggestions for prefixes this short are precomputed
TOP_PER_PREFIX = 20  # above any BM25 score a passage can reach


class StoreError(RuntimeError):
    """The index directory cannot be used (missing, from another version, locked)."""


class IndexBusy(StoreError):
    """Another process holds the index's writer: try again when it is done."""


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    for name in FILTER_FIELDS:
        b.add_text_field(name, stored=False, fast=True, tokenizer_name="raw", index_option="basic")
    b.add_integer_field("seq", stored=False, indexed=True, fast=True)
    b.add_integer_field("chapter", stored=False, indexed=True, fast=True)
    for name in ("fold", "bold_fold"):
        b.add_text_field(name, stored=False, tokenizer_name="gantha_words")
    for name in ("exact", "bold_exact"):
        b.add_text_field(name, stored=False, tokenizer_name="gantha_words")
    for name in ("page_refs", "page_starts"):
        b.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    b.add_bytes_field("passage", stored=True)
    return b.build()


def _words_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(TOKEN_PATTERN))
        .filter(tantivy.Filter.remove_long(120))
        .filter(tantivy.Filter.lowercase())
        .build()
    )


class EmbeddedStore:
    """Store on local disk (see module docstring). One writer at a time; any number of readers."""

    def __init__(self, path: Path, *, create: bool = True):
        self.path = Path(path)
        if not create and not (self.path / "gantha.sqlite").exists():
            raise StoreError(f"no index at {self.path} (run `gantha ingest` first)")
        (self.path / "tantivy").mkdir(parents=True, exist_ok=True)
        self._db_lock = threading.Lock()
        self._db = sqlite3.connect(self.path / "gantha.sqlite", check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._init_db()
        self.schema = _schema()
        try:
            self._index = tantivy.Index(self.schema, str(self.path / "tantivy"), reuse=True)
        except (OSError, ValueError) as exc:
            raise StoreError(f"cannot open index at {self.path}: {exc}") from exc
        self._index.register_tokenizer("gantha_words", _words_analyzer())
        if (self.path / ZH_TERMS).exists():  # the Chinese terms this index was segmented with
            chinese.register_user_dictionary(self.path / ZH_TERMS)
        self._writer: tantivy.IndexWriter | None = None
        self._changed = False  # documents added or deleted since the vocabulary was tabulated
        self._books_cache: dict[str, BookRecord] | None = None
        self._chapter_titles: dict[tuple[str, str, int], str] = {}
        self._texts_cache: dict[str, TextRecord] | None = None
        self._texts_by_book: dict[tuple[str, str], list[TextRecord]] = {}
        self._texts_starts: dict[tuple[str, str], list[int]] = {}
        if self._vocabulary_columns() and not self._has_vocabulary():  # tabulated by an older version
            self.rebuild_vocabulary()

    # --- bookkeeping ---------------------------------------------------------------------------

    def _init_db(self) -> None:
        with self._db:
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._db.execute(
                """CREATE TABLE IF NOT EXISTS books (
                    key TEXT PRIMARY KEY, corpus TEXT, book TEXT, channel TEXT, info TEXT, channel_info TEXT,
                    passages INTEGER, page_refs INTEGER, bold_terms INTEGER, signature TEXT, source TEXT,
                    ingested_at TEXT)"""
            )
            self._db.execute(
                """CREATE TABLE IF NOT EXISTS texts (
                    uid TEXT PRIMARY KEY, label TEXT, collection TEXT, corpus TEXT, book TEXT, first_para TEXT,
                    last_para TEXT, first_seq INTEGER, last_seq INTEGER, title TEXT, pali_title TEXT)"""
            )
            self._db.execute("CREATE INDEX IF NOT EXISTS texts_book ON texts (corpus, book, first_seq)")
            row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None:
                self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) != SCHEMA_VERSION:
                raise StoreError(
                    f"index at {self.path} has schema version {row[0]}, this gantha needs {SCHEMA_VERSION}: "
                    "ingest into a new index directory"
                )

    def _records(self) -> list[BookRecord]:
        if self._books_cache is None:
            with self._db_lock:
                rows = self._db.execute(
                    "SELECT info, channel_info, passages, page_refs, bold_terms, signature, source, ingested_at "
                    "FROM books ORDER BY corpus, book, channel"
                ).fetchall()
            self._books_cache = [
                BookRecord(BookInfo(**orjson.loads(info)), ChannelInfo(**orjson.loads(channel)), *rest)
                for info, channel, *rest in rows
            ]
        return self._books_cache

    def books(self, corpus: str | None = None, channel: str | None = "pali") -> dict[str, BookRecord]:
        """Recorded books keyed ``corpus/book``; ``channel=None``: in any channel (the first recorded)."""
        out: dict[str, BookRecord] = {}
        for r in self._records():
            if (channel is None or r.channel.name == channel) and (corpus is None or r.info.corpus == corpus):
                out.setdefault(f"{r.info.corpus}/{r.info.book}", r)
        return out

    def all_channels(self) -> list[ChannelInfo]:
        """Every channel in the index (the Pali original first)."""
        seen: dict[str, ChannelInfo] = {"pali": PALI_CHANNEL}
        for r in self._records():
            seen.setdefault(r.channel.name, r.channel)
        return list(seen.values())

    def page_keys(self, prefix: str, limit: int = 10) -> list[tuple[str, int]]:
        """Indexed page keys starting with ``prefix`` (``P2.003``), in page order, with paragraph counts."""
        return sorted(self._index.searcher().terms_with_prefix("page_refs", prefix))[:limit]

    def channels(self, corpus: str, book: str) -> list[BookRecord]:
        return [r for r in self._records() if r.info.corpus == corpus and r.info.book == book]

    # --- writing -------------------------------------------------------------------------------

    @property
    def writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            try:
                self._writer = self._index.writer(heap_size=384_000_000, num_threads=2)
            except ValueError as exc:
                raise IndexBusy(f"index at {self.path} is being written by another process ({exc})") from exc
        return self._writer

    def fix_chinese_terms(self, terms: Iterable[str]) -> None:
        """Record, once, the Chinese terms the segmenter uses for this index (index and queries must agree)."""
        path = self.path / ZH_TERMS
        if not path.exists():
            path.write_text("".join(f"{t}\n" for t in terms), encoding="utf-8")
        chinese.register_user_dictionary(path)

    def add(self, passages: Iterable[Passage]) -> int:
        writer = self.writer
        self._changed = True
        n = 0
        for p in passages:
            folded, exact = index_texts(p.text)
            doc = tantivy.Document(
                id=p.doc_id,
                corpus=p.corpus,
                book=p.book,
                category=p.category,
                tags=p.tags,
                channel=p.channel,
                language=sorted({p.language, p.language.split("-")[0]}),  # "zh" finds zh-Hans and zh-Hant
                granularity=p.granularity,
                primary="yes" if p.primary else "no",
                fold=folded,
                exact=exact,
                page_refs=p.page_refs,
                page_starts=p.page_starts,
            )
            doc.add_integer("seq", p.seq)
            doc.add_integer("chapter", p.chapter)
            if p.bold:
                bold_folded, bold_exact = index_texts(" \n ".join(p.bold))
                doc.add_text("bold_fold", bold_folded)
                doc.add_text("bold_exact", bold_exact)
            doc.add_bytes("passage", orjson.dumps(p))
            writer.add_document(doc)
            n += 1
        return n

    def delete_book(self, corpus: str, book: str, channel: str = "pali") -> None:
        terms = (("corpus", corpus), ("book", book), ("channel", channel))
        q = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, tantivy.Query.term_query(self.schema, f, v)) for f, v in terms]
        )
        self.writer.delete_documents_by_query(q)
        self._changed = True
        with self._db_lock, self._db:
            self._db.execute("DELETE FROM books WHERE key=?", (f"{corpus}/{book}@{channel}",))
        self._books_cache = None
        self._chapter_titles.clear()

    def delete(self, coordinates: Iterable[str], channel: str = "pali") -> None:
        for c in coordinates:
            self.writer.delete_documents_by_term("id", f"{c}@{channel}")

    def commit(self, books: Iterable[BookRecord] = ()) -> None:
        self.writer.commit()
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._db_lock, self._db:
            for r in books:
                self._db.execute(
                    "INSERT OR REPLACE INTO books VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        f"{r.info.corpus}/{r.info.book}@{r.channel.name}",
                        r.info.corpus,
                        r.info.book,
                        r.channel.name,
                        orjson.dumps(r.info),
                        orjson.dumps(r.channel),
                        r.passages,
                        r.page_refs,
                        r.bold_terms,
                        r.signature,
                        r.source,
                        r.ingested_at or now,
                    ),
                )
        self._books_cache = None
        self._chapter_titles.clear()
        self._index.reload()

    def finish(self) -> None:
        """Wait for background merges, release the writer lock and tabulate the vocabulary."""
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None
            self._index.reload()
        if self._changed or not self._has_vocabulary():
            self.rebuild_vocabulary()
            self._changed = False

    def _has_vocabulary(self) -> bool:
        """A vocabulary of the current layout is tabulated (an older one is tabulated again)."""
        return self._vocabulary_columns() == [c.split()[0] for c in VOCAB_COLUMNS.split(", ")]

    def _vocabulary_columns(self) -> list[str]:
        with self._db_lock:
            return [r[1] for r in self._db.execute("PRAGMA table_info(vocab)")]

    def close(self) -> None:
        if self._writer is not None:
            self._writer.rollback()
            self._writer = None
        self._db.close()

    # --- reading -------------------------------------------------------------------------------

    def count(self) -> int:
        return self._index.searcher().num_docs

    def _clause(self, c: Clause, scored: bool = True) -> tantivy.Query:
        if c.kind == "phrase" and len(c.tokens) > 1:
            return tantivy.Query.phrase_query(self.schema, c.field, c.tokens)
        if c.kind in ("prefix", "suffix", "infix"):
            shape = {"prefix": "{}.*", "suffix": ".*{}", "infix": ".*{}.*"}[c.kind]
            queries = [tantivy.Query.regex_query(self.schema, c.field, shape.format(re.escape(t))) for t in c.tokens]
            return (
                queries[0]
                if len(queries) == 1
                else tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in queries])
            )
        if len(c.tokens) == 1:
            return tantivy.Query.term_query(self.schema, c.field, c.tokens[0])
        if (
            scored and c.kind == "term" and c.field in SCORED_FIELDS
        ):  # any of these words, ranked by BM25: how often, how rare, how short
            terms = [tantivy.Query.term_query(self.schema, c.field, t) for t in c.tokens]
            return tantivy.Query.boolean_query([(tantivy.Occur.Should, t) for t in terms])
        return tantivy.Query.term_set_query(self.schema, c.field, c.tokens)

    def _query(self, q: StoreQuery, *, with_ranking: bool = True) -> tantivy.Query:
        parts: list[tuple[tantivy.Occur, tantivy.Query]] = []
        parts += [(tantivy.Occur.Must, self._clause(c, with_ranking)) for c in q.must]
        if q.should:
            should = [(tantivy.Occur.Should, self._clause(c, with_ranking)) for c in q.should]
            parts.append((tantivy.Occur.Must, tantivy.Query.boolean_query(should)))
        if q.alternatives:
            groups = [
                tantivy.Query.boolean_query([(tantivy.Occur.Must, self._clause(c, with_ranking)) for c in group])
                for group in q.alternatives
                if group
            ]
            parts.append((tantivy.Occur.Must, tantivy.Query.boolean_query([(tantivy.Occur.Should, g) for g in groups])))
        parts += [(tantivy.Occur.MustNot, self._clause(c)) for c in q.must_not]
        for name, values in q.filters.items():
            if values:  # term queries intersect by skipping; a term set would scan its whole posting lists
                terms = [tantivy.Query.term_query(self.schema, name, v) for v in values]
                parts.append(
                    (
                        tantivy.Occur.Must,
                        terms[0]
                        if len(terms) == 1
                        else tantivy.Query.boolean_query([(tantivy.Occur.Should, t) for t in terms]),
                    )
                )
        if q.book_pattern:
            parts.append((tantivy.Occur.Must, tantivy.Query.regex_query(self.schema, "book", q.book_pattern + ".*")))
        if q.tag_groups:  # "vinaya,khandhaka;abhidhamma": (vinaya and khandhaka) or abhidhamma
            groups = [
                tantivy.Query.boolean_query(
                    [(tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "tags", t)) for t in group]
                )
                for group in q.tag_groups
            ]
            parts.append((tantivy.Occur.Must, tantivy.Query.boolean_query([(tantivy.Occur.Should, g) for g in groups])))
        if not any(occur != tantivy.Occur.MustNot for occur, _ in parts):
            parts.append((tantivy.Occur.Must, tantivy.Query.all_query()))
        if with_ranking:
            parts += [(tantivy.Occur.Should, self._clause(c)) for c in q.scoring]
        if with_ranking and q.rank_first:
            first = tantivy.Query.boolean_query([(tantivy.Occur.Should, self._clause(c)) for c in q.rank_first])
            parts.append((tantivy.Occur.Should, tantivy.Query.const_score_query(first, RANK_FIRST_SCORE)))
        return tantivy.Query.boolean_query(parts)

    def search(self, q: StoreQuery) -> StoreResult:
        searcher = self._index.searcher()
        query = self._query(q)
        if q.order == "reading":
            return self._search_reading(searcher, q, query)
        result = searcher.search(query, limit=q.limit, offset=q.offset, count=True)
        hits = []
        for score, addr in result.hits:
            passage = self._passage(searcher, addr)
            ranked_first = bool(q.rank_first) and score >= RANK_FIRST_SCORE
            hits.append(StoreHit(passage, score - RANK_FIRST_SCORE if ranked_first else score, ranked_first))
        return StoreResult(result.count or 0, hits, self._aggregate(searcher, q))

    def _search_reading(self, searcher: tantivy.Searcher, q: StoreQuery, query: tantivy.Query) -> StoreResult:
        """Small result sets in reading order: ranked-first passages first, then by book and position."""
        result = searcher.search(query, limit=10_000, count=True)
        found = [
            (score >= RANK_FIRST_SCORE if q.rank_first else False, self._passage(searcher, addr))
            for score, addr in result.hits
        ]
        found.sort(key=lambda t: (not t[0], t[1].corpus, t[1].book, t[1].seq))
        page = found[q.offset : q.offset + q.limit]
        hits = [StoreHit(p, 1.0, first) for first, p in page]
        return StoreResult(result.count or 0, hits, self._aggregate(searcher, q))

    def _aggregate(self, searcher: tantivy.Searcher, q: StoreQuery) -> dict[str, list[tuple[str, int]]]:
        if not q.aggregate:
            return {}
        spec = {name: {"terms": {"field": name, "size": 1000}} for name in q.aggregate if name != "chapter"}
        if "chapter" in q.aggregate:  # a chapter is a book's: book → chapter number, keyed book/chN
            spec["chapter"] = {
                "terms": {"field": "book", "size": 1000},
                "aggs": {"number": {"terms": {"field": "chapter", "size": 1000}}},
            }
        raw = searcher.aggregate(self._query(q, with_ranking=False), spec)
        out = {name: [(b["key"], b["doc_count"]) for b in raw.get(name, {}).get("buckets", [])] for name in spec}
        if "chapter" in spec:
            chapters = [
                (f"{book['key']}/ch{int(ch['key'])}", ch["doc_count"])
                for book in raw.get("chapter", {}).get("buckets", [])
                for ch in book.get("number", {}).get("buckets", [])
            ]
            out["chapter"] = sorted(chapters, key=lambda kv: -kv[1])
        return out

    def chapter_title(self, corpus: str, book: str, chapter: int) -> str:
        """The heading of a book's chapter (from its first passage), or ""."""
        key = (corpus, book, chapter)
        if key not in self._chapter_titles:
            self._chapter_titles[key] = self._first_heading(corpus, book, chapter)
        return self._chapter_titles[key]

    def _first_heading(self, corpus: str, book: str, chapter: int) -> str:
        searcher = self._index.searcher()
        query = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "corpus", corpus)),
                (tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "book", book)),
                (tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "chapter", chapter)),
            ]
        )
        hits = searcher.search(query, limit=1, count=False, order_by_field="seq", order=tantivy.Order.Asc).hits
        return self._passage(searcher, hits[0][1]).chapter_title if hits else ""

    @staticmethod
    def _passage(searcher: tantivy.Searcher, addr: tantivy.DocAddress) -> Passage:
        doc = searcher.doc(addr)
        return Passage(**orjson.loads(doc["passage"][0]))

    def get(self, coordinates: list[str], channel: str = "pali") -> dict[str, Passage]:
        found = self.get_ids([f"{c}@{channel}" for c in coordinates])
        return {p.coordinate: p for p in found.values()}

    def chapter(self, corpus: str, book: str, chapter: int, channel: str = "pali") -> list[Passage]:
        searcher = self._index.searcher()
        terms = (("corpus", corpus), ("book", book), ("channel", channel))
        parts = [(tantivy.Occur.Must, tantivy.Query.term_query(self.schema, f, v)) for f, v in terms]
        parts.append((tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "chapter", chapter)))
        result = searcher.search(
            tantivy.Query.boolean_query(parts),
            limit=100_000,
            count=False,
            order_by_field="seq",
            order=tantivy.Order.Asc,
        )
        return [self._passage(searcher, addr) for _, addr in result.hits]

    def book_passages(
        self, corpus: str, book: str, channel: str = "pali", seqs: tuple[int, int] | None = None
    ) -> list[Passage]:
        """The passages of one book in one channel (those with ``seq`` in ``seqs``, inclusive), in reading order."""
        searcher = self._index.searcher()
        terms = (("corpus", corpus), ("book", book), ("channel", channel))
        parts = [(tantivy.Occur.Must, tantivy.Query.term_query(self.schema, f, v)) for f, v in terms]
        if seqs:
            seq_range = tantivy.Query.range_query(self.schema, "seq", tantivy.FieldType.Integer, seqs[0], seqs[1])
            parts.append((tantivy.Occur.Must, seq_range))
        query = tantivy.Query.boolean_query(parts)
        total = searcher.search(query, limit=1, count=True).count or 0
        result = searcher.search(query, limit=max(total, 1), count=False, order_by_field="seq", order=tantivy.Order.Asc)
        return [self._passage(searcher, addr) for _, addr in result.hits]

    def get_meta(self, key: str) -> str | None:
        """A value recorded with the index (e.g. the signature of an aligned collection)."""
        with self._db_lock:
            row = self._db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        with self._db_lock, self._db:
            self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # --- texts: named divisions (suttas, rules) over ranges of paragraphs ------------------------

    def set_texts(self, collection: str, rows: Iterable[TextRecord]) -> None:
        """Replace the texts of a collection (``mn``, ``vinaya`` …) with these."""
        with self._db_lock, self._db:
            self._db.execute("DELETE FROM texts WHERE collection=?", (collection,))
            self._db.executemany(
                "INSERT OR REPLACE INTO texts VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        r.uid,
                        r.label,
                        collection,
                        r.corpus,
                        r.book,
                        r.first_para,
                        r.last_para,
                        r.first_seq,
                        r.last_seq,
                        r.title,
                        r.pali_title,
                    )
                    for r in rows
                ],
            )
        self._texts_cache = None

    def _texts(self) -> dict[str, TextRecord]:
        if self._texts_cache is None:
            with self._db_lock:
                rows = self._db.execute(
                    "SELECT uid, label, corpus, book, first_para, last_para, first_seq, last_seq, title, pali_title "
                    "FROM texts ORDER BY corpus, book, first_seq"
                ).fetchall()
            self._texts_cache = {r[0]: TextRecord(*r) for r in rows}
            self._texts_by_book = {}
            for r in self._texts_cache.values():  # in reading order (the query sorts by first_seq)
                self._texts_by_book.setdefault((r.corpus, r.book), []).append(r)
            self._texts_starts = {key: [r.first_seq for r in rows] for key, rows in self._texts_by_book.items()}
        return self._texts_cache

    def text(self, uid: str) -> TextRecord | None:
        """A named text (``mn10``) by its uid."""
        return self._texts().get(uid)

    def texts(self, prefix: str = "") -> list[TextRecord]:
        """Named texts whose uid starts with ``prefix``, in reading order."""
        return [r for r in self._texts().values() if r.uid.startswith(prefix)]

    def text_at(self, corpus: str, book: str, seq: int) -> TextRecord | None:
        """The innermost named text whose paragraphs include this one."""
        self._texts()
        rows = self._texts_by_book.get((corpus, book), [])
        k = bisect_right(self._texts_starts.get((corpus, book), []), seq)
        inside = [r for r in rows[max(0, k - 50) : k] if r.last_seq >= seq]  # texts nest shallowly
        return min(inside, key=lambda r: r.last_seq - r.first_seq, default=None)

    def iter_passages(self, corpus: str, channel: str | None = None) -> list[Passage]:
        """Every passage of a corpus, in one channel or in any."""
        searcher = self._index.searcher()
        query = tantivy.Query.term_query(self.schema, "corpus", corpus)
        if channel:
            query = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Must, query),
                    (tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "channel", channel)),
                ]
            )
        total = searcher.search(query, limit=1, count=True).count or 0
        result = searcher.search(query, limit=max(total, 1), count=False)
        return [self._passage(searcher, addr) for _, addr in result.hits]

    def get_ids(self, doc_ids: list[str]) -> dict[str, Passage]:
        """Passages by document id (``coordinate@channel``)."""
        if not doc_ids:
            return {}
        searcher = self._index.searcher()
        result = searcher.search(
            tantivy.Query.term_set_query(self.schema, "id", doc_ids), limit=len(doc_ids), count=False
        )
        found = (self._passage(searcher, addr) for _, addr in result.hits)
        return {p.doc_id: p for p in found}

    def vocabulary(self, prefix: str, limit: int = 10) -> list[tuple[str, str, int]]:
        prefix = fold(prefix)
        with self._db_lock:
            if len(prefix) <= TOP_PREFIX_LEN:
                rows = self._db.execute(
                    "SELECT fold, form, paragraphs FROM vocab_top WHERE prefix=? ORDER BY rank LIMIT ?",
                    (prefix, limit),
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT fold, form, paragraphs FROM vocab WHERE fold >= ? AND fold < ? "
                    "ORDER BY paragraphs DESC, form LIMIT ?",
                    (prefix, prefix + "\U0010ffff", limit),
                ).fetchall()
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def rebuild_vocabulary(self) -> int:
        """Tabulate every Pali word form (folded, as written, reversed, paragraphs, bold paragraphs), atomically."""
        searcher = self._index.searcher()
        pali = tantivy.Query.term_query(self.schema, "channel", "pali")  # the Pali words, not the translations'
        bold = dict(searcher.terms_with_prefix("bold_exact", "", filter_query=pali))
        terms = searcher.terms_with_prefix("exact", "", filter_query=pali)
        rows = [(fold(form), form, form[::-1], n, min(n, bold.get(form, 0))) for form, n in terms if n > 0]
        top: dict[str, list[tuple]] = {}
        for folded, form, _, n, _ in rows:  # already most frequent first
            for k in range(1, min(TOP_PREFIX_LEN, len(folded)) + 1):
                bucket = top.setdefault(folded[:k], [])
                if len(bucket) < TOP_PER_PREFIX:
                    bucket.append((folded[:k], len(bucket), folded, form, n))
        with self._db_lock:
            self._db.execute("BEGIN")  # one transaction: a crash leaves the old vocabulary, never none
            try:
                for table in ("vocab", "vocab_top"):
                    self._db.execute(f"DROP TABLE IF EXISTS {table}")
                self._db.execute(f"CREATE TABLE vocab ({VOCAB_COLUMNS})")
                self._db.execute(
                    "CREATE TABLE vocab_top (prefix TEXT, rank INTEGER, fold TEXT, form TEXT, paragraphs INTEGER)"
                )
                self._db.executemany("INSERT INTO vocab VALUES (?,?,?,?,?)", rows)
                self._db.executemany("INSERT INTO vocab_top VALUES (?,?,?,?,?)", (r for b in top.values() for r in b))
                for column in ("fold", "form", "rev"):
                    self._db.execute(f"CREATE INDEX vocab_{column} ON vocab ({column})")
                self._db.execute("CREATE INDEX vocab_top_prefix ON vocab_top (prefix, rank)")
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return len(rows)

    def word_counts(self, forms: list[str]) -> dict[str, tuple[int, int]]:
        """Paragraphs and bold paragraphs of the Pali holding each written form (attested ones only)."""
        out: dict[str, tuple[int, int]] = {}
        with self._db_lock:
            for i in range(0, len(forms), 500):
                chunk = forms[i : i + 500]
                marks = ",".join("?" * len(chunk))
                for form, n, bold in self._db.execute(
                    f"SELECT form, paragraphs, bold FROM vocab WHERE form IN ({marks})", chunk
                ):
                    out[form] = (n, bold)
        return out

    def words_around(self, part: str, *, ending: bool, limit: int = 2000) -> list[tuple[str, int, int]]:
        """Attested written forms that end (``ending``) or begin with ``part`` and are longer:
        (form, paragraphs, bold paragraphs), most frequent first."""
        column, key = ("rev", part[::-1]) if ending else ("form", part)
        with self._db_lock:
            rows = self._db.execute(
                f"SELECT form, paragraphs, bold FROM vocab WHERE {column} > ? AND {column} < ? "
                "ORDER BY paragraphs DESC LIMIT ?",
                (key, key + "\U0010ffff", limit),
            ).fetchall()
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def nearest_words(self, folded: str, limit: int = 5, max_edits: int = 2) -> list[tuple[str, int]]:
        """Attested written forms within ``max_edits`` edits of a folded word that begins alike, closest
        first: (form, paragraphs). Diacritics are ignored (folded words compared)."""
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        if not folded:
            return []
        with self._db_lock:
            rows = self._db.execute(
                "SELECT fold, form, paragraphs FROM vocab "
                "WHERE fold >= ? AND fold < ? AND length(fold) BETWEEN ? AND ?",
                (folded[0], folded[0] + "\U0010ffff", len(folded) - max_edits, len(folded) + max_edits),
            ).fetchall()
        found = process.extract(
            folded, [r[0] for r in rows], scorer=Levenshtein.distance, score_cutoff=max_edits, limit=None
        )
        ranked = sorted(  # fewest edits, then the longest start in common (typos fall late), then frequency
            (distance, -common_start(folded, rows[i][0]), -rows[i][2], rows[i][1])
            for _, distance, i in found
            if rows[i][0] != folded
        )
        out: dict[str, int] = {}
        for _, _, paragraphs, form in ranked:
            if len(out) < limit:
                out.setdefault(form, -paragraphs)
        return list(out.items())

    def forms_by_fold(self, folded: str) -> list[tuple[str, int, int]]:
        """Every written form that folds to ``folded``: (form, paragraphs, bold paragraphs)."""
        with self._db_lock:
            rows = self._db.execute(
                "SELECT form, paragraphs, bold FROM vocab WHERE fold=? ORDER BY paragraphs DESC", (folded,)
            ).fetchall()
        return [tuple(r) for r in rows]  # type: ignore[misc]
