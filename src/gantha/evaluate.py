"""Evaluation: run labelled queries, report hit@k, recall@k, nDCG@10, MRR and refusal quality per group and mode.

A query file is JSON lines: ``{"id", "group", "query", "mode", "relevant": [coordinates],
"suttas": [uids], "answerable": true|false, "filters": {...}, "lemma": "...", "k": 10}``.
``suttas`` names texts (``sn56.31``, ``pli-tv-kd12``): every paragraph of them is relevant. An
answerable query is scored on where its relevant coordinates rank (hit@k: any of them in the top
k); an unanswerable one should come back ``not_found`` (semantic/hybrid) or without hits.
``calibrate`` fits the reranker's confidence and refusal threshold on a set: fit on one file,
report on another. A whole-text question (``whole_texts``, eval/whole_texts.jsonl) names instead the
``level`` that answers it and the ``nodes`` that do (outline coordinates, ``MN 10`` for suttas), and its
``split``: ``fit`` (settings are chosen on these) or ``report``.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from functools import partial
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from gantha.model import Hit, SearchRequest
from gantha.research import Research
from gantha.research.nodes import WINDOW as NODE_WINDOW
from gantha.search.meaning import Ranked, sought
from gantha.search.present import ORIGINALS
from gantha.search.rerank import Calibration, crosses, fit_calibration, script_of
from gantha.search.service import REFUSAL_DEPTH, Searcher

NODE_DEPTH = 10  # nodes a whole-text answer is looked for among (MRR@10)
FUSED = "route:fused"  # the hybrid ranking as fused, before the reranker and the refusal
FUSION_GRID = (0.0, 0.25, 0.5, 1.0, 2.0)  # weights tried in every combination for the routes beside the vector's 1
FINE_GRID = (0.0, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)  # then for each route in turn, the others kept
FUSION_METHODS = ("rrf", "scores")


class EvalQuery(BaseModel):
    id: str
    group: str
    query: str
    mode: str = "fuzzy"
    relevant: list[str] = Field(default_factory=list)
    suttas: list[str] = Field(default_factory=list)
    answerable: bool = True
    filters: dict[str, Any] = Field(default_factory=dict)
    lemma: str | None = None
    k: int = 10
    level: str | None = None  # a whole-text question: the level that answers it (book, chapter, sutta, section)
    nodes: list[str] = Field(default_factory=list)  # and the outline coordinates of its answers ("MN 10" for suttas)
    split: str | None = None  # fit (choose settings on these) or report


def load(path: Path) -> list[EvalQuery]:
    lines = [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    return [EvalQuery(**json.loads(line)) for line in lines]


def _request(q: EvalQuery, mode: str, limit: int) -> SearchRequest:
    return SearchRequest(q=q.query, mode=mode, limit=limit, **q.filters)


def _ranked(research: Research, q: EvalQuery, mode: str, limit: int):
    res = research.search(_request(q, mode, limit), lemma=q.lemma)
    return res, [h.coordinate for h in (res.hits or res.weak)]


def relevant(research: Research, q: EvalQuery) -> set[str]:
    """The coordinates that answer a query: its own, and every paragraph of the texts it names."""
    out = set(q.relevant)
    for uid in q.suttas:
        record = research.store.text(uid)
        if record is None:
            raise ValueError(f"{q.id}: {uid} is not among the indexed texts (ingest suttacentral)")
        span = (record.first_seq, record.last_seq)
        original = ORIGINALS.get(record.corpus, "pali")  # a sutta's Pali, an Āgama sūtra's Chinese
        out |= {p.coordinate for p in research.store.book_passages(record.corpus, record.book, original, span)}
    return out


def run(
    research: Research, queries: list[EvalQuery], modes: list[str] | None = None, routes: bool = True
) -> dict[str, Any]:
    """Metrics per group and mode, and refusal precision/recall per mode; with ``routes``, each group's hybrid
    queries also ranked by each single route they fuse and by their fusion (``group/route:vector``,
    ``group/route:fused`` …: rankings, before the reranker and the refusal), and the groups where the fusion is
    below its best single route (``below_best_route``)."""
    per: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    refusal: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "fn": 0, "tn": 0})
    for q in queries:
        for mode in [q.mode] if q.lemma else modes or [q.mode]:  # a lemma query keeps its own mode
            limit = max(q.k, 10)
            res, ranked = _ranked(research, q, mode, limit)
            refused = res.outcome in ("not_found", "no_hits", "unattested_form")
            cell = refusal[mode]
            if q.answerable:
                cell["fn" if refused else "tn"] += 1
                wanted = relevant(research, q)
                got = [c for c in ([] if refused else ranked)]
                hits_at_k = [c in wanted for c in got[: q.k]]
                m = per[(q.group, mode)]
                m["hit@k"].append(float(any(hits_at_k)))
                m["recall@k"].append(sum(hits_at_k) / max(1, min(len(wanted), q.k)))
                dcg = sum(1 / math.log2(i + 2) for i, hit in enumerate(got[:10]) if hit in wanted)
                ideal = sum(1 / math.log2(i + 2) for i in range(min(len(wanted), 10)))
                m["ndcg@10"].append(dcg / ideal if ideal else 0.0)
                first = next((i for i, c in enumerate(got) if c in wanted), None)
                m["mrr"].append(0.0 if first is None else 1 / (first + 1))
                if routes and mode == "hybrid" and q.query.strip() and not q.lemma:
                    for name, got_route in _single_routes(research, q).items():
                        per[(q.group, f"route:{name}")]["hit@k"].append(float(any(c in wanted for c in got_route)))
            else:
                cell["tp" if refused else "fp"] += 1
    for (group, mode), metrics in list(per.items()):  # a route absent from some queries found nothing for them
        if mode.startswith("route:") and (n := len(per[(group, "hybrid")]["hit@k"])) > len(metrics["hit@k"]):
            metrics["hit@k"] += [0.0] * (n - len(metrics["hit@k"]))
    groups = {
        f"{group}/{mode}": {name: round(sum(v) / len(v), 4) for name, v in metrics.items()}
        | {"queries": len(next(iter(metrics.values())))}
        for (group, mode), metrics in sorted(per.items())
    }
    below = {}  # the fused ranking against each route it fuses, both before refusal
    for key, m in groups.items():
        group, _, mode = key.partition("/")
        single = {
            k.partition("/")[2]: v["hit@k"]
            for k, v in groups.items()
            if k.startswith(f"{group}/route:") and k != f"{group}/{FUSED}"
        }
        if mode == FUSED and single and m["hit@k"] < max(single.values()):
            best = max(single, key=lambda r: single[r])
            below[group] = {"hybrid": m["hit@k"], "best_route": best, "best": single[best]}
    refusals = {}
    for mode, c in refusal.items():
        refused, unanswerable = c["tp"] + c["fn"], c["tp"] + c["fp"]
        refusals[mode] = {
            "precision": round(c["tp"] / refused, 4) if refused else None,  # of the refusals, how many were right
            "recall": round(c["tp"] / unanswerable, 4) if unanswerable else None,  # of the unanswerable, how many
            **c,
        }
    return {"groups": groups, "refusal": refusals, "below_best_route": below}


def _fusion_score(
    searcher: Searcher,
    rows: list[tuple[Ranked, set[str], int]],
    current: dict[str, float],
    method: str,
    weights: dict[str, float],
) -> tuple[float, float, float]:
    """Questions with a right paragraph among their first k, the mean reciprocal rank, nearness to ``current``."""
    hits = mrr = 0.0
    for ranked, wanted, k in rows:
        got = [d.rpartition("@")[0] for d, _ in searcher.fuse(ranked, weights, method)[:k]]
        first = next((i for i, c in enumerate(got) if c in wanted), None)
        hits += first is not None
        mrr += 0.0 if first is None else 1 / (first + 1)
    return hits, mrr, -sum(abs(weights.get(n, 0.0) - current.get(n, 0.0)) for n in current.keys() | weights.keys())


def _single_routes(research: Research, q: EvalQuery) -> dict[str, list[str]]:
    """The first ``q.k`` coordinates of each route of a hybrid query alone (diversified as the fusion is), and of
    their fusion (``fused``: the hybrid ranking before the reranker and the refusal)."""
    searcher = research.searcher
    ranked = research.pipeline.route_rankings(_request(q, "hybrid", q.k))
    chosen = {name: {name: 1.0} for name in ranked.routes} | {"fused": ranked.weights}
    return {name: [d.rpartition("@")[0] for d, _ in searcher.fuse(ranked, w)[: q.k]] for name, w in chosen.items()}


def fit_fusion(research: Research, queries: list[EvalQuery]) -> tuple[dict, dict]:
    """Fit the fusion per language (and embedders of its vector routes) on these queries' hybrid searches: for each
    method (RRF, score fusion), the weights (the vector route's fixed at 1) tried in every combination of
    :data:`FUSION_GRID` or one route alone, the best then refined one route at a time over :data:`FINE_GRID`;
    best is a right paragraph among the first ``k`` for most questions, ties broken by the mean reciprocal rank and
    then by nearness to the current weights. Saved with the index; returns ``language/embedders`` → weights, and
    → method."""
    searcher = research.searcher
    samples: dict[str, list[tuple[Ranked, set[str], int]]] = defaultdict(list)
    for q in queries:
        if not q.answerable or q.lemma or not q.query.strip():
            continue
        ranked = research.pipeline.route_rankings(_request(q, "hybrid", q.k))
        samples[ranked.key].append((ranked, relevant(research, q), q.k))
    weights, methods = {}, {}
    for key, rows in samples.items():
        names = list(dict.fromkeys(n for ranked, _, _ in rows for n in ranked.routes))
        current = rows[0][0].weights
        others = [n for n in names if n != "vector"]
        found = []
        for method in FUSION_METHODS:
            score = partial(_fusion_score, searcher, rows, current, method)
            options = [
                {"vector": 1.0, **dict(zip(others, combo, strict=True))}
                for combo in itertools.product(FUSION_GRID, repeat=len(others))
            ] + [{n: 1.0} for n in names]
            best = max(options, key=score)
            best_score = score(best)
            if best.get("vector"):  # not one route alone: each weight refined in turn, until none changes
                changed = True
                while changed:
                    changed = False
                    for name in others:
                        tried = max(({**best, name: w} for w in FINE_GRID), key=score)
                        if (tried_score := score(tried)) > best_score:
                            best, best_score, changed = tried, tried_score, True
            found.append((best_score, method, best))
        _, methods[key], best = max(found, key=lambda f: f[0])
        weights[key] = {n: best.get(n, 0.0) for n in names}
    research.searcher.routes.save_weights(research.store, weights, methods)
    return weights, methods


def calibrate(research: Research, queries: list[EvalQuery], mode: str = "hybrid") -> Calibration:
    """Fit the reranker's confidence and the refusal threshold on these queries; save them with the index.

    Each query gives one sample: the features of its closest candidate among the best ``REFUSAL_DEPTH``
    (as search judges them), labelled answerable or not; a query is refused when the confidence is
    below the threshold. Where the stronger embedder's vectors are complete, a second model is fitted with its
    cosine too, on the queries with a candidate that has one (the closest by both cosines), and saved beside.
    The second model is fitted on every such query, and again on each script's alone (Chinese, Latin) where it
    has answerable and unanswerable ones: the judge prefers the question's script's.
    """
    if research.judge is None:
        raise ValueError("calibration needs vectors: run `gantha embed` first")
    searcher = research.searcher
    judge = research.judge
    reranker = judge.reranker
    second = reranker.second
    samples: list[tuple[float, float, float, float, bool]] = []
    strong: dict[str, list[tuple[float, float, float, float, bool]]] = defaultdict(list)
    for q in queries:
        if q.lemma or not q.query.strip():
            continue
        ranked = research.pipeline.route_rankings(_request(q, mode, REFUSAL_DEPTH))
        top = [d for d, _ in searcher.fuse(ranked, ranked.weights)[:REFUSAL_DEPTH]]
        pairs = searcher.evidence_passages(top, searcher.store.get_ids(top), ranked.evidence)
        if not pairs:
            continue
        passages = [p for _, p in pairs]
        features = reranker.features(sought(q.query), passages)  # as search judges
        (cos, lex), p = max(zip(features, passages, strict=True), key=lambda fp: fp[0])
        samples.append((cos, lex, crosses(q.query, p.text), 0.0, q.answerable))
        if second is not None and (cos2 := reranker.second_similarities(sought(q.query), passages)) is not None:
            (cos, lex), c2, p = max(zip(features, cos2, passages, strict=True), key=lambda f: (f[0][0] + f[1], f[0][1]))
            for key in ("", script_of(q.query)):
                strong[key].append((cos, lex, crosses(q.query, p.text), c2, q.answerable))
    if not samples:
        raise ValueError("no query found a candidate to calibrate on")
    judge.calibration = fit_calibration(samples)
    judge.calibration.source = f"fitted on {len(samples)} queries ({mode})"
    judge.calibration.save(research.store)
    for script, rows in strong.items():
        if script and len({answerable for *_, answerable in rows}) < 2:
            continue  # a script with answerable queries only (or none): the model of every query judges it
        name = f"{second[0].name}:{script}" if script else second[0].name
        cal = fit_calibration(rows, second=True)
        cal.source = (
            f"fitted on {len(rows)} {script + ' ' if script else ''}queries ({mode}) with {second[0].name}'s cosine"
        )
        cal.save(research.store, name)
        if script:
            judge.scripts[name] = cal
        else:
            judge.strong = cal
    return judge.calibration


def _answers(research: Research, q: EvalQuery) -> tuple[str, list[str]]:
    """The level and node coordinates that answer a whole-text question (a query naming suttas only: those)."""
    if q.nodes:
        return q.level or "sutta", q.nodes
    return "sutta", [r.label for uid in q.suttas if (r := research.store.text(uid))]


def _first(found: list[str], wanted: list[str]) -> int | None:
    """The rank (from 0) of the first node among the best :data:`NODE_DEPTH` that is one wanted or lies in one."""
    hits = (i for i, c in enumerate(found[:NODE_DEPTH]) if any(c == w or c.startswith(f"{w}.") for w in wanted))
    return next(hits, None)


def _held(research: Research, level: str, hits: list[Hit]) -> list[str]:
    """The nodes of ``level`` holding paragraph hits, in the order of their best hit."""
    passages = research.store.get_ids([f"{h.coordinate}@{h.channel}" for h in hits])
    out: list[str] = []
    for h in hits:
        p = passages.get(f"{h.coordinate}@{h.channel}")
        if p is not None and (node := research.node_of(level, p)) and node not in out:
            out.append(node)
    return out


def whole_texts(research: Research, queries: list[EvalQuery]) -> dict[str, Any]:
    """Which book, chapter, sutta or section answers this? Per split and language: hit@1, hit@5 and MRR@10
    of the right node by flat paragraph retrieval (the nodes of the question's level holding the hits, in rank
    order), by ``granularity=<its level>`` and by ``granularity=auto`` (its paragraphs' nodes likewise), and
    how often ``auto`` stopped at the right level and at the right node (``auto level``, ``auto node``)."""
    per: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    details = []
    for q in queries:
        if not q.answerable or not (q.nodes or q.suttas):
            continue
        level, wanted = _answers(research, q)
        req = _request(q, q.mode, NODE_WINDOW)
        flat = research.search(req, lemma=q.lemma)
        nodes = research.search(req.model_copy(update={"granularity": level, "limit": NODE_DEPTH}), lemma=q.lemma)
        auto = research.search(req.model_copy(update={"granularity": "auto"}), lemma=q.lemma)
        found = {
            "flat": _held(research, level, flat.hits or flat.weak),
            level: [n.coordinate for n in nodes.nodes],
            "auto": _held(research, level, auto.hits),
        }
        stops = [step for step in (auto.query_info.hierarchy or {}).get("path", []) if step["descended"]]
        targets = [research.outline(w, summaries=False).node for w in wanted]
        stop = stops[-1] if stops else {"level": "flat", "node": None}
        ranks = {mode: _first(got, wanted) for mode, got in found.items()}
        for key in (f"{q.split}/{q.group}" if q.split else q.group, f"{q.split}/all" if q.split else "all"):
            m = per[key]
            for mode, rank in ranks.items():
                name = "level" if mode == level else mode
                m[f"{name} hit@1"].append(float(rank == 0))
                m[f"{name} hit@5"].append(float(rank is not None and rank < 5))
                m[f"{name} mrr"].append(0.0 if rank is None else 1 / (rank + 1))
            m["auto level"].append(float(stop["level"] in {t.level for t in targets}))
            m["auto node"].append(float(stop["node"] in {t.coordinate for t in targets}))
        details.append(
            {"id": q.id, "split": q.split, "level": level, "wanted": wanted, "ranks": ranks, "auto": stop}
            | {f"{mode} top": got[:3] for mode, got in found.items()}
        )
    groups = {
        key: {name: round(sum(v) / len(v), 4) for name, v in m.items()} | {"queries": len(m["auto level"])}
        for key, m in sorted(per.items())
    }
    return {"groups": groups, "queries": details}
