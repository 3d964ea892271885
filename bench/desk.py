"""The philologist's desk on the full index: concordance, collocates and profile of a frequent lemma.

python bench/desk.py [--index DIR]      (default: GANTHA_BENCH_INDEX or var/bench-index, built by bench/ingest.py)

Targets (issue 43): the concordance of dhamma (every form) first page ≤ 300 ms and its whole TSV export ≤ 10 s;
its collocates ≤ 2 s. Each view is timed cold (no scan kept) and warm; the tally of book sizes and form
frequencies (one pass over the canon, then kept beside the index) is timed apart and not written here. Prints
JSON, with what the desk finds for parivāsa (the issue's done-when checks).

Measured on the full index (217 books, 10,056,219 words): docs/desk.md has the table. A query of words (not a
phrase, ``NEAR`` or wildcard) is collocated and profiled in the canon's word ids, kept with the tally.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gantha.research import Research
from gantha.research.desk import DeskQuery
from gantha.research.desk.collocates import Lemmas
from gantha.research.desk.scan import Scanner
from gantha.research.desk.tally import Tallies

from common import INDEX

DHAMMA = DeskQuery(q="dhamma")  # every inflected form of the lemma (fuzzy mode)
DHAMMA_FAMILY = DeskQuery(q="dhamma", lemma=True)  # with its derivatives and compounds
PARIVASA = DeskQuery(q="parivāsa", lemma=True)


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, round((time.perf_counter() - t) * 1000, 1)


def cold(research: Research) -> Scanner:
    """Forget every kept scan: the next view reads its paragraphs again."""
    scanner = research._desk()[0]
    scanner._kept.clear()
    return scanner


def concordance(research: Research, query: DeskQuery) -> dict[str, Any]:
    cold(research)
    first, first_ms = timed(lambda: research.concordance(query, limit=50))
    cold(research)
    sorted_, sorted_ms = timed(lambda: research.concordance(query, sort=["right1"], limit=50))
    _, warm_ms = timed(lambda: research.concordance(query, sort=["left1"], limit=50, offset=5000))
    cold(research)
    tsv, tsv_ms = timed(lambda: research.concordance(query, sort=["right1"], fmt="tsv"))
    file = tsv.exported()
    return {
        "paragraphs": first.paragraphs,
        "lines": sorted_.lines_total,
        "forms": len(sorted_.forms),
        "first_page_book_order_ms": first_ms,
        "first_page_sorted_right1_cold_ms": sorted_ms,
        "page_sorted_left1_warm_ms": warm_ms,
        "tsv_export_cold_ms": tsv_ms,
        "tsv_bytes": len(file.content) if file else 0,
    }


def show(report: dict[str, Any], name: str, value: Any) -> None:
    """Record one figure and print the report so far (a long run's figures survive its interruption)."""
    report[name] = value
    print(json.dumps({name: value}, ensure_ascii=False), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--index", type=Path, default=INDEX)
    args = parser.parse_args()
    report: dict[str, Any] = {}
    research, open_ms = timed(lambda: Research.open(args.index))
    show(report, "open_ms", open_ms)
    tallies = Tallies(research.store, keep=False)  # timed here, never written into the index
    research.__dict__["_desk_parts"] = (Scanner(research), tallies, Lemmas(research.lexicon))
    _, family_ms = timed(lambda: research.family("dhamma", True, True))
    show(report, "dhamma_family_ms", family_ms)
    show(report, "concordance dhamma (every form)", concordance(research, DHAMMA))
    show(report, "concordance dhamma --lemma (derivatives, compounds)", concordance(research, DHAMMA_FAMILY))
    tally, tally_ms = timed(tallies.get)
    show(report, "tally", {"ms": tally_ms, "words": tally.words, "books": len(tally.books), "forms": len(tally.forms)})
    for name, query in (("dhamma", DHAMMA), ("dhamma --lemma", DHAMMA_FAMILY)):
        cold(research)
        col, col_ms = timed(lambda q=query: research.collocates(q))
        _, col_warm = timed(lambda q=query: research.collocates(q, measure="mi"))
        top = [c.lemma for c in col.collocates[:15]]
        show(report, f"collocates {name}", {"cold_ms": col_ms, "warm_other_measure_ms": col_warm, "top": top})
        cold(research)
        prof, prof_ms = timed(lambda q=query: research.profile(q))
        show(report, f"profile {name}", {"cold_ms": prof_ms, "per_10000": prof.per_10000})
    conc = research.concordance(PARIVASA, sort=["right1"], limit=5)
    col = research.collocates(PARIVASA, limit=30)
    prof = research.profile(PARIVASA)
    parivasa = {
        "lines": conc.lines_total,
        "paragraphs_per_book": {b.book: b.paragraphs for b in conc.books[:6]},
        "collocates_logdice_top30": [f"{c.lemma} {c.score:.2f}" for c in col.collocates],
        "layers_per_10000": {r.key: r.per_10000 for r in prof.layers},
        "collections_per_10000": {r.key: r.per_10000 for r in prof.collections if r.occurrences},
        "suttapitaka_occurrences": sum(r.occurrences for r in prof.collections if r.key.startswith("Sutta")),
    }
    show(report, "parivāsa", parivasa)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
