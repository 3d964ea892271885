"""How a server's workers share a distinct load: rounds of wrk (concurrency 8, every request a distinct query,
fresh connections each round) against one `gantha serve`, each round's requests/s and p95 with each worker's CPU
seconds in it (a worker with none: every connection went to the other).

    python bench/workers.py [--index DIR] [--workers 2] [--rounds 3] [--seconds 10] [--queries bench/queries2.txt]
                            [--prepare]

``--prepare``: first the frequent words' inflections, as a server's background task keeps them after a write (a
warm server; without it, whatever the index's folder keeps already).

The index: ``--index``, else the embedded store of bench/backends.py (var/bench-backends: the whole CST with the
lexicon). Run after ``python bench/backends.py --phases ingest`` (or on any index).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import psutil

import backends
from gantha.store.factory import open_store

from common import serve


def cpu(processes: list[psutil.Process]) -> dict[int, float]:
    out = {}
    for p in processes:
        try:
            out[p.pid] = sum(p.cpu_times()[:2])
        except psutil.NoSuchProcess:
            continue
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", default=str(backends.VAR / "bench-backends"))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--queries", type=Path, default=Path(__file__).with_name("queries2.txt"))
    ap.add_argument("--prepare", action="store_true", help="the frequent words' inflections first")
    args = ap.parse_args()
    if args.prepare:
        store = open_store(args.index, create=False)
        try:
            print(json.dumps(backends.prepare(store)))
        finally:
            store.close()
    backends.DISTINCT[:] = backends.read_queries(args.queries)
    proc, base = serve(args.index, args.workers, backends._paths()[:20])
    try:
        workers = [p for p in psutil.Process(proc.pid).children() if "spawn_main" in " ".join(p.cmdline())]
        for _ in range(args.rounds):
            before = cpu(workers)
            load = backends.wrk([base], args.seconds)
            after = cpu(workers)
            spent = [round(after[pid] - before[pid], 1) for pid in before if pid in after]
            shown = {k: load[k] for k in ("requests_per_s", "p95_ms", "non_2xx")}
            print(json.dumps(shown | {"p99": load["latency"][0].get("99"), "worker_cpu_s": spent}))
    finally:
        backends.stop(proc)


if __name__ == "__main__":
    main()
