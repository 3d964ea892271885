"""One analysis for index and query, whatever the script: Chinese is simplified, folded and cut into characters,
everything else is split into words, then folded (fuzzy) or kept canonical (exact)."""

from __future__ import annotations

from gantha.text import chinese
from gantha.text.pali import WORD_RE, canon, unaccent


def index_texts(text: str) -> tuple[str, str]:
    """The (folded, exact) text the index tokenizes; Chinese characters come out separated by spaces."""
    if chinese.has_chinese(text):
        text = " ".join(w for w, _, _ in word_spans(text))
    canonical = canon(text)
    return unaccent(canonical), canonical


def word_spans(text: str) -> list[tuple[str, int, int]]:
    """(word, start, end) for every word; Chinese runs give one token per character, simplified and folded."""
    if not chinese.has_chinese(text):
        return [(m.group(), m.start(), m.end()) for m in WORD_RE.finditer(text)]
    out: list[tuple[str, int, int]] = []
    for m in WORD_RE.finditer(text):
        if chinese.has_chinese(m.group()):
            out += [(w, m.start() + s, m.start() + e) for w, s, e in chinese.characters(m.group())]
        else:
            out.append((m.group(), m.start(), m.end()))
    return out


def words(text: str) -> list[str]:
    return [w for w, _, _ in word_spans(text)]


def chinese_question(text: str) -> list[list[str]]:
    """The words of a Chinese question worth looking for (:func:`chinese.question_words`), each as the
    characters the index holds: searched as phrases."""
    return [ws for w in chinese.question_words(text) if (ws := words(w))]
