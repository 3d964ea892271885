"""Understanding the question: a standalone query from the chat history, and its route.

With a model, one short completion rewrites the last question with the history into a standalone
query and routes it (``route``: term or descriptive; ``granularity``: paragraph or a whole text;
filters: category, piṭaka), with a confidence — the mean probability of the tokens it wrote where
the endpoint returns ``logprobs``, else the confidence the model states. Below
:data:`CONFIDENCE` (``GANTHA_LLM_ROUTE_CONFIDENCE``), or without a model, the rules decide:

- a short follow-up that points back ("and how long does it last?", "what about nuns?", "它在哪里？")
  gets the previous question's key terms (its term, else its content words) in place of its pronoun;
- a question asking which sutta / chapter / book / section, or what a text is about, gets that
  granularity; "commentary", "Vinaya" … become category and piṭaka filters.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from gantha.rag.errors import LLMError
from gantha.rag.intent import Intent, Step, detect, topic
from gantha.rag.llm import ChatClient
from gantha.text.pali import WORD_RE, fold

# Fitted on the first half of eval/followups.jsonl (13 conversations, bench/understand.py): flat, every
# threshold up to 0.942 and 0.97-0.971 gives hit@5 0.385 (rules 0.308; the model's confidences there
# run 0.888-0.975); the second half gives 0.462 at every threshold (rules 0.462). 0.8 ties; kept.
CONFIDENCE = 0.8
GRANULARITIES = ("paragraph", "book", "chapter", "sutta", "section")
HISTORY = 6  # earlier turns shown to the model

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_PRONOUN = re.compile(
    r"\b(it|its|this|that|these|those|they|them|their|he|him|his|she|her|there|such|the same|one)\b", re.IGNORECASE
)
_LEAD = re.compile(r"^(?:and|but|so|also|then|ok(?:ay)?|now)\b[\s,]*", re.IGNORECASE)
_ABOUT = re.compile(r"^(?:(?:and\s+)?(?:what|how)\s+about|and)\b", re.IGNORECASE)
_HAN_PRONOUN = re.compile(r"[它这那其他她此该]")
_HAN = re.compile(r"[\u3400-\u9fff]")
_STOP_WORDS = """a an the of in on at to for from by with and or but is are was were be been do does did what which
who whom how why when where tell me please about can could would should i we you one there this that it its his her
their they them give say says said buddha texts text canon pali"""
_STOP = frozenset(_STOP_WORDS.split())
_LEVELS = [
    (re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:suttas?|discourses?|sutras?)\b", re.I), "sutta"),
    (re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:chapters?|khandhakas?|vaggas?)\b", re.I), "chapter"),
    (re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:books?|collections?|nikāyas?|nikayas?)\b", re.I), "book"),
    (re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?sections?\b", re.I), "section"),
    (re.compile(r"\b(?:what\s+is|what's)\s+(?:the\s+)?\S+(?:\s\S+)?\s+(?:sutta|discourse)\s+about\b", re.I), "sutta"),
    (re.compile(r"\bsumm(?:ary|ari[sz]e)\s+(?:of\s+)?(?:the\s+)?\S+\s+(?:sutta|discourse)\b", re.I), "sutta"),
    (re.compile(r"哪[一个部]?[章品]"), "chapter"),
    (re.compile(r"哪[一个部]?经"), "sutta"),
    (re.compile(r"哪[一个]?部[书典]"), "book"),
]
_FILTERS = [
    (re.compile(r"\bsub-?commentar(?:y|ies)\b|ṭīkā|\btika\b|复注", re.I), "categories", "tika"),
    (
        re.compile(r"(?<!sub)(?<!sub-)\bcommentar(?:y|ies)\b|aṭṭhakathā|atthakatha|义注|注释书", re.I),
        "categories",
        "atthakatha",
    ),
    (re.compile(r"\bvinaya\b|律藏", re.I), "tags", "vinaya"),
    (re.compile(r"\babhidhamma\b|论藏", re.I), "tags", "abhidhamma"),
]


class Understanding(BaseModel):
    """What the question was taken to ask, and who decided: shown as ``query_info.understanding``."""

    question: str
    query: str  # the standalone query searched
    rewritten: bool = False
    carried: str | None = None  # the earlier question's key terms put into a follow-up (the rules)
    by: Literal["rules", "model"] = "rules"
    confidence: float | None = None  # the model's, 0–1 (None without a model)
    threshold: float | None = None  # the model decides at or above it
    route: str | None = None  # the plan's kind: term, descriptive, keywords, page_ref, coordinate, whole_text
    term: str | None = None
    granularity: str = "paragraph"
    filters: dict[str, list[str]] = Field(default_factory=dict)
    model: dict[str, Any] | None = None  # what the model proposed (also when the rules decided)
    took_ms: float | None = None  # the model's rewrite


# --- the rules ------------------------------------------------------------------------------------


def key_terms(question: str) -> str:
    """The words that carry a question: its term, else its content words ("simile of the raft" → "simile raft")."""
    intent = detect(question)
    if intent.term:
        return intent.term
    words = [w for w in _WORD.findall(topic(question)) if w.lower() not in _STOP]
    return " ".join(words[:6]) if not _HAN.search(question) else topic(question)


def points_back(question: str) -> bool:
    """A short follow-up that leans on the previous turn: a pronoun, "and …", "what about …"."""
    q = question.strip()
    if _HAN.search(q):
        return len(q) <= 14 and bool(_HAN_PRONOUN.search(q) or q.startswith(("那么", "还有", "那")))
    words = WORD_RE.findall(q)
    if len(words) > 10 or detect(q).kind in ("coordinate", "page_ref", "term"):
        return False
    return bool(_PRONOUN.search(q) or _ABOUT.match(q) or len(words) <= 3)


def rewrite_rules(messages: Sequence[dict[str, str]]) -> tuple[str, str | None]:
    """The last question made standalone with the key terms of the one before (itself made standalone),
    and the terms carried (None when it stands alone)."""
    asked = [m["content"].strip() for m in messages if m["role"] == "user"]
    standalone, carried = asked[0], None
    for question in asked[1:]:
        carried = key_terms(standalone) if points_back(question) else None
        standalone = _carry(question, carried) if carried else question
    return standalone, carried


def _carry(question: str, keys: str) -> str:
    if not keys:
        return question
    if _HAN.search(question):
        return _HAN_PRONOUN.sub(keys, question, count=1) if _HAN_PRONOUN.search(question) else f"{keys} {question}"
    q = _LEAD.sub("", question.strip()) or question
    if m := _PRONOUN.search(q):
        possessive = m.group(1).lower() in ("its", "their", "his", "her")
        return q[: m.start()] + (f"{keys}'s" if possessive else keys) + q[m.end() :]
    return f"{q.rstrip('?？ ')} {keys}?" if q.endswith(("?", "？")) else f"{q} {keys}"


def granularity_rules(question: str) -> str:
    """The level a question asks about: which sutta / chapter / book / section, or ``paragraph``."""
    for pattern, level in _LEVELS:
        if pattern.search(question):
            return level
    return "paragraph"


def filters_rules(question: str) -> dict[str, list[str]]:
    """Category and piṭaka filters named in a question."""
    out: dict[str, list[str]] = {}
    for pattern, name, value in _FILTERS:
        if pattern.search(question) and value not in out.get(name, []):
            if name == "categories" and out.get("categories"):
                continue  # "subcommentary" also reads as "commentary": the first (the narrower) wins
            out.setdefault(name, []).append(value)
    return out


def by_rules(messages: Sequence[dict[str, str]]) -> Understanding:
    """The deterministic understanding of the last question."""
    question = messages[-1]["content"]
    query, carried = rewrite_rules(messages)
    return Understanding(
        question=question,
        query=query,
        rewritten=query != question,
        carried=carried,
        granularity=granularity_rules(query),
        filters=filters_rules(query),
    )


# --- the model ------------------------------------------------------------------------------------

PROMPT = """You prepare searches in a library of Buddhist canonical texts (the Pali canon and its commentaries).
Do not answer the question. Rewrite the user's LAST message into one standalone search query: replace pronouns
and follow-up words ("it", "that", "and how long?") with what they refer to in the conversation, keep the
user's language and Pali words as written; if the message already stands alone, copy it.
Reply with one JSON object and nothing else:
{"query": "...", "route": "term" or "descriptive", "term": the Pali word or null,
 "granularity": "paragraph", "sutta", "chapter", "book" or "section",
 "category": null, "mula", "atthakatha" or "tika", "pitaka": null, "vinaya", "sutta" or "abhidhamma"}
route "term": the message asks what one word means; "descriptive": anything else.
granularity: "paragraph" unless the user asks WHICH sutta/chapter/book/section, or what a whole text is about.
category/pitaka: only when the user names commentaries, subcommentaries, the Vinaya, Suttas or Abhidhamma.

Example conversation:
user: What is the Kālāma Sutta about?
assistant: It advises the Kālāmas [1].
user: and what should they not rely on?
Reply: {"query": "what should the Kālāmas not rely on in the Kālāma Sutta", "route": "descriptive", "term": null,
"granularity": "paragraph", "category": null, "pitaka": null}"""


def by_model(client: ChatClient, messages: Sequence[dict[str, str]], max_tokens: int = 120) -> Understanding:
    """The model's understanding of the last question; ``LLMError`` when it fails or writes no JSON object."""
    turns = list(messages)[-(HISTORY + 1) :]
    shown = "\n".join(f"{m['role']}: {m['content'][:600]}" for m in turns)
    started = time.perf_counter()
    done = client.complete(
        [{"role": "system", "content": PROMPT}, {"role": "user", "content": f"Conversation:\n{shown}\nReply:"}],
        temperature=0,
        max_tokens=max_tokens,
        logprobs=True,
    )
    took = round((time.perf_counter() - started) * 1000, 1)
    proposal = _json_object(done.content)
    query = str(proposal.get("query") or "").strip()
    if not query:
        raise LLMError("llm_error", f"the model wrote no query: {done.content[:200]!r}")
    confidence = _confidence(done.logprobs, proposal.get("confidence"))
    granularity = proposal.get("granularity") if proposal.get("granularity") in GRANULARITIES else "paragraph"
    filters: dict[str, list[str]] = {}
    if proposal.get("category") in ("mula", "atthakatha", "tika", "anya"):
        filters["categories"] = [proposal["category"]]
    if proposal.get("pitaka") in ("vinaya", "sutta", "abhidhamma"):
        filters["tags"] = [proposal["pitaka"]]
    route = proposal.get("route") if proposal.get("route") in ("term", "descriptive") else "descriptive"
    term = proposal.get("term") if isinstance(proposal.get("term"), str) and route == "term" else None
    question = messages[-1]["content"]
    return Understanding(
        question=question,
        query=query,
        rewritten=query != question,
        by="model",
        confidence=confidence,
        route=route,
        term=term or None,
        granularity=granularity,
        filters=filters,
        model=proposal,
        took_ms=took,
    )


def _json_object(text: str) -> dict[str, Any]:
    m = re.search(r"\{.*\}", text, re.DOTALL)
    try:
        data = json.loads(m.group(0)) if m else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise LLMError("llm_error", f"the model wrote no JSON object: {text[:200]!r}")
    return data


def _confidence(logprobs: list[float] | None, stated: Any) -> float:
    """The mean probability of the tokens written, else the stated confidence (clamped), else 0.5."""
    if logprobs:
        return round(math.exp(sum(logprobs) / len(logprobs)), 3)
    if isinstance(stated, int | float):
        return round(min(1.0, max(0.0, float(stated))), 3)
    return 0.5


def understand(
    messages: Sequence[dict[str, str]], client: ChatClient | None = None, threshold: float = CONFIDENCE
) -> Understanding:
    """The model's understanding at or above ``threshold``; else (or without a model, or when it fails) the rules'."""
    rules = by_rules(messages)
    if client is None:
        return rules
    try:
        model = by_model(client, messages)
    except LLMError as exc:
        return rules.model_copy(update={"model": {"error": str(exc)}, "threshold": threshold})
    if (model.confidence or 0) >= threshold:
        kept = rules.carried if rules.carried and fold(rules.carried) in fold(model.query) else None
        return model.model_copy(update={"threshold": threshold, "carried": kept})
    return rules.model_copy(
        update={
            "confidence": model.confidence,
            "threshold": threshold,
            "model": {**(model.model or {}), "query": model.query},
            "took_ms": model.took_ms,
        }
    )


def plan(u: Understanding, known_term: Any = lambda _: False, semantic: bool = True) -> Intent:
    """The tool calls for an understanding: references as detected; a whole text by its nodes; filters kept."""
    intent = detect(u.query, known_term)
    if intent.kind not in ("coordinate", "page_ref"):
        mode = "hybrid" if semantic else "fuzzy"
        if u.granularity != "paragraph":
            args = {"query": topic(u.query), "granularity": u.granularity, "limit": 5, **u.filters}
            intent = Intent("whole_text", [Step("search", args)])
        elif u.by == "model" and u.route == "term" and u.term:
            intent = detect(f"What is {u.term}?", lambda _: True)
        elif u.by == "model" and intent.kind == "term" and u.route == "descriptive":
            intent = Intent("descriptive", [Step("search_by_query", {"query": topic(u.query), "page_size": 8})])
        if u.filters and intent.kind in ("descriptive", "keywords"):
            args = {"query": topic(u.query), "mode": mode, "limit": 8, **u.filters}
            intent = Intent(intent.kind, [Step("search", args)])
        if intent.kind == "descriptive" and u.carried and " " not in u.carried and known_term(u.carried):
            # a follow-up about the earlier question's term: its passages too, every inflection searched
            intent.steps.append(Step("search_pali", {"term": u.carried, "limit": 5}))
            intent.term = u.carried
    u.route, u.term = intent.kind, intent.term
    return intent
