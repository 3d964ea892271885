"""The Chinese questions (eval/chinese.jsonl): found before and after fitting the Chinese fusion, fit on one half.

    .venv/bin/python eval/chinese_eval.py --index INDEX

Each question is asked in hybrid mode; it is found when a paragraph of its sutta, or of the Āgama parallel it
names, ranks in the top 10 (hit@10). Printed per group (``agama-zh``: suttas with an Āgama parallel;
``noparallel-zh``: without) and per half: first with the weights the index holds, then the fusion is fitted on
the ``fit`` half (:func:`gantha.evaluate.fit_fusion`, saved with the index) and both halves asked again; the
figure to quote is the ``report`` half's. Also printed: each single route's hit@10 (lexical, vector, gloss …).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from gantha.evaluate import fit_fusion, load, run
from gantha.research import Research

ROOT = Path(__file__).resolve().parents[1]


def table(research: Research, queries, label: str) -> dict:
    out = {}
    for split in ("fit", "report"):
        part = [q for q in queries if q.split == split]
        groups = run(research, part, ["hybrid"])["groups"]
        for key, m in groups.items():
            out[f"{split}/{key}"] = m["hit@k"]
            print(f"{label:>7} {split:>6} {key:<32} hit@10 {m['hit@k']:.3f} ({m['queries']} questions)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True)
    ap.add_argument("--queries", default=str(ROOT / "eval" / "chinese.jsonl"))
    args = ap.parse_args()
    research = Research.open(args.index)
    queries = load(Path(args.queries))
    before = table(research, queries, "before")
    weights, methods = fit_fusion(research, [q for q in queries if q.split == "fit"])
    print("fitted on the fit half:", json.dumps(weights, ensure_ascii=False), methods)
    after = table(Research.open(args.index), queries, "after")
    print(json.dumps({"before": before, "after": after}, indent=1))


if __name__ == "__main__":
    main()
