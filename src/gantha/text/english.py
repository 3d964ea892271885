"""English function words: left out of the lexical route of a question in English, where they match
every translated paragraph and say nothing of its meaning. Pure data and one function."""

from __future__ import annotations

_WORDS = (
    "a about above after again against all also am an and any are as ask asked at be because been before "
    "being below between both but by can could did do does doing done down during each few for from "
    "further had has have having he her here hers herself him himself his how i if in into is it its "
    "itself just let like made make me more most my myself no nor not now of off on once one only or "
    "other our ours ourselves out over own said same say says she should so some someone something such "
    "tell than that the their theirs them themselves then there these they thing things this those "
    "through to too under until up us very was way ways we were what when where which while who whom why "
    "will with would you your yours yourself yourselves "
)
STOPWORDS = frozenset(_WORDS.split())


def content_words(words: list[str]) -> list[str]:
    """The words that carry meaning (all of them if every word is a function word)."""
    kept = [w for w in words if w.lower() not in STOPWORDS]
    return kept or words
