"""Repeated passages: paragraphs that share a run of at least nine words, stock formulas left out.

Every stretch of ``K`` consecutive words of a paragraph (diacritics folded) is hashed to 64 bits, all at
once per book with numpy (a word's hash is a polynomial over its letters, a stretch's a mix of its words').
Sorting the hashes of the whole canon groups the paragraphs that hold the same stretch; a stretch held by
more than ``FORMULA`` paragraphs is a stock formula (``evaṃ me sutaṃ …``, the refrains of ``…pe…``) and
counts for none. Two paragraphs sharing at least ``MIN_SHARED`` other stretches are parallels, however
short they are and however often the passage recurs below ``FORMULA`` (MN 10's opening sentence, 17 words in
33 paragraphs, links DN 22 and SN 47.1): a run of ``K + MIN_SHARED - 1`` words outside the formulas always
does. The weight that ranks a paragraph's parallels counts a stretch held by more than ``COMMON`` paragraphs
for ``COMMON / paragraphs`` (the pieces of a formula the texts mostly abbreviate with ``…pe…``); a shared run
of n rare words gives n - K + 1. ``eval/repeats_check.py`` measures the recall against a plain word-run index.
Exact hashing, not MinHash: a commentary that quotes one sentence of a long rule shares a small part of
either paragraph, which an estimate of the whole paragraphs' similarity misses; exact stretches also give
the shared span to show. The whole CST (8 million stretches) is grouped in a few seconds.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from difflib import SequenceMatcher
from functools import cache

import numpy as np

from gantha.text.pali import WORD_RE, fold

K = 6  # words in a hashed stretch
FORMULA = 50  # a stretch found in more paragraphs than this is a stock formula
COMMON = 5  # in the weight, a stretch found in more paragraphs than this counts for COMMON / paragraphs
MIN_SHARED = 4  # stretches two paragraphs share to be parallels: a run of at least K + MIN_SHARED - 1 words
_SIZE_BITS = max(FORMULA, 1).bit_length()  # a pair's key keeps the size of the stretch's group in its low bits
_WORK = re.compile(r"^([a-z]+\d+[a-z])\d*\.")  # ``abh07m3.mul`` → ``abh07m``: the volumes of one work
_LETTER_BASE = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.array(
    [
        0x2545F4914F6CDD1D,
        0x9E3779B97F4A7C15,
        0xBF58476D1CE4E5B9,
        0x94D049BB133111EB,
        0xD6E8FEB86659FD93,
        0xA0761D6478BD642F,
    ],
    dtype=np.uint64,
)[:K]


@cache
def _letters() -> np.ndarray:
    """Which code points of the Basic Multilingual Plane are word characters (letters, marks, digits)."""
    return np.array(
        [chr(c).isalnum() or unicodedata.category(chr(c)).startswith("M") for c in range(0x10000)], dtype=bool
    )


@cache
def _folded() -> np.ndarray:
    """Each code point of the Basic Multilingual Plane folded (``fold``: lower case, no diacritics), where it
    folds to one character: folding a whole book as an array, not as a string."""
    table = np.arange(0x10000, dtype=np.uint32)
    for c in range(0x80, 0x10000):
        if len(folded := fold(chr(c))) == 1:
            table[c] = ord(folded)
    table[ord("A") : ord("Z") + 1] += 32
    return table


def _powers(base: np.uint64, n: int) -> np.ndarray:
    powers = np.full(max(n, 1), base, dtype=np.uint64)
    powers[0] = 1
    with np.errstate(over="ignore"):
        return np.cumprod(powers, dtype=np.uint64)


def shingles(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """The hashes of every stretch of ``K`` words inside each text (folded), and the index of its text."""
    joined = "\n".join(t.replace("\n", " ") for t in texts)
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    codes = np.where(codes < 0x10000, _folded()[np.minimum(codes, 0xFFFF)], codes)
    if not len(codes):
        return np.zeros(0, np.uint64), np.zeros(0, np.uint32)
    is_letter = np.where(codes < 0x10000, _letters()[np.minimum(codes, 0xFFFF)], True)
    before = np.concatenate(([False], is_letter[:-1]))
    starts = np.flatnonzero(is_letter & ~before)  # where each word begins in the text
    letters = codes[is_letter].astype(np.uint64) + np.uint64(1)
    first = np.flatnonzero((is_letter & ~before)[is_letter])  # where each word begins among the letters
    lengths = np.diff(np.append(first, len(letters)))
    place = np.arange(len(letters)) - np.repeat(first, lengths)  # each letter's place in its word
    with np.errstate(over="ignore"):
        words = np.add.reduceat(letters * _powers(_LETTER_BASE, int(lengths.max(initial=1)))[place], first)
        line_starts = np.flatnonzero(codes == 10) + 1
        owners = np.searchsorted(line_starts, starts, side="right").astype(np.uint32)
        n = len(words) - K + 1
        if n <= 0:
            return np.zeros(0, np.uint64), np.zeros(0, np.uint32)
        hashes = np.zeros(n, dtype=np.uint64)
        for j in range(K):
            hashes += words[j : j + n] * _MIX[j]
    inside = owners[:n] == owners[K - 1 :]
    return hashes[inside], owners[:n][inside]


def pairs(hashes: np.ndarray, paragraphs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Parallels among paragraphs numbered globally: (first, second, the stretches shared, each weighed by its
    rarity), first < second.

    Two paragraphs are parallels when they share at least ``MIN_SHARED`` stretches that are no formula (each in
    at most ``FORMULA`` paragraphs), whatever their rarity: every run of ``K + MIN_SHARED - 1`` words outside a
    formula links its paragraphs, the satipaṭṭhāna sentence repeated in 33 paragraphs included. The weight,
    which ranks a paragraph's parallels, counts a stretch in more than ``COMMON`` paragraphs for less.
    """
    bits = max(int(paragraphs.max(initial=0)).bit_length(), 1)
    if 2 * bits + _SIZE_BITS > 63:
        raise ValueError(f"too many paragraphs to pair: {int(paragraphs.max()) + 1:,}")
    # each stretch as one number, its hash's top bits above its paragraph's (a sort of numbers, not an argsort:
    # ten times faster; 44 bits of hash for the CST's 524,000 paragraphs, two chance collisions in the canon)
    mask = np.uint64((1 << bits) - 1)
    packed = np.sort((hashes & ~mask) | paragraphs.astype(np.uint64))
    packed = packed[np.concatenate(([True], packed[1:] != packed[:-1]))[: len(packed)]]  # once in a paragraph
    h, p = packed >> np.uint64(bits), (packed & mask).astype(np.int64)
    starts = np.flatnonzero(np.concatenate(([True], h[1:] != h[:-1]))) if len(h) else np.zeros(0, np.int64)
    sizes = np.diff(np.append(starts, len(h)))
    keys = []
    for size in range(2, FORMULA + 1):
        groups = starts[sizes == size]
        if not len(groups):
            continue
        members = p[groups[:, None] + np.arange(size)[None, :]]  # sorted: first < second
        first, second = np.triu_indices(size, 1)
        keys.append((((members[:, first] << bits) | members[:, second]) << _SIZE_BITS | size).ravel())
    if not keys:
        empty = np.zeros(0, np.int64)
        return empty, empty, np.zeros(0)
    keys = np.sort(np.concatenate(keys))  # one key a stretch two paragraphs share: (first, second, its group size)
    pair = keys >> _SIZE_BITS
    bounds = np.flatnonzero(np.concatenate(([True], pair[1:] != pair[:-1])))
    counts = np.diff(np.append(bounds, len(keys)))
    weight = np.minimum(1.0, COMMON / np.arange(1 << _SIZE_BITS).clip(1))[keys & ((1 << _SIZE_BITS) - 1)]
    shared = np.add.reduceat(weight, bounds)
    linked = counts >= MIN_SHARED
    pair = pair[bounds[linked]]
    return pair >> bits, pair & ((1 << bits) - 1), shared[linked]


def work(book: str) -> str:
    """The work a CST book is a volume of (``abh07m1.mul`` and ``abh07m6.mul``: the Paṭṭhāna, ``abh07m``).

    Repeats within one work are mostly a template's refrain (the series of a sutta, an Abhidhamma table):
    on a hand-judged sample 2 of 19 such pairs were real parallels, against 29 of 31 across works.
    """
    m = _WORK.match(book)
    return m.group(1) if m else book.split(".")[0]


def shared_span(text: str, other: str) -> tuple[str, int]:
    """The longest run of words ``other`` shares with ``text`` (diacritics folded), as ``other`` writes it, and
    its length in words."""
    mine = [fold(w) for w in WORD_RE.findall(text)]
    spans = [(m.start(), m.end()) for m in WORD_RE.finditer(other)]
    theirs = [fold(other[s:e]) for s, e in spans]
    match = SequenceMatcher(None, mine, theirs, autojunk=False).find_longest_match(0, len(mine), 0, len(theirs))
    if not match.size:
        return "", 0
    return other[spans[match.b][0] : spans[match.b + match.size - 1][1]], match.size
