"""The vector route: embed the query with the index's embedder and search its vectors."""

from __future__ import annotations

from pathlib import Path

from gantha.embed import Embedder, make_embedder
from gantha.store.vectors import VectorIndex


class VectorsUnreadable(ValueError):
    """The index's vector files are damaged; lexical search still answers."""


class SemanticRoute:
    def __init__(self, embedder: Embedder, vectors: VectorIndex):
        self.embedder = embedder
        self.vectors = vectors

    @classmethod
    def open(cls, index: Path, spec: str) -> SemanticRoute | None:
        """The route over the vectors built with ``spec`` in this index, or None if there are none."""
        name = spec.partition("@")[0]  # an embedder's name is its spec without the endpoint
        folder = VectorIndex.folder(index, name)
        if not (folder / "meta.json").exists():
            return None
        embedder = make_embedder(spec)
        try:
            vectors = VectorIndex(index, embedder.name, embedder.dim)
        except (
            OSError,
            ValueError,
            KeyError,
            EOFError,
            TypeError,
        ) as exc:  # a damaged side file: say so, serve the rest
            raise VectorsUnreadable(
                f"the {name} vectors cannot be read ({exc}): delete {folder} and run `gantha embed`"
            ) from exc
        return cls(embedder, vectors)

    def search(self, text: str, k: int, **filters) -> list[tuple[str, float]]:
        return self.vectors.search(self.embedder.query(text), k, **filters)
