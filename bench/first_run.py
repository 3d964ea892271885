"""The main job's first run on a fresh index: every source of a data folder, alignment and embedding, timed.

    python bench/first_run.py [DATA_DIR]

Runs ``gantha ingest all DATA_DIR`` (what ``gantha up`` does before serving) into a new index and
reports the wall time, each source's seconds, the embedding rate and the peak memory.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import INDEX, dir_size

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    data = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "data"
    index = INDEX.parent / "bench-first-run"
    shutil.rmtree(index, ignore_errors=True)
    started = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", "ingest", "all", str(data), "--index", str(index), "--json"],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    summaries = json.loads(run.stdout) if run.stdout.strip() else []
    sources = {}
    for s in summaries:
        row = {"seconds": s["seconds"], "passages": s["passages"]}
        if s.get("coverage"):
            row["translated_placed"] = {name: c["share"] for name, c in s["coverage"].items()}
        if e := s.get("embedded"):
            row["embedded"] = {
                "passages": e["passages"],
                "seconds": e["seconds"],
                "passages_per_s": round(e["passages"] / max(e["seconds"], 1e-9), 1),
            }
        sources[s["source"]] = row
    report = {
        "wall_s": round(wall, 1),
        "exit_code": run.returncode,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
        "index_mib": round(dir_size(index) / 2**20, 1),
        "sources": sources,
        "index": str(index),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
