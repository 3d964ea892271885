"""The weights of whole-text search beside the paragraphs' evidence — a node's summary vector, a title the
question names — fitted on the ``fit`` half of eval/whole_texts.jsonl, reported on the ``report`` half.

    python eval/node_fusion.py INDEX [summary|title] [WEIGHT ...]

For ``summary`` (the default) INDEX must hold summary vectors (``gantha summarize --no-model --index
INDEX``). For each weight (default 0, 0.5, 1, 2, 4; 0 is ranking without it) prints hit@1 / hit@5 / MRR@10
of the right node by ``granularity=<its level>`` per half and language, and which weight the fit half
chooses (best MRR, ties to the smaller weight).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from gantha.evaluate import load, whole_texts
from gantha.research import Research, nodes

HERE = Path(__file__).resolve().parent
METRICS = ("level hit@1", "level hit@5", "level mrr")
WEIGHTS = {"summary": "SUMMARY_WEIGHT", "title": "TITLE_WEIGHT"}


def main() -> None:
    research = Research.open(sys.argv[1])
    args = sys.argv[2:]
    which = args.pop(0) if args and args[0] in WEIGHTS else "summary"
    weights = [float(w) for w in args] or [0.0, 0.5, 1.0, 2.0, 4.0]
    queries = load(HERE / "whole_texts.jsonl")
    table = {}
    for weight in weights:
        setattr(nodes, WEIGHTS[which], weight)
        groups = whole_texts(research, queries)["groups"]
        table[weight] = {g: [m[k] for k in METRICS] + [m["queries"]] for g, m in groups.items()}
        print(json.dumps({which: weight, **table[weight]}), flush=True)
    chosen = max(weights, key=lambda w: (table[w]["fit/all"][2], -w))
    print(json.dumps({"chosen on fit/all": chosen, "report/all": table[chosen]["report/all"]}))


if __name__ == "__main__":
    main()
