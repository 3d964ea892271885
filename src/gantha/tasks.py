"""Asynchronous ingestion: the runner that works an index's task queue (see :mod:`gantha.store.queue`).

Each task runs under the store's writer lock (one writer per index, whichever server holds it); a
task that meets another writer is queued again, any failure is the task's outcome, never the server's.
The work itself is done in a child process at a lower CPU priority, so that an ingest or a delete
yields the cores (and the interpreter lock) to the requests the server is answering.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
import uuid
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict
from datetime import timedelta
from pathlib import Path
from typing import Any

from gantha import topics
from gantha.config import settings
from gantha.embed.corpora import embed_corpora
from gantha.ingest import ingest_lexicon, refresh_links
from gantha.model import comma_list
from gantha.search import form_lemmas
from gantha.search.words import Words
from gantha.sources import LEXICON_SOURCES, SOURCES, vectors_after
from gantha.store.base import BookRecord, IndexBusy, ReadOnlyIndex, Store, StoreError
from gantha.store.factory import open_store
from gantha.store.queue import MAX_ATTEMPTS, Task, TaskQueue, remove_upload
from gantha.store.vectors import doc_of

__all__ = ["MAX_ATTEMPTS", "Task", "TaskQueue", "TaskRunner", "run_task", "save_upload"]

NICENESS = 10  # the task process's CPU priority below the server's
PR_SET_PDEATHSIG = 1  # prctl: the signal this process gets when its parent ends
PRUNE_EVERY = 60.0  # seconds between two prunings of the finished tasks while the queue is idle
WARM_SLICE = 60.0  # seconds an expand task computes before it queues the rest again (writes wait no longer)
PREPARED_WORDS = 5_000  # the most frequent words whose searches' counts an expand task prepares (a store keeping them)


def _lower_priority() -> None:
    """The task process: at lower priority than the server, and ended with it (Linux): a server stopped
    by a signal leaves no idle task process holding memory (a task cut short is recovered at the next start)."""
    os.nice(NICENESS)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def _run_isolated(task: Task, location: str) -> dict[str, Any]:
    """``run_task`` in the task process, over its own connection to the index."""
    with contextlib.closing(open_store(location)) as store:
        return run_task(task, store)


def run_task(task: Task, store: Store) -> dict[str, Any]:
    """Do one task; return its result (raises on failure)."""
    if task.kind == "delete":
        result = _delete(store, task.params["corpus"], task.params["book"])
    elif task.kind == "classify":
        return asdict(topics.refresh(store, force=bool(task.params.get("force"))))
    elif task.kind == "summarize":
        return _summarize(store, task)
    elif task.kind == "expand":
        return _expand(store)
    else:
        result = _ingest(store, task)
    form_lemmas.tabulate(store)  # the written forms the write added (all of them after a lexicon change)
    if task.params.get("source") not in LEXICON_SOURCES:  # the topics of the documents that changed: one task
        _queue_once(store, "classify")  # after the writes queued with this one (twenty uploads: one classification)
        result["topics"] = "a classify task is queued"
    if task.kind != "delete" and SOURCES[task.params["source"]].corpus in comma_list(settings().summary_corpora):
        _queue_once(store, "summarize")  # a deleted book's summaries went with it
        result["summaries"] = "a summarize task is queued"
    if settings().warm_words:  # the vocabulary or the lexicon may have changed: the kept inflections went with it
        _queue_once(store, "expand")
    return result


def _words(store: Store) -> Words:
    return Words(store.lexicon(), store)


def _expand(store: Store) -> dict[str, Any]:
    """Compute the inflections of the most frequent words (``GANTHA_WARM_WORDS``) for a while, then, on a store
    that keeps counts, the counts of their searches (:data:`PREPARED_WORDS`), and queue the rest: a write
    queued meanwhile runs first."""
    until = time.monotonic() + WARM_SLICE
    form_lemmas.tabulate(store)  # after a lexicon copied in, or a first run's ingest that left it to this task
    words = _words(store)
    kept, wanted = words.warm(settings().warm_words, WARM_SLICE)
    done = kept == wanted and (not store.counts_ahead or _prepare_counts(store, words, until))
    if not done:
        _queue_once(store, "expand")
    return {"kept": kept, "wanted": wanted, **({"counts_prepared": store.prepared()} if store.counts_ahead else {})}


def _prepare_counts(store: Store, words: Words, until: float) -> bool:
    """Count ahead the searches of the most frequent words as a search plans them (each word's lemma: typed
    without diacritics, and as its two most frequent spellings, which may be read as another), until ``until``;
    whether all were."""
    from gantha.model import SearchRequest
    from gantha.search.errors import SearchError
    from gantha.search.plan import Planner

    planner = Planner(store, words.inflection, words.is_headword)
    for folded in store.frequent_words(PREPARED_WORDS):
        spellings = [form for form, _, _ in store.forms_by_fold(folded)[:2] if form != folded]
        for word in (folded, *spellings):
            if time.monotonic() > until:
                return False
            with contextlib.suppress(SearchError):
                store.prepare(planner.plan(SearchRequest(q=word))[0])
    return True


def _queue_once(store: Store, kind: str) -> None:
    queue = store.tasks()
    if not any(t.state == "queued" for t in queue.pending(kind)):
        queue.submit(kind, {})


def _summarize(store: Store, task: Task) -> dict[str, Any]:
    """The summaries of the corpora in GANTHA_SUMMARY_CORPORA (or of ``params.books``): by the model where
    one is configured; a node already current is skipped, so a task run again resumes."""
    from gantha.summaries import summarize

    queue = store.tasks()
    done = {"books": 0, "nodes": 0}

    def progress(book: str, nodes: int, total: int) -> None:
        done["books"] += 1
        done["nodes"] += nodes
        queue.update(task.id, done=done["books"], passages=done["nodes"], total=total, message=book)

    books = task.params.get("books")
    corpora = None if books else comma_list(settings().summary_corpora)
    summary = summarize(store, books, corpora=corpora, force=bool(task.params.get("force")), progress=progress)
    return summary.as_dict()


def _ingest(store: Store, task: Task) -> dict[str, Any]:
    source, path = task.params["source"], Path(task.params["path"])
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    if source in LEXICON_SOURCES:
        return asdict(ingest_lexicon(store, source, path))
    queue = store.tasks()
    corpus = SOURCES[source].corpus
    earlier = _committed_earlier(store, task, corpus, path)
    # kept here; written to the queue at most every 0.3 s
    counts = {"done": len(earlier), "passages": sum(r.passages for r in earlier.values()), "written": 0.0}

    def progress(name: str, passages: int, total: int) -> None:
        counts["passages"] += passages
        counts["done"] += 1 if passages else 0
        if time.monotonic() - counts["written"] > 0.3 or counts["done"] >= total:
            counts["written"] = time.monotonic()
            queue.update(task.id, done=counts["done"], passages=counts["passages"], total=total, message=name)

    try:
        summary = SOURCES[source].ingester(store, path, progress=progress)
        targets = vectors_after(source, settings().vector_corpora)
        embedded = None
        if targets:
            from gantha.embed import make_embedder

            queue.update(task.id, message=f"embedding {','.join(targets)}")
            embedded = asdict(embed_corpora(store, make_embedder(settings().embedder), targets))
    finally:
        store.finish()
    now = {(r.info.book, r.channel.name): r.ingested_at for r in store.records() if r.info.corpus == corpus}
    resumed = [r for key, r in earlier.items() if now.get(key) == r.ingested_at]  # skipped now as unchanged
    if resumed:  # a resumed task reports the books it committed before it was interrupted as its own
        summary.books += len(resumed)
        summary.unchanged -= len(resumed)
        summary.passages += sum(r.passages for r in resumed)
        summary.page_refs += sum(r.page_refs for r in resumed)
        summary.bold_terms += sum(r.bold_terms for r in resumed)
    result = asdict(summary)
    if resumed:
        result["resumed"] = {"books": len(resumed), "passages": sum(r.passages for r in resumed)}
    if embedded:
        result["embedded"] = embedded
    return result


def _committed_earlier(store: Store, task: Task, corpus: str, path: Path) -> dict[tuple[str, str], BookRecord]:
    """The books read from ``path`` that were committed since the task was submitted: by an earlier run of
    this task that was interrupted (a process that died), keyed (book, channel)."""
    root = str(path)
    sources = {root, str(path.parent)} if path.is_file() else {root}  # a CST book records its folder
    return {
        (r.info.book, r.channel.name): r
        for r in store.records()
        if r.info.corpus == corpus
        and r.ingested_at >= task.created_at
        and (r.source in sources or r.source.startswith(root.rstrip("/") + "/"))
    }


def _delete(store: Store, corpus: str, book: str) -> dict[str, Any]:
    """Delete a document's channels and vectors; one already gone is no error (a delete is idempotent)."""
    records = store.channels(corpus, book)
    if records:
        for r in records:
            store.delete_book(corpus, book, r.channel.name)
        store.commit()
        store.finish()
        if corpus == "cst":
            refresh_links(store)
    removed = 0
    for name in store.vector_sets():
        vi = store.vectors(name, 0)
        before = len(vi)
        vi.retain(corpus, {doc_of(i) for i in vi.ids if not i.startswith(f"{corpus}/{book}/")})
        if len(vi) != before:
            removed += before - len(vi)
            vi.save()
    return {"deleted": f"{corpus}/{book}", "channels": [r.channel.name for r in records], "vectors_removed": removed}


class TaskRunner:
    """A daemon thread in the server process that works the queue, one task at a time."""

    def __init__(self, location: str | Path, idle: float = 0.5, kinds: tuple[str, ...] | None = None) -> None:
        self.location = str(location)
        self.idle = idle
        self.kinds = kinds  # the kinds of task this runner takes (None: all; a server without the admin API: expand)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="gantha-tasks", daemon=True)
        self.store: Store | None = None  # holds the queue and the writer lock; each task opens its own
        self._worker: ProcessPoolExecutor | None = None  # the process the tasks run in, started on first use
        self._pruned = 0.0  # monotonic time of the last pruning

    def start(self) -> TaskRunner:
        """Recover the tasks of a stopped process and run the queue (not on a read-only database: a server on a
        replica runs no tasks, and its admin routes answer 503 read_only)."""
        self.store = open_store(self.location)
        try:
            self.store.tasks().recover()
        except ReadOnlyIndex as exc:
            print(f"gantha: no tasks run here: {exc}", file=sys.stderr)
            return self
        except StoreError as exc:  # a damaged queue: the server answers, health says why no task runs
            print(f"gantha: tasks not run: {exc}", file=sys.stderr)
        if self.kinds is None:
            self._classify_if_stale()
        self._expand_if_due()
        self._thread.start()
        return self

    def _classify_if_stale(self) -> None:
        """Queue a classification when the taxonomy changed since the topics were computed."""
        try:
            if self.store is None or not topics.stale(self.store, topics.configured_taxonomy(), never=False):
                return
            queue = self.store.tasks()
            if not any(t.kind == "classify" and t.state in ("queued", "running") for t in queue.list()):
                queue.submit("classify", {})
        except (topics.TaxonomyError, StoreError) as exc:  # reported, never the server's crash
            print(f"gantha: topics not refreshed: {exc}", file=sys.stderr)

    def _expand_if_due(self) -> None:
        """Queue the inflections of the most frequent words when they are not all kept (a new index, an index
        of an earlier version, a lexicon ingested), the forms' lemmas when they lag, or the frequent searches'
        counts on a store that keeps them."""
        try:
            limit = settings().warm_words
            if self.store is None or not limit or self.store.tasks().pending("expand"):
                return
            words = _words(self.store)
            kept, wanted = words.warm(limit, 0.0)
            prepared = not self.store.counts_ahead or self.store.prepared()
            if kept < wanted or form_lemmas.due(self.store, words) or not prepared:
                _queue_once(self.store, "expand")
        except (StoreError, OSError) as exc:  # reported, never the server's crash
            print(f"gantha: word inflections not prepared: {exc}", file=sys.stderr)

    def stop(self) -> None:
        """Stop after the running task; a task still running past 5 s ends in its own time (the thread
        then closes the store), so its outcome is still written."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if self._worker is not None:
            self._worker.shutdown(wait=False, cancel_futures=True)
        if self._thread.ident is None and self.store is not None:  # stepped by hand: no thread to close it
            self.store.close()

    def _run(self, task: Task) -> dict[str, Any]:
        """The task in the task process (a fresh one if the last died: its task is reported failed)."""
        if self._worker is None:
            spawn = multiprocessing.get_context("spawn")  # no copy of the server's threads and sockets
            self._worker = ProcessPoolExecutor(1, mp_context=spawn, initializer=_lower_priority)
        try:
            return self._worker.submit(_run_isolated, task, self.location).result()
        except BrokenProcessPool as exc:
            self._worker = None
            raise RuntimeError("the task process died (out of memory, or killed)") from exc

    def _loop(self) -> None:
        try:
            while not self._stop.is_set():
                try:
                    stepped = self.step()
                    if not stepped and time.monotonic() - self._pruned > PRUNE_EVERY:
                        self.prune()
                except StoreError:  # the queue cannot be read (health says so): tried again after a pause
                    stepped = False
                if not stepped:
                    self._stop.wait(self.idle)
        finally:
            if self.store is not None:
                self.store.close()

    def prune(self) -> int:
        """Remove the finished tasks past their retention (``GANTHA_TASK_RETENTION_*``); return how many."""
        self._pruned = time.monotonic()
        if self.store is None:
            self.store = open_store(self.location)
        s = settings()
        return self.store.tasks().prune(
            timedelta(hours=s.task_retention_hours),
            timedelta(hours=s.task_retention_failed_hours),
            s.task_retention_count,
        )

    def step(self) -> bool:
        """Run the next task if the writer lock is free; return whether one ran."""
        if self.store is None:
            self.store = open_store(self.location)
        with self.store.writer_lock() as free:
            if not free:
                return False
            queue = self.store.tasks()
            queue.recover()
            task = queue.claim(self.kinds)
            if task is None:
                return False
            try:
                result = self._run(task)
            except IndexBusy:  # a CLI ingest beside the server: queued again, tried when the index is free
                queue.requeue(task.id, "the index is being written by another process; will retry")
                return False
            except Exception as exc:  # any failure is the task's outcome, reported, never the server's crash
                queue.update(task.id, state="failed", error=f"{type(exc).__name__}: {exc}", message="failed")
            else:
                queue.update(task.id, state="done", result=result, message="done")
            remove_upload(task.params)  # kept only until its task has ended (its text is in the index, or it failed)
            if not queue.count("queued"):  # a write's chain (its classify and summarize tasks) has ended
                self.prune()
            return True


def save_upload(store: Store, filename: str, data: bytes) -> Path:
    """Keep an uploaded file beside the index (``uploads/<id>/<name>``) for its ingestion task."""
    name = Path(filename).name
    if not name or name.startswith("."):
        raise ValueError(f"invalid file name {filename!r}")
    folder = store.files() / "uploads" / uuid.uuid4().hex[:12]
    folder.mkdir(parents=True)
    target = folder / name
    target.write_bytes(data)
    return target
