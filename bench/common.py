"""Helpers shared by the benchmarks: where the corpus and the benchmark index live, percentiles."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CST = Path(os.environ.get("GANTHA_CST_PATH", ROOT.parent / "shared" / "data" / "cst"))
INDEX = Path(os.environ.get("GANTHA_BENCH_INDEX", ROOT / "var" / "bench-index"))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())
