"""Latency of meaning search over the canon: the questions of eval/meaning.jsonl, semantic and hybrid.

python bench/meaning.py [INDEX]   (default: the index bench/first_run.py builds)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from gantha import evaluate
from gantha.model import SearchRequest
from gantha.research import Research

from common import INDEX, percentile

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    index = Path(sys.argv[1]) if len(sys.argv) > 1 else INDEX.parent / "bench-first-run"
    research = Research.open(index)
    queries = [q.query for q in evaluate.load(ROOT / "eval" / "meaning.jsonl")]
    research.search(SearchRequest(q=queries[0], mode="hybrid"))  # loads the embedder and the vectors
    report = {}
    for mode in ("semantic", "hybrid"):
        took = []
        started = time.perf_counter()
        for q in queries:
            t = time.perf_counter()
            research.search(SearchRequest(q=q, mode=mode, limit=10))
            took.append((time.perf_counter() - t) * 1000)
        wall = time.perf_counter() - started
        report[mode] = {
            "queries": len(queries),
            "p50_ms": round(percentile(took, 50), 1),
            "p95_ms": round(percentile(took, 95), 1),
            "queries_per_s": round(len(queries) / wall, 1),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
