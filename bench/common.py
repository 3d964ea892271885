"""Helpers shared by the benchmarks: where the corpus and the benchmark index live, percentiles."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil

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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(location: str, workers: int, warm: list[str]) -> tuple[subprocess.Popen, str]:
    """A real `gantha serve` over ``location`` (a folder or a database URL), answering ``warm[0]``, with
    every path of ``warm`` asked of every worker once; the process and its base URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--store", location, "--port", str(port)]
    env = {**os.environ, "GANTHA_WARM_WORDS": "0"}  # no background work beside the load (bench/throughput.py --warm)
    proc = subprocess.Popen([*cmd, "--workers", str(workers)], stderr=subprocess.DEVNULL, env=env)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            httpx.get(base + warm[0], timeout=5).raise_for_status()
            break
        except httpx.HTTPError:
            time.sleep(0.2)
    for p in warm:
        for _ in range(workers * 2):
            httpx.get(base + p, timeout=60)
    return proc, base


def memory(pid: int) -> list[dict]:
    """Resident memory of a server and its child processes, MiB: rss (shared pages counted) and uss (its own), with
    each one's role: main, worker (a server process it spawned) or other (a task process, a background job)."""
    out = []
    root = psutil.Process(pid)
    for p in [root, *root.children(recursive=True)]:
        try:
            info, cmd = p.memory_full_info(), " ".join(p.cmdline())
        except psutil.Error:
            continue
        role = "main" if p.pid == pid else "worker" if "spawn_main" in cmd and p.ppid() == pid else "other"
        out.append({"pid": p.pid, "role": role, "rss_mib": round(info.rss / 2**20), "uss_mib": round(info.uss / 2**20)})
    return out
