"""Citations inside the CST texts as coordinates: how many resolve, which do not, a sample to check by hand.

    python eval/citations.py [CST_DIR] [--report UNRESOLVED.tsv] [--sample N --seed S [--sample-out FILE]]
                             [--verify] [--cache FILE]

Reads the whole CST with the project's reader (about 45 s; ``--cache FILE`` keeps the paragraphs in a pickle
for the next run), runs ``find_citations`` on every paragraph and ``resolve`` on every target, and prints per
abbreviation how many citation strings were found and how many resolve to an existing paragraph (every
target of the string does), then the overall rate. ``--report`` writes the unresolved forms with their
counts, most frequent first. ``--sample`` prints N random resolved citations with the citing context and the
opening of the cited paragraph (for a commentary layer also the commentary paragraphs carrying the root
number, in any run, found by book name: ``vin02m3.mul`` → ``vin02a3.att``), and ``--sample-out`` writes them
as a TSV to be judged by hand. ``--verify`` checks every citation that follows a quotation: are the quoted words in the
resolved paragraph?
"""

from __future__ import annotations

import argparse
import csv
import pickle
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gantha.corpus import cst
from gantha.text.citations import Citation, Target, para_bounds, resolve
from gantha.text.citations import find_citations as find
from gantha.text.pali import fold

HERE = Path(__file__).resolve().parent
CST_DIR = HERE.parents[1] / "shared" / "data" / "cst"
Corpus = dict[str, list[tuple[str, str]]]  # book → (para, text) in reading order


@dataclass(slots=True)
class Found:
    """A citation string found in a paragraph, with the paragraph ids its targets resolve to."""

    book: str
    para: str
    text: str
    citation: Citation
    resolved: list[str | None]

    @property
    def ok(self) -> bool:
        return bool(self.resolved) and all(self.resolved)


def read_corpus(path: Path, cache: Path | None) -> Corpus:
    """Every book's paragraphs (id, plain text), read with the CST reader or from the cache."""
    if cache and cache.exists():
        with cache.open("rb") as f:
            return pickle.load(f)
    books, problems = cst.discover(path)
    for problem in problems:
        print("reader:", problem, file=sys.stderr)
    corpus = {b.book: [(p.para, p.text) for p in cst.read_book(b)] for b in books}
    if cache:
        with cache.open("wb") as f:
            pickle.dump(corpus, f)
    return corpus


def numbering(corpus: Corpus) -> dict[str, list[str]]:
    """Book → its numbered paragraph ids in reading order (the ``numbering`` ``resolve`` takes)."""
    return {book: [para for para, _ in paras if "." not in para] for book, paras in corpus.items()}


def scan(corpus: Corpus, numbers: dict[str, list[str]]) -> list[Found]:
    """Every citation string of the corpus, resolved."""
    found = []
    for book, paras in corpus.items():
        for para, text in paras:
            if "(" not in text:
                continue
            for c in find(text):
                found.append(Found(book, para, text, c, [resolve(t, numbers) for t in c.targets]))
    return found


def print_rates(found: list[Found]) -> None:
    """Found, resolved and rate per abbreviation (most frequent first), then overall."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for f in found:
        tally[f.citation.abbreviation][0] += 1
        tally[f.citation.abbreviation][1] += f.ok
    print(f"{'abbreviation':<28}{'found':>7}{'resolved':>10}{'rate':>8}")
    for name, (n, ok) in sorted(tally.items(), key=lambda x: (-x[1][0], x[0])):
        print(f"{name:<28}{n:>7}{ok:>10}{ok / n:>8.1%}")
    total, ok = len(found), sum(f.ok for f in found)
    print(f"{'ALL':<28}{total:>7}{ok:>10}{ok / total:>8.1%}")


def write_report(found: list[Found], path: Path) -> None:
    """The unresolved forms (abbreviation, problem, citation as written), counted, most frequent first."""
    forms: Counter[tuple[str, str, str]] = Counter()
    example: dict[tuple[str, str, str], str] = {}
    for f in found:
        if not f.ok:
            key = (f.citation.abbreviation, f.citation.problem or "no such paragraph", f.citation.text)
            forms[key] += 1
            example.setdefault(key, f"cst/{f.book}/{f.para}")
    with path.open("w", encoding="utf-8", newline="") as out:
        w = csv.writer(out, delimiter="\t", lineterminator="\n")
        w.writerow(["count", "abbreviation", "problem", "citation", "example"])
        for key, n in forms.most_common():
            w.writerow([n, *key, example[key]])
    print(f"{sum(forms.values())} unresolved strings, {len(forms)} forms → {path}")


# ---------------------------------------------------------------------------------------- paragraphs


class Paragraphs:
    """A numbered paragraph's text with the unnumbered ones after it (verses, continuations), by book."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.blocks: dict[str, dict[str, str]] = {}

    def block(self, book: str, para: str) -> str:
        return self.book(book).get(para, "")

    def book(self, book: str) -> dict[str, str]:
        if book not in self.blocks:
            self.blocks[book] = dict(self._blocks(book))
        return self.blocks[book]

    def _blocks(self, book: str) -> Iterator[tuple[str, str]]:
        para, parts = None, []
        for pid, text in self.corpus[book]:
            if "." not in pid:
                if para is not None:
                    yield para, " ".join(parts)
                para, parts = pid, [text]
            elif para is not None:
                parts.append(text)
        if para is not None:
            yield para, " ".join(parts)

    def layer(self, target: Target) -> list[tuple[str, str, str]]:
        """(book, para, text) of the commentary (or subcommentary) paragraphs carrying the root number."""
        out = []
        for book in layer_books(target.book, target.layer or "", self.corpus):
            for pid, text in self.book(book).items():
                lo, hi = para_bounds(pid)
                if lo <= target.number <= hi:
                    out.append((book, pid, text))
        return out


def layer_books(root: str, layer: str, books: Corpus) -> list[str]:
    """The commentary (``atthakatha``) or subcommentary (``tika``) books of a root book, by CST naming."""
    m = re.match(r"(\D+\d+)m(\d*)\.mul$", root)
    if not m:
        return []
    stem, part = m.groups()
    if layer == "atthakatha":
        exact = f"{stem}a{part}.att"
        return (
            [exact] if exact in books else sorted(b for b in books if b.startswith(f"{stem}a") and b.endswith(".att"))
        )
    return sorted(b for b in books if b.startswith(f"{stem}t") and b.endswith(".tik"))


def cited_texts(f: Found, paragraphs: Paragraphs) -> list[tuple[str, str, str]]:
    """(book, para, text) of what the first target points to: the paragraph, or its commentary paragraphs."""
    target, para = f.citation.targets[0], f.resolved[0]
    if target.layer is None and para:
        return [(target.book, para, paragraphs.block(target.book, para))]
    return paragraphs.layer(target)


# ------------------------------------------------------------------------------------------ checking

_QUOTE = re.compile(r"‘‘([^‘’]{3,300})’’[^‘’()]{0,40}$")


def quoted_words(f: Found) -> list[str]:
    """Up to six words (4+ letters, folded, endings cut) of the quotation just before the citation's group."""
    before = f.text[: f.citation.start]
    before = before[: before.rfind("(")] if "(" in before else before
    m = _QUOTE.search(before)
    if not m:
        return []
    words = [re.sub(r"n?ti$", "", w) for w in re.findall(r"\w+", fold(m.group(1))) if len(w) >= 4]
    return [w[:-2] if len(w) > 6 else w for w in words][:6]


def quote_found(words: list[str], texts: list[tuple[str, str, str]]) -> bool:
    """Whether at least half of the quoted words occur in one of the texts."""
    return any(sum(w in fold(t) for w in words) * 2 >= len(words) for _, _, t in texts)


def print_verification(found: list[Found], paragraphs: Paragraphs) -> None:
    """Per abbreviation: resolved citations after a quotation, and how many find the quoted words there."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for f in found:
        words = quoted_words(f) if f.ok else []
        if len(words) >= 2:
            tally[f.citation.abbreviation][0] += 1
            tally[f.citation.abbreviation][1] += quote_found(words, cited_texts(f, paragraphs))
    print(f"\n{'abbreviation':<28}{'quoted':>7}{'found':>7}{'rate':>8}")
    for name, (n, ok) in sorted(tally.items(), key=lambda x: (-x[1][0], x[0])):
        print(f"{name:<28}{n:>7}{ok:>7}{ok / n:>8.1%}")
    n, ok = (sum(v[i] for v in tally.values()) for i in (0, 1))
    print(f"{'ALL':<28}{n:>7}{ok:>7}{ok / n:>8.1%}")


def sample(found: list[Found], paragraphs: Paragraphs, n: int, seed: int, out: Path | None) -> None:
    """N random resolved citations: the citing context, what they resolve to and its opening."""
    chosen = random.Random(seed).sample([f for f in found if f.ok], n)
    rows = []
    for i, f in enumerate(chosen, 1):
        c = f.citation
        target = c.targets[0]
        resolved = f"cst/{target.book}/{f.resolved[0]}" + (f" ({target.layer})" if target.layer else "")
        if len(c.targets) > 1:
            resolved += f" … {f.resolved[-1]}"
        print(f"\n#{i} ({c.text}) in cst/{f.book}/{f.para} → {resolved}")
        print("  citing:", f.text[max(0, c.start - 300) : c.end + 20])
        if target.layer:
            print("  root:", paragraphs.block(target.book, f.resolved[0] or "")[:200])
        for book, pid, text in cited_texts(f, paragraphs)[:3]:
            print(f"  cited cst/{book}/{pid}:", text[:400])
        rows.append([c.text, f"cst/{f.book}/{f.para}", resolved, "", ""])
    if out:
        with out.open("w", encoding="utf-8", newline="") as fh:
            w = csv.writer(fh, delimiter="\t", lineterminator="\n")
            w.writerow(["citation", "citing", "resolved", "verdict", "note"])
            w.writerows(rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cst", nargs="?", type=Path, default=CST_DIR)
    ap.add_argument("--report", type=Path, help="write the unresolved forms with their counts (TSV)")
    ap.add_argument("--sample", type=int, default=0, help="print N random resolved citations")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sample-out", type=Path, help="write the sample as a TSV to judge by hand")
    ap.add_argument("--verify", action="store_true", help="check quoted words in the resolved paragraphs")
    ap.add_argument("--cache", type=Path, help="pickle of the paragraphs (read if present, else written)")
    args = ap.parse_args(argv)
    corpus = read_corpus(args.cst, args.cache)
    found = scan(corpus, numbering(corpus))
    print_rates(found)
    if args.report:
        write_report(found, args.report)
    paragraphs = Paragraphs(corpus)
    if args.verify:
        print_verification(found, paragraphs)
    if args.sample:
        sample(found, paragraphs, args.sample, args.seed, args.sample_out)


if __name__ == "__main__":
    main()
