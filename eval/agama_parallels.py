"""The Āgamas' Pali parallels from the editor's marks: what was found, resolved and not, and a sample to judge.

    .venv/bin/python eval/agama_parallels.py --index INDEX [DATA] [--sample 50] [--seed 7]

Reads the marks of the plain-text edition (``DATA/agama/raw``), resolves them against the named texts of an
index holding SuttaCentral's texts (as ``gantha ingest agama`` does) and writes ``eval/agama-parallels.md``:
per collection the marks found, marked "none" (``【--】``), resolved and unresolved, each unresolved mark as
written with the reason; and ``eval/agama-parallels-sample.tsv``: a random sample of resolved links with both
texts' titles and openings (the Chinese, the Pali sutta's English), for a reader to judge (column ``judged``:
``yes`` the same discourse, ``no`` not; ``partly`` a shared part), whose count gives the precision.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

from gantha.corpus import agama_marks
from gantha.links.agama import editor_links
from gantha.store.factory import open_store

ROOT = Path(__file__).resolve().parents[1]
OPENING = 160  # characters of each text shown


def opening(store, uid: str, channel: str) -> str:
    record = store.text(uid)
    if record is None:
        return ""
    passages = store.book_passages(record.corpus, record.book, channel, (record.first_seq, record.last_seq))
    return " ".join(p.text for p in passages)[:OPENING].replace("\t", " ").replace("\n", " ")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("data", nargs="?", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--index", required=True)
    ap.add_argument("--sample", type=int, default=50)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    store = open_store(args.index, create=False)
    marks = agama_marks.read_marks(Path(args.data) / "agama").marks
    rows, report = editor_links(marks, store.texts())
    lines = [
        "# The Āgamas' Pali parallels from the editor's marks",
        "",
        "Measured with `.venv/bin/python eval/agama_parallels.py --index INDEX` on an index holding SuttaCentral's "
        "texts and the four Āgamas.",
        "",
        "| collection | marks found | marked none (【--】) | resolved | unresolved |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    unresolved = Counter(s.rstrip("0123456789.") for s, _, _ in report.unresolved)
    for c, n in report.found.items():
        lines.append(f"| {c.upper()} | {n} | {report.none.get(c, 0)} | {report.resolved.get(c, 0)} | {unresolved[c]} |")
    lines += ["", f"{len(rows) // 2} links (each stored both ways).", "", "## Unresolved marks", ""]
    lines += [f"- {s.upper()} 【{m}】: {why}" for s, m, why in report.unresolved] or ["(none)"]
    out = ROOT / "eval" / "agama-parallels.md"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    pairs = sorted({(r.src, r.dst) for r in rows if store.text(r.src) and store.text(r.src).corpus == "agama"})
    chosen = random.Random(args.seed).sample(pairs, min(args.sample, len(pairs)))
    sample = ["agama\tpali\tagama_title\tpali_title\tagama_opening\tpali_opening_en\tjudged"]
    for src, dst in chosen:
        a, p = store.text(src), store.text(dst)
        sample.append(
            f"{a.label}\t{p.label}\t{a.title}\t{p.pali_title} ({p.title})\t{opening(store, src, 'taisho')}\t"
            f"{opening(store, dst, 'en')}\t"
        )
    (ROOT / "eval" / "agama-parallels-sample.tsv").write_text("\n".join(sample) + "\n", encoding="utf-8")
    print("\n".join(lines[4 : 6 + len(report.found)]))
    print(f"{len(rows) // 2} links; {len(report.unresolved)} unresolved; see {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
