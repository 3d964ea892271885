"""Reads while the index is written: simple searches against a real `gantha serve` while a book is
deleted and while 20 Markdown documents are ingested, both through the admin API's tasks.

    python bench/writes.py [--workers N] [--phases delete,reingest,ingest]    (GANTHA_BENCH_INDEX: the whole CST)

The index is copied first (the delete must not touch the benchmark index). Normal traffic (the simple
queries of bench/throughput.py, 4 clients) runs alone, then from the moment the delete of the Dīgha
Nikāya's first book is accepted until its task and the tasks it queued (classify) are done, and 3 s
more while the workers reopen the index; then (``reingest``) while the same book is ingested again from its
CST files (the admin API's ingest by server path); then likewise for 20 uploads: the books of the King James
New Testament written as Markdown (book › chapter headings, a verse per paragraph). Reports
p50/p95/p99 and requests/s of the normal traffic in each phase (target: p99 ≤ 1 s while writing) and
how long the tasks took.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from xml.etree import ElementTree

import httpx

from throughput import PATHS

from common import CST, INDEX, ROOT, percentile, serve

CLIENTS = 4
KEY = "bench-writes"
DELETED = "cst/s0101m.mul"
BIBLE = ROOT.parent / "shared" / "data" / "bible" / "kjv"
SETTLE = 3.0  # seconds of traffic measured after the last task is done


def markdown_books(folder: Path, count: int = 20) -> list[Path]:
    """Real documents to upload: New Testament books of the KJV as Markdown."""
    written = []
    for number in range(40, 40 + count):
        book = ElementTree.parse(BIBLE / f"kjv{number}.xml").getroot()
        lines = [f"# {book.get('englishName')}", ""]
        for chapter in book.iter("Chapter"):
            lines += [f"## Chapter {chapter.get('number')}", ""]
            lines += [f"{v.get('number')}. {(v.text or '').strip()}\n" for v in chapter.iter("Line")]
        path = folder / f"kjv-{number}-{book.get('englishName', number).lower().replace(' ', '-')}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        written.append(path)
    return written


async def traffic(base: str, until: asyncio.Event) -> dict:
    latencies: list[float] = []
    errors = 0

    async def client(http: httpx.AsyncClient, k: int) -> None:
        nonlocal errors
        i = k
        while not until.is_set():
            t = time.perf_counter()
            r = await http.get(PATHS[i % len(PATHS)])
            latencies.append((time.perf_counter() - t) * 1000)
            errors += r.status_code != 200
            i += CLIENTS

    started = time.perf_counter()
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        await asyncio.gather(*(client(http, k) for k in range(CLIENTS)))
    elapsed = time.perf_counter() - started
    return {
        "seconds": round(elapsed, 1),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "p99_ms": round(percentile(latencies, 99), 1),
        "max_ms": round(max(latencies), 1),
        "errors": errors,
    }


async def listed_tasks(admin: httpx.AsyncClient) -> list[dict]:
    return (await admin.get("/api/v1/documents/tasks", params={"page_size": 500})).json()["data"]["items"]


async def during(base: str, submit) -> dict:  # type: ignore[no-untyped-def]
    """Normal traffic from before the tasks are submitted until they are done (and SETTLE seconds more)."""
    until = asyncio.Event()
    measured = asyncio.create_task(traffic(base, until))
    headers = {"X-API-Key": KEY}
    async with httpx.AsyncClient(base_url=base, timeout=120, headers=headers) as admin:
        before = {t["id"] for t in await listed_tasks(admin)}
        started = time.perf_counter()
        tasks = await submit(admin)
        while True:
            states = [(await admin.get(f"/api/v1/documents/tasks/{t}")).json()["data"]["state"] for t in tasks]
            if all(s in ("done", "failed") for s in states):
                break
            await asyncio.sleep(0.5)
        took = time.perf_counter() - started
        while True:  # and the tasks they queued (classify, summarize)
            listed = await listed_tasks(admin)
            if not any(t["state"] in ("queued", "running") for t in listed):
                break
            await asyncio.sleep(0.5)
        chain = time.perf_counter() - started
    await asyncio.sleep(SETTLE)
    until.set()
    followed = sorted({t["kind"] for t in listed if t["id"] not in {*tasks, *before}})
    return {
        "tasks": len(tasks),
        "task_states": sorted(set(states)),
        "tasks_seconds": round(took, 1),
        "followed_by": followed,
        "with_followers_seconds": round(chain, 1),
    } | (await measured)


async def delete_book(admin: httpx.AsyncClient) -> list[str]:
    r = await admin.delete(f"/api/v1/documents/{DELETED}")
    r.raise_for_status()
    return [r.json()["data"]["id"]]


def reingest(folder: Path):  # type: ignore[no-untyped-def]
    async def submit(admin: httpx.AsyncClient) -> list[str]:
        r = await admin.post("/api/v1/documents", json={"source": "cst", "path": str(folder)})
        r.raise_for_status()
        return [r.json()["data"]["id"]]

    return submit


def book_folder(folder: Path) -> Path:
    """The deleted book's CST files and the tables of contents, copied (the server ingests only from its roots)."""
    folder.mkdir()
    for f in [*CST.glob(f"{DELETED.split('/')[1]}*"), *CST.glob("tipitaka_toc*")]:
        shutil.copy(f, folder / f.name)
    return folder


def uploads(files: list[Path]):  # type: ignore[no-untyped-def]
    async def submit(admin: httpx.AsyncClient) -> list[str]:
        ids = []
        for f in files:
            r = await admin.post("/api/v1/documents", files={"file": (f.name, f.read_bytes(), "text/markdown")})
            r.raise_for_status()
            ids.append(r.json()["data"]["id"])
        return ids

    return submit


async def alone(base: str, seconds: float) -> dict:
    until = asyncio.Event()
    asyncio.get_running_loop().call_later(seconds, until.set)
    return await traffic(base, until)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("--phases", default="delete,reingest,ingest", help="the writing phases to measure, in this order")
    args = ap.parse_args()
    phases = args.phases.split(",")
    work = Path(tempfile.mkdtemp(prefix="gantha-writes-"))
    try:
        index = work / "index"
        shutil.copytree(INDEX, index)
        os.environ["GANTHA_ADMIN_KEY"] = KEY
        os.environ["GANTHA_INGEST_ROOTS"] = str(work)
        cst_book = book_folder(work / "cst")
        files = markdown_books(work)
        server, base = serve(str(index), args.workers, PATHS)
        try:
            report = {"workers": args.workers, "alone": asyncio.run(alone(base, args.seconds))}
            if "delete" in phases:
                report[f"while deleting {DELETED}"] = asyncio.run(during(base, delete_book))
            if "reingest" in phases:
                report[f"while ingesting {DELETED} again"] = asyncio.run(during(base, reingest(cst_book)))
            if "ingest" in phases:
                report[f"while ingesting {len(files)} Markdown documents"] = asyncio.run(during(base, uploads(files)))
        finally:
            server.terminate()
            server.wait(30)
        print(json.dumps(report, indent=2, ensure_ascii=False))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
