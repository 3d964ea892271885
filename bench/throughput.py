"""HTTP throughput at concurrency 8 for simple queries, against a real `gantha serve`.

python bench/throughput.py [--workers N] [--seconds S] [--path P ...] [--queries [FILE]] [--uncached]
                                                                              (run bench/ingest.py first)

``--path`` replaces the mix of simple queries (e.g. ``--path '/api/v3/search?q=dhamma&page_size=10'``, the
query the hardening issue measured). ``--queries`` sends the real words and phrases of ``bench/queries.txt``
(550 written forms and phrases of the CST, the list bench/backends.py searches) instead, in a fixed shuffled
order: distinct queries. The server
keeps the answers of recent searches: a repeated query is answered from them. ``--uncached`` makes every
request distinct (a counter appended as an unknown parameter), so each one is searched. The resident memory
of each server process (RSS, and USS: what is its own, not shared) is reported at the end.

The server prepares the inflections of the most frequent words in the background after a write
(``GANTHA_WARM_WORDS``); here it does not, so that nothing competes with the load: ``--warm`` prepares them
first, as that task does on a live server (timed: ``warm_s``), and without it every word is computed when
first asked (``expansions.sqlite`` removed: a cold start).

Uses wrk when it is installed (a C load generator: apt install wrk), else an asyncio httpx client,
which shares the CPU with the server and so reports a lower bound.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import httpx
import psutil

from gantha.config import settings
from gantha.search.expansions import FILE
from gantha.search.words import Words
from gantha.store.factory import open_store

from common import INDEX, memory, percentile, serve

QUERIES = Path(__file__).with_name("queries.txt")

PATHS = [
    "/api/v3/search?" + urlencode(params)
    for params in (
        {"q": "bhikkhu"},
        {"q": "parivasa"},
        {"q": "nibbana", "page_size": 5},
        {"q": "metta"},
        {"q": "dhamma", "category": "mula"},
        {"q": "satipatthana"},
        {"q": "parivāsaṃ", "search_mode": "exact"},
    )
]
CONCURRENCY = 8


def _wrk(base: str, seconds: int, paths: list[str], uncached: bool = False) -> dict:
    script = Path(tempfile.mkdtemp()) / "paths.lua"
    lua_paths = ", ".join(f'"{p}"' for p in paths)
    suffix = ' .. "&n=" .. n' if uncached else ""
    # each of wrk's threads starts at its own place in the list, with its own counter: no request is sent twice
    script.write_text(
        f"paths = {{{lua_paths}}}\nthreads = 0\n"
        "function setup(thread)\n  thread:set('id', threads)\n  threads = threads + 1\nend\n"
        "function init(args)\n  i = math.floor(id * #paths / 2)\n  n = (id + 1) * 1000000000 + os.time()\nend\n"
        f"request = function()\n  i = i % #paths + 1\n  n = n + 1\n  return wrk.format(nil, paths[i]{suffix})\nend\n"
    )
    out = subprocess.run(
        ["wrk", "-t2", f"-c{CONCURRENCY}", f"-d{seconds}s", "--latency", "-s", str(script), base],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = dict(re.findall(r"\s+(50|75|90|99)%\s+([\d.]+\w+)", out))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket = re.search(r"Socket errors: (.*)", out)
    return {
        "tool": "wrk",
        "requests_per_s": rps,
        "requests": int(re.search(r"(\d+) requests in", out).group(1)),
        "latency": lat,
        "non_2xx": int(errors.group(1)) if errors else 0,
        "socket_errors": socket.group(1) if socket else None,
    }


async def _python_client(base: str, seconds: int, paths: list[str], uncached: bool = False) -> dict:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def worker(client: httpx.AsyncClient) -> None:
        nonlocal errors
        while time.perf_counter() < stop:
            t = time.perf_counter()
            path = random.choice(paths) + (f"&n={random.getrandbits(48)}" if uncached else "")
            r = await client.get(path)
            latencies.append((time.perf_counter() - t) * 1000)
            errors += r.status_code != 200

    async with httpx.AsyncClient(base_url=base, timeout=10) as client:
        started = time.perf_counter()
        await asyncio.gather(*(worker(client) for _ in range(CONCURRENCY)))
        elapsed = time.perf_counter() - started
    return {
        "tool": "httpx (same machine, lower bound)",
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "latency": {"50": f"{percentile(latencies, 50):.2f}ms", "95": f"{percentile(latencies, 95):.2f}ms"},
        "non_2xx": errors,
    }


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) the server and its worker processes have used."""
    root = psutil.Process(pid)
    total = 0.0
    for p in [root, *root.children(recursive=True)]:
        try:
            times = p.cpu_times()
        except psutil.Error:
            continue
        total += times.user + times.system
    return total


def _prepare(warm: bool) -> float | None:
    """Prepare the frequent words' inflections (``warm``; seconds taken) or remove every one kept."""
    if not warm:
        for suffix in ("", "-wal", "-shm"):
            (INDEX / f"{FILE}{suffix}").unlink(missing_ok=True)
        return None
    store = open_store(str(INDEX))
    try:
        started = time.perf_counter()
        kept, wanted = Words(store.lexicon(), store).warm(settings().warm_words, seconds=3600)
        assert kept == wanted, f"only {kept} of {wanted} words prepared"
        return round(time.perf_counter() - started, 1)
    finally:
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--path", action="append", help="a request path to send instead of the mix (repeatable)")
    ap.add_argument("--uncached", action="store_true", help="every request distinct: none answered from kept answers")
    ap.add_argument("--queries", nargs="?", const=str(QUERIES), help="send these queries (one a line), shuffled")
    ap.add_argument("--params", default="", help="with --queries: parameters added to each, e.g. page_size=10")
    ap.add_argument("--warm", action="store_true", help="prepare the frequent words' inflections first (else cold)")
    args = ap.parse_args()
    warm_s = _prepare(args.warm)
    paths = args.path or PATHS
    warm = paths
    if args.queries:
        text = Path(args.queries).read_text(encoding="utf-8")
        lines = [q for q in text.splitlines() if q.strip() and not q.startswith("#")]
        random.Random(5).shuffle(lines)
        extra = f"&{args.params}" if args.params else ""
        paths = ["/api/v3/search?" + urlencode({"q": q}).replace('"', "%22") + extra for q in lines]
        warm = [PATHS[0]]  # the index opened in every worker, none of the queries asked before
    server, base = serve(str(INDEX), args.workers, warm)  # every worker's caches warmed
    try:
        before = cpu_seconds(server.pid)
        if shutil.which("wrk"):
            result = _wrk(base, args.seconds, paths, args.uncached)
        else:
            result = asyncio.run(_python_client(base, args.seconds, paths, args.uncached))
        if requests := result.get("requests"):  # steadier than requests/s on a shared machine
            result["server_cpu_ms_per_request"] = round((cpu_seconds(server.pid) - before) / requests * 1000, 2)
        result.update(
            workers=args.workers,
            concurrency=CONCURRENCY,
            seconds=args.seconds,
            paths=paths if not args.queries else f"{len(paths)} queries of {args.queries}",
            uncached=args.uncached,
            warm_s=warm_s,
            memory=memory(server.pid),
            load_average=[round(x, 2) for x in psutil.getloadavg()],
        )
        print(json.dumps(result, indent=2))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
