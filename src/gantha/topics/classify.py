"""Classify every document and chapter of an index into the taxonomy, from what the index already holds.

A node (a book, an uploaded document, a chapter) is represented by one vector, the unit-length sum of:

* its passages' own vectors in the vector index (the aligned English of the canon, a Bible's verses, a
  Markdown document's chunks), counted twice, where it has any;
* the embedding of its profile: book title, where the edition files the book (CST's table of contents:
  "Byākaraṇa gantha-saṅgaho", the grammars), chapter heading and extractive summary (from the English
  where the canon has it; a Pali text's summary, heading and filing read through the lexicon's English
  dictionary meanings, word by word — :class:`PaliGloss`);
* its context: a chapter its book's vector; a commentary or subcommentary book the vectors of the root
  texts it explains (``s0502a.att`` → ``s0502m.mul``), where it has none of its own.

Each category is the mean of its embedded description and examples. A node's confidence in a category is
the softmax of its cosine similarities (at the taxonomy's temperature); the best category is its topic
when the confidence reaches the taxonomy's threshold, else ``uncategorized``; the next candidates (up to
three, from :data:`TAG_MIN`) are its soft tags. Deterministic, and one embedding batch per book.

Topics are kept per book with a signature (the book's sources, its vectors, the taxonomy's digest, the
embedder, :data:`METHOD`): :func:`classify_index` recomputes only the books whose signature changed.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace

import numpy as np
import orjson

from gantha.embed import Embedder
from gantha.model import Passage, TopicRecord
from gantha.store.base import BookRecord, Store
from gantha.store.lexicon import Lexicon
from gantha.store.topics import META_KEY
from gantha.store.vectors import doc_of
from gantha.text.pali import WORD_RE
from gantha.text.sentences import split
from gantha.text.summary import central
from gantha.topics.taxonomy import UNCATEGORIZED, Taxonomy

METHOD = "2"  # changes when the way topics are computed does: every book is classified again
SKIPPED_CORPORA = frozenset({"dict"})  # dictionary entries are not documents with a topic
SAMPLE = 240  # paragraphs a node's summary and vector are drawn from (an even sample of a long node)
TAG_MIN = 0.10  # confidence from which another category is a soft tag
MAX_TAGS = 3
WRITE_EVERY = 15.0  # seconds of classification written at once: each write makes every server reopen the index
_ROOT = re.compile(r"^(?P<stem>[a-z]+\d+)[at]\d*\.(att|tik)$")  # vin01t1.tik → vin01


@dataclass
class ClassifySummary:
    taxonomy: str = ""
    books: int = 0  # classified now
    unchanged: int = 0  # current already: not classified again
    nodes: int = 0
    removed: int = 0  # books no longer in the index whose topics were dropped
    uncategorized: int = 0
    seconds: float = 0.0
    topics: dict[str, int] = field(default_factory=dict)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / max(float(np.linalg.norm(v)), 1e-12)


def _sample(items: list, n: int = SAMPLE) -> list:
    return items if len(items) <= n else [items[i * len(items) // n] for i in range(n)]


class Classifier:
    """The taxonomy's categories embedded, and the decision for a node's vector."""

    def __init__(self, taxonomy: Taxonomy, embedder: Embedder):
        self.taxonomy, self.embedder = taxonomy, embedder
        texts = [embedder.encode(c.texts()) for c in taxonomy.categories]
        self.centroids = np.vstack([_unit(t.mean(axis=0)) for t in texts])
        # a category like every text (the Buddha is in all of them) is discounted by how like the other
        # categories' texts it is
        self.bias = np.array(
            [
                float(np.mean(np.vstack([t for j, t in enumerate(texts) if j != k]) @ self.centroids[k]))
                for k in range(len(texts))
            ]
        )

    def confidences(self, v: np.ndarray) -> np.ndarray:
        """The softmax over the categories of the node's cosine similarities (less each category's bias)."""
        z = (self.centroids @ v - self.bias) / self.taxonomy.temperature
        e = np.exp(z - z.max())
        return e / e.sum()

    def decide(self, v: np.ndarray, threshold: float | None = None) -> tuple[str, float, list[str]]:
        """(topic or ``uncategorized``, confidence, soft tags) for a node's vector."""
        p = self.confidences(v)
        order = [int(i) for i in np.argsort(-p, kind="stable")]
        best = order[0]
        limit = self.taxonomy.threshold if threshold is None else threshold
        topic = self.taxonomy.ids[best] if p[best] >= limit else UNCATEGORIZED
        candidates = order if topic == UNCATEGORIZED else order[1:]
        tags = [self.taxonomy.ids[i] for i in candidates if p[i] >= TAG_MIN][:MAX_TAGS]
        return topic, round(float(p[best]), 4), tags


class PaliGloss:
    """Pali text word by word in English: each word's most frequent analysed base, that base's first English
    dictionary meaning (its first words); words without one are left out."""

    WORDS = 4  # of a meaning

    def __init__(self, lexicon: Lexicon | None):
        self.lexicon = lexicon
        self._cache: dict[str, str] = {}

    def word(self, word: str) -> str:
        if word not in self._cache:
            self._cache[word] = self._meaning(word)
        return self._cache[word]

    def _meaning(self, word: str) -> str:
        if self.lexicon is None:
            return ""
        bases = [b for b, _, _ in self.lexicon.bases_of(word)[:1]] or [word]
        return self._english(self.lexicon.entries(bases[0]))

    def _english(self, entries: list) -> str:
        for entry in entries:
            if entry.language == "en" and entry.meanings:
                meaning = re.sub(r"\(.*?\)|\[.*?\]", "", entry.meanings[0])
                return " ".join(re.split(r"[;,]", meaning)[0].split()[: self.WORDS])
        return ""

    def _prefetch(self, words: list[str]) -> None:
        """Gloss the words not glossed yet in a few queries (a database lexicon answers each in a round trip)."""
        new = [w for w in dict.fromkeys(words) if w not in self._cache]
        if self.lexicon is None or not new:
            return
        bases = self.lexicon.first_bases(new)
        entries = self.lexicon.entries_of([bases.get(w, w) for w in new])
        for w in new:
            self._cache[w] = self._english(entries.get(bases.get(w, w), []))

    def __call__(self, text: str) -> str:
        words = WORD_RE.findall(text.lower())
        self._prefetch(words)
        return " ".join(m for w in words if (m := self.word(w)))


@dataclass
class _Node:
    chapter: int
    title: str
    passages: list[Passage] = field(default_factory=list)


def roots(book: BookRecord, books: list[BookRecord]) -> list[BookRecord]:
    """The root texts a commentary or subcommentary explains: ``s0502a.att`` → ``s0502m.mul``; else the root
    books sharing its collection tags and work name (``s0104t.nrf`` → ``s0101m.mul``)."""
    info = book.info
    if info.category not in ("atthakatha", "tika"):
        return []
    mula = [b for b in books if b.info.corpus == info.corpus and b.info.category == "mula"]
    if m := _ROOT.match(info.book):
        found = [b for b in mula if b.info.book.startswith(m.group("stem") + "m")]
        if found:
            return found
    return [b for b in mula if info.tags[:2] == b.info.tags[:2] and info.tags[-1:] == b.info.tags[-1:]]


class IndexClassifier:
    """Classifies the books of one store, using its vectors of one embedder."""

    def __init__(self, store: Store, taxonomy: Taxonomy, embedder: Embedder):
        self.store, self.taxonomy, self.embedder = store, taxonomy, embedder
        self.classifier = Classifier(taxonomy, embedder)
        self.vectors = store.vectors(embedder.name, embedder.dim) if store.has_vectors(embedder.name) else None
        self.vector_docs: dict[tuple[str, str], list[str]] = defaultdict(list)  # (corpus, book) → documents
        for row_id in dict.fromkeys(doc_of(i) for i in (self.vectors.ids if self.vectors is not None else [])):
            corpus, book, _ = row_id.split("/", 2)
            self.vector_docs[(corpus, book)].append(row_id)
        self._book_vectors: dict[tuple[str, str], np.ndarray | None] = {}
        try:
            lexicon = store.lexicon()
        except Exception:  # a damaged lexicon: Pali texts are classified without their gloss
            lexicon = None
        self.gloss = PaliGloss(lexicon)

    def signature(self, records: list[BookRecord], context: list[BookRecord]) -> str:
        """What a book's topics are computed from; equal signatures: the stored topics are current."""
        parts = [METHOD, self.taxonomy.digest, self.embedder.name]
        for r in [*records, *context]:
            parts.append(f"{r.info.corpus}/{r.info.book}@{r.channel.name}:{r.signature}:{r.passages}")
            parts.append(str(len(self.vector_docs.get((r.info.corpus, r.info.book), ()))))
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]

    def own_vector(self, corpus: str, book: str, coordinates: list[str] | None = None) -> np.ndarray | None:
        """The mean of the vectors of a book's documents (those at ``coordinates`` only, if given)."""
        docs = self.vector_docs.get((corpus, book))
        if not docs or self.vectors is None:
            return None
        if coordinates is not None:
            wanted = set(coordinates)
            docs = [d for d in docs if d.rpartition("@")[0] in wanted]
        return self.vectors.mean(_sample(docs, SAMPLE * 2)) if docs else None

    def classify_book(self, records: list[BookRecord], context: list[BookRecord], signature: str) -> list[TopicRecord]:
        """Topics of one book (every channel's record of it) and of each of its chapters."""
        first = records[0].info
        corpus, book = first.corpus, first.book
        structure = next((r for r in records if r.channel.type == "original"), records[0]).channel.name
        passages = self.store.book_passages(corpus, book, structure)
        english = next((r.channel.name for r in records if r.channel.language.split("-")[0] == "en"), None)
        text_of = {p.coordinate: p.text for p in passages}
        translated: set[str] = set()  # coordinates whose text is the English
        if english and english != structure:
            found = {p.coordinate: p.text for p in self.store.book_passages(corpus, book, english)}
            text_of.update(found)
            translated = set(found)
        elif english or any(p.language != "pali" for p in passages[:1]):
            translated = set(text_of)
        nodes = [_Node(0, first.title, passages)]
        chapters: dict[int, _Node] = {}
        for p in passages:
            if p.chapter >= 1:
                chapters.setdefault(p.chapter, _Node(p.chapter, p.chapter_title)).passages.append(p)
        nodes += list(chapters.values())
        profiles = []
        catalogue = " ".join(first.group_path[1:])  # where the edition files it: "Byākaraṇa gantha-saṅgaho"
        for node in nodes:
            sample = [p for p in _sample(node.passages) if p.coordinate in text_of]
            texts = [text_of[p.coordinate] for p in sample]
            summary = " ".join(central([s for t in texts for s in split(t)])) if texts else ""
            heading = first.title if node.chapter == 0 else f"{first.title}. {node.title}"
            if sample and sum(p.coordinate not in translated for p in sample) > len(sample) / 2:
                summary = self.gloss(f"{catalogue} {node.title} {summary}")  # a Pali text: its words' English
            elif catalogue:
                summary = f"{catalogue}. {summary}"
            profiles.append(f"{heading}. {summary}")
        embedded = self.embedder.encode(profiles)
        context_vectors = [v for r in context if (v := self.book_vector(r.info.corpus, r.info.book)) is not None]
        rows, book_vector = [], None
        for node, profile in zip(nodes, embedded, strict=True):
            coordinates = None if node.chapter == 0 else [p.coordinate for p in node.passages]
            parts = [profile]
            if (own := self.own_vector(corpus, book, coordinates)) is not None:
                parts += [own, own]
            if node.chapter == 0:
                parts += context_vectors[:1] if own is None and context_vectors else []
            elif book_vector is not None:
                parts.append(book_vector)
            v = _unit(np.sum(parts, axis=0))
            if node.chapter == 0:
                book_vector = v
            topic, confidence, soft = self.classifier.decide(v)
            coordinate = f"{corpus}/{book}" + (f"/ch{node.chapter}" if node.chapter else "")
            rows.append(TopicRecord(coordinate, corpus, book, node.chapter, topic, confidence, soft, signature))
        return rows

    def book_vector(self, corpus: str, book: str) -> np.ndarray | None:
        """A root text's vector, as its commentaries borrow it (its documents' mean), computed once."""
        if (corpus, book) not in self._book_vectors:
            self._book_vectors[(corpus, book)] = self.own_vector(corpus, book)
        return self._book_vectors[(corpus, book)]


def classify_index(
    store: Store, taxonomy: Taxonomy, embedder: Embedder, *, force: bool = False, books: list[str] | None = None
) -> ClassifySummary:
    """Classify every book (``books``: only these ``corpus/book`` keys) whose topics are not current; drop the
    topics of books no longer in the index; record the taxonomy used."""
    started = time.perf_counter()
    summary = ClassifySummary(taxonomy=taxonomy.source)
    worker = IndexClassifier(store, taxonomy, embedder)
    by_book: dict[tuple[str, str], list[BookRecord]] = defaultdict(list)
    for r in store.records():
        if r.info.corpus not in SKIPPED_CORPORA:
            by_book[(r.info.corpus, r.info.book)].append(r)
    originals = [rs[0] for rs in by_book.values()]
    stored = {(t.corpus, t.book): t.signature for t in store.topics() if t.chapter == 0}
    pending: list[tuple[str, str, list[TopicRecord]]] = []  # books classified, not written yet
    written = time.monotonic()
    for (corpus, book), records in by_book.items():
        if books is not None and f"{corpus}/{book}" not in books:
            continue
        context = roots(records[0], originals)
        context = [r for c in context for r in by_book[(c.info.corpus, c.info.book)]]
        signature = worker.signature(records, context)
        if not force and stored.get((corpus, book)) == signature:
            summary.unchanged += 1
            continue
        rows = keep_fixes(worker.classify_book(records, context, signature), store.topic_fixes(), taxonomy)
        pending.append((corpus, book, rows))
        summary.books += 1
        summary.nodes += len(rows)
        if time.monotonic() - written > WRITE_EVERY:
            _write_topics(store, pending)
            written = time.monotonic()
    _write_topics(store, pending)
    for corpus, book in stored.keys() - by_book.keys():
        store.set_topics(corpus, book, [])
        summary.removed += 1
    meta = {
        "digest": taxonomy.digest,
        "ids": list(taxonomy.ids),
        "labels": {c.id: c.label for c in taxonomy.categories},
        "source": taxonomy.source,
    }
    store.set_meta(META_KEY, orjson.dumps(meta).decode())
    counts: dict[str, int] = defaultdict(int)
    for t in store.topics():
        counts[t.topic] += 1
    summary.topics = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    summary.uncategorized = counts.get(UNCATEGORIZED, 0)
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def _write_topics(store: Store, pending: list[tuple[str, str, list[TopicRecord]]]) -> None:
    """Write the topics of the books classified since the last write, one after another (servers reading the
    index reopen it once for them, not once a book), and empty the list."""
    for corpus, book, rows in pending:
        store.set_topics(corpus, book, rows)
    pending.clear()


def keep_fixes(rows: list[TopicRecord], fixes: dict[str, str], taxonomy: Taxonomy) -> list[TopicRecord]:
    """The classifier's topics with those a person set in their place (confidence 1), where the taxonomy
    still has the category."""
    known = {*taxonomy.ids, UNCATEGORIZED}
    return [
        replace(r, topic=fixes[r.coordinate], confidence=1.0) if fixes.get(r.coordinate) in known else r for r in rows
    ]


def stale(store: Store, taxonomy: Taxonomy, *, never: bool = True) -> bool:
    """Whether the stored topics were computed with another taxonomy (or, if ``never``, never): cheap."""
    recorded = store.get_meta(META_KEY)
    if recorded is None:
        return never
    return orjson.loads(recorded).get("digest") != taxonomy.digest


def refresh(store: Store, *, force: bool = False) -> ClassifySummary:
    """The ingest and task step: classify, with the configured taxonomy and embedder, the books whose topics
    are not current (none when nothing changed)."""
    from gantha.config import settings
    from gantha.embed import make_embedder
    from gantha.topics.taxonomy import configured_taxonomy

    return classify_index(store, configured_taxonomy(), make_embedder(settings().embedder), force=force)
