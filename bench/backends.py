"""The two backends side by side on the whole CST: ingest, in-process query latency, HTTP throughput.

    python bench/backends.py [--seconds S] [--skip-ingest]

Starts a PostgreSQL 16 with pgvector from the pgserver package (data in var/bench-pg), ingests the
lexicon and the whole CST into a fresh embedded index (var/bench-backends) and a fresh database with
`gantha ingest … --store`, then measures the queries of bench/query.py in process on each, and HTTP
requests/s at concurrency 8: the embedded index behind one `gantha serve` with two workers, the
database behind two `gantha serve` processes of one worker each (requests alternate between them).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import shutil
import subprocess
import sys
import time

import httpx
import psutil

from gantha.model import SearchRequest
from gantha.search.service import Searcher
from gantha.store.factory import open_store
from query import QUERIES
from throughput import CONCURRENCY, PATHS

from common import CST, ROOT, percentile, serve

DATA = CST.parent
LEXICON = (("wordstats", "wikipali/word_statistics"), ("grammar", "wikipali/grammar"), ("dict", "wikipali/dict"))


def measured(cmd: list[str]) -> dict:
    """Run a command; its wall time and the peak memory of its process."""
    started = time.perf_counter()
    proc = psutil.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, proc.memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    if proc.returncode not in (0, 3):  # 3: some files skipped and reported
        raise RuntimeError(proc.stderr.read().decode())
    return {"seconds": round(time.perf_counter() - started, 1), "peak_rss_mib": round(peak / 2**20)}


def ingest(location: str) -> dict:
    gantha = [sys.executable, "-m", "gantha.api.cli", "ingest"]
    lexicon = {name: measured([*gantha, name, str(DATA / folder), "--store", location]) for name, folder in LEXICON}
    return {"cst": measured([*gantha, "cst", str(CST), "--store", location]), "lexicon": lexicon}


def latency(location: str, rounds: int = 10) -> dict:
    store = open_store(location, create=False)
    searcher = Searcher(store)
    for _, kw in QUERIES:
        searcher.search(SearchRequest(**kw))
    times: list[float] = []
    for _ in range(rounds):
        for _, kw in QUERIES:
            t = time.perf_counter()
            searcher.search(SearchRequest(**kw))
            times.append((time.perf_counter() - t) * 1000)
    store.close()
    return {"p50_ms": round(percentile(times, 50), 1), "p95_ms": round(percentile(times, 95), 1)}


async def load(bases: list[str], seconds: int) -> dict:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def worker(k: int, clients: list[httpx.AsyncClient]) -> None:
        nonlocal errors
        i = k
        while time.perf_counter() < stop:
            i += 1
            t = time.perf_counter()
            r = await clients[i % len(clients)].get(random.choice(PATHS))
            latencies.append((time.perf_counter() - t) * 1000)
            errors += r.status_code != 200

    clients = [httpx.AsyncClient(base_url=b, timeout=30) for b in bases]
    started = time.perf_counter()
    await asyncio.gather(*(worker(k, clients) for k in range(CONCURRENCY)))
    elapsed = time.perf_counter() - started
    for c in clients:
        await c.aclose()
    return {
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "non_2xx": errors,
    }


def throughput(location: str, servers: int, workers: int, seconds: int) -> dict:
    started = [serve(location, workers, PATHS) for _ in range(servers)]
    try:
        result = asyncio.run(load([base for _, base in started], seconds))
    finally:
        for proc, _ in started:
            proc.terminate()
            proc.wait(10)
    return {"servers": servers, "workers_each": workers, "concurrency": CONCURRENCY, **result}


def main() -> None:
    import pgserver
    import psycopg

    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--skip-ingest", action="store_true", help="reuse the stores of an earlier run")
    args = ap.parse_args()
    folder = ROOT / "var" / "bench-backends"
    server = pgserver.get_server(ROOT / "var" / "bench-pg", cleanup_mode=None)
    base = server.get_uri()
    database = base.replace("/postgres?", "/gantha_bench?")
    if not args.skip_ingest:
        shutil.rmtree(folder, ignore_errors=True)
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute("DROP DATABASE IF EXISTS gantha_bench")
            conn.execute("CREATE DATABASE gantha_bench")
    report: dict = {}
    for name, location in (("embedded", str(folder)), ("postgres", database)):
        row: dict = {} if args.skip_ingest else {"ingest": ingest(location)}
        with contextlib.closing(open_store(location, create=False)) as store:
            row["size_mib"] = round(store.size() / 2**20)
            row["paragraphs"] = store.count()
        row["query"] = latency(location)
        row["http"] = (
            throughput(location, 1, 2, args.seconds) if name == "embedded" else throughput(location, 2, 1, args.seconds)
        )
        report[name] = row
        print(json.dumps({name: row}, indent=1), file=sys.stderr)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
