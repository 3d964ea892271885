"""Sentences of a paragraph and how alike two lemma sequences are. Pure functions.

A paragraph splits after ``.``, ``?``, ``!`` or ``;`` (and the closing quotes that follow them)
when a space comes next. Sentence k of paragraph ``75`` has the coordinate ``…/75.s<k>``
(1-based), so the split must stay deterministic: it depends on the text alone.
"""

from __future__ import annotations

import re

_END = re.compile(r"[.?!;]['’”\"]*(?=\s)")
SENTENCE_SUFFIX = re.compile(r"^(?P<para>.+)\.s(?P<k>\d+)$")


def split(text: str) -> list[str]:
    """The sentences of a text, stripped; a text without a sentence end is one sentence."""
    out, start = [], 0
    for m in _END.finditer(text):
        piece = text[start : m.end()].strip()
        if piece:
            out.append(piece)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def similarity(query: list[str], sentence: list[str]) -> float:
    """0–1: the share of the query's lemmas found in order in the sentence, times how tightly they sit.

    An exact occurrence of the query (in any inflection) scores 1.0 wherever it stands in the sentence.
    """
    if not query or not sentence:
        return 0.0
    n, m = len(query), len(sentence)
    # longest common subsequence, remembering where the matched sentence tokens lie
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if query[i] == sentence[j] else max(table[i + 1][j], table[i][j + 1])
    matched, i, j = [], 0, 0
    while i < n and j < m:
        if query[i] == sentence[j]:
            matched.append(j)
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    if not matched:
        return 0.0
    coverage = len(matched) / n
    span = matched[-1] - matched[0] + 1
    return round(coverage * len(matched) / span, 4)


def chunks(text: str, max_words: int) -> list[str]:
    """Consecutive sentences grouped into pieces of at most ``max_words`` words (a longer sentence is cut)."""
    out: list[list[str]] = [[]]
    for sentence in split(text):
        words = sentence.split()
        while len(words) > max_words:  # a sentence longer than a piece: cut it
            if out[-1]:
                out.append([])
            out[-1] += words[:max_words]
            words = words[max_words:]
            out.append([])
        if out[-1] and len(out[-1]) + len(words) > max_words:
            out.append([])
        out[-1] += words
    return [" ".join(piece) for piece in out if piece] or [text]
