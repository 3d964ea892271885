"""Ingest: read a source book by book into a store, resumable, skipping what cannot be read.

A book is the unit of work: it is parsed whole before anything of it is written (a malformed file
skips its book and is reported), its old passages are deleted, its new ones added, and it is
recorded as done only in the commit that makes its passages durable. Books whose source files are
unchanged since their recorded ingest are skipped, so re-running an interrupted ingest finishes it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gantha.corpus import cst
from gantha.store.base import BookRecord
from gantha.store.embedded import EmbeddedStore

COMMIT_EVERY = 100_000  # passages between commits: the most an interruption can lose


@dataclass
class IngestSummary:
    source: str
    path: str
    books: int = 0
    unchanged: int = 0
    passages: int = 0
    page_refs: int = 0
    bold_terms: int = 0
    seconds: float = 0.0
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"item", "reason"}

    @property
    def ok(self) -> bool:
        return not self.skipped


Progress = Callable[[str, int, int], None]  # (book id, passages in it, books total)


def ingest_cst(
    store: EmbeddedStore,
    path: Path,
    *,
    force: bool = False,
    progress: Progress | None = None,
    commit_every: int = COMMIT_EVERY,
) -> IngestSummary:
    """Ingest the CST books found at ``path`` (a folder or one file)."""
    started = time.perf_counter()
    summary = IngestSummary("cst", str(path))
    books, problems = cst.discover(path)
    summary.skipped += [{"item": p.split(":")[0], "reason": p} for p in problems]
    recorded = store.books("cst")
    pending: list[BookRecord] = []
    since_commit = 0

    for book in books:
        key = f"cst/{book.book}"
        signature = book.signature() if not book.problems else ""
        if not force and key in recorded and recorded[key].signature == signature:
            summary.unchanged += 1
            if progress:
                progress(book.book, 0, len(books))
            continue
        try:
            roots = cst.parse_book(book)
        except cst.BookError as exc:
            summary.skipped.append({"item": book.book, "reason": str(exc)})
            if progress:
                progress(book.book, 0, len(books))
            continue
        record = BookRecord(book.info, signature=signature, source=str(book.files[0].parent))
        store.delete_book("cst", book.book)
        counted = _counting(cst.read_book(book, roots), record)
        store.add(counted)
        summary.books += 1
        summary.passages += record.passages
        summary.page_refs += record.page_refs
        summary.bold_terms += record.bold_terms
        pending.append(record)
        since_commit += record.passages
        if since_commit >= commit_every:
            store.commit(pending)
            pending, since_commit = [], 0
        if progress:
            progress(book.book, record.passages, len(books))

    store.commit(pending)
    store.finish()
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def _counting(passages, record: BookRecord):
    """Pass passages through while counting them, their page breaks and bold terms into ``record``."""
    for p in passages:
        record.passages += 1
        record.page_refs += len(p.page_starts)
        record.bold_terms += len(p.bold)
        yield p
