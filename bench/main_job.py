"""The main job as a user runs it (`gantha up` on a fresh index): when lexical and meaning search come up, and
the resident memory of every process of it under lexical and meaning load.

    python bench/main_job.py [DATA_DIR] [--workers 2]

Starts ``gantha up`` over DATA_DIR's CST (default ../shared/data/cst; what lies beside it is ingested too) into a
new index (var/bench-up), waits until it serves lexical search, asks each word of the distinct list
(bench/queries.txt) once from 8 threads, waits until the job says meaning search is on (every vector of the first
run saved), asks each hybrid question of eval/meaning.jsonl (English and Chinese) once the same way, then the
words again with a second page (none answered from a worker's kept answers). After each load it records the
resident memory (RSS, and USS: the process's own pages) of the main process, of each server worker and of any
other child (the task process, the background upgrade), and prints it all as JSON. Stops everything at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil

from common import CST, INDEX, free_port, memory, percentile

ROOT = Path(__file__).resolve().parents[1]
WORDS = [line for line in (ROOT / "bench" / "queries.txt").read_text().splitlines() if line and line[0] != "#"]
QUESTIONS = [json.loads(line)["query"] for line in (ROOT / "eval" / "meaning.jsonl").read_text().splitlines()]


def load(base: str, paths: list[str]) -> dict:
    """Each of ``paths`` asked once, from 8 threads: requests/s, p50 and p99, status counts."""
    took: list[float] = []
    statuses: dict[int, int] = {}

    def client(start: int) -> None:
        with httpx.Client(base_url=base, timeout=60) as http:
            for path in paths[start::8]:
                t = time.perf_counter()
                r = http.get(path)
                took.append((time.perf_counter() - t) * 1000)
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1

    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(client, range(8)))
    return {
        "requests_per_s": round(len(took) / (time.monotonic() - started), 1),
        "p50_ms": round(percentile(took, 50), 1),
        "p99_ms": round(percentile(took, 99), 1),
        "statuses": statuses,
    }


def wait_for(ready, limit: float) -> float:
    """Seconds until ``ready()`` holds."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        with contextlib.suppress(httpx.HTTPError, ValueError):
            if ready():
                return round(time.monotonic() - started, 1)
        time.sleep(2)
    raise TimeoutError(f"not ready after {limit:.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=str(CST.parent))
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    index = INDEX.parent / "bench-up"
    shutil.rmtree(index, ignore_errors=True)
    port = free_port()
    cmd = [sys.executable, "-m", "gantha.api.cli", "up", "--corpus", str(Path(args.data) / "cst")]
    cmd += ["--index", str(index), "--port", str(port), "--workers", str(args.workers)]
    index.parent.mkdir(parents=True, exist_ok=True)
    log_path = index.parent / "bench-up.log"
    log = open(log_path, "w")  # noqa: SIM115 (the job's own output, kept for reading)
    job = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    words = [f"/api/v3/search?q={w}&page_size=10" for w in WORDS]
    meaning = [f"/api/v3/search?q={q}&mode=hybrid&page_size=10" for q in QUESTIONS]
    report: dict = {}
    try:
        report["lexical_up_s"] = wait_for(lambda: httpx.get(base + "/api/v3/health", timeout=10).is_success, 3600)
        report["lexical"] = load(base, words) | {"processes": memory(job.pid)}
        print(json.dumps({"lexical": report["lexical"]}), file=sys.stderr)
        meaning_on = "semantic and hybrid search are on"  # the job's line once the first run's vectors are saved
        report["meaning_up_s"] = report["lexical_up_s"] + wait_for(lambda: meaning_on in log_path.read_text(), 3600)
        time.sleep(5)  # the workers reopen the index with its vectors
        report["meaning"] = load(base, meaning) | {"processes": memory(job.pid)}
        print(json.dumps({"meaning": report["meaning"]}), file=sys.stderr)
        words = [f"{w}&page=2" for w in words]
        report["lexical_after"] = load(base, words) | {"processes": memory(job.pid)}
    finally:
        for p in [*psutil.Process(job.pid).children(recursive=True), psutil.Process(job.pid)]:
            p.terminate()
        job.wait(60)
        log.close()
    workers = [p for stage in ("lexical", "meaning", "lexical_after") for p in report[stage]["processes"]]
    report["largest_worker_rss_mib"] = max(p["rss_mib"] for p in workers if p["role"] == "worker")
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
