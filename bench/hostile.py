"""Normal traffic beside a hostile mix, against a real `gantha serve` over the whole CST.

    python bench/hostile.py [--seconds S] [--workers N]      (run bench/ingest.py first)

Measures the normal queries of bench/throughput.py at concurrency 4, first alone, then while four
hostile clients send prefix storms (`a* pa* pi* …`, repeated prefixes), 500-character similar-sentence
queries, deep pages, absurd parameters and 200 MB bodies announced in Content-Length. Reports the
normal traffic's p50/p95/p99 and requests/s in both runs, what the hostile requests were answered
(status counts) and the ratio of the loaded to the unloaded p99 (target: within 2×). Every request carries a
distinct unknown parameter, so none is answered from the answers the server keeps (a hostile client
would vary its requests; ``--cached`` lets the normal traffic repeat itself, as real users do).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import time
from collections import Counter
from urllib.parse import urlencode

import httpx

from throughput import PATHS

from common import INDEX, percentile, serve

NORMAL_CLIENTS, HOSTILE_CLIENTS = 4, 4
SENTENCE = "sabbe saṅkhārā aniccāti yadā paññāya passati atha nibbindati dukkhe esa maggo visuddhiyā " * 6
HOSTILE = [
    "/api/v3/search?" + urlencode({"q": " ".join(["a*"] * 20)}),
    "/api/v3/search?" + urlencode({"q": " ".join(["pari*"] * 30)}),
    "/api/v3/search?" + urlencode({"q": "pa* pi* pu* po*"}),
    "/api/v3/search?" + urlencode({"similar": SENTENCE[:500]}),
    "/api/v3/similar?" + urlencode({"sentence": SENTENCE[:500]}),
    "/api/v3/search?" + urlencode({"q": "bhikkhu", "page": 500, "page_size": 1000}),
    "/api/v3/search?" + urlencode({"q": "dhamma", "page_size": 100000}),
    "/api/v3/get?" + urlencode({"coordinates": ",".join(f"cst/vin02m3.mul/{i}" for i in range(1, 400))}),
]


async def _huge_body(base: str) -> int:
    """Announce a 200 MB JSON body and see whether the server answers before reading it."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        b"POST /api/v3/chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 200000000\r\n\r\n" + b'{"question": "' + b"a" * 65536
    )
    await writer.drain()
    line = await asyncio.wait_for(reader.readline(), 10)
    writer.close()
    return int(line.split()[1])


def _distinct(path: str) -> str:
    """The path with a parameter no two requests share: searched, not answered from kept answers."""
    return f"{path}&n={random.getrandbits(48)}"


async def run(base: str, seconds: int, hostile: bool, cached: bool = False) -> dict:
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    errors = 0
    stop = time.perf_counter() + seconds

    async def normal(client: httpx.AsyncClient) -> None:
        nonlocal errors
        while time.perf_counter() < stop:
            t = time.perf_counter()
            path = random.choice(PATHS)
            r = await client.get(path if cached else _distinct(path))
            latencies.append((time.perf_counter() - t) * 1000)
            errors += r.status_code != 200

    async def attacker(client: httpx.AsyncClient, k: int) -> None:
        while time.perf_counter() < stop:
            if k == 0 and random.random() < 0.2:
                statuses[f"huge body: {await _huge_body(base)}"] += 1
                continue
            path = random.choice(HOSTILE)
            try:
                r = await client.get(_distinct(path))
                statuses[f"{path.split('?')[0]} {r.status_code}"] += 1
            except httpx.TimeoutException:
                statuses[f"{path.split('?')[0]} timeout"] += 1

    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        started = time.perf_counter()
        tasks = [normal(client) for _ in range(NORMAL_CLIENTS)]
        if hostile:
            tasks += [attacker(client, k) for k in range(HOSTILE_CLIENTS)]
        await asyncio.gather(*tasks)
        elapsed = time.perf_counter() - started
    return {
        "normal_requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "normal_errors": errors,
        "hostile_answers": dict(statuses.most_common()),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=20)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cached", action="store_true", help="the normal traffic repeats its queries (kept answers)")
    args = ap.parse_args()
    server, base = serve(str(INDEX), args.workers, PATHS + HOSTILE)
    try:
        alone = asyncio.run(run(base, args.seconds, hostile=False, cached=args.cached))
        beside = asyncio.run(run(base, args.seconds, hostile=True, cached=args.cached))
        report = {
            "normal_traffic": "repeated (kept answers)" if args.cached else "distinct",
            "workers": args.workers,
            "seconds": args.seconds,
            "alone": alone,
            "beside_hostile": beside,
            "p99_ratio": round(beside["p99_ms"] / alone["p99_ms"], 2),
        }
        print(json.dumps(report, indent=2, ensure_ascii=False))
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
