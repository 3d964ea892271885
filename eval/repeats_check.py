"""Repeats found however short: an independent check of the computed parallels (issue 41, item 4).

    .venv/bin/python eval/repeats_check.py --index INDEX [--words 9] [--window 6] [--formula 50]
                                           [--sample 50 --seed 41] [--sample-out eval/repeats-sample.tsv] [--cache FILE]
    .venv/bin/python eval/repeats_check.py --summary [--sample-out eval/repeats-sample.tsv]   # the judged sample

Reads every Pali paragraph of the CST from INDEX (opened read-only; ``--cache FILE`` keeps them in a pickle
for the next run), then:

* **the check** — plain Python, sharing no code with :mod:`gantha.links.parallels`: each paragraph's words
  (Unicode NFD, combining marks dropped, lower case, runs of ``\\w`` without ``_``), every run of ``--words``
  consecutive words kept as a string in a dictionary (words → the paragraphs holding it; in a few passes,
  one share of the first words at a time, to bound memory). A stretch of ``--window`` words found in more
  than ``--formula`` paragraphs is a stock formula (``evaṃ me sutaṃ ekaṃ samayaṃ bhagavā``, the sīla and
  jhāna pericopes, ``…pe…`` refrains). Two paragraphs *repeat each other* when they share a run of
  ``--words`` words none of whose ``--window``-word stretches is a formula (``--window`` equal to ``--words``:
  the run itself in at most ``--formula`` paragraphs, so that a formula lengthened by a word or two counts).
* **the production** — the paragraphs' stretches hashed as a book's ingest does
  (:func:`gantha.links.parallels.shingles`) and the link rebuild's ``_parallels`` over them, timed.

Prints the recall of the production against the check (how many of the check's pairs are links), the
misses by cause with examples, the production's pairs the check lacks, the time of the rebuild step, and
MN 10's opening (``cst/s0201m.mul/106``) with its repeats; ``--stored``: also the recall of the parallels the
index holds (made by the code that built its links). ``--sample N`` writes N production pairs drawn
with ``--seed`` (both openings, the longest shared run) to ``--sample-out`` for judging by hand (verdicts:
``yes`` a passage worth linking, ``formula`` only a stock pericope, a series' refrain or a table line shared,
``no`` nothing really shared); ``--summary`` counts the verdicts, across works and within one.
"""

from __future__ import annotations

import argparse
import csv
import pickle
import random
import re
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable
from difflib import SequenceMatcher
from pathlib import Path

WORD = re.compile(r"[^\W_]+")
PASSES = 6  # the dictionary of runs is built in this many passes (each one share of the runs)
MN10 = "cst/s0201m.mul/106"

Paragraph = tuple[str, str]  # (coordinate, text)


def words(text: str) -> list[str]:
    """The words of a text folded: no diacritics, lower case (``Satipaṭṭhānā`` → ``satipatthana``)."""
    plain = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))
    return WORD.findall(plain.lower())


def _grams(paragraphs: list[list[str]], n: int, part: int, keep=None) -> dict[str, list[int]]:
    """The runs of ``n`` words of one share (``part``) of the runs, each with the paragraphs holding it;
    ``keep(i, k)``: whether the run at word ``k`` of paragraph ``i`` is wanted."""
    holders: dict[str, list[int]] = defaultdict(list)
    for i, ws in enumerate(paragraphs):
        for k in range(len(ws) - n + 1):
            if hash(ws[k]) % PASSES != part or (keep is not None and not keep(i, k)):
                continue
            found = holders[" ".join(ws[k : k + n])]
            if not found or found[-1] != i:
                found.append(i)
    return holders


def repeats(paragraphs: list[list[str]], n: int, window: int, formula: int) -> dict[tuple[int, int], int]:
    """Every pair of paragraphs (i < j) sharing a run of ``n`` words none of whose ``window``-word stretches
    stands in more than ``formula`` paragraphs, with the number of such distinct runs they share."""
    formulas: set[str] = set()
    for part in range(PASSES):
        formulas.update(g for g, found in _grams(paragraphs, window, part).items() if len(found) > formula)
    free: list[list[bool]] = []  # per paragraph: is the stretch of ``window`` words at k no formula?
    for ws in paragraphs:
        free.append([" ".join(ws[k : k + window]) not in formulas for k in range(len(ws) - window + 1)])
    spans = n - window + 1

    def keep(i: int, k: int) -> bool:
        return all(free[i][k : k + spans])

    pairs: Counter[int] = Counter()  # i << 32 | j
    for part in range(PASSES):
        for found in _grams(paragraphs, n, part, keep).values():
            if 2 <= len(found) <= formula:
                for a in range(len(found)):
                    for b in range(a + 1, len(found)):
                        pairs[found[a] << 32 | found[b]] += 1
    return {(key >> 32, key & 0xFFFFFFFF): count for key, count in pairs.items()}


def production(books: dict[str, list[tuple[str, int, str]]]) -> tuple[set[tuple[str, str]], dict[str, float]]:
    """The pairs of coordinates the link rebuild makes of these books' paragraphs, and its timings (s)."""
    from gantha.links.build import _parallels
    from gantha.links.facts import BookFacts
    from gantha.links.parallels import shingles

    started = time.perf_counter()
    facts = {}
    for book, rows in books.items():
        hashes, owners = shingles([text for _, _, text in rows])
        facts[book] = BookFacts(book, [(para, seq) for para, seq, _ in rows], hashes, owners)
    hashed = time.perf_counter()
    rows = _parallels(facts)
    done = time.perf_counter()
    timings = {"stretches hashed (at ingest, per book)": hashed - started, "rebuild (_parallels)": done - hashed}
    return {(r.src, r.dst) for r in rows}, timings


def stored(index: Path) -> set[tuple[str, str]]:
    """The parallels the index holds (as the code that built its links made them)."""
    from gantha.store.embedded import EmbeddedStore

    store = EmbeddedStore(index, create=False)
    return {(src, dst) for src, dst in store.db.query("SELECT src, dst FROM links WHERE kind = 'parallel'")}


def read_index(index: Path, cache: Path | None) -> dict[str, list[tuple[str, int, str]]]:
    """Every CST book's Pali paragraphs (paragraph id, seq, text) in reading order."""
    if cache and cache.exists():
        return pickle.loads(cache.read_bytes())
    from gantha.store.embedded import EmbeddedStore

    store = EmbeddedStore(index, create=False)
    books = {}
    for key in sorted(store.books("cst")):
        book = key.split("/", 1)[1]
        books[book] = [(p.para, p.seq, p.text) for p in store.book_passages("cst", book)]
    if cache:
        cache.write_bytes(pickle.dumps(books))
    return books


def longest_run(a: list[str], b: list[str]) -> list[str]:
    m = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return a[m.a : m.a + m.size]


def run_count(paragraphs: list[list[str]], run: list[str], limit: int = 10_000) -> int:
    """In how many paragraphs a run of words stands (a plain scan)."""
    needle = " " + " ".join(run) + " "
    return sum(needle in f" {' '.join(ws)} " for ws in paragraphs[:limit]) if run else 0


def report(
    coordinates: list[str],
    folded: list[list[str]],
    check: dict[tuple[int, int], int],
    made: set[tuple[str, str]],
    n: int,
    examples: int = 12,
) -> None:
    """Recall of the production against the check, the misses by cause, the production's extra pairs."""
    where = {c: i for i, c in enumerate(coordinates)}
    made_ids = {tuple(sorted((where[a], where[b]))) for a, b in made}
    found = [p for p in check if p in made_ids]
    missed = [p for p in check if p not in made_ids]
    print(f"check: {len(check):,} pairs sharing a run of >= {n} words outside formulas")
    print(f"production: {len(made_ids):,} pairs; of the check's, {len(found):,} found")
    print(f"RECALL {len(found) / max(len(check), 1):.4f}  ({len(missed):,} missed)")
    by_runs = Counter(min(check[p], 5) for p in missed)
    print("missed, by distinct shared runs (5: five or more):", dict(sorted(by_runs.items())))
    for a, b in random.Random(0).sample(missed, min(examples, len(missed))):
        run = longest_run(folded[a], folded[b])
        print(f"  miss {coordinates[a]} ~ {coordinates[b]}: {len(run)} words: {' '.join(run)[:160]}")
    extra = [p for p in made_ids if p not in check]
    print(f"production pairs the check lacks: {len(extra):,}")
    runs = Counter()
    for a, b in random.Random(1).sample(extra, min(400, len(extra))):
        runs[min(len(longest_run(folded[a], folded[b])), n)] += 1
    print(f"  of 400 drawn, longest shared run in words ({n}: {n} or more):", dict(sorted(runs.items())))


def write_sample(
    path: Path, coordinates: list[str], texts: list[str], folded: list[list[str]], made: Iterable, k: int, seed: int
) -> None:
    """``k`` production pairs drawn with ``seed``, with both openings and their longest shared run (the verdicts
    and notes already written in ``path`` for the same pairs are kept)."""
    ordered = sorted(made)
    where = {c: i for i, c in enumerate(coordinates)}
    judged = {}
    if path.exists():
        with path.open(encoding="utf-8", newline="") as f:
            judged = {(r["src"], r["dst"]): r for r in csv.DictReader(f, delimiter="\t")}
    rows = []
    for src, dst in random.Random(seed).sample(ordered, min(k, len(ordered))):
        a, b = where[src], where[dst]
        run = longest_run(folded[a], folded[b])
        rows.append(
            {
                "src": src,
                "dst": dst,
                "run_words": len(run),
                "run_paragraphs": run_count(folded, run, len(folded)),
                "run": " ".join(run),
                "src_text": texts[a][:400],
                "dst_text": texts[b][:400],
                "verdict": judged.get((src, dst), {}).get("verdict", ""),
                "note": judged.get((src, dst), {}).get("note", ""),
            }
        )
    with path.open("w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), delimiter="\t")
        w.writeheader()
        w.writerows(rows)
    print(f"sample of {len(rows)} written to {path}")


def summary(path: Path, n: int) -> None:
    """The verdicts of a judged sample: across works and within one work, and how many pairs hold a run of
    ``n`` words."""
    from gantha.links.parallels import work

    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    counts = Counter()
    for r in rows:
        same = work(r["src"].split("/")[1]) == work(r["dst"].split("/")[1])
        counts[("within one work" if same else "across works", r["verdict"] or "unjudged")] += 1
    for (where, verdict), k in sorted(counts.items()):
        print(f"{where}\t{verdict}\t{k}")
    long_enough = sum(int(r["run_words"]) >= n for r in rows)
    print(
        f"all\t{len(rows)} pairs, {long_enough} sharing a run of >= {n} words, "
        f"{sum(r['verdict'] == 'no' for r in rows)} sharing nothing real"
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", type=Path)
    ap.add_argument("--words", type=int, default=9, help="the shortest shared run (words)")
    ap.add_argument("--window", type=int, default=6, help="the stretch whose frequency makes a formula (words)")
    ap.add_argument("--formula", type=int, default=50, help="a stretch in more paragraphs than this is a formula")
    ap.add_argument("--cache", type=Path)
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--sample-out", type=Path, default=Path(__file__).with_name("repeats-sample.tsv"))
    ap.add_argument("--summary", action="store_true", help="count the verdicts of the judged sample")
    ap.add_argument("--stored", action="store_true", help="also the recall of the parallels the index holds")
    args = ap.parse_args(argv)
    if args.summary:
        return summary(args.sample_out, args.words)
    if args.index is None and not (args.cache and args.cache.exists()):
        ap.error("--index is required")

    started = time.perf_counter()
    books = read_index(args.index, args.cache)
    coordinates = [f"cst/{b}/{para}" for b, rows in books.items() for para, _, _ in rows]
    texts = [text for rows in books.values() for _, _, text in rows]
    print(f"{len(books)} books, {len(texts):,} paragraphs read in {time.perf_counter() - started:.1f} s")

    made, timings = production(books)
    for what, seconds in timings.items():
        print(f"production {what}: {seconds:.1f} s")

    started = time.perf_counter()
    folded = [words(t) for t in texts]
    check = repeats(folded, args.words, args.window, args.formula)
    print(f"check built in {time.perf_counter() - started:.1f} s")
    report(coordinates, folded, check, made, args.words)

    if args.stored:
        print("--- the parallels stored in the index:")
        report(coordinates, folded, check, stored(args.index), args.words)
    mn10 = sorted({b if a == MN10 else a for a, b in made if MN10 in (a, b)})
    print(f"{MN10} (MN 10's opening): {len(mn10)} parallels: {', '.join(mn10[:12])}")
    if args.sample:
        write_sample(args.sample_out, coordinates, texts, folded, made, args.sample, args.seed)


if __name__ == "__main__":
    sys.exit(main())
