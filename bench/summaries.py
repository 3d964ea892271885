"""What a model summary costs: an uploaded Markdown document summarised node by node, bottom-up.

python bench/summaries.py [CHAPTERS]

The document is this project's README cut after its first CHAPTERS top-level chapters (default 3: a
handbook of about ten nodes with sections, lists and code), ingested into a fresh index and summarised
with the configured model (GANTHA_LLM_BASE_URL, e.g. ``local`` for the bundled one), then again after
the summaries are dropped as a re-ingest drops them: the second run must answer from the content-hash
cache. Prints the nodes, the model's mean seconds per summary and both runs' wall times.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path

from gantha.ingest import ingest_markdown
from gantha.store.embedded import EmbeddedStore
from gantha.summaries import summarize

from common import ROOT


def handbook(chapters: int) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"^## ", text, flags=re.M)]
    return text if chapters >= len(starts) else text[: starts[chapters]]


def main() -> None:
    chapters = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "docs"
        folder.mkdir()
        (folder / "handbook.md").write_text(handbook(chapters), encoding="utf-8")
        store = EmbeddedStore(Path(tmp) / "index")
        ingest_markdown(store, folder)
        t = time.perf_counter()
        first = summarize(store, model=True)
        first_s = time.perf_counter() - t
        store.drop_summaries("md", "handbook.md")
        t = time.perf_counter()
        again = summarize(store, model=True)
        again_s = time.perf_counter() - t
        root = store.node_summaries("md", "handbook.md")["md/handbook.md"]
    print(
        json.dumps(
            {
                "nodes": first.nodes,
                "model_calls": first.model_calls,
                "method": first.method,
                "errors": first.errors,
                "model_seconds": first.model_seconds,
                "per_summary_s": first.per_model_summary_s,
                "first_run_s": round(first_s, 1),
                "cached_run_s": round(again_s, 2),
                "cached_run_model_calls": again.model_calls,
                "document_summary": root.text,
            },
            indent=2,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
