"""The weight of a node's summary vector in whole-text search: fitted on the ``fit`` half of
eval/whole_texts.jsonl, reported on the ``report`` half.

    python eval/node_fusion.py INDEX [WEIGHT ...]

INDEX must hold summary vectors (``gantha summarize --no-model --index INDEX``). For each weight (default
0, 0.5, 1, 2, 4; 0 is ranking by the paragraphs' evidence alone) prints hit@1 / hit@5 / MRR@10 of the right
node by ``granularity=<its level>`` per half and language, and which weight the fit half chooses (best
MRR, ties to the smaller weight).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gantha.evaluate import load, whole_texts
from gantha.research import Research, nodes

HERE = Path(__file__).resolve().parent
METRICS = ("level hit@1", "level hit@5", "level mrr")


def main() -> None:
    research = Research.open(sys.argv[1])
    weights = [float(w) for w in sys.argv[2:]] or [0.0, 0.5, 1.0, 2.0, 4.0]
    queries = load(HERE / "whole_texts.jsonl")
    table = {}
    for weight in weights:
        nodes.SUMMARY_WEIGHT = weight
        groups = whole_texts(research, queries)["groups"]
        table[weight] = {g: [m[k] for k in METRICS] + [m["queries"]] for g, m in groups.items()}
        print(json.dumps({"weight": weight, **table[weight]}), flush=True)
    chosen = max(weights, key=lambda w: (table[w]["fit/all"][2], -w))
    print(json.dumps({"chosen on fit/all": chosen, "report/all": table[chosen]["report/all"]}))


if __name__ == "__main__":
    main()
