"""What an index's vectors hold, and building them.

A target (``cst:en``, ``bible``, ``md``) is cut into groups: the canon's aligned translations are read as
continuous texts (``WINDOWS``), a sutta's paragraphs one group, embedded as overlapping windows, each a row of
the paragraph holding its middle, and the sutta's SuttaCentral blurb one more row of its first body paragraph;
any other corpus passage by passage, a long passage in pieces of consecutive sentences. Each group carries the
checksum of the texts it embeds, so embedding again embeds only what changed, and a target's texts have one
checksum (:func:`texts_checksum`) that a vector pack is checked against.

:func:`embed_corpora` embeds the groups whose vectors are not current, whole groups at a time, and saves as it
goes: an interrupted run loses at most ``save_every`` seconds and the next one resumes. When a target is done
it is marked complete for its sources (:func:`mark`, :func:`complete`): a route that must not answer from a
partial set (the upgrade to a stronger embedder) waits for that mark.
"""

from __future__ import annotations

import hashlib
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import orjson

from gantha.embed.base import Embedder
from gantha.ingest import IngestSummary, Progress
from gantha.model import HEADING_KINDS, Passage, comma_list
from gantha.store.base import Store, Vectors
from gantha.text.sentences import chunks

CHUNK_WORDS = 100  # longest piece of a passage that gets one vector
WINDOWS = {"cst": (80, 50)}  # corpora read as continuous texts: windows of 80 words every 50 (not passage by passage)
LAYOUT = 2  # bump when what a group embeds changes (windows, blurbs): every completion mark is then stale
SAVE_EVERY = 120.0  # seconds between saves of a long run (what an interruption can lose)


def vector_targets(spec: str | list[str]) -> list[tuple[str, str | None]]:
    """``"cst:en,bible"`` → ``[("cst", "en"), ("bible", None)]``: corpora (and channel) that get vectors."""
    out = []
    for item in comma_list(spec):
        corpus, _, channel = item.partition(":")
        out.append((corpus, channel or None))
    return out


def windows(passages: list[Passage], size: int, step: int) -> list[tuple[int, str]]:
    """Overlapping windows of ``size`` words (every ``step`` words) over passages read as one text:
    (index of the passage holding the window's middle word, window text)."""
    words = [(w, i) for i, p in enumerate(passages) for w in p.text.split()]
    out = []
    for start in range(0, max(1, len(words) - size + step), step):
        window = words[start : start + size]
        if window:
            out.append((window[len(window) // 2][1], " ".join(w for w, _ in window)))
    return out


@dataclass
class Group:
    """Passages embedded together, the rows they get (row id, text, row meta) and the checksum of those texts."""

    doc_ids: list[str]
    rows: list[tuple[str, str, tuple]] = field(default_factory=list)
    crc: int = 0


def groups(store: Store, corpus: str, channel: str | None) -> tuple[list[Group], set[str]]:
    """The groups of one target, in reading order, and every document id of the target."""
    passages = sorted(store.iter_passages(corpus, channel), key=lambda p: (p.book, p.seq))
    out = []
    for group in _continuous_texts(store, passages) if corpus in WINDOWS else [[p] for p in passages]:
        if corpus in WINDOWS:
            texts = windows(group, *WINDOWS[corpus])
            if blurb := _blurb(store, group):
                texts.append(blurb)
        else:
            texts = [(0, piece) for piece in chunks(group[0].text, CHUNK_WORDS)]
        crc = zlib.crc32("\n".join(t for _, t in texts).encode())
        counts = Counter(i for i, _ in texts)
        seen: Counter[int] = Counter()
        g = Group([p.doc_id for p in group], crc=crc)
        for i, text in texts:
            p = group[i]
            seen[i] += 1
            row_id = p.doc_id if counts[i] == 1 else f"{p.doc_id}#{seen[i]}"
            g.rows.append((row_id, text, (p.corpus, p.channel, p.language, crc, p.primary)))
        out.append(g)
    return out, {p.doc_id for p in passages}


def _continuous_texts(store: Store, passages: list[Passage]) -> list[list[Passage]]:
    """Passages (in reading order) grouped by the named text (sutta) holding them, else by chapter."""
    grouped: dict[object, list[Passage]] = {}
    for p in passages:
        named = store.text_at(p.corpus, p.book, p.seq)
        grouped.setdefault((p.book, named.uid if named else p.chapter), []).append(p)
    return list(grouped.values())


def _blurb(store: Store, group: list[Passage]) -> tuple[int, str] | None:
    """The blurb of the named text a group is (its English title first), as a row of its first body paragraph."""
    first = group[0]
    named = store.text_at(first.corpus, first.book, first.seq)
    if named is None or not named.blurb or store.text_at(first.corpus, first.book, group[-1].seq) is not named:
        return None
    body = next((i for i, p in enumerate(group) if p.kind not in HEADING_KINDS), 0)
    return body, f"{named.title}: {named.blurb}" if named.title else named.blurb


def texts_checksum(found: list[Group]) -> str:
    """One checksum of what a target's vectors embed: every group's documents and text checksum."""
    h = hashlib.sha256(f"layout{LAYOUT}".encode())
    for g in found:
        h.update(orjson.dumps([g.doc_ids, g.crc]))
    return h.hexdigest()


def sources(store: Store, corpus: str, channel: str | None) -> str:
    """A digest of what a target's texts were read from (its books' ingest signatures, the descriptions'):
    cheap to compute when an index is opened, and changed by any ingest that changes the texts."""
    records = sorted(
        (f"{r.info.corpus}/{r.info.book}@{r.channel.name}", r.signature)
        for r in store.records()
        if r.info.corpus == corpus and (channel is None or r.channel.name == channel)
    )
    described = (store.get_meta("suttacentral:descriptions") or "") if corpus in WINDOWS else ""
    return hashlib.sha256(orjson.dumps([LAYOUT, records, described])).hexdigest()


def _mark_key(embedder: str, target: str) -> str:
    return f"vectors:{embedder}:{target}"


def mark(store: Store, embedder: str, version: str, target: str, checksum: str) -> None:
    """Record that ``embedder``'s vectors of ``target`` are complete for its current texts."""
    corpus, channel = vector_targets(target)[0]
    value = {"embedder": embedder, "version": version, "texts": checksum, "sources": sources(store, corpus, channel)}
    store.set_meta(_mark_key(embedder, target), orjson.dumps(value).decode())


def complete(store: Store, embedder: str, target: str) -> dict | None:
    """The completion mark of ``embedder``'s vectors of ``target`` if it is current (None when the set is
    partial, or its texts changed since)."""
    saved = store.get_meta(_mark_key(embedder, target))
    if not saved:
        return None
    value = orjson.loads(saved)
    corpus, channel = vector_targets(target)[0]
    return value if value.get("sources") == sources(store, corpus, channel) else None


def embed_corpora(
    store: Store,
    embedder: Embedder,
    targets: list[str],
    *,
    progress: Progress | None = None,
    batch: int = 256,
    save_every: float = SAVE_EVERY,
    stop: threading.Event | None = None,
    status: Callable[[dict], None] | None = None,
) -> IngestSummary:
    """Embed every group of these targets (``corpus`` or ``corpus:channel``) whose vectors are not current;
    drop the vectors of passages no longer in the index; mark each target complete when it is.

    Whole groups are embedded ``batch`` rows or more at a time and saved every ``save_every`` seconds, so an
    interrupted run resumes where it stopped. ``stop``: set it to stop after the current batch (saved, not
    marked). ``progress``: called after each batch with the target, its rows and the number of batches of all the
    targets (known before the first). ``status``: called after each batch with the rows done and to do, all
    targets together (for a progress report).
    """
    started = time.perf_counter()
    summary = IngestSummary("embed", ",".join(targets))
    vectors = store.vectors(embedder.name, embedder.dim)
    saved = time.monotonic()
    # every target planned first, so the progress total (batches of all the targets) is known before the first
    planned = []
    for target in comma_list(targets):
        corpus, channel = vector_targets(target)[0]
        found, doc_ids = groups(store, corpus, channel)
        changed = vectors.retain(corpus, doc_ids, {channel} if channel else None)
        stale = [g for g in found if not _current(vectors, g)]
        vectors.remove([d for g in stale for d in g.doc_ids])
        planned.append((target, found, stale, changed, batches(stale, batch)))
    total = sum(len(b) for *_, b in planned)
    todo = sum(len(g.rows) for _, _, stale, _, _ in planned for g in stale)
    done = 0
    for target, found, stale, changed, chunks_ in planned:
        for chunk in chunks_:
            rows = [r for c in chunk for r in c.rows]
            vectors.add([r[0] for r in rows], embedder.encode([r[1] for r in rows]), [r[2] for r in rows])
            summary.passages += sum(len(c.doc_ids) for c in chunk)
            done += len(rows)
            if progress:
                progress(target, len(rows), total)
            if status:
                status({"target": target, "rows_done": done, "rows": todo})
            if time.monotonic() - saved >= save_every:
                vectors.save()
                saved = time.monotonic()
            if stop is not None and stop.is_set():
                vectors.save()
                summary.seconds = round(time.perf_counter() - started, 2)
                return summary
        if stale or changed:
            vectors.save()
            saved = time.monotonic()
        checksum = texts_checksum(found)
        if (complete(store, embedder.name, target) or {}).get("texts") != checksum:
            mark(store, embedder.name, getattr(embedder, "version", ""), target, checksum)
        summary.books += 1
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def batches(stale: list[Group], batch: int) -> list[list[Group]]:
    """Whole groups gathered until they hold at least ``batch`` rows (the last batch may hold fewer): what
    one call of the embedder encodes, and one step of the progress."""
    out: list[list[Group]] = []
    chunk: list[Group] = []
    rows = 0
    for g in stale:
        chunk.append(g)
        rows += len(g.rows)
        if rows >= batch:
            out.append(chunk)
            chunk, rows = [], 0
    if chunk:
        out.append(chunk)
    return out


def _current(vectors: Vectors, g: Group) -> bool:
    """Whether a group's vectors embed its current texts."""
    have = {vectors.checksum(d) for d in g.doc_ids}
    return g.crc in have and have <= {g.crc, None}
