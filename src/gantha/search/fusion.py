"""Fusing ranked lists from several routes (lexical, vector, dictionary bridge): by rank (RRF), by normalised
scores (the original 7:3), or by score fusion with every candidate's cosines looked up (fitted weights)."""

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


def scored(
    routes: dict[str, list[tuple[str, float]]], cosines: dict[str, dict[str, float]], weights: dict[str, float]
) -> list[tuple[str, float]]:
    """Score fusion over the candidates of the routes weighted above 0: a vector route's feature is each
    candidate's cosine with its question (``cosines``: looked up for every candidate, a candidate without a vector
    taking the pool's lowest), standardised over the pool; another route's is its score over its best (0 where it
    did not match). A candidate's score is the weighted sum of its features, less the weakest's (never below 0:
    whole-text search adds its paragraphs' scores up)."""
    chosen = [name for name, ranking in routes.items() if weights.get(name, 0.0) > 0 and ranking]
    pool = list(dict.fromkeys(d for name in chosen for d, _ in routes[name]))
    total = dict.fromkeys(pool, 0.0)
    for name in chosen:
        if name in cosines:
            known = [c for d in pool if (c := cosines[name].get(d)) is not None]
            lowest = min(known, default=0.0)
            values = [cosines[name].get(d, lowest) for d in pool]
            mean = sum(values) / len(values)
            spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5 or 1.0
            feature = {d: (v - mean) / spread for d, v in zip(pool, values, strict=True)}
        else:
            best = max((s for _, s in routes[name]), default=0.0) or 1.0
            feature = {d: s / best for d, s in routes[name]}
        for d, value in feature.items():
            total[d] += weights[name] * value
    weakest = min(total.values(), default=0.0)
    return sorted(((d, s - weakest) for d, s in total.items()), key=lambda kv: -kv[1])
