"""Stored summaries of every outline node — L1 a book or document, L2 a chapter, L3 a section and deeper —
written bottom-up, each with its own vector.

Without a model a node keeps its extractive summary (:mod:`gantha.text.summary`, as ``outline`` shows
it). With a model (``GANTHA_LLM_BASE_URL``, the local one included) the nodes of the corpora in
``GANTHA_SUMMARY_CORPORA`` (by default the uploaded documents: what is practical on two cores) get an
abstractive summary written from the node's title, its children's summaries (children first) and an
even sample of its own text.

A node's signature hashes what its summary is written from: its text, its children's summaries, the
method and the embedder. A node whose stored signature is unchanged is skipped; a model's summary is
also kept in a cache by signature, so a text re-ingested unchanged is never summarised twice. Each
node is stored as soon as it is written: a task killed midway resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from gantha.model import SummaryRecord, comma_list
from gantha.rag.errors import LLMError
from gantha.research.outline import HEADING_KINDS, _Node, node_coordinate, node_level

if TYPE_CHECKING:
    from gantha.embed import Embedder
    from gantha.rag.llm import ChatClient
    from gantha.research import Research

METHOD = "summaries-1"  # bump when the prompt or the extractive method changes: every signature changes
TEXT_CHARS = 4000  # of a node's own text given to the model (an even sample of its paragraphs)
CHILDREN = 20  # children's summaries given to the model (the first ones)
MAX_TOKENS = 160
SYSTEM = (
    "You summarise one part of a text for a reader deciding whether to read it. Write two or three plain "
    "sentences in English saying what this part is about: its subject, the people and the teaching or rules "
    "it gives. No preamble, no bullet points, no opinion."
)


@dataclass
class SummarizeSummary:
    books: int = 0
    nodes: int = 0
    written: int = 0  # summaries written this run (extractive or by the model)
    model_calls: int = 0
    cached: int = 0  # model summaries taken from the content-hash cache
    unchanged: int = 0  # nodes whose stored summary was current
    seconds: float = 0.0
    model_seconds: float = 0.0  # spent waiting for the model
    method: str = "extractive"  # or "model:<name>"
    errors: list[str] = field(default_factory=list)  # nodes left extractive because the model failed

    @property
    def per_model_summary_s(self) -> float | None:
        return round(self.model_seconds / self.model_calls, 2) if self.model_calls else None

    def as_dict(self) -> dict[str, Any]:
        """The fields and the model's seconds per summary (a task's result, the CLI's JSON)."""
        return {**asdict(self), "per_model_summary_s": self.per_model_summary_s}


def _post_order(node: _Node):  # type: ignore[no-untyped-def]
    for child in node.children:
        yield from _post_order(child)
    yield node


def _digest(*parts: str) -> str:
    h = hashlib.sha1()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()


def _sample(texts: list[str], limit: int = TEXT_CHARS) -> str:
    """An even sample of the paragraphs, in order, within ``limit`` characters."""
    total = sum(len(t) for t in texts)
    if total <= limit:
        return "\n".join(texts)
    n = max(1, int(limit * len(texts) / total))
    return "\n".join(texts[i * len(texts) // n] for i in range(n))[:limit]


def _clean(text: str) -> str:
    text = re.sub(r"^\s*(summary|this part)\s*:\s*", "", text.strip(), flags=re.I)
    return re.sub(r"\s+", " ", text).strip()


class Summarizer:
    """Writes the summaries of books over one index's outlines (``research``)."""

    def __init__(
        self,
        research: Research,
        embedder: Embedder | None = None,
        client: ChatClient | None = None,
        model_corpora: tuple[str, ...] = ("md",),
    ):
        self.research, self.store = research, research.store
        self.embedder, self.client, self.model_corpora = embedder, client, model_corpora

    def books(self, wanted: list[str] | None = None) -> list[tuple[str, str]]:
        """The books to summarise: those named (``corpus/book``), else every book of the index."""
        every = sorted({(r.info.corpus, r.info.book) for r in self.store.records()})
        if not wanted:
            return every
        known = set(every)
        chosen = [tuple(w.strip().split("/", 1)) for w in wanted]
        missing = [f"{c}/{b}" for c, b in chosen if (c, b) not in known]
        if missing:
            raise ValueError(f"no such book in the index: {', '.join(missing)} (see `gantha outline CORPUS`)")
        return chosen  # type: ignore[return-value]

    def run(
        self,
        books: list[tuple[str, str]],
        force: bool = False,
        progress: Callable[[str, int, int], None] | None = None,
        described_only: bool = False,
    ) -> SummarizeSummary:
        """Summarise these books; ``progress(book, its nodes, books in all)`` after each; ``described_only``:
        only the nodes SuttaCentral describes (their blurbs, embedded), the others left as they are."""
        started = time.perf_counter()
        out = SummarizeSummary(method=f"model:{self.client.model}" if self.client else "extractive")
        for corpus, book in books:
            before = out.nodes
            self._book(corpus, book, force, out, described_only)
            out.books += 1
            if progress:
                progress(f"{corpus}/{book}", out.nodes - before, len(books))
        out.seconds = round(time.perf_counter() - started, 2)
        out.model_seconds = round(out.model_seconds, 2)
        return out

    def _book(self, corpus: str, book: str, force: bool, out: SummarizeSummary, described_only: bool = False) -> None:
        tree, channel = self.research._book_tree(corpus, book)
        stored = self.store.node_summaries(corpus, book)
        use_model = self.client is not None and corpus in self.model_corpora
        method = f"{METHOD}:{f'model:{self.client.model}' if use_model and self.client else 'extractive'}"
        embedder = self.embedder.name if self.embedder else ""
        written: dict[int, str] = {}
        pending: list[SummaryRecord] = []
        coordinates = []
        for node in _post_order(tree):
            coordinate = node_coordinate(corpus, book, node)
            coordinates.append(coordinate)
            described = self.research.node_description(corpus, book, node)
            blurb = described.blurb if described is not None else ""
            if described_only and not blurb:
                continue
            texts = [] if blurb else self._texts(corpus, book, node, channel)
            kind = f"{METHOD}:suttacentral" if blurb else method
            signature = _digest(kind, embedder, blurb, *texts, *(written.get(id(c), "") for c in node.children))
            out.nodes += 1
            old = stored.get(coordinate)
            if old is not None and old.signature == signature and not force:
                written[id(node)] = old.text
                out.unchanged += 1
                continue
            if blurb:  # a person's summary (SuttaCentral's blurb): no model call, no extract
                text, by_model = blurb, False
                out.written += 1
            else:
                text, by_model = self._write(corpus, book, node, channel, texts, written, signature, use_model, out)
            written[id(node)] = text
            if not text:
                continue
            if use_model and not by_model and not blurb:  # the model failed here: kept extractive, tried again
                record = SummaryRecord(coordinate, corpus, book, node_level(node), "", f"{METHOD}:extractive", text)
            else:
                record = SummaryRecord(coordinate, corpus, book, node_level(node), signature, kind, text)
            pending.append(record)
            if use_model:  # slow: stored node by node
                self._store(corpus, book, pending)
                pending = []
        self._store(corpus, book, pending)
        gone = set(stored) - set(coordinates)
        if gone:
            keep = [r for c, r in self.store.node_summaries(corpus, book).items() if c not in gone]
            self.store.set_summaries(corpus, book, keep, keep_only=True)

    def _store(self, corpus: str, book: str, rows: list[SummaryRecord]) -> None:
        if not rows:
            return
        if self.embedder is not None:
            for r, v in zip(rows, self.embedder.encode([r.text for r in rows]), strict=True):
                r.vector = [float(x) for x in v]
        self.store.set_summaries(corpus, book, rows)

    def _texts(self, corpus: str, book: str, node: _Node, channel: str) -> list[str]:
        """The node's own body text in the channel its summary is drawn from (sampled for a long node)."""
        body = [p for p in node.passages if p.kind not in HEADING_KINDS]
        if not body:
            return []
        source = self.research._summary(corpus, book, node, channel)[1] or channel
        found = self.store.get([p.coordinate for p in body[:: max(1, len(body) // 400)]], source)
        return [found[p.coordinate].text for p in body if p.coordinate in found]

    def _write(
        self,
        corpus: str,
        book: str,
        node: _Node,
        channel: str,
        texts: list[str],
        written: dict[int, str],
        signature: str,
        use_model: bool,
        out: SummarizeSummary,
    ) -> tuple[str, bool]:
        """The node's summary and whether the model wrote it."""
        extractive = self.research._summary(corpus, book, node, channel)[0] or ""
        if not use_model or self.client is None or not (texts or node.children):
            out.written += bool(extractive)
            return extractive, False
        if cached := self.store.cached_summary(signature):
            out.cached += 1
            return cached, True
        parts = [f"{c.title}: {written[id(c)]}" for c in node.children[:CHILDREN] if written.get(id(c))]
        prompt = f"Title: {' › '.join(_path(node)) or node.title}\n"
        if parts:
            prompt += "\nSummaries of its parts:\n" + "\n".join(f"- {p}" for p in parts) + "\n"
        if texts:
            prompt += f"\nIts text{' (excerpts)' if sum(map(len, texts)) > TEXT_CHARS else ''}:\n{_sample(texts)}\n"
        t = time.perf_counter()
        try:
            done = self.client.complete(
                [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}],
                temperature=0,
                max_tokens=MAX_TOKENS,
            )
        except LLMError as exc:  # the node keeps its extractive summary; the run goes on
            out.errors.append(f"{node_coordinate(corpus, book, node)}: {exc}")
            out.written += bool(extractive)
            return extractive, False
        finally:
            out.model_seconds += time.perf_counter() - t
        out.model_calls += 1
        text = _clean(done.content)
        if not text:
            out.errors.append(f"{node_coordinate(corpus, book, node)}: the model wrote nothing")
            return extractive, False
        self.store.cache_summary(signature, f"model:{self.client.model}", text)
        out.written += 1
        return text, True


def _path(node: _Node) -> list[str]:
    path, up = [], node
    while up is not None:
        if up.title:
            path.insert(0, up.title)
        up = up.parent
    return path


def summarize(
    store: Any,
    books: list[str] | None = None,
    *,
    corpora: list[str] | None = None,
    model: bool | None = None,
    force: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> SummarizeSummary:
    """Summarise the named books (``corpus/book``; default: every book of ``corpora``, else of the index)
    of an open store with the configured embedder and, unless ``model`` is False, the configured model."""
    from gantha.config import settings
    from gantha.embed import make_embedder
    from gantha.rag.llm import client_from_settings
    from gantha.research import Research

    s = settings()
    client = client_from_settings(s) if model is not False else None
    if model and client is None:
        raise ValueError("no model is configured: set GANTHA_LLM_BASE_URL (local: the bundled model)")
    research = Research(store, store.lexicon())
    summarizer = Summarizer(research, make_embedder(s.embedder), client, tuple(comma_list(s.summary_corpora)))
    chosen = [b for b in summarizer.books(books) if books or not corpora or b[0] in corpora]
    return summarizer.run(chosen, force=force, progress=progress)


def summarize_described(store: Any, progress: Callable[[str, int, int], None] | None = None) -> SummarizeSummary:
    """Store SuttaCentral's blurbs as the summaries (with vectors) of the nodes they describe, in the canon's books
    of its collections; no model, nothing else written. Unchanged blurbs are skipped."""
    from gantha.config import settings
    from gantha.embed import make_embedder
    from gantha.research import Research
    from gantha.research.descriptions import divisions_of

    if not store.descriptions():
        return SummarizeSummary(method="suttacentral")
    research = Research(store, store.lexicon())
    summarizer = Summarizer(research, make_embedder(settings().embedder))
    books = [b for b in summarizer.books() if b[0] == "cst" and divisions_of(b[1])]
    return summarizer.run(books, progress=progress, described_only=True)
