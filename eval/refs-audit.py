"""Audit every reference of an index against SuttaCentral's texts and the CST's own numbering.

    python eval/refs-audit.py INDEX [--suttacentral DIR] [--collection dn,mn ...] [--out eval/refs-audit]

Writes OUT.md (per collection: agreeing, disagreeing, unresolved, each disagreement listed) and OUT.tsv (every
finding); exits 1 when a collection is below the target (gantha.research.audit.TARGET).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from gantha.research import Research
from gantha.research.audit import TARGET, audit_cst_numbered, audit_suttacentral, report

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("index")
    parser.add_argument("--suttacentral", default=str(ROOT.parent / "shared" / "data" / "suttacentral"))
    parser.add_argument("--collection", default="", help="only these collections (dn, mn, kn-dhp, vinaya-…)")
    parser.add_argument("--out", default=str(ROOT / "eval" / "refs-audit"))
    args = parser.parse_args(argv)
    started = time.perf_counter()
    research = Research.open(args.index)
    wanted = [c for c in args.collection.split(",") if c] or None
    audits = [audit_suttacentral(research, Path(args.suttacentral), wanted)]
    if wanted is None:
        audits.append(audit_cst_numbered(research))
    command = "python eval/refs-audit.py INDEX" + (f" --collection {args.collection}" if wanted else "")
    markdown, tsv = report(audits, command)
    elapsed = time.perf_counter() - started
    Path(args.out + ".md").write_text(markdown + f"\nAudited in {elapsed:.0f} s.\n", encoding="utf-8")
    Path(args.out + ".tsv").write_text(tsv, encoding="utf-8")
    below = [c.collection for a in audits for c in a.collections if c.share < TARGET]
    print(markdown.split("\n## ")[0])
    print(f"{args.out}.md, {args.out}.tsv written in {elapsed:.0f} s" + (f"; below target: {below}" if below else ""))
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
