"""A random sample of the computed links, to be judged by hand: repeated passages and commentary layers.

    python eval/links_sample.py [--index var/full] [--seed 2026] [--parallels 50] [--atthakatha 50] [--tika 25]
                                [--out-parallels eval/links-sample-parallels.tsv]
                                [--out-layers eval/links-sample-layers.tsv]
    python eval/links_sample.py --show parallels|layers N     # the full texts of row N, to judge it
    python eval/links_sample.py --summary                     # verdict counts and precision of judged TSVs
    python eval/links_sample.py --offsets atthakatha|tika     # every link of a layer: lemmas in a neighbour?

Opens the index read-only. Draws, with a fixed seed, ``--parallels`` rows of kind ``parallel`` and, of kind
``comments``, ``--atthakatha`` rows whose commentary paragraph is an aṭṭhakathā and ``--tika`` rows whose
commentary paragraph is a ṭīkā (a ṭīkā is linked both to the aṭṭhakathā and to the mūla). Each draw is from
the rows in a fixed order (src, dst) with its own ``random.Random(f"{seed}-{sample}")``, so one sample does
not move when another's size changes.

Parallels TSV: both coordinates, the weight as the index stores it (the shared six-word stretches, each
weighed by its rarity; before that change: the stretches counted + 5), the longest shared run of
words (``shared_span``) with its length and the number of Pali paragraphs holding it (a phrase search on
its first 20 words: a large number means boilerplate), ``stretch_df`` (in how many paragraphs the counted
stretches stand, from the stored link facts: min/median/max), ``kept_at`` (whether the pair would still be
linked with a stock-formula limit of 30, 20, 10 paragraphs instead of ``FORMULA``), both paragraphs'
lengths and openings. Layers TSV:
the commentary and root coordinates, layer, weight and note, the commentary's bold words (its lemmas), which
of them occur in the root paragraph or its unnumbered followers, and both openings. A numbered paragraph is
read with its unnumbered followers (up to the next numbered one, at most ten): in verse texts the numbered
paragraph is often an empty verse number and the text follows it. Both end with ``verdict`` and ``note`` for
the judge; a rerun keeps the verdicts and notes already written for the same pair of coordinates.

Verdicts. Parallels: ``yes`` a genuine repeated passage, ``formula`` only stock boilerplate shared, ``no``
no real shared passage. Layers: ``yes`` comments on that root paragraph, ``near`` on a neighbouring one,
``no`` wrong.

``--offsets`` checks every ``comments`` link of one layer, not a sample: the commentary unit's bold lemmas
(folded, a closing ``ti`` and last letter dropped) are looked for in the linked root unit and in the numbered
root units before and after it; a book pair where many links find them only in a neighbour has numbers
shifted against its root (about 30 s for the aṭṭhakathā layer, 50 s for the ṭīkā layer).
"""

from __future__ import annotations

import argparse
import csv
import math
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from gantha.links.facts import unpack
from gantha.links.layers import is_numbered
from gantha.links.parallels import COMMON, FORMULA, MIN_SHARED, shared_span, shingles
from gantha.model import Passage, SearchMode, SearchRequest
from gantha.research import Research
from gantha.store.links import LinkRow
from gantha.text.pali import WORD_RE, fold

HERE = Path(__file__).resolve().parent
OPENING = 300
FOLLOWERS = 10  # unnumbered paragraphs after a root paragraph looked at
ALTERNATIVE_FORMULA = (30, 20, 10)  # lower stock-formula limits tried on each sampled parallel
PARALLEL_COLUMNS = [
    "n", "src", "dst", "weight", "span_words", "span_paragraphs", "stretch_df", "kept_at", "shared_span",
    "src_words", "dst_words", "src_opening", "dst_opening", "verdict", "note",
]  # fmt: skip
LAYER_COLUMNS = [
    "n", "layer", "src", "dst", "weight", "link_note", "lemmas", "lemmas_in_root",
    "src_opening", "dst_opening", "verdict", "note",
]  # fmt: skip


def clean(text: str) -> str:
    return " ".join(str(text).split())


def opening(text: str, n: int = OPENING) -> str:
    text = clean(text)
    return text if len(text) <= n else text[:n].rsplit(" ", 1)[0] + " …"


def draw(rows: list[LinkRow], n: int, seed: int, name: str) -> list[LinkRow]:
    rows = sorted(rows, key=lambda r: (r.src, r.dst))
    return random.Random(f"{seed}-{name}").sample(rows, min(n, len(rows)))


def followers(r: Research, coordinate: str) -> list[Passage]:
    """The paragraph at ``coordinate`` and the unnumbered paragraphs after it, up to the next numbered one."""
    head = r.store.get([coordinate]).get(coordinate)
    if head is None:
        return []
    out = [head]
    for p in r.store.book_passages(head.corpus, head.book, "pali", (head.seq + 1, head.seq + FOLLOWERS)):
        if is_numbered(p.para):
            break
        out.append(p)
    return out


def phrase_paragraphs(r: Research, span: str) -> int:
    """How many Pali paragraphs hold the (first 20 words of the) span, diacritics folded."""
    words = WORD_RE.findall(span)[:20]
    if len(words) < 2:
        return 0
    q = '"' + " ".join(words) + '"'
    try:
        return r.search(SearchRequest(q=q, mode=SearchMode.FUZZY, limit=1, channels=["pali"])).total
    except Exception as exc:  # a count for the judge, not essential
        print(f"phrase search failed for {q}: {exc}", file=sys.stderr)
        return -1


def lemmas(p: Passage) -> list[str]:
    """The commentary's bold words (its lemmas), in order, without repeats."""
    return list(dict.fromkeys(clean(b) for b in p.bold if clean(b)))


class StretchCounts:
    """In how many paragraphs of the CST each hashed six-word stretch stands (from the stored link facts)."""

    def __init__(self, r: Research):
        per_book = []
        for row in r.store.link_facts("cst").values():
            f = unpack(row)
            per_book.append(np.unique(np.stack([f.hashes, f.owners.astype(np.uint64)], 1), axis=0)[:, 0])
        self.hashes, self.counts = np.unique(np.concatenate(per_book), return_counts=True)

    def of(self, hashes: np.ndarray) -> np.ndarray:
        at = np.minimum(np.searchsorted(self.hashes, hashes), len(self.hashes) - 1)
        return np.where(self.hashes[at] == hashes, self.counts[at], 0)

    def shared(self, text_a: str, text_b: str) -> np.ndarray:
        """The paragraph counts of the stretches the two texts share."""
        return self.of(np.intersect1d(shingles([text_a])[0], shingles([text_b])[0]))

    def summary(self, counts: np.ndarray) -> str:
        """``min/median/max of n counted (m shared)``: the paragraph counts of the shared stretches that were
        counted (those in at most ``FORMULA`` paragraphs)."""
        kept = np.sort(counts[counts <= FORMULA])
        if not len(kept):
            return f"none counted ({len(counts)} shared)"
        return f"{kept[0]}/{int(np.median(kept))}/{kept[-1]} of {len(kept)} counted ({len(counts)} shared)"

    @staticmethod
    def weighed(counts: np.ndarray, limit: int = FORMULA) -> float:
        """The shared stretches in at most ``limit`` paragraphs, each weighed by its rarity as the index weighs
        them (``COMMON / paragraphs`` above ``COMMON``)."""
        kept = counts[(counts > 0) & (counts <= limit)].astype(float)
        return float(np.minimum(1.0, COMMON / kept).sum())

    @staticmethod
    def kept_at(counts: np.ndarray) -> str:
        """Whether the pair would still be linked were the stock-formula limit lower: ``30:y 20:n 10:n`` (by the
        rule the index uses: the weighed count of the stretches under the limit at least ``MIN_SHARED``)."""
        return " ".join(
            f"{f}:{'y' if StretchCounts.weighed(counts, f) >= MIN_SHARED - 1e-9 else 'n'}" for f in ALTERNATIVE_FORMULA
        )


def parallel_rows(r: Research, sample: list[LinkRow]) -> list[dict]:
    texts = r.store.get([c for row in sample for c in (row.src, row.dst)])
    stretches = StretchCounts(r)
    out = []
    for i, row in enumerate(sample, 1):
        a, b = texts.get(row.src), texts.get(row.dst)
        ta, tb = (a.text if a else ""), (b.text if b else "")
        span, size = shared_span(ta, tb)
        counts = stretches.shared(ta, tb)
        out.append(
            {
                "n": i, "src": row.src, "dst": row.dst, "weight": f"{row.weight:g}", "span_words": size,
                "span_paragraphs": phrase_paragraphs(r, span), "stretch_df": stretches.summary(counts),
                "kept_at": stretches.kept_at(counts),
                "shared_span": clean(span),
                "src_words": len(WORD_RE.findall(ta)), "dst_words": len(WORD_RE.findall(tb)),
                "src_opening": opening(ta), "dst_opening": opening(tb), "verdict": "", "note": "",
            }
        )  # fmt: skip
    return out


def joined(passages: list[Passage]) -> str:
    return " ".join(clean(p.text) for p in passages if clean(p.text))


def layer_rows(r: Research, sample: list[LinkRow]) -> list[dict]:
    out = []
    for i, row in enumerate(sample, 1):
        comment = followers(r, row.src)
        root = followers(r, row.dst)
        words = list(dict.fromkeys(w for p in comment for w in lemmas(p)))
        folded_root = " " + " ".join(fold(w) for p in root for w in WORD_RE.findall(p.text)) + " "
        found = [w for w in words if " " + " ".join(fold(x) for x in WORD_RE.findall(w)) + " " in folded_root]
        out.append(
            {
                "n": i, "layer": row.layer, "src": row.src, "dst": row.dst, "weight": f"{row.weight:g}",
                "link_note": row.note, "lemmas": " | ".join(words[:12]),
                "lemmas_in_root": f"{len(found)}/{len(words)}: " + " | ".join(found[:12]),
                "src_opening": opening(joined(comment)), "dst_opening": opening(joined(root)),
                "verdict": "", "note": "",
            }
        )  # fmt: skip
    return out


def read_tsv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def write_tsv(path: Path, columns: list[str], rows: list[dict]) -> None:
    """Write the rows, keeping the verdicts and notes of a previous judging of the same pairs."""
    judged = {(old["src"], old["dst"]): old for old in read_tsv(path)}
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, columns, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\")
        writer.writeheader()
        for row in rows:
            old = judged.get((row["src"], row["dst"]), {})
            row["verdict"], row["note"] = old.get("verdict", ""), old.get("note", "")
            writer.writerow({k: clean(str(row[k])).replace("\t", " ") for k in columns})


def wilson_lower(k: int, n: int, z: float = 1.959964) -> float:
    """The lower end of the 95 % Wilson score interval of a proportion k / n."""
    if not n:
        return 0.0
    p = k / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - margin) / (1 + z * z / n)


def summary(parallels: Path, layers: Path) -> None:
    for name, path, key in (("parallels", parallels, None), ("layers", layers, "layer")):
        rows = read_tsv(path)
        groups = {"all": rows}
        if key:
            for row in rows:
                groups.setdefault(row[key], []).append(row)
        for group, members in groups.items():
            counts = Counter(row["verdict"] or "(unjudged)" for row in members)
            yes, n = counts["yes"], len(members)
            print(
                f"{name:9} {group:10} n={n:3}  "
                + "  ".join(f"{v}={c}" for v, c in sorted(counts.items()))
                + f"  precision={yes / n if n else 0:.2f}  wilson95_lower={wilson_lower(yes, n):.2f}"
            )
            if key and group == "all":
                near = yes + counts["near"]
                share = near / n if n else 0
                print(f"{'':20} yes+near={near}  {share:.2f}  wilson95_lower={wilson_lower(near, n):.2f}")


def show(r: Research, which: str, n: int, parallels: Path, layers: Path) -> None:
    rows = read_tsv(parallels if which == "parallels" else layers)
    row = rows[n - 1]
    for k, v in row.items():
        if not k.endswith("opening"):
            print(f"{k}: {v}")
    if which == "parallels":
        for c in (row["src"], row["dst"]):
            p = r.store.get([c]).get(c)
            print(f"\n=== {c} ({p.book_title if p else ''})\n{p.display if p else '(absent)'}")
        return
    for p in followers(r, row["src"]):
        print(f"\n=== commentary {p.coordinate} ({p.book_title})\n{p.display}")
    for p in followers(r, row["dst"]):
        print(f"\n=== root {p.coordinate} ({p.book_title})\n{p.display}")


def _units(r: Research, book: str) -> tuple[list[str], dict[str, tuple[str, list[str]]]]:
    """A book's numbered paragraphs in reading order, each with the folded words of it and its unnumbered
    followers (`` w1 w2 … ``) and their bold words."""
    order: list[str] = []
    text: dict[str, list[str]] = {}
    bold: dict[str, list[str]] = {}
    for p in r.store.book_passages("cst", book, "pali"):
        if is_numbered(p.para):
            order.append(p.para)
            text[p.para], bold[p.para] = [], []
        if order:
            text[order[-1]].append(p.text)
            bold[order[-1]] += p.bold
    folded = {k: " " + " ".join(fold(w) for w in WORD_RE.findall(" ".join(v))) + " " for k, v in text.items()}
    return order, {k: (folded[k], bold[k]) for k in text}


def _lemma_forms(bold: list[str]) -> list[str]:
    """Bold lemmas, folded, with a closing ``ti`` and the last letter dropped (sandhi: ``vimutto``/``vimuttoti``)."""
    out = []
    for b in bold:
        words = [fold(w) for w in WORD_RE.findall(b)]
        if not words:
            continue
        if words[-1].endswith("ti") and len(words[-1]) > 4:
            words[-1] = words[-1][:-2]
        if len(words[-1]) > 4:
            words[-1] = words[-1][:-1]
        out.append(" ".join(words))
    return list(dict.fromkeys(out))


def _hits(forms: list[str], root: dict, order: list[str], j: int) -> int:
    """How many of the lemma forms stand in the ``j``-th numbered root unit (-1: none there)."""
    return sum(" " + f in root[order[j]][0] for f in forms) if 0 <= j < len(order) else -1


def offsets(r: Research, layer: str) -> None:
    """For each commentary book → explained book: of the links whose commentary unit has at least two bold
    lemmas, how many have them in the linked root unit (``here``), rather in the previous or next numbered
    one (``prev``/``next``: a numbering shifted against the root's), or in none of the three."""
    pairs: dict[tuple[str, str], list[LinkRow]] = {}
    for row in r.store._links("kind='comments' AND layer=?", (layer,)):
        pairs.setdefault((row.src_book, row.dst_book), []).append(row)
    books: dict[str, tuple[list[str], dict]] = {}

    def units(book: str) -> tuple[list[str], dict]:
        if book not in books:
            if len(books) > 6:
                books.clear()
            books[book] = _units(r, book)
        return books[book]

    print("commentary\texplained\tchecked\there\tprev\tnext\tnone\tother\tshifted share")
    for (child, parent), rows in sorted(pairs.items()):
        _, comment = units(child)
        order, root = units(parent)
        at = {para: i for i, para in enumerate(order)}
        found: Counter = Counter()
        for row in rows:
            forms = _lemma_forms(comment.get(row.src.split("/", 2)[2], ("", []))[1])
            if len(forms) < 2:
                continue
            i = at[row.dst.split("/", 2)[2]]
            here, prev, nxt = (_hits(forms, root, order, j) for j in (i, i - 1, i + 1))
            found["checked"] += 1
            if here > 0 and here >= max(prev, nxt):
                found["here"] += 1
            elif prev > here and prev >= 2 and prev >= nxt:
                found["prev"] += 1
            elif nxt > here and nxt >= 2:
                found["next"] += 1
            elif max(here, prev, nxt) <= 0:
                found["none"] += 1
            else:
                found["other"] += 1
        n = found["checked"]
        share = (found["prev"] + found["next"]) / n if n else 0
        counts = "\t".join(str(found[k]) for k in ("checked", "here", "prev", "next", "none", "other"))
        print(f"{child}\t{parent}\t{counts}\t{share:.2f}", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", default=str(HERE.parent / "var" / "full"))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--parallels", type=int, default=50)
    ap.add_argument("--atthakatha", type=int, default=50)
    ap.add_argument("--tika", type=int, default=25)
    ap.add_argument("--out-parallels", type=Path, default=HERE / "links-sample-parallels.tsv")
    ap.add_argument("--out-layers", type=Path, default=HERE / "links-sample-layers.tsv")
    ap.add_argument("--show", nargs=2, metavar=("parallels|layers", "N"))
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--offsets", choices=("atthakatha", "tika"), help="check every link of a layer for shifted numbers")
    args = ap.parse_args(argv)
    if args.summary:
        summary(args.out_parallels, args.out_layers)
        return
    r = Research.open(args.index)
    if args.show:
        show(r, args.show[0], int(args.show[1]), args.out_parallels, args.out_layers)
        return
    if args.offsets:
        offsets(r, args.offsets)
        return
    parallels = draw(r.store._links("kind=?", ("parallel",)), args.parallels, args.seed, "parallel")
    write_tsv(args.out_parallels, PARALLEL_COLUMNS, parallel_rows(r, parallels))
    layered = []
    for layer, size in (("atthakatha", args.atthakatha), ("tika", args.tika)):
        layered += draw(r.store._links("kind=? AND layer=?", ("comments", layer)), size, args.seed, layer)
    write_tsv(args.out_layers, LAYER_COLUMNS, layer_rows(r, layered))
    print(f"wrote {len(parallels)} parallels to {args.out_parallels}, {len(layered)} layer links to {args.out_layers}")


if __name__ == "__main__":
    main()
