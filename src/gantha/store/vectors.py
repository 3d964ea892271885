"""Vectors beside the index: one matrix per embedder, searched exactly while that is fast enough.

Layout: ``vectors/<embedder>/vectors.npy`` (float16 on disk, float32 in memory), ``meta.json``
(document ids and, per row, corpus, channel and language for filtering). Exact search is one
matrix-vector product (about 10 ms for 100k × 512); beyond ``HNSW_FROM`` rows an HNSW graph
(usearch) answers instead, built from the same rows and saved beside them.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import numpy as np

HNSW_FROM = 300_000


class VectorIndex:
    def __init__(self, index_dir: Path, embedder: str, dim: int):
        self.dir = Path(index_dir) / "vectors" / re.sub(r"[^A-Za-z0-9_.-]+", "_", embedder)
        self.dim = dim
        self._lock = threading.Lock()
        self.ids: list[str] = []
        # per row: corpus, channel, language, crc32 of the text, primary (an original, not an aligned translation)
        self.meta: list[tuple[str, str, str, int, bool]] = []
        self.matrix = np.zeros((0, dim), dtype=np.float32)
        self._hnsw = None
        self._columns: tuple[np.ndarray, ...] | None = None
        if (self.dir / "meta.json").exists():
            meta = json.loads((self.dir / "meta.json").read_text())
            self.ids, self.meta = meta["ids"], [tuple(m) for m in meta["meta"]]
            self.matrix = np.load(self.dir / "vectors.npy").astype(np.float32)
        self._row = {doc_id: i for i, doc_id in enumerate(self.ids)}

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._row

    def checksum(self, doc_id: str) -> int | None:
        i = self._row.get(doc_id)
        return None if i is None else self.meta[i][3]

    def add(self, ids: list[str], vectors: np.ndarray, meta: list[tuple[str, str, str, int, bool]]) -> None:
        with self._lock:
            new = set(ids)
            keep = [i for i, doc_id in enumerate(self.ids) if doc_id not in new]
            self.ids = [self.ids[i] for i in keep] + list(ids)
            self.meta = [self.meta[i] for i in keep] + list(meta)
            self.matrix = np.vstack([self.matrix[keep], vectors.astype(np.float32)])
            self._row = {doc_id: i for i, doc_id in enumerate(self.ids)}
            self._hnsw = self._columns = None

    def retain(self, corpus: str, doc_ids: set[str]) -> int:
        """Drop the rows of ``corpus`` whose document is no longer in the index; return how many."""
        with self._lock:
            keep = [i for i, doc_id in enumerate(self.ids) if self.meta[i][0] != corpus or doc_id in doc_ids]
            removed = len(self.ids) - len(keep)
            self.ids = [self.ids[i] for i in keep]
            self.meta = [self.meta[i] for i in keep]
            self.matrix = self.matrix[keep]
            self._row = {doc_id: i for i, doc_id in enumerate(self.ids)}
            self._hnsw = self._columns = None
            return removed

    def save(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        tmp = self.dir / "vectors.tmp.npy"
        np.save(tmp, self.matrix.astype(np.float16))
        tmp.replace(self.dir / "vectors.npy")
        (self.dir / "meta.json.tmp").write_text(json.dumps({"ids": self.ids, "meta": self.meta}))
        (self.dir / "meta.json.tmp").replace(self.dir / "meta.json")

    def vector(self, doc_id: str) -> np.ndarray | None:
        i = self._row.get(doc_id)
        return None if i is None else self.matrix[i]

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
        """The ``k`` nearest rows (cosine) that pass the filters, as (document id, score)."""
        if not self.ids:
            return []
        mask = self._mask(corpora, channels, languages, primary_only, books)
        if len(self.ids) >= HNSW_FROM:
            return self._search_hnsw(query, k, mask)
        scores = self.matrix @ query.astype(np.float32)
        scores[~mask] = -np.inf
        k = min(k, int(mask.sum()))
        if k <= 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(self.ids[i], float(scores[i])) for i in top]

    def _mask(self, corpora, channels, languages, primary_only, books=None) -> np.ndarray:
        if self._columns is None:  # corpus, channel, base language ("zh" for zh-Hans), book, primary per row
            self._columns = (
                np.array([m[0] for m in self.meta], dtype=object),
                np.array([m[1] for m in self.meta], dtype=object),
                np.array([m[2].split("-")[0] for m in self.meta], dtype=object),
                np.array([doc_id.split("/")[1] for doc_id in self.ids], dtype=object),
                np.array([bool(m[4]) for m in self.meta], dtype=bool),
            )
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
