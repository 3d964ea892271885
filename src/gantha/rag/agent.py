"""The chat agent: route the question to the research tools, gather numbered sources, answer only
from them with a model (or return the passages without one), then check every citation.

Events, in order (the HTTP endpoint sends them as Server-Sent Events):
``sources`` (the numbered sources so far; repeated when the model's tool calls add some) →
``token`` (pieces of the answer as generated) → ``done`` (the checked answer, sources, citation
checks and query_info) — or ``error`` (code, message) as the last event.
When retrieval finds nothing answering the question, no model is called: the reply is the fixed
refusal with the weak candidates as sources.
"""

from __future__ import annotations

import html
import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal
from urllib.parse import quote

from pydantic import BaseModel, Field, field_validator, model_validator

from gantha.config import settings
from gantha.rag.grounding import CitationCheck, check
from gantha.rag.intent import Intent, Step
from gantha.rag.llm import ChatClient, Completion, LLMError
from gantha.rag.local import MODEL_NAME
from gantha.rag.understand import CONFIDENCE, Understanding, plan, understand
from gantha.rag.web import WebSearch, WebSearchError, best_chunks
from gantha.research import Research
from gantha.search.plan import MAX_QUERY_CHARS, MAX_QUERY_WORDS, check_query
from gantha.text.pali import fold
from gantha.tools import Toolbox, function_spec

REFUSAL = "The indexed texts do not answer this question."
NO_SOURCES = "The sources do not say."
SYSTEM_PROMPT = f"""You answer questions about canonical texts using ONLY the numbered sources the user gives.
Rules:
- After every sentence that states something, put the number of the source it comes from in brackets: [1] or [1][2].
- Quote Pali or Chinese words exactly as the source writes them, inside double quotes.
- Many sources are in Pali. A dictionary may follow them: use it to read the Pali and to explain a term, and cite
  the sources where the term occurs.
- Use no knowledge from outside the sources and the dictionary. If they do not contain the answer, reply only:
  {NO_SOURCES}
- A source may be the summary of a whole text (a sutta, chapter or book): cite it like any other.
- Answer in the language of the question, {{length}}.
- You may call the tools to find more passages; cite them by the numbers the tool results give."""
BRIEF = "briefly (at most about 150 words)"
EXCERPT = 600  # characters of each source's text given to the model, around the words searched
WHOLE = 2000  # characters of a passage shown without a model; a longer one is cut at a sentence end
NO_MODEL = (
    "No language model is configured, so no answer was written: these are the passages the question leads to. "
    "To have answers written from them, set GANTHA_LLM_BASE_URL to an OpenAI-compatible endpoint (with "
    "GANTHA_LLM_MODEL), or to `local` for the bundled model (`gantha llm assemble` first); a running server "
    "needs a restart."
)
_SENTENCE_END = re.compile(r"[.!?।॥]['\"’”)\]]*(?=\s)|[。！？]")
_MARK = re.compile(r"<mark>(.+?)</mark>")
_TAG = re.compile(r"<[^>]+>")
_HAN = re.compile(r"[\u3400-\u9fff]")
ANSWER_FORM = (
    "Answer in two or three sentences. End every sentence with the number of the source it rests on, like [1]."
)
CITE = "End every sentence with the number of the source it rests on, like [1]."
PROMPTS: dict[str, tuple[str, str]] = {  # prompt_name → (system prompt, the request's last line)
    "default": (SYSTEM_PROMPT.format(length=BRIEF), ANSWER_FORM),
    "brief": (SYSTEM_PROMPT.format(length="in one or two sentences"), f"Answer in one or two sentences. {CITE}"),
    "detailed": (
        SYSTEM_PROMPT.format(length="thoroughly (at most about 400 words), quoting the Pali of the sources"),
        f"Answer in one or two paragraphs, quoting the Pali where it matters. {CITE}",
    ),
}

Event = tuple[str, dict[str, Any]]


class Message(BaseModel):
    role: Literal["user", "assistant"]
    content: str = Field(min_length=1, max_length=8000)


class ChatRequest(BaseModel):
    """A chat turn, with the per-request options of the original search-engine chat (each bounded by a setting)."""

    messages: list[Message] = Field(
        min_length=1,
        max_length=40,
        description=f"the turns; the last is the question (at most {MAX_QUERY_CHARS:,} characters, "
        f"{MAX_QUERY_WORDS} words)",
    )
    sources: Literal["corpus", "web", "both"] = "corpus"
    stream: bool = False
    llm: bool = Field(True, description="false: the routed passages without prose (no model call)")
    limit: int = Field(
        6, ge=1, le=100, description="sources per tool call given to the model (≤ GANTHA_CHAT_MAX_TOP_K)"
    )
    top_k: int | None = Field(None, ge=1, le=100, description="the original design's name for `limit` (wins over it)")
    engine: Literal["duckduckgo", "bing", "exa", "searxng", "tavily"] | None = Field(
        None, description="the web engine of sources web|both (default GANTHA_WEB_ENGINE)"
    )
    model: str | None = Field(
        None, min_length=1, max_length=200, description="the model: GANTHA_LLM_MODEL or one of GANTHA_LLM_MODELS"
    )
    temperature: float | None = Field(
        None, ge=0, le=2, description="sampling temperature (≤ GANTHA_CHAT_MAX_TEMPERATURE)"
    )
    max_tokens: int | None = Field(
        None,
        ge=16,
        le=32768,
        description="longest answer in tokens (≤ GANTHA_CHAT_MAX_TOKENS; default GANTHA_LLM_MAX_TOKENS)",
    )
    prompt_name: Literal["default", "brief", "detailed"] = Field("default", description="the answer's prompt template")

    @field_validator("messages")
    @classmethod
    def _ends_with_question(cls, messages: list[Message]) -> list[Message]:
        if messages[-1].role != "user":
            raise ValueError("the last message must be the user's question")
        check_query(messages[-1].content)  # it is searched: the bounds of a query
        return messages

    @model_validator(mode="after")
    def _within_limits(self) -> ChatRequest:
        s = settings()
        self.limit = self.top_k or self.limit
        if self.limit > s.chat_max_top_k:
            raise ValueError(
                f"top_k/limit {self.limit} is over the limit of {s.chat_max_top_k} (GANTHA_CHAT_MAX_TOP_K)"
            )
        if self.max_tokens is not None and self.max_tokens > s.chat_max_tokens:
            raise ValueError(
                f"max_tokens {self.max_tokens} is over the limit of {s.chat_max_tokens} (GANTHA_CHAT_MAX_TOKENS)"
            )
        if self.temperature is not None and self.temperature > s.chat_max_temperature:
            raise ValueError(
                f"temperature {self.temperature} is over the limit of {s.chat_max_temperature} "
                "(GANTHA_CHAT_MAX_TEMPERATURE)"
            )
        if self.model is not None and self.model not in (allowed := allowed_models(s)):
            raise ValueError(f"model {self.model!r} is not offered; one of: {', '.join(sorted(allowed)) or 'none'}")
        return self


def allowed_models(s: Any) -> set[str]:
    """The model names a request may choose: GANTHA_LLM_MODEL, GANTHA_LLM_MODELS, and the local model's."""
    names = {m.strip() for m in s.llm_models.split(",") if m.strip()} | ({s.llm_model} if s.llm_model else set())
    return names | ({MODEL_NAME} if s.llm_base_url == "local" else set())


class Source(BaseModel):
    n: int
    kind: Literal["corpus", "web"]
    level: str | None = None  # a whole text's summary: book, chapter, sutta or section (else a passage)
    title: str
    url: str  # the reader page of a coordinate, or the web page
    coordinate: str | None = None
    channel: str | None = None
    citation: str | None = None
    text: str  # the whole passage (citations are checked against it)
    excerpt: str = ""  # what the model was given: a window around the words searched
    translations: dict[str, str] = Field(default_factory=dict)
    weak: bool = False  # a candidate below the confidence threshold, listed with a refusal
    cited: bool = False


class ToolUse(BaseModel):
    tool: str
    arguments: dict[str, Any]
    by: Literal["router", "model"]
    sources: list[int] = Field(default_factory=list)
    outcome: str | None = None
    error: str | None = None


class ChatInfo(BaseModel):
    intent: str
    term: str | None = None
    understanding: Understanding | None = None  # the standalone query, who decided (model or rules), confidence
    tools: list[ToolUse] = Field(default_factory=list)
    glossary: list[str] = Field(default_factory=list)  # dictionary meanings shown to the model, not citable
    llm_calls: int = 0
    model: str | None = None
    web_engine: str | None = None
    notes: list[str] = Field(default_factory=list)
    took_ms: float = 0.0


class Notice(BaseModel):
    """What a reader must know before the answer, and the setting that changes it."""

    code: Literal["no_model"]
    message: str
    setting: str


class ChatAnswer(BaseModel):
    answer: str
    outcome: Literal["answered", "passages", "not_found"]
    notice: Notice | None = None  # no_model: the passages found are shown, no model wrote an answer
    sources: list[Source]
    citations: list[CitationCheck] = Field(default_factory=list)
    uncited_sentences: int = 0
    grounded: bool = False  # every statement cites a source and at least one citation checked out
    query_info: ChatInfo


def excerpt(text: str, word: str | None, size: int = EXCERPT) -> str:
    """About ``size`` characters of ``text`` around the first ``word`` (else its beginning), cut at spaces."""
    if len(text) <= size:
        return text
    at = text.find(word) if word else -1
    start = max(0, at - size // 3) if at >= 0 else 0
    end = min(len(text), start + size)
    if start:
        start = text.find(" ", start) + 1 or start
    if end < len(text):
        end = text.rfind(" ", start, end) if " " in text[start:end] else end
    return ("…" if start else "") + text[start:end].strip() + ("…" if end < len(text) else "")


def whole(text: str, limit: int = WHOLE) -> str:
    """The whole passage; one over ``limit`` characters cut at its last sentence end before it (else at a
    word end), marked with "…"."""
    text = text.strip()
    if len(text) <= limit:
        return text
    ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, limit + 1)]
    cut = ends[-1] if ends and ends[-1] > limit // 2 else max(text.rfind(" ", 0, limit + 1), 0) or limit
    return text[:cut].rstrip() + " …"


def reader_url(coordinate: str) -> str:
    """The reader page of a coordinate, encoded (a Markdown coordinate's ``#2`` stays in the path)."""
    return "/read/" + quote(coordinate, safe="/")


def _hits(result: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str | None]:
    """(hits, weak candidates, outcome) of any tool result."""
    if "bold_passages" in result:
        return result["bold_passages"], [], "hits" if result["bold_passages"] else "no_hits"
    if "items" in result:
        ok = [i for i in result["items"] if i.get("status") == "ok"]
        return ok, [], "hits" if ok else "not_found"
    return result.get("hits", []), result.get("weak", []), result.get("outcome")


class Agent:
    """One conversation turn at a time over a :class:`Research`, a model (optional) and a web engine (optional)."""

    def __init__(
        self,
        research: Research,
        llm: ChatClient | None = None,
        web: Callable[[str | None], WebSearch] | None = None,  # the engine by name (None: the configured one)
        tools: bool = True,  # offer the research tools to the model
        max_rounds: int = 3,
        max_tokens: int = 512,
        web_results: int = 5,
        understand: Literal["follow-ups", "always", "never"] = "follow-ups",  # when the model rewrites and routes
        confidence: float = CONFIDENCE,
    ) -> None:
        self.research = research
        self.toolbox = Toolbox(research)
        self.llm = llm
        self.web = web
        self.tools = tools
        self.max_rounds = max_rounds
        self.max_tokens = max_tokens
        self.web_results = web_results
        self.understand = understand
        self.confidence = confidence

    # --- the turn ------------------------------------------------------------------------------

    def answer(self, req: ChatRequest) -> ChatAnswer:
        """The turn without streaming; ``LLMError`` / ``WebSearchError`` when a needed service fails."""
        for kind, data in self.run(req):
            if kind == "error":
                raise (LLMError if data["code"].startswith("llm") else WebSearchError)(data["code"], data["message"])
            if kind == "done":
                return ChatAnswer.model_validate(data)
        raise RuntimeError("the turn ended without an answer")

    def run(self, req: ChatRequest) -> Iterator[Event]:
        started = time.perf_counter()
        u = self._understand(req)
        intent = plan(u, self._known_term, self.research.searcher.semantic is not None)
        info = ChatInfo(intent=intent.kind, term=intent.term, understanding=u, llm_calls=int(u.took_ms is not None))
        sources: list[Source] = []
        weak: list[Source] = []
        try:
            if req.sources in ("corpus", "both"):
                for step in intent.steps:
                    self._route(step, req.limit, sources, weak, info)
                if intent.kind == "whole_text" and not sources:  # no whole text found: the passages
                    info.notes.append("no whole text matched: searched the passages instead")
                    self._route(
                        Step("search_by_query", {"query": u.query, "page_size": 8}), req.limit, sources, weak, info
                    )
            if req.sources in ("web", "both"):
                self._web(u.query, req.limit, sources, info, req.engine)
        except (LLMError, WebSearchError) as exc:
            yield "error", {"code": exc.code, "message": str(exc)}
            return
        if not sources:
            yield from self._refuse(weak, info, started)
            return
        yield "sources", {"sources": [s.model_dump() for s in sources]}
        if not (req.llm and self.llm):
            notice = None
            if req.llm:
                info.notes.append("no model configured (GANTHA_LLM_BASE_URL): the passages are the answer")
                notice = Notice(code="no_model", message=NO_MODEL, setting="GANTHA_LLM_BASE_URL")
            yield from self._passages(sources, info, started, notice)
            return
        try:
            yield from self._generate(req, intent, sources, info, started)
        except LLMError as exc:
            yield "error", {"code": exc.code, "message": str(exc)}

    # --- retrieval -----------------------------------------------------------------------------

    def _understand(self, req: ChatRequest) -> Understanding:
        """The rules' understanding, or the model's where it is asked for (``understand``) and sure enough."""
        messages = [m.model_dump() for m in req.messages]
        follow_up = sum(m.role == "user" for m in req.messages) > 1
        wanted = self.understand == "always" or (self.understand == "follow-ups" and follow_up)
        client = self.llm if (req.llm and wanted) else None
        if client is not None and req.model and req.model != client.model:
            client = _Renamed(client, req.model)
        return understand(messages, client, self.confidence)

    def _known_term(self, word: str) -> bool:
        return bool(self.research.word(word).entries)

    def _call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool not in Toolbox.NAMES:
            raise ValueError(f"no tool {tool!r}; tools: {', '.join(Toolbox.NAMES)}")
        return getattr(self.toolbox, tool)(**arguments)

    def _route(self, step: Step, limit: int, sources: list[Source], weak: list[Source], info: ChatInfo) -> None:
        use = ToolUse(tool=step.tool, arguments=step.arguments, by="router")
        info.tools.append(use)
        try:
            result = self._call(step.tool, step.arguments)
        except ValueError as exc:
            use.error = str(exc)
            return
        if step.tool == "get_term_definition":
            definition = result["definition"]
            wanted = {fold(w) for w in [definition.get("word", ""), *definition.get("lemmas", [])] if w}
            language = "zh" if _HAN.search(info.term or "") else "en"
            entries = [e for e in definition.get("entries", []) if fold(e["word"]) in wanted]
            entries.sort(key=lambda e: not e["language"].startswith(language))
            for entry in entries:
                line = f"{entry['word']} ({entry['dictionary']}): {'; '.join(entry['meanings'])[:300]}"
                if line not in info.glossary and len(info.glossary) < 3:
                    info.glossary.append(line)
        if result.get("nodes"):  # whole texts: their summaries are the sources
            use.outcome = result.get("outcome")
            use.sources = self._add_nodes(result["nodes"][:limit], sources)
            return
        hits, candidates, use.outcome = _hits(result)
        use.sources = self._add(hits[:limit], sources)
        if not use.sources:
            self._add(candidates[:limit], weak, weak=True)

    def _add(self, hits: list[dict[str, Any]], sources: list[Source], weak: bool = False) -> list[int]:
        """Number the passages of these hits (text fetched by coordinate, translations beside it)."""
        wanted = {h["coordinate"] for h in hits}
        known = {s.coordinate for s in sources}
        coordinates = list(dict.fromkeys(h["coordinate"] for h in hits if h["coordinate"] not in known))
        if not coordinates:
            return [s.n for s in sources if s.coordinate in wanted]
        if weak:  # candidates below the threshold: their snippet, as plain text
            items = [h | {"text": html.unescape(_TAG.sub("", h.get("snippet", ""))), "status": "ok"} for h in hits]
        else:
            items = self.research.get(coordinates).items
            cst = [c for c in coordinates if c.startswith("cst/")]
            items = [i.model_dump() for i in items]
            held = {c.name for c in self.research.store.all_channels()} if cst else set()
            if translations := [ch for ch in ("en", "my") if ch in held]:  # those the index holds
                items += [i.model_dump() for i in self.research.get(cst, translations).items]
        marked = {h["coordinate"]: m.group(1) for h in hits if (m := _MARK.search(h.get("snippet") or ""))}
        by_coordinate: dict[str, Source] = {}
        for item in items:
            if item.get("status") != "ok" or not item.get("text"):
                continue
            c = item["coordinate"]
            if c in by_coordinate:
                by_coordinate[c].translations[item["channel"]] = item["text"]
                continue
            if c not in coordinates:
                continue
            citation = (item.get("citations") or {}).get("default") or f"{item.get('book_title') or c} ({c})"
            source = Source(
                n=len(sources) + 1,
                kind="corpus",
                title=item.get("book_title") or c,
                url=reader_url(c),
                coordinate=c,
                channel=item.get("channel"),
                citation=citation,
                text=item["text"],
                excerpt=excerpt(item["text"], marked.get(c)),
                weak=weak,
            )
            sources.append(source)
            by_coordinate[c] = source
        return [s.n for s in sources if s.coordinate in wanted]

    def _add_nodes(self, nodes: list[dict[str, Any]], sources: list[Source]) -> list[int]:
        """Number whole texts (book, chapter, sutta, section) by their summaries, cited by node coordinate."""
        numbers = []
        for node in nodes:
            c = node["coordinate"]
            if known := next((s for s in sources if s.coordinate == c), None):
                numbers.append(known.n)
                continue
            where = " › ".join(dict.fromkeys([node["book_title"], *node.get("path", []), node["title"]]))
            summary = node.get("summary") or ""
            size = f" ({node['paragraphs']} paragraphs)" if node.get("paragraphs") else ""
            first = (node.get("evidence") or [c])[0]
            source = Source(
                n=len(sources) + 1,
                kind="corpus",
                level=node["level"],
                title=node["title"],
                url=reader_url(first),  # its best paragraph, in the reader
                coordinate=c,
                channel="summary",
                citation=f"{where} ({c})",
                text=f"{node['title']}\n{summary}".strip(),
                excerpt=f"The {node['level']} {where}{size}. Summary: {summary or 'none'}"[: EXCERPT * 2],
            )
            sources.append(source)
            numbers.append(source.n)
        return numbers

    def _web(self, question: str, limit: int, sources: list[Source], info: ChatInfo, name: str | None = None) -> None:
        if self.web is None:
            raise WebSearchError("web_unconfigured", "no web search engine: set GANTHA_WEB_ENGINE")
        engine = self.web(name)
        info.web_engine = engine.name
        docs = engine.search(question, limit=self.web_results)
        semantic = self.research.searcher.semantic
        embed = semantic.embedder.encode if semantic else None
        use = ToolUse(tool=f"web:{engine.name}", arguments={"query": question}, by="router")
        for doc, piece in best_chunks(question, docs, embed, keep=limit):
            n = len(sources) + 1
            sources.append(Source(n=n, kind="web", title=doc.title, url=doc.url, text=piece, excerpt=piece))
            use.sources.append(len(sources))
        use.outcome = "hits" if use.sources else "no_hits"
        info.tools.append(use)

    # --- answers -------------------------------------------------------------------------------

    def _done(self, answer: ChatAnswer, started: float) -> Iterator[Event]:
        answer.query_info.took_ms = round((time.perf_counter() - started) * 1000, 1)
        yield "done", answer.model_dump()

    def _refuse(self, weak: list[Source], info: ChatInfo, started: float) -> Iterator[Event]:
        called = "no answer was generated" if info.llm_calls else "no model was called"
        info.notes.append(f"retrieval found nothing that answers the question: {called}")
        yield "sources", {"sources": [s.model_dump() for s in weak]}
        yield "token", {"text": REFUSAL}
        yield from self._done(ChatAnswer(answer=REFUSAL, outcome="not_found", sources=weak, query_info=info), started)

    def _passages(
        self, sources: list[Source], info: ChatInfo, started: float, notice: Notice | None = None
    ) -> Iterator[Event]:
        """The sources as the answer, each whole under its citation and coordinate (the notice first)."""
        blocks = [notice.message] if notice else []
        for s in sources:
            where = s.coordinate or s.url
            head = f"[{s.n}] {s.citation or s.title}" + ("" if where in (s.citation or "") else f" · {where}")
            english = f"\nEnglish: {whole(s.translations['en'])}" if s.translations.get("en") else ""
            blocks.append(f"{head}\n{whole(s.text)}{english}")
        text = "\n\n".join(blocks)
        yield "token", {"text": text}
        answer = ChatAnswer(
            answer=text, outcome="passages", notice=notice, sources=sources, grounded=True, query_info=info
        )
        yield from self._done(answer, started)

    def _context(self, sources: list[Source], glossary: list[str]) -> str:
        parts = []
        for s in sources:
            where = s.coordinate or s.url
            parts.append(f"[{s.n}] {s.citation or s.title} ({where})\n{s.excerpt or s.text[:EXCERPT]}")
            for channel, text in s.translations.items():
                parts.append(f"    translation ({channel}): {text[:EXCERPT]}")
        if glossary:
            parts.append("Dictionary (to read the Pali; not a source, do not cite):\n" + "\n".join(glossary))
        return "\n\n".join(parts)

    def _tool_result(self, call_name: str, result: dict[str, Any], numbers: list[int], sources: list[Source]) -> str:
        if numbers:
            given = [s for s in sources if s.n in numbers]
            return "New sources:\n\n" + self._context(given, [])
        hits, _, outcome = _hits(result)
        if hits or outcome in ("no_hits", "not_found", "unattested_form"):
            return f"{call_name}: {outcome or 'no_hits'} — nothing new to cite."
        return json.dumps(result, ensure_ascii=False)[:3000]

    def _generate(
        self, req: ChatRequest, intent: Intent, sources: list[Source], info: ChatInfo, started: float
    ) -> Iterator[Event]:
        assert self.llm is not None
        u = info.understanding
        question = u.query if u and u.rewritten else req.messages[-1].content
        system, form = PROMPTS[req.prompt_name]
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        messages += [m.model_dump() for m in req.messages[-9:-1]]
        messages.append(
            {
                "role": "user",
                "content": f"Sources:\n\n{self._context(sources, info.glossary)}\n\nQuestion: {question}\n\n{form}",
            }
        )
        specs = [function_spec(fn, brief=True) for fn in self.toolbox.functions()] if self.tools else None
        info.model = req.model or self.llm.model
        options: dict[str, Any] = {
            "max_tokens": req.max_tokens or self.max_tokens,
            "temperature": req.temperature if req.temperature is not None else 0,
        }
        if req.model:
            options["model"] = req.model
        completion = Completion()
        for round_ in range(self.max_rounds):
            last = round_ == self.max_rounds - 1
            info.llm_calls += 1
            for piece in self.llm.stream(messages, None if last else specs, **options):
                if isinstance(piece, Completion):
                    completion = piece
                else:
                    yield "token", {"text": piece}
            if not completion.tool_calls:
                break
            messages.append(completion.message())
            before = len(sources)
            for call in completion.tool_calls:
                use = ToolUse(tool=call.name, arguments={}, by="model")
                info.tools.append(use)
                try:
                    use.arguments = call.parsed()
                    result = self._call(call.name, use.arguments)
                    hits, _, use.outcome = _hits(result)
                    use.sources = self._add(hits[: req.limit], sources)
                    content = self._tool_result(call.name, result, use.sources, sources)
                except (ValueError, TypeError) as exc:
                    use.error = str(exc)
                    content = f"error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            if len(sources) > before:
                yield "sources", {"sources": [s.model_dump() for s in sources]}
        grounding = check(completion.content, {s.n: self._checkable(s) for s in sources})
        for s in sources:
            s.cited = s.n in grounding.cited
        outcome = "not_found" if completion.content.strip().startswith(NO_SOURCES) else "answered"
        answer = ChatAnswer(
            answer=grounding.answer.strip(),
            outcome=outcome,
            sources=sources,
            citations=grounding.checks,
            uncited_sentences=grounding.uncited_sentences,
            grounded=bool(grounding.cited) and grounding.uncited_sentences == 0,
            query_info=info,
        )
        yield from self._done(answer, started)

    @staticmethod
    def _checkable(s: Source) -> str:
        return "\n".join([s.text, *s.translations.values()])


def agent_from_settings(research: Research, s: Any) -> Agent:
    """The agent with the configured model and web engine (each optional)."""
    from gantha.rag.llm import client_from_settings
    from gantha.rag.web import make_engine

    def web(name: str | None = None) -> WebSearch:
        return make_engine(name or s.web_engine, s.web_api_key, s.web_url)

    tools = s.llm_tools if s.llm_tools is not None else s.llm_base_url != "local"
    return Agent(
        research,
        client_from_settings(s),
        web,
        tools=tools,
        max_tokens=s.llm_max_tokens,
        web_results=s.web_results,
        understand=s.llm_understand,
        confidence=s.llm_route_confidence,
    )


class _Renamed:
    """A client asking for another model at the same endpoint (a request's ``model``)."""

    def __init__(self, client: ChatClient, model: str) -> None:
        self._client, self.model = client, model

    def complete(self, messages: list[dict[str, Any]], tools: Any = None, **options: Any) -> Completion:
        return self._client.complete(messages, tools, **{**options, "model": self.model})
