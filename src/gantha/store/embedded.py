"""The embedded store: tantivy for the index and stored passages, SQLite for the side tables.

Layout of an index directory::

    tantivy/        the tantivy index (one document per passage)
    gantha.sqlite   books (metadata, counts, source signature), named texts, vocabulary, schema version
    lexicon.sqlite  word analyses, ending tables, dictionaries
    tasks.sqlite    the task queue
    vectors/        one folder of vectors per embedder (numpy, written beside and renamed)

Durability: tantivy keeps the last committed state on disk whatever happens to the process; the
books table is written only after the tantivy commit that contains them succeeds. An ingest that is
killed therefore leaves the previous commit searchable, and a book missing from the books table is
simply ingested again (deleting its partial documents first), so re-running never duplicates.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from operator import itemgetter
from pathlib import Path

import orjson
import tantivy

from gantha import deadline
from gantha.model import Passage
from gantha.store import vocabulary
from gantha.store.base import (
    FILTER_FIELDS,
    BookRecord,
    Clause,
    IndexBusy,
    StoreError,
    StoreHit,
    StoreQuery,
    StoreResult,
    chapter_key,
)
from gantha.store.folder import FolderServices
from gantha.store.sql import SqliteDatabase
from gantha.store.tables import TableStore
from gantha.text.analysis import index_texts
from gantha.text.variants import variant_text

TOKEN_PATTERN = r"[\p{L}\p{M}\p{N}]+"  # same as gantha.text.pali.WORD_RE
RANK_FIRST_SCORE = 1000.0
# text fields: a set of words is ranked, not flat
SCORED_FIELDS = ("fold", "exact", "bold_fold", "bold_exact", "variants_fold", "variants_exact")
ZH_TERMS = "zh_terms.txt"  # where an index of an earlier version kept its Chinese terms
# tantivy releases the GIL: a query's aggregations run beside its ranking (a lemma with thousands of forms
# evaluates its match set twice, once per collector, so this halves its latency)
_AGGREGATOR = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gantha-aggregate")


def _by_count(buckets: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Aggregation buckets: most documents first, then by key (the same order on every backend)."""
    buckets.sort(key=itemgetter(0))
    buckets.sort(key=itemgetter(1), reverse=True)  # stable: equal counts stay in key order
    return buckets


def _mtime(path: str) -> str:
    """A file's modification time in nanoseconds, "0" when it is absent."""
    try:
        return str(os.stat(path).st_mtime_ns)
    except (FileNotFoundError, NotADirectoryError):
        return "0"


def _listed(folder: str, keep: Callable[[os.DirEntry], bool]) -> list[str]:
    """The paths of a folder's entries that ``keep`` keeps, sorted; none when the folder is absent."""
    try:
        return sorted(e.path for e in os.scandir(folder) if keep(e))
    except (FileNotFoundError, NotADirectoryError):
        return []


def _any(tokens: list[str]) -> str:
    """A regular expression matching exactly these terms."""
    return "(?:" + "|".join(re.escape(t) for t in tokens) + ")"


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
    for name in FILTER_FIELDS:
        b.add_text_field(name, stored=False, fast=True, tokenizer_name="raw", index_option="basic")
    b.add_integer_field("seq", stored=False, indexed=True, fast=True)
    b.add_integer_field("chapter", stored=False, indexed=True, fast=True)
    for name in SCORED_FIELDS:
        b.add_text_field(name, stored=False, tokenizer_name="gantha_words")
    for name in ("page_refs", "page_starts"):
        b.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
    b.add_bytes_field("passage", stored=True)
    return b.build()


def _has_field(schema: tantivy.Schema, name: str) -> bool:
    try:
        tantivy.Query.term_query(schema, name, "")
    except ValueError:
        return False
    return True


def _words_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.regex(TOKEN_PATTERN))
        .filter(tantivy.Filter.remove_long(120))
        .filter(tantivy.Filter.lowercase())
        .build()
    )


class _Compiler:
    """StoreQuery → tantivy query: clauses on analysed fields, filters that select without scoring, ranked-first
    clauses lifted by a constant, and the aggregations."""

    def __init__(self, schema: tantivy.Schema):
        self.schema = schema
        self.fields = {name for name in SCORED_FIELDS if _has_field(schema, name)}

    def clause(self, c: Clause, scored: bool = True, searcher: tantivy.Searcher | None = None) -> tantivy.Query:
        if c.field in SCORED_FIELDS and c.field not in self.fields:  # an index made before the field existed
            return tantivy.Query.empty_query()
        if c.kind == "near":
            return tantivy.Query.const_score_query(self.near(c.field, c.groups, c.distance), 1.0)
        if c.kind == "forms" and scored and searcher is not None:  # each form's BM25 without its rarity
            return tantivy.Query.boolean_query(
                [(tantivy.Occur.Should, self._unrare(searcher, c.field, t)) for t in c.tokens]
            )
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

    def near(self, field: str, groups: list[list[str]], distance: int) -> tantivy.Query:
        """A token of each group with at most ``distance`` words between them, either order: phrase queries
        whose positions match any of a group's forms (one regular expression each), with slop. Tantivy's slop
        also lets a phrase match reversed (at a cost of two), and a token belonging to both groups could stand
        for both: the groups are split into disjoint pairs, and two of their shared forms are matched at each
        exact gap."""
        a, b = (list(dict.fromkeys(g)) for g in groups)
        shared = set(a) & set(b)
        pairs = [(a, [t for t in b if t not in shared]), ([t for t in a if t not in shared], sorted(shared))]
        queries = [
            tantivy.Query.regex_phrase_query(self.schema, field, [_any(first), _any(second)], slop=distance)
            for x, y in pairs
            if x and y
            for first, second in ((x, y), (y, x))
        ]
        if shared:  # two occurrences of the shared forms, gap by gap
            both = _any(sorted(shared))
            queries += [
                tantivy.Query.regex_phrase_query(self.schema, field, [(0, both), (gap + 1, both)])
                for gap in range(distance + 1)
            ]
        if not queries:
            return tantivy.Query.empty_query()
        return tantivy.Query.boolean_query([(tantivy.Occur.Should, q) for q in queries])

    def _unrare(self, searcher: tantivy.Searcher, field: str, token: str) -> tantivy.Query:
        """A term query whose BM25 is divided by the term's inverse document frequency (as tantivy reckons it)."""
        n, df = searcher.num_docs, searcher.doc_freq(field, token)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        query = tantivy.Query.term_query(self.schema, field, token)
        return tantivy.Query.boost_query(query, 1 / idf) if df and idf > 0 else query

    def query(
        self, q: StoreQuery, *, with_ranking: bool = True, searcher: tantivy.Searcher | None = None
    ) -> tantivy.Query:
        """The query; ``searcher`` (needed to rank ``forms`` clauses) gives the terms' document frequencies."""
        ranked = searcher if with_ranking else None
        parts: list[tuple[tantivy.Occur, tantivy.Query]] = []
        parts += [(tantivy.Occur.Must, self.clause(c, with_ranking, ranked)) for c in q.must]
        if q.should:
            should = [(tantivy.Occur.Should, self.clause(c, with_ranking, ranked)) for c in q.should]
            parts.append((tantivy.Occur.Must, tantivy.Query.boolean_query(should)))
        if q.alternatives:
            groups = [
                tantivy.Query.boolean_query([(tantivy.Occur.Must, self.clause(c, with_ranking, ranked)) for c in group])
                for group in q.alternatives
                if group
            ]
            parts.append((tantivy.Occur.Must, tantivy.Query.boolean_query([(tantivy.Occur.Should, g) for g in groups])))
        parts += [(tantivy.Occur.MustNot, self.clause(c)) for c in q.must_not]
        filters: list[tantivy.Query] = []  # select without scoring: a rarer book must not rank higher
        for name, values in q.filters.items():
            if values:  # term queries intersect by skipping; a term set would scan its whole posting lists
                terms = [tantivy.Query.term_query(self.schema, name, v) for v in values]
                filters.append(
                    terms[0]
                    if len(terms) == 1
                    else tantivy.Query.boolean_query([(tantivy.Occur.Should, t) for t in terms])
                )
        if q.ids:
            filters.append(tantivy.Query.term_set_query(self.schema, "id", q.ids))
        if q.book_pattern:
            filters.append(tantivy.Query.regex_query(self.schema, "book", q.book_pattern + ".*"))
        if q.tag_groups:  # "vinaya,khandhaka;abhidhamma": (vinaya and khandhaka) or abhidhamma
            groups = [
                tantivy.Query.boolean_query(
                    [(tantivy.Occur.Must, tantivy.Query.term_query(self.schema, "tags", t)) for t in group]
                )
                for group in q.tag_groups
            ]
            filters.append(tantivy.Query.boolean_query([(tantivy.Occur.Should, g) for g in groups]))
        if q.scopes:  # books, or chapters of books: (corpus and book and any of its chapters) or …
            filters.append(
                tantivy.Query.boolean_query([(tantivy.Occur.Should, self.scope(*scope)) for scope in q.scopes])
            )
        parts += [(tantivy.Occur.Must, tantivy.Query.const_score_query(f, 0.0)) for f in filters]
        if not any(occur != tantivy.Occur.MustNot for occur, _ in parts):
            parts.append((tantivy.Occur.Must, tantivy.Query.all_query()))
        if with_ranking:
            parts += [(tantivy.Occur.Should, self.clause(c, True, ranked)) for c in q.scoring]
        if with_ranking and q.rank_first:
            first = tantivy.Query.boolean_query([(tantivy.Occur.Should, self.clause(c)) for c in q.rank_first])
            parts.append((tantivy.Occur.Should, tantivy.Query.const_score_query(first, RANK_FIRST_SCORE)))
        return tantivy.Query.boolean_query(parts)

    def scope(self, corpus: str, book: str, chapters: tuple[int, ...]) -> tantivy.Query:
        parts = [tantivy.Query.term_query(self.schema, name, v) for name, v in (("corpus", corpus), ("book", book))]
        if chapters:
            numbers = [tantivy.Query.term_query(self.schema, "chapter", n) for n in chapters]
            parts.append(tantivy.Query.boolean_query([(tantivy.Occur.Should, n) for n in numbers]))
        return tantivy.Query.boolean_query([(tantivy.Occur.Must, p) for p in parts])

    def aggregate(self, searcher: tantivy.Searcher, q: StoreQuery) -> dict[str, list[tuple[str, int]]]:
        return self.counted(searcher, q)[0]

    def counted(self, searcher: tantivy.Searcher, q: StoreQuery) -> tuple[dict[str, list[tuple[str, int]]], int | None]:
        """The aggregations, and the number of matches when an aggregation by book gives it (every document
        has a book: its buckets and the rest they leave out add up to the total)."""
        if not q.aggregate:
            return {}, None
        spec = {name: {"terms": {"field": name, "size": 1000}} for name in q.aggregate if name != "chapter"}
        if "chapter" in q.aggregate:  # a chapter is a book's: book → chapter number (keyed book/chN), one pass
            spec["book"] = {
                "terms": {"field": "book", "size": 1000},
                "aggs": {"number": {"terms": {"field": "chapter", "size": 1000}}},
            }
        raw = searcher.aggregate(self.query(q, with_ranking=False), spec)
        by_book = raw.get("book") or {}
        total = (
            sum(b["doc_count"] for b in by_book["buckets"]) + by_book.get("sum_other_doc_count", 0)
            if "buckets" in by_book
            else None
        )
        out = {
            name: _by_count([(b["key"], b["doc_count"]) for b in raw.get(name, {}).get("buckets", [])])
            for name in q.aggregate
            if name != "chapter"
        }
        if "chapter" in q.aggregate:
            out["chapter"] = _by_count(
                [
                    (chapter_key(book["key"], int(ch["key"])), ch["doc_count"])
                    for book in by_book.get("buckets", [])
                    for ch in book.get("number", {}).get("buckets", [])
                ]
            )
        return out, total


class EmbeddedStore(FolderServices, TableStore):
    """Store on local disk (see module docstring). One writer at a time; any number of readers."""

    def __init__(self, path: Path, *, create: bool = True):
        self.path = Path(path)
        self.location = str(self.path)
        if not create and not (self.path / "gantha.sqlite").exists():
            raise StoreError(f"no index at {self.path} (run `gantha ingest` first)")
        (self.path / "tantivy").mkdir(parents=True, exist_ok=True)
        part = self.path / "gantha.sqlite"
        try:
            self.db = SqliteDatabase(part)
            self._migrate_terms()
            self._init_tables(str(self.path))
            part = self.path / "tantivy"
            self.schema = _schema()
            if tantivy.Index.exists(str(part)):  # an index of an earlier version may lack the variants' fields
                self.schema = tantivy.Index.open(str(part)).schema
            self._compiler = _Compiler(self.schema)
            self._index = tantivy.Index(self.schema, str(part), reuse=True)
        except (OSError, ValueError, sqlite3.DatabaseError) as exc:
            raise StoreError(
                f"cannot open index at {self.path}: {part.name} is damaged ({exc}); rebuild the index: move "
                f"{self.path} aside and run `gantha ingest` (or `gantha up`) again"
            ) from exc
        self._index.register_tokenizer("gantha_words", _words_analyzer())
        self._writer: tantivy.IndexWriter | None = None
        self._changed = False  # Pali documents added or deleted since the vocabulary was tabulated
        self._chapter_titles: dict[tuple[str, str, int], str] = {}

    def _migrate_terms(self) -> None:
        """An index of an earlier version kept its Chinese terms in a file: move them into the metadata."""
        old = self.path / ZH_TERMS
        if old.exists() and (self.path / "gantha.sqlite").stat().st_size:
            self.db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self.db.execute(
                "INSERT INTO meta VALUES ('zh_terms', ?) ON CONFLICT (key) DO NOTHING",
                (old.read_text(encoding="utf-8").strip(),),
            )
            old.unlink()

    def page_keys(self, prefix: str, limit: int = 10) -> list[tuple[str, int]]:
        """Indexed page keys starting with ``prefix`` (``P2.003``), in page order, with paragraph counts."""
        return sorted(self._index.searcher().terms_with_prefix("page_refs", prefix))[:limit]

    def size(self) -> int:
        return sum(f.stat().st_size for f in self.path.rglob("*") if f.is_file())

    def generation(self) -> str:
        """Modification times of the files a write changes (read per request: one ``stat`` a file)."""
        root = str(self.path)
        files = [f"{root}/tantivy/meta.json", f"{root}/gantha.sqlite-wal", f"{root}/gantha.sqlite"]
        corpora = _listed(f"{root}/vectors", lambda e: e.is_dir())
        files += [f"{c}/meta.json" for c in corpora]
        for c in corpora:  # a matrix damaged or replaced: read again
            files += _listed(c, lambda e: e.name.endswith(".npy"))
        files.append(f"{root}/lexicon.sqlite")  # replaced or damaged: read again (and found damaged, said so)
        return ",".join(map(_mtime, files))

    # --- writing -------------------------------------------------------------------------------

    @property
    def writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            try:
                self._writer = self._index.writer(heap_size=384_000_000, num_threads=2)
            except ValueError as exc:
                raise IndexBusy(f"index at {self.path} is being written by another process ({exc})") from exc
        return self._writer

    def add(self, passages: Iterable[Passage]) -> int:
        writer = self.writer
        n = 0
        for p in passages:
            self._changed |= p.channel == vocabulary.CHANNEL
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
            if p.notes and "variants_fold" in self._compiler.fields:  # variant readings: searched, never shown
                variants_folded, variants_exact = index_texts(variant_text(p.notes))
                doc.add_text("variants_fold", variants_folded)
                doc.add_text("variants_exact", variants_exact)
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
        self._changed |= channel == vocabulary.CHANNEL
        self._unrecord_book(corpus, book, channel)
        self._forget()
        self._chapter_titles.clear()

    def delete(self, coordinates: Iterable[str], channel: str = "pali") -> None:
        for c in coordinates:
            self.writer.delete_documents_by_term("id", f"{c}@{channel}")
            self._changed |= channel == vocabulary.CHANNEL

    def commit(self, books: Iterable[BookRecord] = ()) -> None:
        if self._changed:
            self.mark_vocabulary_stale()
        self.writer.commit()
        self._record_books(list(books))  # only after the documents are durable: a crash re-ingests the book
        self._forget()
        self._chapter_titles.clear()
        self._index.reload()

    def finish(self) -> None:
        """Wait for background merges, release the writer lock and tabulate the vocabulary."""
        if self._writer is not None:
            self._writer.wait_merging_threads()
            self._writer = None
            self._index.reload()
        if self._changed or self.vocabulary_due():
            self.rebuild_vocabulary()
            self._changed = False

    def close(self) -> None:
        if self._writer is not None:
            self._writer.rollback()
            self._writer = None
        self.db.close()
        for service in ("_lexicon", "_tasks"):
            if service in self.__dict__:
                self.__dict__.pop(service).close()

    # --- reading -------------------------------------------------------------------------------

    def count(self) -> int:
        return self._index.searcher().num_docs

    counts_ahead = False  # tantivy counts and aggregates a query's matches in its one pass over them

    def prepare(self, q: StoreQuery) -> bool:
        return False

    def prepared(self) -> int:
        return 0

    def search(self, q: StoreQuery) -> StoreResult:
        deadline.check()
        searcher = self._index.searcher()
        if q.limit == 0:  # the total and the aggregations only
            aggregations, total = self._compiler.counted(searcher, q)
            if total is None:
                total = searcher.search(self._compiler.query(q, with_ranking=False), limit=1, count=True).count
            return StoreResult(total or 0, [], aggregations)
        query = self._compiler.query(q, searcher=searcher)
        if q.order == "reading":
            return self._search_reading(searcher, q, query)
        aggregations = self._aggregate(searcher, q)
        result = searcher.search(query, limit=q.limit, offset=q.offset, count=True)
        hits = []
        for score, addr in result.hits:
            passage = self._passage(searcher, addr)
            ranked_first = bool(q.rank_first) and score >= RANK_FIRST_SCORE
            hits.append(StoreHit(passage, score - RANK_FIRST_SCORE if ranked_first else score, ranked_first))
        return StoreResult(result.count or 0, hits, aggregations.result() if aggregations else {})

    def _aggregate(self, searcher: tantivy.Searcher, q: StoreQuery) -> Future | None:
        """The query's aggregations, computed beside the caller's ranking."""
        return _AGGREGATOR.submit(self._compiler.aggregate, searcher, q) if q.aggregate else None

    def _search_reading(self, searcher: tantivy.Searcher, q: StoreQuery, query: tantivy.Query) -> StoreResult:
        """Small result sets in reading order: ranked-first passages first, then by book and position."""
        aggregations = self._aggregate(searcher, q)
        result = searcher.search(query, limit=10_000, count=True)
        found = [
            (score >= RANK_FIRST_SCORE if q.rank_first else False, self._passage(searcher, addr))
            for score, addr in result.hits
        ]
        found.sort(key=lambda t: (not t[0], t[1].corpus, t[1].book, t[1].seq))
        page = found[q.offset : q.offset + q.limit]
        hits = [StoreHit(p, 1.0, first) for first, p in page]
        return StoreResult(result.count or 0, hits, aggregations.result() if aggregations else {})

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

    def _pali_terms(self) -> tuple[list[tuple[str, int]], dict[str, int]]:
        searcher = self._index.searcher()
        pali = tantivy.Query.term_query(self.schema, "channel", "pali")  # the Pali words, not the translations'
        bold = dict(searcher.terms_with_prefix("bold_exact", "", filter_query=pali))
        return searcher.terms_with_prefix("exact", "", filter_query=pali), bold
