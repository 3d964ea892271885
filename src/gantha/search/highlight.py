"""Highlighted snippets, computed from a passage's plain text and the analysed query.

Backend-agnostic: every store returns the passage text, and the words are matched here with the
same analysis (fold or canon) that built the index, so highlights land on the words that matched.
"""

from __future__ import annotations

import html
from bisect import bisect_left
from collections.abc import Callable

from gantha.text.analysis import word_spans
from gantha.text.chinese import has_chinese
from gantha.text.pali import WORD_RE

SNIPPET_WORDS = 36


def mark_positions(
    tokens: list[str],
    terms: set[str],
    phrases: list[list[str]],
    prefixes: list[str],
    inner: list[str] = (),  # type: ignore[assignment]
) -> set[int]:
    """Indexes of the tokens that match a term, a prefix, hold an ``inner`` part, or lie inside a phrase."""
    if prefixes or inner:
        starts = tuple(prefixes)
        marked = {
            i
            for i, t in enumerate(tokens)
            if t in terms or (starts and t.startswith(starts)) or any(part in t for part in inner)
        }
    else:  # the usual query: words only
        marked = {i for i, t in enumerate(tokens) if t in terms}
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(tokens) - n + 1):
            if tokens[i : i + n] == phrase:
                marked.update(range(i, i + n))
    return marked


CHARACTERS_PER_WORD = 3  # a Chinese snippet: this many characters for each word of the others


def _window(
    text: str,
    analyse: Callable[[str], str],
    terms: set[str],
    phrases: list[list[str]],
    prefixes: list[str],
    inner: list[str],
    width: int,
) -> tuple[int, int, list[tuple[int, int]], int]:
    """The character span of the ``width`` words around the densest matches, the matched words' spans in it,
    and how many words matched."""
    if has_chinese(text):  # characters, simplified, with offsets in the original: a window of more of them
        triples = word_spans(text)
        width *= CHARACTERS_PER_WORD
        spans = [(s, e) for _, s, e in triples]
        tokens = [analyse(w) for w, _, _ in triples]
    else:
        analysed = analyse(text)
        if len(analysed) == len(text):  # the usual case: analyse the whole text once, offsets unchanged
            matches = list(WORD_RE.finditer(analysed))
            spans = [(m.start(), m.end()) for m in matches]
            tokens = [m.group() for m in matches]
        else:
            spans = [(m.start(), m.end()) for m in WORD_RE.finditer(text)]
            tokens = [analyse(text[s:e]) for s, e in spans]
    marked = mark_positions(tokens, terms, list(phrases), list(prefixes), list(inner))
    if not spans:
        return 0, len(text), [], 0
    if len(spans) <= width:
        first, last = 0, len(spans) - 1
    else:
        ordered = sorted(marked)
        best_start, best = 0, -1
        for i in ordered or [0]:  # the window that starts a little before a match and holds the most matches
            start = max(0, min(i - width // 4, len(spans) - width))
            count = bisect_left(ordered, start + width) - bisect_left(ordered, start)
            if count > best:
                best_start, best = start, count
        first, last = best_start, best_start + width - 1
    begin = 0 if first == 0 else spans[first][0]
    end = len(text) if last == len(spans) - 1 else spans[last][1]
    found: list[tuple[int, int]] = []
    for i in range(first, last + 1):
        if i in marked:  # adjacent matches (the characters of a Chinese word) marked as one
            if found and found[-1][1] == spans[i][0]:
                found[-1] = (found[-1][0], spans[i][1])
            else:
                found.append(spans[i])
    return begin, end, found, len(marked)


def _render(text: str, begin: int, end: int, marks: list[tuple[int, int]], open_tag: str, close_tag: str) -> str:
    out, pos = [], begin
    for s, e in marks:
        out += [html.escape(text[pos:s]), f"{open_tag}{html.escape(text[s:e])}{close_tag}"]
        pos = e
    out.append(html.escape(text[pos:end]))
    return "".join(out).strip()


def snippet(
    text: str,
    analyse: Callable[[str], str],
    terms: set[str],
    phrases: list[list[str]] = (),  # type: ignore[assignment]
    prefixes: list[str] = (),  # type: ignore[assignment]
    *,
    inner: list[str] = (),  # type: ignore[assignment]
    width: int = SNIPPET_WORDS,
    open_tag: str = "<mark>",
    close_tag: str = "</mark>",
) -> tuple[str, int]:
    """An HTML-escaped window of ``width`` words around the densest matches; return it with the match count."""
    begin, end, marks, count = _window(text, analyse, terms, list(phrases), list(prefixes), list(inner), width)
    body = _render(text, begin, end, marks, open_tag, close_tag)
    return ("… " if begin > 0 else "") + body + (" …" if end < len(text) else ""), count


def markdown_snippet(
    display: str,
    analyse: Callable[[str], str],
    terms: set[str],
    phrases: list[list[str]] = (),  # type: ignore[assignment]
    prefixes: list[str] = (),  # type: ignore[assignment]
) -> str:
    """A snippet of the Markdown display with its bold kept as ``**…**`` (a bold run the window cuts is
    opened or closed at the cut)."""
    begin, end, marks, _ = _window(display, analyse, terms, list(phrases), list(prefixes), [], SNIPPET_WORDS)
    body = _render(display, begin, end, marks, "<mark>", "</mark>")
    opened = display[:begin].count("**") % 2 == 1
    if opened:
        body = "**" + body
    if body.count("**") % 2:
        body += "**"
    return ("… " if begin > 0 else "") + body + (" …" if end < len(display) else "")
