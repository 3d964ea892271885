"""Whole-corpus ingest: wall time, peak RSS, index size.  python bench/ingest.py [CST_DIR]"""

from __future__ import annotations

import json
import resource
import shutil
import sys
from pathlib import Path

from common import CST, INDEX, dir_size
from gantha.ingest import ingest_cst
from gantha.store.embedded import EmbeddedStore


def main() -> None:
    cst = Path(sys.argv[1]) if len(sys.argv) > 1 else CST
    shutil.rmtree(INDEX, ignore_errors=True)
    store = EmbeddedStore(INDEX)
    summary = ingest_cst(store, cst)
    store.close()
    report = {
        "books": summary.books,
        "paragraphs": summary.passages,
        "page_refs": summary.page_refs,
        "bold_terms": summary.bold_terms,
        "skipped": len(summary.skipped),
        "wall_s": summary.seconds,
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "index_mib": round(dir_size(INDEX) / 2**20, 1),
        "index": str(INDEX),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
