"""Extractive summaries: the most central sentences of a text, in the text's order. Pure functions.

The opening sentence comes first (a sutta's setting, a chapter's subject); then the most central: a
sentence's centrality is the cosine between its TF-IDF vector and the mean vector of every sentence
of the text, taken greedily, skipping a sentence too like one already taken and the abbreviated
refrains of the canon (``…pe…``); all put back in reading order. Deterministic: it depends on the
sentences alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from gantha.text.english import STOPWORDS
from gantha.text.pali import fold

_WORD = re.compile(r"\w+")
MIN_CHARS, MAX_CHARS = 40, 320  # sentences shorter are skipped, longer ones cut
MAX_SENTENCES = 3000  # of a long text, an even sample is weighed
REDUNDANT = 0.6  # cosine above which a sentence repeats one already taken


def bag(sentence: str) -> Counter[str]:
    return Counter(w for w in (fold(t) for t in _WORD.findall(sentence.lower())) if len(w) > 2 and w not in STOPWORDS)


def norm(v: dict[str, float]) -> float:
    return math.sqrt(sum(x * x for x in v.values()))


def cosine(a: dict[str, float], b: dict[str, float], norm_a: float, norm_b: float) -> float:
    if len(a) > len(b):
        a, b = b, a
    dot = sum(v * b.get(k, 0.0) for k, v in a.items())
    return dot / (norm_a * norm_b) if norm_a and norm_b else 0.0


def central(sentences: list[str], k: int = 3) -> list[str]:
    """The ``k`` most central sentences (cut to :data:`MAX_CHARS`), in their order in the text."""
    usable = [(i, s) for i, s in enumerate(sentences) if len(s) >= MIN_CHARS and not _refrain(s)]
    if not usable:
        usable = [(i, s) for i, s in enumerate(sentences) if s.strip()]
    if len(usable) > MAX_SENTENCES:
        step = len(usable) / MAX_SENTENCES
        usable = [usable[int(j * step)] for j in range(MAX_SENTENCES)]
    bags = [bag(s) for _, s in usable]
    df = Counter(w for bag in bags for w in bag)
    n = len(bags)
    vectors = [{w: tf * math.log(1 + n / df[w]) for w, tf in bag.items()} for bag in bags]
    centroid: Counter[str] = Counter()
    for v in vectors:
        centroid.update(v)
    norms, middle = [norm(v) for v in vectors], norm(centroid)
    ranked = sorted(range(n), key=lambda j: (-cosine(vectors[j], centroid, norms[j], middle), j))
    chosen: list[int] = [0]
    for j in ranked:
        if len(chosen) == k:
            break
        if all(cosine(vectors[j], vectors[c], norms[j], norms[c]) <= REDUNDANT for c in chosen):
            chosen.append(j)
    return [_cut(usable[j][1]) for j in sorted(chosen)]


def _refrain(sentence: str) -> bool:
    """An abbreviated repetition: more than two elisions (``…``, ``…pe…``)."""
    return sentence.count("…") + sentence.count("...") > 2


def _cut(sentence: str) -> str:
    if len(sentence) <= MAX_CHARS:
        return sentence
    return sentence[:MAX_CHARS].rsplit(" ", 1)[0] + " …"
