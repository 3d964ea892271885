"""Latency of the research verbs on the full index with its lexicon (suggest must stay under 20 ms).

python bench/research.py      (run bench/ingest.py first; it also loads the lexicon and translations)
"""

from __future__ import annotations

import json
import time

from gantha.research import Research
from gantha.store.embedded import EmbeddedStore

from common import INDEX, percentile

CALLS = {
    "suggest": [
        ("suggest", ("satipatthana",)),
        ("suggest", ("s",)),
        ("suggest", ("pariv",)),
        ("suggest", ("夜叉",)),
        ("suggest", ("nibb",)),
        ("suggest", ("dhammacakk",)),
        ("suggest", ("P2.003",)),
    ],
    "forms": [("forms", ("parivāsa",)), ("forms", ("bhikkhu",)), ("forms", ("mettā",)), ("forms", ("nibbana",))],
    "word": [("word", ("parivāsaṃ",)), ("word", ("dhammo",)), ("word", ("mettā",))],
    "get": [("get", (["cst/vin02m3.mul/75", "cst/s0101m.mul/1", "cst/vin02a3.att/84"], ["pali", "my"]))],
    "chapter": [("chapter", ("cst/vin02m3.mul/75",))],
    "versions": [("versions", ("cst/vin02m3.mul/75",))],
    "dist": [("dist", (["parivāsaṃ", "parivāso"],))],
    "similar": [("similar", ("sabbe saṅkhārā aniccā",))],
}
ROUNDS = 20


def main() -> None:
    store = EmbeddedStore(INDEX, create=False)
    research = Research(store, store.lexicon())
    report = {}
    for verb, calls in CALLS.items():
        for name, args in calls:  # warm up
            getattr(research, name)(*args)
        times = []
        for _ in range(ROUNDS):
            for name, args in calls:
                t = time.perf_counter()
                getattr(research, name)(*args)
                times.append((time.perf_counter() - t) * 1000)
        report[verb] = {
            "p50_ms": round(percentile(times, 50), 2),
            "p95_ms": round(percentile(times, 95), 2),
            "max_ms": round(max(times), 2),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
