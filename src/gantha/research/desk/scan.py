"""Every occurrence of a query in the Pali original: the paragraphs search finds, split into words, and the
words (or phrases) the query matched, each one *node* of a concordance line or a collocation window.

The query is planned by search's own planner (lemma families, inflections, forms, phrases, ``NEAR``, every
filter), so the desk shows the occurrences of exactly what ``search`` would find. Scans are kept while the
index is unchanged (:class:`~gantha.search.counts.Kept`): paging and re-sorting a concordance reads nothing again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from pydantic import BaseModel, Field

from gantha.model import Passage, QueryInfo, SearchMode, SearchRequest
from gantha.search.counts import Kept
from gantha.search.errors import SearchError
from gantha.search.words import Family
from gantha.store.base import Store, StoreQuery
from gantha.text.pali import WORD_RE, canon, fold, unaccent

CORPUS = "cst"  # the canon: the corpus the desk counts in
KEPT_SCANS = 4  # whole scans kept per index (a frequent lemma's: tens of megabytes each)
PITAKAS = ("vin", "s", "abh")  # book ids begin with their piṭaka; anything else (e: anya) after them
LAYERS = ("mula", "atthakatha", "tika", "anya")
BOOK_FILTERS = {"corpus", "channel", "book", "category"}  # what a scope of whole books answers


class DeskQuery(BaseModel):
    """What the three desk views look for: a word (or a search query: a phrase, ``NEAR``), a lemma or forms,
    and search's filters."""

    q: str = ""
    lemma: bool = False  # read ``q`` (one word) as a lemma: its forms, derivatives and compounds
    forms: list[str] = Field(default_factory=list)
    mode: SearchMode = SearchMode.FUZZY
    inflections: bool = True
    compounds: bool = True
    derivatives: bool = True
    books: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)

    def key(self) -> tuple:
        return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in self.model_dump().items())


@dataclass(slots=True)
class Paragraph:
    """A matching paragraph split into words (canonical: lower case, NFC — what sorting, lemmas and counts
    use); where they stand in its text is found when a line is shown, as far as the line needs."""

    passage: Passage
    words: list[str]
    _spans: list[tuple[int, int]] = field(default_factory=list)

    @classmethod
    def of(cls, passage: Passage) -> Paragraph:
        return cls(passage, WORD_RE.findall(canon(passage.text)))

    def spans(self, upto: int) -> list[tuple[int, int]]:
        """Where the words stand in the text, at least the first ``upto`` of them."""
        spans, words = self._spans, self.words
        if len(spans) >= min(upto, len(words)):
            return spans
        text = self.passage.text
        lowered = canon(text)
        if len(lowered) != len(text):  # a rare decomposed character changed the length: offsets from the text
            self._spans = [m.span() for m in WORD_RE.finditer(text)]
            return self._spans
        # each word is the next run of its letters after the last (only non-letters lie between): str.find,
        # not a match object per word of the paragraph
        pos, find = spans[-1][1] if spans else 0, lowered.find
        for w in words[len(spans) : upto]:
            start = find(w, pos)
            pos = start + len(w)
            spans.append((start, pos))
        return spans

    def folded(self) -> list[str]:
        """The words without diacritics (one pass over the paragraph, not one per word)."""
        folded = unaccent("\n".join(self.words)).split("\n")
        return folded if len(folded) == len(self.words) else [unaccent(w) for w in self.words]


@dataclass(slots=True)
class Node:
    """One occurrence: words ``start`` to ``end`` (exclusive) of paragraph ``para`` of its scan."""

    para: int
    start: int
    end: int


@dataclass(slots=True)
class Matcher:
    """Which words of a paragraph are nodes: the query's words and forms, phrases, prefixes and wildcards, the
    first word of each ``NEAR`` (the second must stand within its distance)."""

    folded: bool
    terms: set[str] = field(default_factory=set)
    phrases: list[list[str]] = field(default_factory=list)
    prefixes: tuple[str, ...] = ()
    suffixes: tuple[str, ...] = ()
    infixes: tuple[str, ...] = ()
    near: list[tuple[set[str], set[str], int]] = field(default_factory=list)
    written: frozenset[str] = frozenset()  # the forms as written that fold to ``terms`` (the index's vocabulary)

    @classmethod
    def of(cls, sq: StoreQuery, field_name: str) -> Matcher:
        m = cls(folded=field_name == "fold")
        clauses = [*sq.must, *(c for group in sq.alternatives[:1] for c in group)]
        prefixes, suffixes, infixes = [], [], []
        for c in clauses:
            if c.field != field_name:
                continue
            if c.kind in ("term", "forms", "set"):
                m.terms.update(c.tokens)
            elif c.kind == "phrase":
                m.phrases.append(list(c.tokens))
            elif c.kind == "prefix":
                prefixes += c.tokens
            elif c.kind == "suffix":
                suffixes += c.tokens
            elif c.kind == "infix":
                infixes += c.tokens
            elif c.kind == "near":
                m.near.append((set(c.groups[0]), set(c.groups[1]), c.distance))
        m.prefixes, m.suffixes, m.infixes = tuple(prefixes), tuple(suffixes), tuple(infixes)
        return m

    def only_terms(self) -> bool:
        return not (self.phrases or self.prefixes or self.suffixes or self.infixes or self.near)

    def nodes(self, para: Paragraph) -> list[tuple[int, int]]:
        """The (start, end) word spans that are nodes, in reading order."""
        if self.written and (found := [(i, i + 1) for i, w in enumerate(para.words) if w in self.written]):
            return found  # a paragraph the vocabulary does not cover yet (an ingest since) is folded below
        keys = para.folded() if self.folded else para.words
        terms = self.terms
        found = {i: i + 1 for i, k in enumerate(keys) if k in terms}
        if self.prefixes or self.suffixes or self.infixes:
            for i, k in enumerate(keys):
                if (
                    (self.prefixes and k.startswith(self.prefixes))
                    or (self.suffixes and k.endswith(self.suffixes) and k not in self.suffixes)
                    or any(part in k and part != k for part in self.infixes)
                ):
                    found[i] = i + 1
        for phrase in self.phrases:
            n = len(phrase)
            for i in range(len(keys) - n + 1):
                if keys[i : i + n] == phrase:
                    found[i] = max(found.get(i, 0), i + n)
        for left, right, distance in self.near:
            reach = distance + 1
            for i, k in enumerate(keys):
                if k in left and any(keys[j] in right for j in range(max(0, i - reach), min(len(keys), i + reach + 1))):
                    found[i] = i + 1
        return sorted(found.items())


@dataclass(slots=True)
class Scan:
    """A query's matching paragraphs in book order and its nodes; ``complete`` unless cut at ``upto`` nodes."""

    info: QueryInfo
    family: Family | None
    paragraphs: list[Paragraph]
    nodes: list[Node]
    total_paragraphs: int
    books: list[tuple[str, int]]  # (book, matching paragraphs) in book order
    scope: list[str] | None = None  # the books the filters leave (None: all); topics: their chapters' books
    complete: bool = True


@dataclass(slots=True)
class Words:
    """A query that finds single words: the forms as written, and the books in scope (None: all)."""

    info: QueryInfo
    family: Family | None
    forms: set[str]
    scope: list[str] | None


class Planning(Protocol):
    store: Store
    searcher: Any

    def family(self, word: str, compounds: bool = True, derivatives: bool = False) -> Family: ...


def book_rank(book: str, category: str = "") -> tuple[int, int, str]:
    """Book order: the piṭakas (Vinaya, Sutta, Abhidhamma, then the rest), within each the root texts, their
    commentaries and subcommentaries, then by id (``vin02m3.mul`` before ``vin02m4.mul``)."""
    pitaka = next((i for i, p in enumerate(PITAKAS) if book.startswith(p) and book[len(p) : len(p) + 1].isdecimal()), 3)
    layer = LAYERS.index(category) if category in LAYERS else len(LAYERS)
    return pitaka, layer, book


class Scanner:
    """Scans of queries over one index's research verbs, kept while the index is unchanged."""

    def __init__(self, verbs: Planning):
        self.verbs = verbs
        self._kept: Kept[Scan] = Kept(KEPT_SCANS)

    def plan(self, query: DeskQuery) -> tuple[StoreQuery, QueryInfo, Family | None]:
        """The store query (every match, no page) and how the query was understood."""
        req = SearchRequest(
            q="" if query.lemma else query.q,
            mode=query.mode,
            forms=query.forms,
            inflections=query.inflections,
            compounds=query.compounds,
            derivatives=query.derivatives,
            books=query.books,
            categories=query.categories,
            tags=query.tags,
            topics=query.topics,
            channels=["pali"],
            corpora=[CORPUS],
            limit=1,
        )
        family = None
        if query.lemma:
            word = query.q.strip()
            if not word or len(WORD_RE.findall(word)) != 1:
                raise SearchError("invalid_query", "a lemma is one word (e.g. parivāsa)")
            family = self.verbs.family(canon(word), query.compounds, query.derivatives)
            if not family.forms:
                raise SearchError("unattested_lemma", f"no attested forms of {word!r} (see `gantha forms {word}`)")
            req = req.model_copy(update={"forms": [*req.forms, *family.words()]})
        sq, info, _ = self.verbs.searcher.planner.plan(req, family.words(False) if family else None)
        if family:
            info.lemma = {"lemma": family.lemma, "forms": family.words(False), "compounds": len(family.compounds)}
        sq.rank_first, sq.scoring, sq.order = [], [], "score"
        return sq, info, family

    def words(self, query: DeskQuery) -> Words | None:
        """The written forms every occurrence of which is a node, when the query finds single words (no phrase,
        ``NEAR``, wildcard, exclusion or chapter scope): what the canon's word ids answer without a scan."""
        sq, info, family = self.plan(query)
        if (
            len(sq.must) != 1
            or sq.should
            or sq.alternatives
            or sq.must_not
            or sq.ids
            or sq.book_pattern
            or sq.scopes
            or not set(sq.filters) <= BOOK_FILTERS
            or sq.must[0].field != info.field
            or sq.must[0].kind not in ("term", "forms", "set")
        ):
            return None
        forms = set(sq.must[0].tokens)
        if info.field == "fold":
            forms = {f for t in forms for f, _, _ in self.verbs.store.forms_by_fold(t)}
        return Words(info, family, forms, self._scope(sq))

    def scan(self, query: DeskQuery, upto: int | None = None) -> Scan:
        """Every node of the query in book order; ``upto``: enough books for the first ``upto`` nodes only
        (a first page in book order), unless the whole scan is kept already."""
        key = (self._books_key(), query.key())
        if (kept := self._kept.get(key)) is not None:
            return kept
        sq, info, family = self.plan(query)
        counted = self.verbs.store.search(replace(sq, limit=0, offset=0, aggregate=("book", "chapter")))
        categories = self._categories()
        books = sorted(counted.aggregations.get("book", []), key=lambda b: book_rank(b[0], categories.get(b[0], "")))
        matcher = Matcher.of(sq, info.field)
        if matcher.folded and matcher.only_terms():  # words compared as written, not folded one by one
            matcher.written = frozenset(f for t in matcher.terms for f, _, _ in self.verbs.store.forms_by_fold(t))
        scan = Scan(info, family, [], [], counted.total, books, self._scope(sq))
        if upto is None:
            hits = self.verbs.store.search(replace(sq, limit=max(counted.total, 1), aggregate=())).hits
            ranks = {b: i for i, (b, _) in enumerate(books)}
            passages = sorted((h.passage for h in hits), key=lambda p: (ranks.get(p.book, len(ranks)), p.seq))
            self._add(scan, passages, matcher)
        else:  # chapter by chapter (a chapter's paragraphs are in reading order), until the page is full
            chapters: dict[str, list[tuple[int, int]]] = {}
            for chapter_key, count in counted.aggregations.get("chapter", []):
                book, _, number = chapter_key.rpartition("/ch")
                chapters.setdefault(book, []).append((int(number), count))
            parts = [(book, n, count) for book, _ in books for n, count in sorted(chapters.get(book, []))]
            for book, number, count in parts:
                if len(scan.nodes) >= upto:
                    scan.complete = False
                    break
                one = replace(sq, scopes=[(CORPUS, book, (number,))], limit=count, aggregate=())
                passages = sorted((h.passage for h in self.verbs.store.search(one).hits), key=lambda p: p.seq)
                self._add(scan, passages, matcher)
        if scan.complete:
            self._kept.put(key, scan)
        return scan

    @staticmethod
    def _add(scan: Scan, passages: list[Passage], matcher: Matcher) -> None:
        for p in passages:
            para = Paragraph.of(p)
            found = matcher.nodes(para)
            if not found:  # matched in a way the words do not show (a variant reading): no line
                continue
            k = len(scan.paragraphs)
            scan.paragraphs.append(para)
            scan.nodes += [Node(k, s, e) for s, e in found]

    def _scope(self, sq: StoreQuery) -> list[str] | None:
        """The books the query's book-level filters leave (None: no such filter)."""
        if not ({"book", "category"} & set(sq.filters) or sq.tag_groups or sq.scopes):
            return None
        topics = {b for _, b, _ in sq.scopes}
        return [
            r.info.book
            for r in self.verbs.store.books(CORPUS).values()
            if r.info.book in sq.filters.get("book", [r.info.book])
            and r.info.category in sq.filters.get("category", [r.info.category])
            and (not sq.tag_groups or any(set(g) <= {fold(t) for t in r.info.tags} for g in sq.tag_groups))
            and (not sq.scopes or r.info.book in topics)
        ]

    def _books_key(self) -> tuple:
        """What a scan depends on: the books of the original and their versions (a write elsewhere in the index,
        a summary or a task, keeps the scans)."""
        return self.verbs.store.from_records(
            "desk:books", lambda records: tuple(sorted((r.info.book, r.signature, r.passages) for r in records))
        )

    def _categories(self) -> dict[str, str]:
        return self.verbs.store.from_records(
            "desk:categories", lambda records: {r.info.book: r.info.category for r in records}
        )
