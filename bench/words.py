"""Pali word search on the full index: the issue's targets and the latency of lemma searches with compounds.

python bench/words.py [LIMIT]

LIMIT: hits per page (default 10, as in search). GANTHA_BENCH_INDEX: an index with the whole CST and the
lexicon, e.g. the one `python bench/first_run.py` builds.

Cold: the first search of a lemma (its paradigm and compounds are computed from the vocabulary, then
cached); counted: a lemma searched before, in a query not yet counted (a new filter: its total and
aggregations are counted, the paradigm is cached); warm: the same searches again, as a server answers
them (a lemma's total and aggregations kept while the index is unchanged; the page ranked again). The
compound precision printed is of the splitter on a fixed random sample, to be judged by hand (see README).
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections import Counter

from gantha.model import SearchRequest
from gantha.research import Research

from common import INDEX, percentile

_LEMMAS = (
    "parivāsa mānatta abbhāna āpatti bhikkhu bhikkhunī saṅgha dhamma vinaya sīla citta kamma rūpa vedanā saññā "
    "nibbāna paññā kāya vācā gāma kusala akusala pārivāsika sabba paṭhama parivasati gacchati karoti bhāsati "
    "vadati passati deti labhati vasati hoti"
)
LEMMAS = _LEMMAS.split()
ROUNDS = 5
SAMPLE = 40  # compounds drawn for the hand check


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return (time.perf_counter() - t) * 1000, out


def main() -> None:
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    research = Research.open(INDEX)
    cold, counted, warm = [], [], []
    for lemma in LEMMAS:
        ms, _ = timed(research.search, SearchRequest(limit=limit), lemma=lemma)
        cold.append(ms)
    for _ in range(ROUNDS):
        research.searcher.lexical.counts.clear()
        for lemma in LEMMAS:
            ms, _ = timed(research.search, SearchRequest(limit=limit), lemma=lemma)
            counted.append(ms)
        for lemma in LEMMAS:
            ms, _ = timed(research.search, SearchRequest(limit=limit), lemma=lemma)
            warm.append(ms)
    typed = research.search(SearchRequest(q="parivasa"))
    top50 = research.search(SearchRequest(limit=50), lemma="parivāsa")
    every = research.search(SearchRequest(limit=1000), lemma="parivāsa")
    coordinates = {h.coordinate for h in every.hits}
    samuccaya = [h for h in every.hits if h.book == "vin02m3.mul" and h.in_compound]
    verb = research.forms("parivasati")
    rng = random.Random(7)
    pool = [(lemma, c.form, c.members) for lemma in LEMMAS[:24] for c in research.words.family(lemma).compounds]
    report = {
        "limit": limit,
        "lemma_search_cold_ms": {"p50": round(percentile(cold, 50), 1), "p95": round(percentile(cold, 95), 1)},
        "lemma_search_counted_ms": {"p50": round(percentile(counted, 50), 1), "p95": round(percentile(counted, 95), 1)},
        "lemma_search_warm_ms": {"p50": round(percentile(warm, 50), 1), "p95": round(percentile(warm, 95), 1)},
        "search parivasa (default mode) paragraphs": typed.total,
        "lemma parivāsa paragraphs (forms, derivatives, compounds)": every.total,
        "lemma parivāsa includes cst/vin02m3.mul/102": "cst/vin02m3.mul/102" in coordinates,
        "Cūḷavagga paragraphs where parivāsa stands in a compound": len(samuccaya),
        "top 50 by book": dict(Counter(h.book for h in top50.hits).most_common(5)),
        "forms parivasati includes parivasanto": any(f.form == "parivasanto" for f in verb.forms),
        "forms parivasati paragraphs": verb.total_paragraphs,
        "compound sample to judge": rng.sample(pool, min(SAMPLE, len(pool))),
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
