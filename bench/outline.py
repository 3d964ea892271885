"""Outlines and whole-text search on the full index: cold (a fresh server: trees and summaries built on
first use) and warm latency.

    python bench/outline.py      (run bench/ingest.py first; GANTHA_BENCH_INDEX names another index)
"""

from __future__ import annotations

import json
import time

from gantha.model import SearchRequest
from gantha.research import Research

from common import INDEX, percentile

NODES = ["cst", "cst/vin02m3.mul", "cst/vin02m3.mul/ch2", "MN 10", "DN 16", "SN 56.11", "cst/s0305m.mul", "Dhp 183"]
QUERIES = ["parivasa", "nibbana", "sariputta", "vedana", "kathina", "anapanassati", "uposatha", "metta"]
LEVELS = ("chapter", "sutta", "section", "book", "auto")


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) * 1000


def _summary(times: list[float]) -> dict[str, float]:
    return {"p50_ms": round(percentile(times, 50), 1), "p95_ms": round(percentile(times, 95), 1)}


def main() -> None:
    research = Research.open(INDEX)
    research.search(SearchRequest(q="bhikkhu", limit=1))  # the index itself warm; outlines still cold
    report: dict[str, dict] = {}
    cold = [_timed(lambda c=c: research.outline(c)) for c in NODES]
    warm = [_timed(lambda c=c: research.outline(c)) for c in NODES for _ in range(5)]
    report["outline"] = {"cold": _summary(cold), "warm": _summary(warm)}
    for level in LEVELS:
        research = Research.open(INDEX)
        research.search(SearchRequest(q="bhikkhu", limit=1))
        reqs = [SearchRequest(q=q, granularity=level, limit=10) for q in QUERIES]
        search = research.search
        cold = [_timed(lambda r=r, search=search: search(r)) for r in reqs]
        warm = [_timed(lambda r=r, search=search: search(r)) for r in reqs for _ in range(3)]
        report[f"granularity={level}"] = {"cold": _summary(cold), "warm": _summary(warm)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
