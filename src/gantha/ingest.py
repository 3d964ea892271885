"""Ingest: read a source book by book into a store, resumable, skipping what cannot be read.

A book is the unit of work: it is parsed whole before anything of it is written (a malformed file
skips its book and is reported), its old passages are deleted, its new ones added, and it is
recorded as done only in the commit that makes its passages durable. Books whose source files are
unchanged since their recorded ingest are skipped, so re-running an interrupted ingest finishes it.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gantha.corpus import (
    agama,
    agama_marks,
    bible,
    blurbs,
    cst,
    dictionary,
    markdown,
    myanmar,
    parallels,
    suttacentral,
    wikipali,
)
from gantha.corpus.files import SourceError
from gantha.links import agama as agama_links
from gantha.links import build as links
from gantha.links.facts import gather, pack
from gantha.model import BookInfo, ChannelInfo, Passage
from gantha.store.base import BookRecord, Store
from gantha.store.links import LinkRow
from gantha.text import align, chinese
from gantha.text.refs import covering_uid

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
    skipped: list[dict[str, str]] = field(default_factory=list)  # {"item", "reason"}: could not be read
    details: list[dict[str, str]] = field(default_factory=list)  # {"item", "reason"}: read, partly left out
    coverage: dict[str, dict] = field(default_factory=dict)  # per collection, for aligned translations
    report: str | None = None  # the file listing what was skipped or left out
    links: dict | None = None  # the links rebuilt after this source (gantha.links.build.LinkSummary)
    embedded: dict | None = None  # the vectors refreshed after this source (summary of the embedding)
    topics: dict | None = None  # the topics refreshed after it (gantha.topics.ClassifySummary)
    parallels: dict | None = None  # parallels read from the source's own marks (gantha.links.agama.MarkReport)

    @property
    def ok(self) -> bool:
        return not self.skipped


def write_report(summary: IngestSummary, folder: Path) -> Path:
    """Write what a source skipped or left out, one item a line, to ``folder/<source>.tsv``; return the path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{summary.source}.tsv"
    lines = [f"skipped\t{i['item']}\t{i['reason']}" for i in summary.skipped]
    lines += [f"left out\t{i['item']}\t{i['reason']}" for i in summary.details]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


Progress = Callable[[str, int, int], None]  # (book id, passages in it, books total)


def ingest_cst(
    store: Store,
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
    pending: list[tuple[BookRecord, object]] = []  # each book read, with its link facts
    since_commit = 0

    def commit() -> None:
        store.commit([record for record, _ in pending])
        store.set_link_facts([pack("cst", record.signature, facts) for record, facts in pending])
        pending.clear()

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
        passages = list(cst.read_book(book, roots))
        store.add(_counting(passages, record))
        pending.append((record, gather(book.book, passages)))
        summary.books += 1
        summary.passages += record.passages
        summary.page_refs += record.page_refs
        summary.bold_terms += record.bold_terms
        since_commit += record.passages
        if since_commit >= commit_every:
            commit()
            since_commit = 0
        if progress:
            progress(book.book, record.passages, len(books))

    commit()
    store.finish()
    summary.links = refresh_links(store)
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def refresh_links(store: Store) -> dict | None:
    """Rebuild the links between CST paragraphs if a book changed; their summary, or None."""
    rebuilt = links.refresh(store, reports=store.files() / "reports")
    return rebuilt.as_dict() if rebuilt else None


def _counting(passages, record: BookRecord):
    """Pass passages through while counting them, their page breaks and bold terms into ``record``."""
    for p in passages:
        record.passages += 1
        record.page_refs += len(p.page_starts)
        record.bold_terms += len(p.bold)
        yield p


# --- translations ------------------------------------------------------------------------------------


def _align(store: Store, book: str, passages: list) -> tuple[list, int]:
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
    store: Store,
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
    if unaligned:  # the book is read; a few of its paragraphs are left out (not a skipped book)
        summary.details.append(
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
    store: Store,
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


def _unchanged(store: Store, corpus: str, book: str, channel: str, signature: str, force: bool) -> bool:
    recorded = store.books(corpus, channel=channel).get(f"{corpus}/{book}")
    return not force and recorded is not None and recorded.signature == signature


def ingest_myanmar(store: Store, path: Path, *, force: bool = False, progress: Progress | None = None) -> IngestSummary:
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
    store: Store, path: Path, *, force: bool = False, progress: Progress | None = None
) -> IngestSummary:
    """Align SuttaCentral's Pali and translations to the indexed CST paragraphs, collection by collection.

    Each collection (DN, MN, SN, AN, KN, Vinaya) is read against its CST books; every segment lands in
    the paragraph holding its words (``gantha.text.align``), channels ``pli-ms`` and the translations'
    languages. A collection whose files and CST books are unchanged since its last alignment is skipped.
    """
    started = time.perf_counter()
    summary = IngestSummary("suttacentral", str(path))
    texts = suttacentral.discover(path)
    if not texts:
        summary.skipped.append({"item": str(path), "reason": "no SuttaCentral text files (*_root-pli-ms.json) found"})
    titles = suttacentral.names(path)
    _describe(store, path, force)
    recorded = store.books("cst")
    for collection, pattern in suttacentral.COLLECTIONS.items():
        members = [t for t in texts if t.collection == collection]
        separate = [t for t in members if not suttacentral.NOT_SEPARATE.match(t.uid)]
        if not members:
            continue
        books = sorted(rec.info.book for rec in recorded.values() if re.match(pattern, rec.info.book))
        if not books:
            summary.skipped.append(
                {
                    "item": collection,
                    "reason": f"no CST book of this collection is indexed ({pattern}): ingest cst first",
                }
            )
            continue
        files = [f for t in members for f in (t.root, t.reference, *(f for _, f in t.translations)) if f]
        signature = (
            f"align{align.VERSION}|"
            + _signature(*files)
            + "|"
            + "|".join(recorded[f"cst/{b}"].signature for b in books)
        )
        key = f"suttacentral:{collection}"
        if not force and store.get_meta(key) == signature:
            summary.unchanged += 1
            continue
        paragraphs = [p for b in books for p in store.book_passages("cst", b)]
        try:
            aligned = suttacentral.align_collection(paragraphs, separate, titles)
        except SourceError as exc:
            summary.skipped.append({"item": collection, "reason": str(exc)})
            continue
        by_book: dict[tuple[str, str], list] = {}
        for p in aligned.passages:
            by_book.setdefault((p.book, p.channel), []).append(p)
        for book in books:  # this source's channels of an earlier alignment (not the Burmese or others)
            for r in store.channels("cst", book):
                if r.channel.source.lower().startswith("suttacentral"):
                    store.delete_book("cst", book, r.channel.name)
        for passages in by_book.values():
            store.add(passages)
            summary.passages += len(passages)
        store.commit(
            [
                BookRecord(
                    recorded[f"cst/{book}"].info,
                    aligned.channels[(book, channel)],
                    len(passages),
                    signature=signature,
                    source=str(path),
                )
                for (book, channel), passages in by_book.items()
            ]
        )
        store.set_texts(collection, aligned.texts)
        store.set_meta(key, signature)
        summary.books += len({b for b, _ in by_book})
        cov = aligned.coverage
        summary.coverage[collection] = {
            "texts": cov.texts,
            "segments": cov.segments,
            "placed": cov.placed,
            "translated": cov.translated,
            "translated_placed": cov.translated_placed,
            "share": round(cov.share, 4),
            "reference_agreement": round(cov.reference_agrees / cov.reference_checked, 4)
            if cov.reference_checked
            else None,
        }
        summary.details += [{"item": sid, "reason": f"{collection}: {why}"} for sid, why in aligned.left_out]
        summary.details += [
            {"item": t.uid, "reason": "Pātimokkha: its rules stand in the Vibhaṅga, where they are aligned"}
            for t in members
            if suttacentral.NOT_SEPARATE.match(t.uid)
        ]
        if progress:
            progress(collection, len(aligned.passages), len(suttacentral.COLLECTIONS))
    store.finish()
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def _describe(store: Store, path: Path, force: bool) -> None:
    """Load SuttaCentral's blurbs and names (Chinese ones included) when their files changed."""
    files = [f for f in Path(path).rglob("*") if f.is_file() and ({"blurb", "name"} & set(f.relative_to(path).parts))]
    signature = _signature(*sorted(files))
    if force or store.get_meta("suttacentral:descriptions") != signature:
        store.set_descriptions(list(blurbs.read(path).values()))
        store.set_meta("suttacentral:descriptions", signature)


def ingest_parallels(
    store: Store, path: Path, *, force: bool = False, progress: Progress | None = None
) -> IngestSummary:
    """Load SuttaCentral's curated parallels (``parallels.json``) of the texts the index holds: shown by
    ``links`` beside the parallels found in the texts, marked curated."""
    started = time.perf_counter()
    summary = IngestSummary("parallels", str(path))
    signature = _tree_signature(path)
    texts = store.texts()
    if not texts:
        summary.skipped.append({"item": str(path), "reason": "no named texts indexed: ingest suttacentral first"})
        return summary
    if not force and store.get_meta("curated_parallels") == signature:
        summary.unchanged = 1
        return summary
    files = [path] if path.is_file() else sorted(f for f in path.rglob("parallels.json*") if f.is_file())
    groups = []
    for f in files:
        try:
            groups += parallels.read_groups(f)
        except SourceError as exc:
            summary.skipped.append({"item": f.name, "reason": str(exc)})
    if not files:
        summary.skipped.append({"item": str(path), "reason": "no parallels.json found"})
    uids = [t.uid for t in texts]
    by_prefix: dict[str, list[str]] = {}
    for uid in uids:
        by_prefix.setdefault(re.sub(r"[\d.-]+$", "", uid), []).append(uid)
    known = {}
    for uid in {parallels.uid_of(m) for _, members in groups for m in members}:
        start = uid.split("-")[0] if re.search(r"\d-\d+$", uid) else uid
        if found := covering_uid(start, by_prefix.get(re.sub(r"[\d.-]+$", "", start), [])):
            known[uid] = found
    rows = []
    for r in parallels.relations(groups, known):
        uid, _, section = r.target.partition("#")
        target = known.get(uid, uid) + (f"#{section}" if section else "")
        rows.append(LinkRow("curated", r.uid, target, weight=0.5 if "resembling" in r.kind else 1.0, note=r.kind))
    store.replace_links(["curated"], rows)
    store.set_meta("curated_parallels", signature)
    summary.books = len({r.src for r in rows})
    summary.passages = len(rows)
    if progress:
        progress(path.name, len(rows), 1)
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


# --- lexicon ---------------------------------------------------------------------------------------


def _tree_signature(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return _signature(*files)


def ingest_lexicon(store: Store, source: str, path: Path, *, force: bool = False) -> IngestSummary:
    """Load WikiPali's word analysis (``wordstats``), ending tables (``grammar``) or dictionaries (``dict``:
    into the lexicon, and each entry as a searchable document ``dict/<dictionary>/<headword>``)."""
    started = time.perf_counter()
    summary = IngestSummary(source, str(path))
    signature = _tree_signature(path)
    lexicon = store.lexicon()
    documents = source != "dict" or any(r.signature == signature for r in store.books("dict", channel=None).values())
    if not force and lexicon.sources().get(source, (0, ""))[1] == signature and documents:
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
        _dictionary_documents(store, summary, entries, signature, str(path))  # first: the lexicon's record of
        summary.passages = lexicon.load_dictionaries(entries, path, signature)  # the source marks it complete
    else:
        raise ValueError(f"not a lexicon source: {source!r}")
    summary.skipped += [{"item": p.split(":")[0], "reason": p} for p in problems]
    summary.books = 1 if summary.passages else 0
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def _dictionary_documents(store: Store, summary: IngestSummary, entries: list, signature: str, source: str) -> None:
    """Each dictionary a book of corpus ``dict`` in its own channel, each entry a passage whose paragraph is
    its headword (``dict/concise/parivāsa``; a headword's second entry ``parivāsa~2``)."""
    by_dictionary: dict[str, list] = {}
    for e in entries:
        if e.dictionary and e.word.strip():
            by_dictionary.setdefault(e.dictionary, []).append(e)
    for name, rows in sorted(by_dictionary.items()):
        language = Counter(e.language for e in rows).most_common(1)[0][0]
        info = BookInfo("dict", name, dictionary.TITLES.get(name, name), "", ["dictionary"])
        channel = ChannelInfo(name, language, "dictionary", dictionary.TITLES.get(name, name), "MIT", "human", source)
        seen: Counter[str] = Counter()
        passages = []
        for e in rows:
            word = e.word.strip()
            seen[word] += 1
            head = " ".join(x for x in (e.pos.strip("."), e.grammar.strip(".")) if x)
            meanings = "; ".join(m.strip() for m in e.meanings if m.strip())
            text = " ".join(x for x in (word, head, meanings, e.note) if x)
            display = f"**{word}**" + (f" ({head})" if head else "") + (f": {meanings}" if meanings else "")
            passages.append(
                Passage(
                    corpus="dict",
                    book=name,
                    para=word if seen[word] == 1 else f"{word}~{seen[word]}",
                    seq=len(passages),
                    text=text,
                    display=display + (f"\n\n{e.note}" if e.note else ""),
                    channel=name,
                    language=e.language or language,
                    book_title=info.title,
                    bold=[word],
                    tags=info.tags,
                )
            )
        _replace_book(store, summary, info, channel, passages, signature, source)
    summary.passages = len(entries)
    store.finish()


# --- other corpora ----------------------------------------------------------------------------------


def _replace_book(
    store: Store, summary: IngestSummary, info, channel, passages: list, signature: str, source: str
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


def _chinese_terms(store: Store) -> list[str]:
    """The dictionaries' Chinese renderings plus the user's list (GANTHA_ZH_TERMS), for segmentation."""
    terms = store.lexicon().chinese_terms()
    if extra := os.environ.get("GANTHA_ZH_TERMS"):
        terms += chinese.read_words(Path(extra))
    return terms


def ingest_bible(store: Store, path: Path, *, force: bool = False, progress: Progress | None = None) -> IngestSummary:
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


def ingest_agama(store: Store, path: Path, *, force: bool = False, progress: Progress | None = None) -> IngestSummary:
    """Ingest the four Āgamas (one book each, a named text per sūtra) and link each sūtra to its Pali parallels
    from the editor's marks (``raw/``), both ways; marks that name nothing indexed are reported."""
    started = time.perf_counter()
    summary = IngestSummary("agama", str(path))
    found = agama.files(path)
    if not found:
        summary.skipped.append({"item": str(path), "reason": "no Āgama files (agmd/agmm/agms/agmu-lca.md) found"})
    folder = path if path.is_dir() else path.parent
    marks = agama_marks.read_marks(folder)
    store.fix_chinese_terms(_chinese_terms(store))

    def handle(f: Path) -> None:
        collection = agama.collection_of(f)
        assert collection is not None
        signature = _signature(f, *sorted(folder.glob("raw/agmu-lca.txt*")))
        if _unchanged(store, agama.CORPUS, collection.book, agama.CHANNEL.name, signature, force):
            summary.unchanged += 1
            return
        book = agama.read_book(f)
        summary.skipped += book.skipped
        passages = agama.passages(book)
        _replace_book(store, summary, agama.book_info(collection), agama.CHANNEL, passages, signature, str(f))
        names = marks.ea_names if collection.book == "ea" else {}
        store.set_texts(f"agama-{collection.book}", agama.text_records(book, passages, names))

    _file_by_file(store, summary, found, handle, progress, started)
    rows, report = agama_links.editor_links(marks.marks, store.texts())
    store.replace_links([agama_links.KIND], rows)
    summary.parallels = report.as_dict()
    summary.details += [{"item": f"{s} 【{m}】", "reason": why} for s, m, why in report.unresolved]
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def ingest_markdown(
    store: Store, path: Path, *, force: bool = False, progress: Progress | None = None
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
