"""Fusing ranked lists from several routes (lexical, vector, dictionary bridge)."""

from __future__ import annotations

RRF_K = 60


def rrf(rankings: list[list[str]], k: int = RRF_K, weights: list[float] | None = None) -> list[tuple[str, float]]:
    """Reciprocal rank fusion: sum of weight/(k + rank) over the lists each id appears in (a list weighted 0
    is left out: its ids are not candidates)."""
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights or [1.0] * len(rankings), strict=True):
        if weight <= 0:
            continue
        for rank, doc_id in enumerate(ranking, start=1):
            scores[doc_id] = scores.get(doc_id, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def weighted(scored: list[list[tuple[str, float]]], weights: list[float]) -> list[tuple[str, float]]:
    """Min-max normalise each route's scores, then add them with these weights (the original 7:3)."""
    total: dict[str, float] = {}
    for route, weight in zip(scored, weights, strict=True):
        if not route:
            continue
        values = [s for _, s in route]
        lo, hi = min(values), max(values)
        for doc_id, s in route:
            norm = (s - lo) / (hi - lo) if hi > lo else 1.0
            total[doc_id] = total.get(doc_id, 0.0) + weight * norm
    return sorted(total.items(), key=lambda kv: -kv[1])
