"""Parse a user's query string: words, "quoted phrases", -exclusions and prefix*, *suffix, *infix* wildcards."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gantha.text.analysis import words
from gantha.text.pali import canon, fold

_PART = re.compile(r'(-?)"([^"]*)"?|(\S+)')


class QuerySyntaxError(ValueError):
    """A query that asks for nothing searchable."""


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

    @property
    def empty(self) -> bool:
        return not (self.terms or self.phrases or self.prefixes or self.suffixes or self.infixes)

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
        )


def parse_query(text: str) -> ParsedQuery:
    """Split normalised query text into its parts.

    ``sabbe "saṅkhārā aniccā" -dukkha anicc*`` → terms ``sabbe``, phrase ``saṅkhārā aniccā``,
    excluded ``dukkha``, prefix ``anicc`` (``-dukkh*`` excludes a prefix). A quoted single word is
    a term; punctuation between words is ignored the way the index ignores it.
    """
    q = ParsedQuery()
    for m in _PART.finditer(text):
        negate, quoted, bare = m.group(1), m.group(2), m.group(3)
        if quoted is not None:
            ws = words(quoted)
            if negate:
                q.excluded += ws
            elif len(ws) > 1:
                q.phrases.append(ws)
            else:
                q.terms += ws
            continue
        if bare.startswith("-") and len(bare) > 1:
            ws = words(bare[1:])
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
        else:
            q.terms += words(bare)
    for name in ("terms", "prefixes", "suffixes", "infixes", "excluded", "excluded_prefixes"):
        setattr(q, name, list(dict.fromkeys(getattr(q, name))))  # a repeated word costs once
    return q
