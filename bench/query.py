"""In-process query latency on the full index (highlighting and aggregations included).

python bench/query.py            (run bench/ingest.py first)
"""

from __future__ import annotations

import json
import time

from gantha.model import SearchRequest
from gantha.search.service import Searcher
from gantha.store.embedded import EmbeddedStore

from common import INDEX, percentile

QUERIES: list[tuple[str, dict]] = [
    ("word", {"q": "bhikkhu"}),
    ("word", {"q": "nibbāna"}),
    ("word", {"q": "parivāsaṃ", "mode": "exact"}),
    ("word", {"q": "mettā", "mode": "exact"}),
    ("folded", {"q": "parivasa"}),
    ("folded", {"q": "satipatthana"}),
    ("folded", {"q": "paticcasamuppada"}),
    ("folded", {"q": "samma sambuddho"}),
    ("phrase", {"q": '"sabbe saṅkhārā aniccā"'}),
    ("phrase", {"q": '"evaṃ me sutaṃ"'}),
    ("phrase", {"q": '"tena samayena buddho bhagavā"'}),
    ("page_ref", {"page_ref": "PTS Vin II 31"}),
    ("page_ref", {"page_ref": "P2.31"}),
    ("page_ref", {"page_ref": "M0.82"}),
    ("filtered", {"q": "bhikkhu", "categories": ["atthakatha"], "tags": ["vinaya"]}),
    ("filtered", {"q": "dhamma", "books": ["vin02m3.mul"]}),
    ("filtered", {"q": "parivasa*", "categories": ["tika"]}),
    ("prefix", {"q": "anicc*"}),
]
ROUNDS = 30


def main() -> None:
    searcher = Searcher(EmbeddedStore(INDEX, create=False))
    for _, kw in QUERIES:  # warm up caches and lazy imports
        searcher.search(SearchRequest(**kw))
    by_kind: dict[str, list[float]] = {}
    every: list[float] = []
    for _ in range(ROUNDS):
        for kind, kw in QUERIES:
            t = time.perf_counter()
            searcher.search(SearchRequest(**kw))
            ms = (time.perf_counter() - t) * 1000
            by_kind.setdefault(kind, []).append(ms)
            every.append(ms)
    report = {
        "queries": len(every),
        "p50_ms": round(percentile(every, 50), 2),
        "p95_ms": round(percentile(every, 95), 2),
        "qps_single_thread": round(len(every) / (sum(every) / 1000), 1),
        "by_kind": {
            k: {"p50_ms": round(percentile(v, 50), 2), "p95_ms": round(percentile(v, 95), 2)}
            for k, v in by_kind.items()
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
