"""The vector route: embed the query with the index's embedder and search its vectors."""

from __future__ import annotations

from gantha.embed import Embedder, make_embedder
from gantha.store.base import Store, Vectors, VectorsUnreadable

__all__ = ["SemanticRoute", "VectorsUnreadable"]


class SemanticRoute:
    def __init__(self, embedder: Embedder, vectors: Vectors):
        self.embedder = embedder
        self.vectors = vectors

    @classmethod
    def open(cls, store: Store, spec: str, previous: SemanticRoute | None = None) -> SemanticRoute | None:
        """The route over the vectors built with ``spec`` in this index, or None if there are none;
        ``previous`` (the route of this index opened before) lends the vectors that have not changed."""
        name = spec.partition("@")[0]  # an embedder's name is its spec without the endpoint
        if not store.has_vectors(name):
            return None
        embedder = make_embedder(spec)
        lent = previous.vectors if previous is not None and previous.embedder is embedder else None
        return cls(embedder, store.vectors(embedder.name, embedder.dim, lent))

    def search(self, text: str, k: int, **filters) -> list[tuple[str, float]]:
        return self.vectors.search(self.embedder.query(text), k, **filters)
