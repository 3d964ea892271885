"""Ingest: read a source book by book into a store, resumable, skipping what cannot be read.

A book is the unit of work: it is parsed whole before anything of it is written (a malformed file
skips its book and is reported), its old passages are deleted, its new ones added, and it is
recorded as done only in the commit that makes its passages durable. Books whose source files are
unchanged since their recorded ingest are skipped, so re-running an interrupted ingest finishes it.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gantha.corpus import bible, cst, dictionary, markdown, myanmar, suttacentral, wikipali
from gantha.corpus.files import SourceError
from gantha.store.base import BookRecord, Clause, StoreQuery
from gantha.store.embedded import EmbeddedStore
from gantha.store.lexicon import Lexicon
from gantha.store.vectors import VectorIndex
from gantha.text import chinese

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


# --- translations ------------------------------------------------------------------------------------


def _align(store: EmbeddedStore, book: str, passages: list) -> tuple[list, int]:
    """Keep the passages whose coordinate exists in the Pali; give them its order, headings and pages."""
    pali = store.get([p.coordinate for p in passages])
    kept = []
    for p in passages:
        original = pali.get(p.coordinate)
        if original is None:
            continue
        p.seq, p.chapter, p.path, p.book_title = original.seq, original.chapter, original.path, original.book_title
        p.category, p.tags, p.page_refs, p.kind = original.category, original.tags, original.page_refs, original.kind
        kept.append(p)
    return kept, len(passages) - len(kept)


def _store_channel(
    store: EmbeddedStore,
    summary: IngestSummary,
    book: str,
    channel,
    passages: list,
    signature: str,
    source: str,
    item: str,
) -> None:
    records = store.books("cst")
    if f"cst/{book}" not in records:
        summary.skipped.append({"item": item, "reason": f"Pali book {book} is not indexed: ingest cst first"})
        return
    kept, unaligned = _align(store, book, passages)
    if unaligned:
        summary.skipped.append(
            {
                "item": item,
                "reason": f"{unaligned} paragraphs have no CST paragraph "
                "with the same number in {book}; left out".replace("{book}", book),
            }
        )
    store.delete_book("cst", book, channel.name)
    store.add(kept)
    store.commit(
        [BookRecord(records[f"cst/{book}"].info, channel, passages=len(kept), signature=signature, source=source)]
    )
    summary.books += 1
    summary.passages += len(kept)


def _signature(*files: Path) -> str:
    return "|".join(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in files)


def _file_by_file(
    store: EmbeddedStore,
    summary: IngestSummary,
    files: list,
    handle: Callable[[Any], None],
    progress: Progress | None,
    started: float,
) -> IngestSummary:
    """Run ``handle`` on each file; a file it cannot read is reported and skipped, the rest go on."""
    reported = 0  # passages already shown by the progress callback
    for f in files:
        name = getattr(f, "path", f).name
        try:
            handle(f)
        except (SourceError, ValueError) as exc:
            summary.skipped.append({"item": name, "reason": str(exc)})
        if progress:
            progress(name, summary.passages - reported, len(files))
            reported = summary.passages
    store.finish()
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def _unchanged(store: EmbeddedStore, corpus: str, book: str, channel: str, signature: str, force: bool) -> bool:
    recorded = store.books(corpus, channel=channel).get(f"{corpus}/{book}")
    return not force and recorded is not None and recorded.signature == signature


def ingest_myanmar(
    store: EmbeddedStore, path: Path, *, force: bool = False, progress: Progress | None = None
) -> IngestSummary:
    """Ingest the Burmese translation as channel ``my``, aligned to the indexed CST paragraphs."""
    started = time.perf_counter()
    summary = IngestSummary("myanmar", str(path))

    def handle(f: Path) -> None:
        book = myanmar.BOOKS.get(myanmar.stem(f))
        if book and _unchanged(store, "cst", book, myanmar.CHANNEL.name, _signature(f), force):
            summary.unchanged += 1
            return
        passages = list(myanmar.read_file(f))
        _store_channel(store, summary, passages[0].book, myanmar.CHANNEL, passages, _signature(f), str(f), f.name)

    return _file_by_file(store, summary, myanmar.files(path), handle, progress, started)


def ingest_suttacentral(
    store: EmbeddedStore, path: Path, *, force: bool = False, progress: Progress | None = None
) -> IngestSummary:
    """Ingest SuttaCentral segment files: each channel (Pali root, translations) aligned to CST paragraphs."""
    started = time.perf_counter()
    summary = IngestSummary("suttacentral", str(path))
    texts = suttacentral.discover(path)

    def find_book(n: int, volume: int, page: int) -> str | None:
        res = store.search(
            StoreQuery(
                must=[Clause("page_refs", [f"P{volume}.{page:04d}"])],
                filters={"channel": ["pali"]},
                book_pattern="vin",
                limit=100,
                aggregate=(),
            )
        )
        return next((h.passage.book for h in res.hits if h.passage.para == str(n)), None)

    grouped: dict[tuple[str, str], tuple[object, list, list[str]]] = {}
    for text in texts:
        if not text.channels:
            summary.skipped.append({"item": text.text_id, "reason": "only edition references, no text to align"})
            continue
        try:
            book, passages = suttacentral.read_text_channels(text, find_book)
        except ValueError as exc:
            summary.skipped.append({"item": text.text_id, "reason": str(exc)})
            continue
        for channel, _ in text.channels.values():
            entry = grouped.setdefault((book, channel.name), (channel, [], []))
            entry[1].extend(p for p in passages if p.channel == channel.name)
            entry[2].append(text.text_id)
        if progress:
            progress(text.text_id, len(passages), len(texts))
    signature = _tree_signature(path)
    for (book, name), (channel, passages, text_ids) in grouped.items():
        recorded = store.books("cst", channel=name).get(f"cst/{book}")
        if not force and recorded and recorded.signature == signature:
            summary.unchanged += 1
            continue
        _store_channel(store, summary, book, channel, passages, signature, str(path), ",".join(text_ids))
    store.finish()
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


# --- lexicon ---------------------------------------------------------------------------------------


def _tree_signature(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return _signature(*files)


def ingest_lexicon(lexicon: Lexicon, source: str, path: Path, *, force: bool = False) -> IngestSummary:
    """Load WikiPali's word analysis (``wordstats``), ending tables (``grammar``) or dictionaries (``dict``)."""
    started = time.perf_counter()
    summary = IngestSummary(source, str(path))
    signature = _tree_signature(path)
    if not force and lexicon.sources().get(source, (0, ""))[1] == signature:
        summary.unchanged = 1
        return summary
    if source == "wordstats":
        rows, problems = wikipali.read_word_statistics(path)
        summary.passages = lexicon.load_word_analysis(rows, path, signature)
    elif source == "grammar":
        endings, sandhi = wikipali.read_grammar(path)
        summary.passages, problems = lexicon.load_grammar(endings, sandhi, path, signature), []
    elif source == "dict":
        entries, problems = dictionary.read_dictionaries(path)
        summary.passages = lexicon.load_dictionaries(entries, path, signature)
    else:
        raise ValueError(f"not a lexicon source: {source!r}")
    summary.skipped += [{"item": p.split(":")[0], "reason": p} for p in problems]
    summary.books = 1 if summary.passages else 0
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


# --- other corpora ----------------------------------------------------------------------------------


def _replace_book(
    store: EmbeddedStore, summary: IngestSummary, info, channel, passages: list, signature: str, source: str
) -> None:
    store.delete_book(info.corpus, info.book, channel.name)
    store.add(passages)
    store.commit(
        [
            BookRecord(
                info,
                channel,
                passages=len(passages),
                bold_terms=sum(len(p.bold) for p in passages),
                signature=signature,
                source=source,
            )
        ]
    )
    summary.books += 1
    summary.passages += len(passages)
    summary.bold_terms += sum(len(p.bold) for p in passages)


def _chinese_terms(store: EmbeddedStore) -> list[str]:
    """The dictionaries' Chinese renderings plus the user's list (GANTHA_ZH_TERMS), for segmentation."""
    terms = Lexicon(store.path).chinese_terms()
    if extra := os.environ.get("GANTHA_ZH_TERMS"):
        terms += chinese.read_words(Path(extra))
    return terms


def ingest_bible(
    store: EmbeddedStore, path: Path, *, force: bool = False, progress: Progress | None = None
) -> IngestSummary:
    """Ingest verse-aligned Bible translations (one passage per verse per translation)."""
    started = time.perf_counter()
    summary = IngestSummary("bible", str(path))
    found = bible.files(path)
    if not found:
        summary.skipped.append({"item": str(path), "reason": "no Bible book files (kjv*.xml, hhb*.xml) found"})
    store.fix_chinese_terms(_chinese_terms(store))

    def handle(bf: bible.BibleFile) -> None:
        info, chinese_name, verses = bible.read_file(bf)
        if _unchanged(store, "bible", info.book, bf.channel.name, _signature(bf.path), force):
            summary.unchanged += 1
            return
        info.aliases = [chinese_name] if chinese_name else []
        _replace_book(store, summary, info, bf.channel, list(verses), _signature(bf.path), str(bf.path))

    return _file_by_file(store, summary, found, handle, progress, started)


def ingest_markdown(
    store: EmbeddedStore, path: Path, *, force: bool = False, progress: Progress | None = None
) -> IngestSummary:
    """Ingest a folder of Markdown/text books as heading-aware chunks."""
    started = time.perf_counter()
    summary = IngestSummary("markdown", str(path))
    store.fix_chinese_terms(_chinese_terms(store))

    def handle(f: Path) -> None:
        if _unchanged(store, "md", markdown.book_of(f, path), markdown.CHANNEL.name, _signature(f), force):
            summary.unchanged += 1
            return
        info, passages = markdown.read_file(f, path)
        _replace_book(store, summary, info, markdown.CHANNEL, passages, _signature(f), str(f))

    return _file_by_file(store, summary, markdown.files(path), handle, progress, started)


# --- vectors ------------------------------------------------------------------------------------------


def embed_corpora(
    store: EmbeddedStore, embedder, corpora: list[str], *, progress: Progress | None = None, batch: int = 256
) -> IngestSummary:
    """Embed every passage of these corpora that has no vector yet (vectors live beside the index)."""
    started = time.perf_counter()
    summary = IngestSummary("embed", ",".join(corpora))
    vectors = VectorIndex(store.path, embedder.name, embedder.dim)
    for corpus in corpora:
        passages = store.iter_passages(corpus)
        vectors.retain(corpus, {p.doc_id for p in passages})
        todo = [p for p in passages if vectors.checksum(p.doc_id) != zlib.crc32(p.text.encode())]
        for i in range(0, len(todo), batch):
            chunk = todo[i : i + batch]
            vectors.add(
                [p.doc_id for p in chunk],
                embedder.encode([p.text for p in chunk]),
                [(p.corpus, p.channel, p.language, zlib.crc32(p.text.encode()), p.primary) for p in chunk],
            )
            summary.passages += len(chunk)
            if progress:
                progress(corpus, len(chunk), max(1, len(todo) // batch + 1))
        summary.books += 1
    vectors.save()
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


# every source by name: the store's readers, the lexicon's tables, and the corpus whose vectors an
# ingest of that source refreshes (when the corpus is in GANTHA_VECTOR_CORPORA)
STORE_INGESTERS = {
    "cst": ingest_cst,
    "myanmar": ingest_myanmar,
    "suttacentral": ingest_suttacentral,
    "bible": ingest_bible,
    "markdown": ingest_markdown,
}
LEXICON_SOURCES = ("wordstats", "grammar", "dict")
SOURCES = (*STORE_INGESTERS, *LEXICON_SOURCES)
VECTOR_CORPUS_OF = {"bible": "bible", "markdown": "md"}
