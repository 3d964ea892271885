"""The "2.5-level" fallback of a text without headings: sections cut by length and topic shift. Pure.

Paragraphs are gathered into sections of about :data:`TARGET` characters; between half and twice that
size a section ends where the topic shifts most — at the boundary whose neighbourhoods (the
:data:`SPAN` paragraphs before and after it) share the fewest words (cosine of their word bags,
stopwords left out, diacritics folded).
"""

from __future__ import annotations

from collections import Counter
from itertools import accumulate

from gantha.text.summary import bag, cosine, norm

TARGET = 4000  # characters of a section
SPAN = 2  # paragraphs either side of a boundary compared
MIN_SECTIONS = 2  # a text shorter than this many sections is left whole


def _window(bags: list[Counter[str]], start: int, end: int) -> Counter[str]:
    out: Counter[str] = Counter()
    for b in bags[max(0, start) : end]:
        out.update(b)
    return out


def shifts(texts: list[str]) -> list[float]:
    """Topic similarity at each boundary: ``out[i]`` between paragraphs ``i`` and ``i + 1`` (0: no shared word)."""
    bags = [bag(t) for t in texts]
    out = []
    for i in range(1, len(texts)):
        a, b = _window(bags, i - SPAN, i), _window(bags, i, i + SPAN)
        out.append(cosine(a, b, norm(a), norm(b)))
    return out


def cut(texts: list[str], target: int = TARGET) -> list[int]:
    """Where each section starts (indices into ``texts``; the first is 0); ``[0]`` for a short text."""
    sizes = [len(t) for t in texts]
    if sum(sizes) < target * MIN_SECTIONS:
        return [0]
    similarity = shifts(texts)
    after = list(accumulate(reversed(sizes), initial=0))[::-1]  # characters from paragraph i to the end
    starts, start = [0], 0
    while True:
        size, candidates, end = 0, [], start
        for end in range(start, len(texts)):
            size += sizes[end]
            if size >= target / 2 and after[end + 1] >= target / 2:
                candidates.append((similarity[end], -size, end + 1))  # cut before paragraph end + 1
            if size >= target * 2:
                break
        if not candidates or after[end + 1] < target / 2:
            return starts
        best = min(candidates)[2]
        starts.append(best)
        start = best
