"""Whole-corpus ingest: wall time (the links between paragraphs included, and apart), peak RSS, index size; the
lexicon and translations beside it, and every written form's lemmas tabulated once they are all in (what
``gantha ingest all`` does at its end).

    python bench/ingest.py [CST_DIR]
"""

from __future__ import annotations

import json
import resource
import shutil
import sys
import time
from pathlib import Path

from gantha.ingest import ingest_cst, ingest_lexicon, ingest_myanmar, ingest_suttacentral
from gantha.search import form_lemmas
from gantha.store.embedded import EmbeddedStore

from common import CST, INDEX, dir_size


def main() -> None:
    cst = Path(sys.argv[1]) if len(sys.argv) > 1 else CST
    shutil.rmtree(INDEX, ignore_errors=True)
    store = EmbeddedStore(INDEX)
    summary = ingest_cst(store, cst)
    store.close()
    peak_cst = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    extra = {}  # the lexicon and translations beside the corpus, timed apart
    data = cst.parent
    for source, folder in (
        ("wordstats", "wikipali/word_statistics"),
        ("grammar", "wikipali/grammar"),
        ("dict", "wikipali/dict"),
    ):
        if (data / folder).exists():
            extra[source] = ingest_lexicon(EmbeddedStore(INDEX), source, data / folder, force=True).seconds
    store = EmbeddedStore(INDEX)
    for source, run in (("myanmar", ingest_myanmar), ("suttacentral", ingest_suttacentral)):
        if (data / source).exists():
            extra[source] = run(store, data / source, force=True).seconds
    started = time.perf_counter()
    forms = form_lemmas.tabulate(store)
    extra["form_lemmas"] = {"forms": forms, "seconds": round(time.perf_counter() - started, 1)}
    store.close()
    report = {
        "books": summary.books,
        "paragraphs": summary.passages,
        "page_refs": summary.page_refs,
        "bold_terms": summary.bold_terms,
        "skipped": len(summary.skipped),
        "wall_s": summary.seconds,
        "links_s": summary.links["seconds"] if summary.links else None,  # included in wall_s
        "links": {k: v for k, v in (summary.links or {}).items() if k in ("layers", "citations", "parallels")},
        "peak_rss_mib": round(peak_cst, 1),
        "peak_rss_mib_with_other_sources": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "index_mib": round(dir_size(INDEX) / 2**20, 1),
        "other_sources_s": extra,
        "index": str(INDEX),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
