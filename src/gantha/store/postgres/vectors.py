"""One embedder's vectors in the ``vectors`` table (pgvector), with an HNSW index (cosine) per embedder."""

from __future__ import annotations

import hashlib
import math
from typing import TYPE_CHECKING, Any

import numpy as np
import orjson

from gantha.store.postgres.compiler import lit
from gantha.store.vectors import RowMeta, VectorRows, doc_of

if TYPE_CHECKING:
    from gantha.store.postgres.store import PostgresStore


class PgVectors(VectorRows):
    """One embedder's vectors in the ``vectors`` table (pgvector): row ids and filters in memory, the
    vectors in the database; changes are staged and written together at ``save``."""

    def __init__(self, store: PostgresStore, embedder: str, dim: int):
        self.store, self.embedder, self.dim = store, embedder, dim
        self._index = "vectors_hnsw_" + hashlib.sha1(f"{embedder}/{dim}".encode()).hexdigest()[:12]
        rows = store.db.query(
            "SELECT row_id, corpus, channel, language, crc, is_primary FROM vectors WHERE embedder=? ORDER BY row_id",
            (embedder,),
        )
        self.ids: list[str] = [r[0] for r in rows]
        self.meta: list[RowMeta] = [(c, ch, lang, int(crc), bool(pr)) for _, c, ch, lang, crc, pr in rows]
        self._added: list[tuple[str, np.ndarray, RowMeta]] = []
        self._removed: set[str] = set()  # documents whose rows go at save
        self._reindex()

    def add(self, ids: list[str], vectors: Any, meta: list[RowMeta]) -> None:
        """Add rows; a document given here loses the rows it had before."""
        replaced = {doc_of(i) for i in ids} & self._rows.keys()
        if replaced:
            self.remove(list(replaced))
        matrix = np.asarray(vectors, dtype=np.float32)
        for row_id, vector, m in zip(ids, matrix, meta, strict=True):
            self._added.append((row_id, vector, m))
            self.ids.append(row_id)
            self.meta.append(m)
            self._rows.setdefault(doc_of(row_id), []).append(len(self.ids) - 1)

    def remove(self, doc_ids: list[str]) -> None:
        gone = set(doc_ids) & self._rows.keys()
        if not gone:
            return
        self._removed |= gone
        self._added = [a for a in self._added if doc_of(a[0]) not in gone]
        keep = [i for i, row_id in enumerate(self.ids) if doc_of(row_id) not in gone]
        self.ids = [self.ids[i] for i in keep]
        self.meta = [self.meta[i] for i in keep]
        self._reindex()

    def retain(self, corpus: str, doc_ids: set[str], channels: set[str] | None = None) -> int:
        gone = {
            doc_of(row_id)
            for row_id, m in zip(self.ids, self.meta, strict=True)
            if m[0] == corpus and (channels is None or m[1] in channels) and doc_of(row_id) not in doc_ids
        }
        before = len(self.ids)
        self.remove(list(gone))
        return before - len(self.ids)

    def save(self) -> None:
        db = self.store.db
        with db.transaction():
            if self._removed:
                db.execute(
                    "DELETE FROM vectors WHERE embedder=? AND doc_id = ANY(?)", (self.embedder, list(self._removed))
                )
            db.copy(
                "vectors",
                (
                    (self.embedder, row_id, doc_of(row_id), *m[:3], row_id.split("/")[1], m[3], m[4], _literal(v))
                    for row_id, v, m in self._added
                ),
            )
        if self._added:  # an HNSW index of this embedder's rows (the column's dimension varies by embedder)
            db.execute(
                f"CREATE INDEX IF NOT EXISTS {self._index} ON vectors USING hnsw "
                f"((embedding::vector({int(self.dim)})) vector_cosine_ops) WHERE embedder = {lit(self.embedder)}"
            )
        self._added, self._removed = [], set()
        self.store._bump()

    def export(self, corpus: str, channel: str | None = None) -> tuple[list[str], list[RowMeta], np.ndarray]:
        """The saved rows of one corpus (in one channel): ids, meta and their vectors."""
        where, args = "embedder=? AND corpus=?", [self.embedder, corpus]
        if channel is not None:
            where, args = where + " AND channel=?", [*args, channel]
        rows = self.store.db.query(f"SELECT row_id, embedding::text FROM vectors WHERE {where} ORDER BY row_id", args)
        index = {row_id: i for i, row_id in enumerate(self.ids)}
        ids = [r[0] for r in rows if r[0] in index]
        matrix = np.asarray([orjson.loads(r[1]) for r in rows if r[0] in index], dtype=np.float32)
        return ids, [self.meta[index[i]] for i in ids], matrix.reshape(len(ids), self.dim)

    def similarities(self, doc_ids: list[str], query: Any) -> dict[str, float]:
        wanted = [d for d in dict.fromkeys(doc_ids) if d in self._rows]
        if not wanted:
            return {}
        rows = self.store.db.query(
            "SELECT doc_id, max(1 - (embedding <=> ?::vector)) FROM vectors WHERE embedder=? AND doc_id = ANY(?) "
            "GROUP BY doc_id",
            (_literal(query), self.embedder, wanted),
        )
        return {d: float(s) for d, s in rows if s is not None}

    def mean(self, doc_ids: list[str]) -> np.ndarray | None:
        """The unit-length mean of the rows of these documents (None when none has a vector)."""
        wanted = [d for d in doc_ids if d in self._rows]
        if not wanted:
            return None
        rows = self.store.db.query(
            "SELECT avg(embedding)::text FROM vectors WHERE embedder=? AND doc_id = ANY(?)", (self.embedder, wanted)
        )
        if not rows or rows[0][0] is None:
            return None
        v = np.asarray(orjson.loads(rows[0][0]), dtype=np.float32)
        return v / max(float(np.linalg.norm(v)), 1e-12)

    def search(
        self,
        query: Any,
        k: int = 10,
        corpora: list[str] | None = None,
        channels: list[str] | None = None,
        languages: list[str] | None = None,
        primary_only: bool = False,
        books: list[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` nearest documents (cosine of their best row) that pass the filters: (document id, score),
        through the embedder's HNSW index (scanned on until enough rows pass the filters)."""
        where = [f"embedder = {lit(self.embedder)}"]  # a literal: the planner matches the index's predicate
        args: list[Any] = []
        for column, values in (("corpus", corpora), ("channel", channels), ("book", books)):
            if values:
                where.append(f"{column} = ANY(%s)")
                args.append(list(values))
        if languages:
            where.append("split_part(language, '-', 1) = ANY(%s)")
            args.append([lang.split("-")[0] for lang in languages])
        if primary_only:
            where.append("is_primary")
        vector = f"embedding::vector({int(self.dim)})"
        with self.store.db.transaction(), self.store.db.connection() as conn:
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            conn.execute(f"SET LOCAL hnsw.ef_search = {max(40, 4 * k)}")
            rows = conn.execute(
                f"SELECT doc_id, 1 - ({vector} <=> %s::vector) AS score FROM vectors WHERE {' AND '.join(where)} "
                f"ORDER BY {vector} <=> %s::vector LIMIT %s",
                (_literal(query), *args, _literal(query), k * 4),
            ).fetchall()
        best: dict[str, float] = {}
        for doc_id, score in sorted(rows, key=lambda r: -r[1]):
            best.setdefault(doc_id, float(score))
        return list(best.items())[:k]


def _literal(vector: Any) -> str:
    """A vector as pgvector's text form (no client-side adapter needed)."""
    return "[" + ",".join(f"{x:.6g}" if math.isfinite(x) else "0" for x in np.asarray(vector, dtype=np.float32)) + "]"
