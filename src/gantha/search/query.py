"""Parse a user's query string: words, "quoted phrases", -exclusions, prefix*, *suffix, *infix* wildcards and
word NEAR/n word proximity."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gantha.search import iti
from gantha.text.analysis import words
from gantha.text.chinese import has_chinese
from gantha.text.pali import canon, detect_scheme, fold, normalize_query_text

_PART = re.compile(r'(-?)"([^"]*)"?|(\S+)')
_CJK_RUN = re.compile(r"\w+")  # a Chinese query's runs between punctuation
NEAR_OPERATOR = re.compile(r"(?<!\S)(NEAR(?:/\S*)?)(?!\S)")  # upper case: "near" is a word of English queries
DEFAULT_NEAR, MAX_NEAR = 5, 50  # words between the two sides of NEAR: alone, and at most (NEAR/50)


class QuerySyntaxError(ValueError):
    """A query that cannot be read as written (a malformed NEAR)."""


@dataclass(frozen=True)
class Near:
    """Two words with at most ``distance`` words between them, in either order."""

    left: str
    right: str
    distance: int


@dataclass
class ParsedQuery:
    """The parts of a query in canonical Roman Pali (see ``gantha.text.pali.canon``)."""

    terms: list[str] = field(default_factory=list)
    phrases: list[list[str]] = field(default_factory=list)
    prefixes: list[str] = field(default_factory=list)
    suffixes: list[str] = field(default_factory=list)  # *parivāsaṃ: words ending so (compounds included)
    infixes: list[str] = field(default_factory=list)  # *parivās*: words containing it
    excluded: list[str] = field(default_factory=list)
    excluded_prefixes: list[str] = field(default_factory=list)
    near: list[Near] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.terms or self.phrases or self.prefixes or self.suffixes or self.infixes or self.near)

    def analysed(self, folded: bool) -> ParsedQuery:
        """The same query with every word folded (fuzzy mode) or kept canonical (exact mode)."""
        f = fold if folded else canon
        return ParsedQuery(
            [f(t) for t in self.terms],
            [[f(w) for w in p] for p in self.phrases],
            [f(t) for t in self.prefixes],
            [f(t) for t in self.suffixes],
            [f(t) for t in self.infixes],
            [f(t) for t in self.excluded],
            [f(t) for t in self.excluded_prefixes],
            [Near(f(n.left), f(n.right), n.distance) for n in self.near],
        )


def normalize(text: str, scheme: str = "auto") -> tuple[str, list[str]]:
    """Query text in canonical Roman Pali (``gantha.text.pali.normalize_query_text``) with its NEAR operators
    kept as typed: the text between them is normalised, one input scheme guessed for all of it."""
    parts = NEAR_OPERATOR.split(text)
    if len(parts) == 1:
        return normalize_query_text(text, scheme)
    if scheme == "auto":
        scheme = detect_scheme(" ".join(parts[::2]))
    out, steps = [], []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(part)
            continue
        normalized, done = normalize_query_text(part, scheme)
        out.append(normalized.strip())
        steps += [s for s in done if s not in steps]
    return " ".join(p for p in out if p), steps


def _distance(operator: str) -> int:
    spec = operator.partition("/")[2] if "/" in operator else None
    if spec is None:
        return DEFAULT_NEAR
    if not spec.isdecimal() or int(spec) > MAX_NEAR:
        raise QuerySyntaxError(
            f"{operator!r}: NEAR/n takes a number of words from 0 to {MAX_NEAR} (NEAR alone: {DEFAULT_NEAR})"
        )
    return int(spec)


def _join_iti(ws: list[str]) -> list[str]:
    """Words with each ``X ti`` / ``X’ti`` (already split) joined into one word, ``Xti`` (see :mod:`iti`)."""
    out: list[str] = []
    for w in ws:
        if w in ("ti", "nti") and out and (joined := iti.join(out[-1], w)):
            out[-1] = joined
        else:
            out.append(w)
    return out


def parse_query(text: str) -> ParsedQuery:
    """Split normalised query text into its parts.

    ``sabbe "saṅkhārā aniccā" -dukkha anicc*`` → terms ``sabbe``, phrase ``saṅkhārā aniccā``,
    excluded ``dukkha``, prefix ``anicc`` (``-dukkh*`` excludes a prefix). A quoted single word is
    a term; punctuation between words is ignored the way the index ignores it. A word quoted before
    iti (``gacchāmī’ti``, ``gacchāmī ti``) is one word, ``gacchāmīti``. ``parivāsa NEAR/3 dātabba``:
    the two words with at most 3 words between them, either order (``NEAR``: at most
    :data:`DEFAULT_NEAR`); a chain ``a NEAR b NEAR c`` is two conditions. A malformed NEAR raises
    :class:`QuerySyntaxError`.
    """
    q = ParsedQuery()
    last_word: str | None = None  # the plain word just read: the left side of a NEAR that follows
    last_in_terms = False  # that word is the last of the terms (not the right side of a NEAR)
    pending: tuple[str, int, str] | None = None  # (left word, distance, operator) awaiting its right side
    for m in _PART.finditer(text):
        negate, quoted, bare = m.group(1), m.group(2), m.group(3)
        if bare is not None and NEAR_OPERATOR.fullmatch(bare):
            if pending or last_word is None:
                raise QuerySyntaxError(f"{bare} needs a word on its left, e.g. parivāsa {bare} dātabba")
            pending, last_word = (last_word, _distance(bare), bare), None
            if last_in_terms:
                q.terms.pop()
            continue
        word = None
        if quoted is not None:
            ws = _join_iti(words(quoted))
            if negate:
                q.excluded += ws
            elif len(ws) > 1:
                q.phrases.append(ws)
            else:
                q.terms += ws
                word = ws[0] if ws else None
        elif bare.startswith("-") and len(bare) > 1:
            ws = _join_iti(words(bare[1:]))
            if bare.endswith("*") and ws:
                q.excluded += ws[:-1]
                q.excluded_prefixes.append(ws[-1])
            else:
                q.excluded += ws
        elif bare.startswith("*") and words(bare):  # *suffix or *infix*
            ws = words(bare)
            (q.infixes if bare.endswith("*") and len(bare) > 2 else q.suffixes).append(ws[-1])
            q.terms += ws[:-1]
        elif bare.endswith("*") and len(bare) > 1 and words(bare):
            ws = words(bare)
            q.terms += ws[:-1]
            q.prefixes.append(ws[-1])
        elif has_chinese(bare):  # Chinese: each run of characters a phrase of them (毒箭 finds 毒箭, not 毒…箭)
            for run in (words(r) for r in _CJK_RUN.findall(bare)):
                if len(run) > 1:
                    q.phrases.append(run)
                else:
                    q.terms += run
                    word = run[0] if run else None
        else:
            ws = words(bare)
            if ws in (["ti"], ["nti"]) and last_word and last_in_terms and (joined := iti.join(last_word, ws[0])):
                q.terms[-1] = word = joined  # gacchāmī ti: the word joined with iti
            else:
                ws = _join_iti(ws)
                q.terms += ws
                word = ws[0] if len(ws) == 1 else None
        if pending:
            if word is None:
                raise QuerySyntaxError(
                    f"{pending[2]} joins two words: give a word on its right, e.g. parivāsa NEAR dātabba"
                )
            q.terms.pop()
            q.near.append(Near(pending[0], word, pending[1]))
            pending, last_word, last_in_terms = None, word, False
            continue
        last_word, last_in_terms = word, word is not None
    if pending:
        raise QuerySyntaxError(f"{pending[2]} needs a word on its right, e.g. parivāsa {pending[2]} dātabba")
    for name in ("terms", "prefixes", "suffixes", "infixes", "excluded", "excluded_prefixes", "near"):
        setattr(q, name, list(dict.fromkeys(getattr(q, name))))  # a repeated word costs once
    return q
