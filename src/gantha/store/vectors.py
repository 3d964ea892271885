"""Vectors beside the index: one matrix per embedder, searched exactly while that is fast enough.

Layout: ``vectors/<embedder>/meta.json`` (row ids and, per row, corpus, channel, language, text
checksum and primary flag for filtering; the name of its matrix) and the matrix it names,
``vectors-<n>.npy`` (float16 on disk, float32 in memory; ``vectors.npy`` in older indexes): a save
writes a new matrix, then renames the new ``meta.json`` over the old, so a crash at any moment leaves
a matrix and the rows that describe it.
A passage has one row (id = its document id) or, when long, one per chunk (``<doc id>#1`` …);
search answers documents, each with its best row. Exact search is one matrix-vector product
(about 10 ms for 100k × 512); beyond ``HNSW_FROM`` rows an HNSW graph (usearch) answers instead,
built from the same rows.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import orjson

HNSW_FROM = 300_000
MASKS_KEPT = 64  # filter combinations whose row masks are remembered
RowMeta = tuple[str, str, str, int, bool] | list  # corpus, channel, language, text crc32, primary (lists as read)


def doc_of(row_id: str) -> str:
    """``cst/x/106@en#2`` → ``cst/x/106@en``: the document a row (a chunk) belongs to.

    The chunk number follows the channel, which never holds ``#`` (a Markdown coordinate may)."""
    coordinate, at, channel = row_id.rpartition("@")
    return f"{coordinate}{at}{channel.partition('#')[0]}"


def _columns(ids: list[str], meta: list[RowMeta]) -> tuple[np.ndarray, ...]:
    """The filter columns of rows: corpus, channel, base language ("zh" for zh-Hans), book, primary."""
    return (
        np.array([m[0] for m in meta], dtype=object),
        np.array([m[1] for m in meta], dtype=object),
        np.array([m[2].split("-")[0] for m in meta], dtype=object),
        np.array([row_id.split("/")[1] for row_id in ids], dtype=object),
        np.array([bool(m[4]) for m in meta], dtype=bool),
    )


class _Buffer:
    """Rows (float32) with room to grow: an index reopened after rows were added writes them behind the rows
    it shares with the index opened before, which goes on reading only its own prefix."""

    SPARE = 0.05  # room kept for rows added later, as a share of the rows

    def __init__(self, rows: np.ndarray, spare: int | None = None):
        n, dim = rows.shape
        self.rows = np.empty((n + (int(n * self.SPARE) + 256 if spare is None else spare), dim), dtype=np.float32)
        self.rows[:n] = rows
        self.used = n

    def extended(self, n: int, added: np.ndarray) -> _Buffer:
        """A buffer whose first ``n + len(added)`` rows are these ``n`` and then ``added``: this one when the
        rows fit behind the ``n`` and nobody wrote there yet, else a new one."""
        end = n + added.shape[0]
        if n == self.used and end <= self.rows.shape[0]:
            self.rows[n:end] = added
            self.used = end
            return self
        grown = _Buffer(self.rows[:n], spare=added.shape[0] + int(end * self.SPARE) + 256)
        grown.rows[n:end] = added
        grown.used = end
        return grown


class VectorRows:
    """One embedder's rows by document: their ids and filters (``meta``), whichever store keeps the vectors."""

    ids: list[str]
    meta: list[RowMeta]

    def _reindex(self) -> None:
        self._rows: dict[str, list[int]] = {}
        for i, row_id in enumerate(self.ids):
            self._rows.setdefault(doc_of(row_id), []).append(i)

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._rows

    def documents(self) -> int:
        return len(self._rows)

    def checksum(self, doc_id: str) -> int | None:
        rows = self._rows.get(doc_id)
        return None if not rows else self.meta[rows[0]][3]

    def similarity(self, doc_id: str, query: Any) -> float | None:
        """Cosine of the query with the document's closest row (None when it has no vector)."""
        return self.similarities([doc_id], query).get(doc_id)

    def similarities(self, doc_ids: list[str], query: Any) -> dict[str, float]:
        """Cosine of the query with each document's closest row (the documents without a vector left out)."""
        raise NotImplementedError


class VectorIndex(VectorRows):
    @staticmethod
    def folder(index_dir: Path, embedder: str) -> Path:
        """Where an embedder's vectors of an index live."""
        return Path(index_dir) / "vectors" / re.sub(r"[^A-Za-z0-9_.-]+", "_", embedder)

    def __init__(self, index_dir: Path, embedder: str, dim: int, previous: VectorIndex | None = None):
        """The vectors saved in ``index_dir``; ``previous`` (this index opened before, untouched since) lends
        what is unchanged: everything when nothing was saved since, its rows when a save only added rows."""
        self.dir = self.folder(index_dir, embedder)
        self.dim = dim
        self._lock = threading.Lock()
        self.ids: list[str] = []
        self.meta: list[RowMeta] = []
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._buffer: _Buffer | None = None  # where ``_matrix`` lives while this index is as it was read
        self._pending: list[np.ndarray] = []  # rows added since the matrix was last assembled
        self._hnsw = None
        self._columns: tuple[np.ndarray, ...] | None = None
        self._masks: dict[tuple, tuple[tuple[np.ndarray, ...], np.ndarray]] = {}
        self._rows: dict[str, list[int]] = {}
        self._saved: tuple | None = None  # meta.json (inode, size, mtime) and the matrices as read, while unchanged
        try:
            stat = (self.dir / "meta.json").stat()
        except FileNotFoundError:
            return
        saved = (stat.st_ino, stat.st_size, stat.st_mtime_ns, *self._matrices())  # a matrix replaced: read again
        if previous is not None and previous._saved is not None and previous._saved == saved:
            self._adopt(previous)
        else:
            meta, matrix = self._read()
            if matrix.shape[0] != len(meta["ids"]):
                raise ValueError(f"{len(meta['ids'])} rows described, {matrix.shape[0]} in the matrix")
            if not self._extend(previous, meta, matrix):
                self.ids, self.meta = meta["ids"], meta["meta"]
                self._buffer = _Buffer(matrix)
                self._matrix = self._buffer.rows[: len(self.ids)]
                self._reindex()
            self.dim = matrix.shape[1] if len(self.ids) else dim
        self._saved = saved

    def _matrices(self) -> tuple[int, ...]:
        """The sizes and modification times of the saved matrices."""
        out: list[int] = []
        for f in sorted(self.dir.glob("*.npy")):
            with contextlib.suppress(FileNotFoundError):  # an old matrix removed by a save meanwhile
                stat = f.stat()
                out += [stat.st_size, stat.st_mtime_ns]
        return tuple(out)

    def _adopt(self, previous: VectorIndex) -> None:
        """Share the rows of an index read from the same save (read-only from here on: nothing is copied)."""
        self.dim, self.ids, self.meta, self._buffer = previous.dim, previous.ids, previous.meta, previous._buffer
        self._matrix, self._rows, self._columns, self._hnsw = (
            previous._matrix,
            previous._rows,
            previous._columns,
            previous._hnsw,
        )

    def _extend(self, previous: VectorIndex | None, meta: dict, matrix: np.ndarray) -> bool:
        """When the save holds ``previous``'s rows unchanged and then new ones, take its rows and read only the
        new ones (False when it does not)."""
        if previous is None or previous._saved is None or previous._buffer is None:
            return False
        n = len(previous.ids)
        if len(meta["ids"]) < n or meta["ids"][:n] != previous.ids or matrix.shape[1] != previous.dim:
            return False
        if meta["meta"][:n] != previous.meta:  # a text changed, and its vector
            return False
        added = meta["ids"][n:]
        self.ids, self.meta = previous.ids + added, previous.meta + meta["meta"][n:]
        self._buffer = previous._buffer.extended(n, matrix[n:])
        self._matrix = self._buffer.rows[: len(self.ids)]
        self._rows = dict(previous._rows)
        for k, row_id in enumerate(added, start=n):
            doc = doc_of(row_id)
            self._rows[doc] = [*self._rows.get(doc, ()), k]
        if previous._columns is not None:
            self._columns = tuple(
                np.concatenate([old, new])
                for old, new in zip(previous._columns, _columns(self.ids[n:], self.meta[n:]), strict=True)
            )
        return True

    def _read(self, attempts: int = 3) -> tuple[dict, np.ndarray]:
        """The rows and their matrix (mapped, not read); a save that replaced both since the rows were read is
        read again."""
        for attempt in range(attempts):
            meta = orjson.loads((self.dir / "meta.json").read_bytes())
            try:
                return meta, np.load(self.dir / meta.get("matrix", "vectors.npy"), mmap_mode="r")
            except FileNotFoundError:
                if attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def _reindex(self) -> None:
        super()._reindex()
        self._hnsw = self._columns = None

    @property
    def matrix(self) -> np.ndarray:
        if self._pending:
            self._matrix = np.vstack([self._matrix, *self._pending])
            self._pending = []
        return self._matrix

    def add(self, ids: list[str], vectors: np.ndarray, meta: list[RowMeta]) -> None:
        """Add rows; a document given here loses the rows it had before."""
        with self._lock:
            self._unshare()
            replaced = {doc_of(i) for i in ids} & self._rows.keys()
            if replaced:
                self._keep([i for i, row_id in enumerate(self.ids) if doc_of(row_id) not in replaced])
            self.ids += list(ids)
            self.meta += list(meta)
            self._pending.append(np.asarray(vectors, dtype=np.float32))
            start = len(self.ids) - len(ids)
            for k, row_id in enumerate(ids):
                self._rows.setdefault(doc_of(row_id), []).append(start + k)
            self._hnsw = self._columns = None

    def _unshare(self) -> None:
        """Before the first change: own copies of what an index opened before or after may share."""
        if self._saved is not None:
            self.ids, self.meta = list(self.ids), list(self.meta)
            self._rows = {doc: list(rows) for doc, rows in self._rows.items()}
            self._saved = self._buffer = None  # no longer as read: lends nothing to a reopened index

    def _keep(self, rows: list[int]) -> None:
        matrix = self.matrix
        self.ids = [self.ids[i] for i in rows]
        self.meta = [self.meta[i] for i in rows]
        self._matrix = matrix[rows]
        self._saved = self._buffer = None
        self._reindex()

    def remove(self, doc_ids: list[str]) -> None:
        """Drop every row of these documents."""
        gone = set(doc_ids) & self._rows.keys()
        if gone:
            with self._lock:
                self._keep([i for i, row_id in enumerate(self.ids) if doc_of(row_id) not in gone])

    def retain(self, corpus: str, doc_ids: set[str], channels: set[str] | None = None) -> int:
        """Drop the rows of ``corpus`` (in ``channels``, if given) whose document is not in ``doc_ids``."""
        with self._lock:
            keep = [
                i
                for i, row_id in enumerate(self.ids)
                if self.meta[i][0] != corpus
                or (channels is not None and self.meta[i][1] not in channels)
                or doc_of(row_id) in doc_ids
            ]
            removed = len(self.ids) - len(keep)
            if removed:
                self._keep(keep)
            return removed

    def save(self) -> None:
        """A new matrix file, then the new rows renamed over the old (the one atomic step): a reader, or an
        index after a crash, has the old vectors or the new, never a mixture; older matrices are removed."""
        self.dir.mkdir(parents=True, exist_ok=True)
        name = f"vectors-{time.time_ns()}.npy"
        np.save(self.dir / name, self.matrix.astype(np.float16))
        meta = orjson.dumps({"ids": self.ids, "meta": self.meta, "matrix": name})
        (self.dir / "meta.json.tmp").write_bytes(meta)
        (self.dir / "meta.json.tmp").replace(self.dir / "meta.json")
        for old in self.dir.glob("vectors*.npy"):
            if old.name != name:
                old.unlink(missing_ok=True)

    def export(self, corpus: str, channel: str | None = None) -> tuple[list[str], list[RowMeta], np.ndarray]:
        """The rows of one corpus (in one channel): ids, meta and their vectors."""
        rows = [i for i, m in enumerate(self.meta) if m[0] == corpus and (channel is None or m[1] == channel)]
        return [self.ids[i] for i in rows], [self.meta[i] for i in rows], np.asarray(self.matrix[rows], np.float32)

    def similarities(self, doc_ids: list[str], query: np.ndarray) -> dict[str, float]:
        rows = [(d, i) for d in dict.fromkeys(doc_ids) for i in self._rows.get(d, ())]
        if not rows:
            return {}
        sims = self.matrix[[i for _, i in rows]] @ query.astype(np.float32)
        out: dict[str, float] = {}
        for (d, _), sim in zip(rows, sims.tolist(), strict=True):
            out[d] = max(out.get(d, -1.0), sim)
        return out

    def mean(self, doc_ids: list[str]) -> np.ndarray | None:
        """The unit-length mean of the rows of these documents (None when none has a vector)."""
        rows = [i for d in doc_ids for i in self._rows.get(d, ())]
        if not rows:
            return None
        v = self.matrix[rows].mean(axis=0)
        return v / max(float(np.linalg.norm(v)), 1e-12)

    def search(
        self,
        query: np.ndarray,
        k: int = 10,
        corpora: list[str] | None = None,
        channels: list[str] | None = None,
        languages: list[str] | None = None,
        primary_only: bool = False,
        books: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest documents (cosine of their best row) that pass the filters: (document id, score)."""
        if not self.ids:
            return []
        mask = self._mask(corpora, channels, languages, primary_only, books)
        if len(self.ids) >= HNSW_FROM:
            rows = self._search_hnsw(query, k * 4, mask)
        else:
            scores = self.matrix @ query.astype(np.float32)
            scores[~mask] = -np.inf
            n = min(k * 4, int(mask.sum()))  # chunks of one document share the k slots
            if n <= 0:
                return []
            top = np.argpartition(-scores, n - 1)[:n]
            top = top[np.argsort(-scores[top])]
            rows = [(self.ids[i], float(scores[i])) for i in top]
        best: dict[str, float] = {}
        for row_id, score in rows:
            best.setdefault(doc_of(row_id), score)
        return list(best.items())[:k]

    def _mask(self, corpora, channels, languages, primary_only, books=None) -> np.ndarray:
        """The rows that pass the filters (read-only; remembered per filters while the rows are unchanged)."""
        if self._columns is None:
            self._columns = _columns(self.ids, self.meta)
        key = (*(tuple(f) if f else () for f in (corpora, channels, languages, books)), primary_only)
        if (kept := self._masks.get(key)) is not None and kept[0] is self._columns:
            return kept[1]
        corpus, channel, language, book, primary = self._columns
        mask = np.ones(len(self.ids), dtype=bool)
        if corpora:
            mask &= np.isin(corpus, corpora)
        if books:
            mask &= np.isin(book, books)
        if channels:
            mask &= np.isin(channel, channels)
        if languages:  # "zh" matches zh-Hans and zh-Hant
            mask &= np.isin(language, [lang.split("-")[0] for lang in languages])
        if primary_only:
            mask &= primary
        mask.flags.writeable = False
        if len(self._masks) >= MASKS_KEPT:
            self._masks.clear()
        self._masks[key] = (self._columns, mask)
        return mask

    def _search_hnsw(self, query: np.ndarray, k: int, mask: np.ndarray) -> list[tuple[str, float]]:
        from usearch.index import Index

        if self._hnsw is None:
            self._hnsw = Index(ndim=self.dim, metric="cos", dtype="f16")
            self._hnsw.add(np.arange(len(self.ids)), self.matrix)
        found = self._hnsw.search(query.astype(np.float32), min(len(self.ids), k * 20))
        out = [
            (self.ids[int(key)], 1.0 - float(dist))
            for key, dist in zip(found.keys, found.distances, strict=True)
            if mask[int(key)]
        ]
        return out[:k]
