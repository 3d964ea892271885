"""Draw a list of distinct queries from an index of the CST, as bench/queries.txt was drawn: written forms of the
Pali by frequency rank (a share of each band of ranks) and phrases of two or three words cut from its paragraphs.
A list drawn with another seed, none of bench/queries.txt's in it, is one the request path was not tuned on
(bench/queries2.txt: seed 42, 600 queries).

    python bench/draw_queries.py INDEX [--seed N] [--size N] > bench/queries2.txt
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from gantha.store.factory import open_store
from gantha.text.pali import words as cut

# (ranks from, ranks to, share of the forms drawn): bench/queries.txt's bands
BANDS = ((0, 300, 60), (300, 3_000, 140), (3_000, 30_000, 150), (30_000, 200_000, 100))
FORMS, PHRASES = 450, 100  # of bench/queries.txt's 550; scaled to --size


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("index")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--size", type=int, default=600)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    store = open_store(args.index, create=False)
    rows = store.db.query("SELECT form FROM vocab ORDER BY paragraphs DESC, form")
    forms = [form for (form,) in rows if form.isalpha()]  # words, not numbers
    tuned = set((Path(__file__).parent / "queries.txt").read_text().splitlines())  # none of the tuned list's
    scale = args.size / (FORMS + PHRASES)
    drawn: list[str] = []
    for start, end, share in BANDS:
        band = [f for f in forms[start:end] if f not in tuned]
        drawn += rng.sample(band, min(len(band), round(share * scale)))
    books = sorted(b.split("/", 1)[1] for b in store.books("cst") if b.split("/", 1)[1].endswith("m.mul"))
    while len(drawn) < args.size:
        passages = store.book_passages("cst", rng.choice(books))
        words = cut(rng.choice(passages).text) if passages else []
        n = rng.choice((2, 3))
        if len(words) > n:
            at = rng.randrange(len(words) - n)
            phrase = f'"{" ".join(words[at : at + n])}"'
            if phrase not in drawn and phrase not in tuned:
                drawn.append(phrase)
    print(f"# {len(drawn)} distinct queries drawn by bench/draw_queries.py --seed {args.seed} --size {args.size}")
    print("\n".join(drawn))


if __name__ == "__main__":
    main()
