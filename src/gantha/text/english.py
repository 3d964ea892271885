"""English function words: left out of the lexical route of a question in English, where they match
every translated paragraph and say nothing of its meaning; the topic of a question framed as "what did
the Buddha say about …"."""

from __future__ import annotations

import re

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


_SPEAKER = (
    r"(?:the\s+)?(?:lord\s+|blessed\s+)?(?:buddhas?|blessed\s+one|exalted\s+one|tath[aā]gata|gotama|teacher|"
    r"lord|suttas?|texts?|canon|p[aā]li\s+canon|tipi[tṭ]aka|scriptures?)"
)
_VERB = r"(?:say|said|teach|taught|tell\s+us|speak|explain|think|mean|have\s+to\s+say)(?:\s+anything)?"
_ABOUT = r"(?:about|on|of|by|regarding|concerning|as\s+to|with\s+regard\s+to)"
_FRAMES = [
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^(?:what|how|where)\s+(?:did|does|do|has|have)\s+{_SPEAKER}\s+{_VERB}\s+{_ABOUT}\s+(?P<topic>.+)$",
        rf"^(?:did|does|do|has|have)\s+{_SPEAKER}\s+{_VERB}\s+{_ABOUT}\s+(?P<topic>.+)$",
        rf"^what\s+(?:is|was|are|were)\s+{_SPEAKER}(?:'s|’s|')?\s+(?:teachings?|views?|advice|instructions?|"
        rf"words|position|attitude|stance|message)\s+{_ABOUT}\s+(?P<topic>.+)$",
        rf"^(?:according\s+to|in)\s+{_SPEAKER},?\s+(?P<topic>.+)$",
    )
]


def question_topic(question: str) -> str | None:
    """What a question asks about when it is framed as "what did the Buddha say about …?": the topic alone
    (``"anger"``), or ``None`` for any other question. The frame's words are in half the canon's paragraphs
    ("… spoken by the Buddha …"), so a question's embedding and its words are drawn to those paragraphs."""
    text = question.strip().rstrip("?.! ").strip()
    for frame in _FRAMES:
        if (m := frame.match(text)) and any(w.lower() not in STOPWORDS for w in m["topic"].split()):
            return m["topic"].strip()
    return None
