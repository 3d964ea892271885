"""Deterministic routing of a question to a research tool, the rules of the original design:

- a page reference ("M3.58", "PTS Vin II 31") → ``search_by_page_ref``;
- a coordinate ("cst/vin02m3.mul/75") or a sutta reference ("MN 10", "SN 56.11") → ``get``;
- a Pali or Buddhist term, alone or asked about ("What is parivāsa?", "什么是夜叉") →
  ``get_term_definition`` then ``search_pali``;
- a descriptive question (a sentence, a question mark, Chinese prose) → ``search_by_query``;
- plain keywords → ``search`` (fuzzy).

The same plan serves the agent with a model and without one (then passages are the answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gantha.model import Coordinate, CoordinateError
from gantha.sources import SOURCES
from gantha.text.pali import WORD_RE
from gantha.text.refs import PageRefError, parse_page_ref, parse_text_ref

_TERM_QUESTIONS = [
    re.compile(p, re.IGNORECASE)
    for p in (
        r"^(?:what|who)\s+(?:is|are|was|were)\s+(?:a\s+|an\s+|the\s+)?(?P<t>[^\s?]+(?:\s[^\s?]+)?)\s*\??$",
        r"^(?:define|definition of|meaning of|explain)\s+(?P<t>[^\s?]+(?:\s[^\s?]+)?)\s*\??$",
        r"^(?P<t>[^\s?]+)\s+(?:means|meaning)\s*\??$",
        r"^(?:什么是|何谓|何為|什麼是)(?P<t>[^\s?？]{1,8})[?？]?$",
        r"^(?P<t>[^\s?？]{1,8})(?:是什么|是什麼|是何意|的意思)[?？]?$",
    )
]
_PAGE_REF_IN_TEXT = re.compile(
    r"\b(?:[MVPTO]\d{1,2}\.\d{1,4}|(?:PTS\s+)?[A-Z][a-z]{0,6}(?:-a)?\s+[IVXL]{1,5}\s+\d{1,4})\b"
)
_CORPORA = sorted({s.corpus for s in SOURCES.values() if s.corpus})  # the coordinate prefixes: cst, bible, md
_COORDINATE = re.compile(rf"\b(?:{'|'.join(_CORPORA)})/\S+/\S+")
_TEXT_REF = re.compile(r"\b(?:DN|MN|SN|AN|Snp|Dhp|Ud|Iti|Thag|Thig|Kp|Kd)\s?\d+(?:\.\d+)*\b")
_HAN = re.compile(r"[\u3400-\u9fff]")
_QUESTION_FRAME = re.compile(
    r"^(?:(?:please|tell me|can you|could you)\s+)*(?:(?:what|who|whom|which|where|when|why|how)"
    r"(?:\s+(?:is|are|was|were|do|does|did|can|could|should|many|much|fast|long))?(?:\s+(?:i|we|you|one))?"
    r"|(?:is|are|does|do|did)\s+there|explain|describe|about)\s+(?:(?:the|a|an)\s+)?",
    re.IGNORECASE,
)


@dataclass
class Step:
    """One tool call of the plan."""

    tool: str
    arguments: dict[str, Any]


@dataclass
class Intent:
    kind: str  # page_ref | coordinate | term | descriptive | keywords
    steps: list[Step] = field(default_factory=list)
    term: str | None = None


def _page_ref(question: str) -> str | None:
    text = question.strip().rstrip("?？.")
    for candidate in [text, *(m.group(0) for m in _PAGE_REF_IN_TEXT.finditer(question))]:
        try:
            parse_page_ref(candidate)
        except PageRefError:
            continue
        return candidate
    return None


def _term(question: str, known: Any) -> str | None:
    text = question.strip()
    for pattern in _TERM_QUESTIONS:
        if m := pattern.match(text):
            return m.group("t").strip(" '\"“”‘’")
    words = WORD_RE.findall(text)
    if len(words) == 1 and not text.rstrip("?？").strip().count(" ") and known(words[0]):
        return words[0]
    return None


def topic(question: str) -> str:
    """The question without its interrogative frame: "What is the boiling point of X?" → "boiling point of X".

    The frame would otherwise match every question-shaped passage by meaning.
    """
    text = _QUESTION_FRAME.sub("", question.strip()).rstrip("?？ ")
    return text or question


def detect(question: str, known_term: Any = lambda _: False) -> Intent:
    """The intent of ``question``; ``known_term(word)`` says whether a word is a Pali/Buddhist headword."""
    q = question.strip()
    if m := _COORDINATE.search(q):
        try:
            Coordinate.parse(m.group(0))
        except CoordinateError:
            pass
        else:
            return Intent("coordinate", [Step("get", {"coordinates": [m.group(0)]})])
    if (m := _TEXT_REF.search(q)) and parse_text_ref(m.group(0)):
        return Intent("coordinate", [Step("get", {"coordinates": [m.group(0)]})])
    if ref := _page_ref(q):
        return Intent("page_ref", [Step("search_by_page_ref", {"page_ref": ref})])
    if term := _term(q, known_term):
        return Intent(
            "term",
            [Step("get_term_definition", {"term": term}), Step("search_pali", {"term": term, "limit": 5})],
            term=term,
        )
    words = WORD_RE.findall(q)
    if q.endswith(("?", "？")) or len(words) >= 4 or (_HAN.search(q) and len(q) > 6):
        return Intent("descriptive", [Step("search_by_query", {"query": topic(q), "page_size": 8})])
    return Intent("keywords", [Step("search", {"query": q, "limit": 8})])
