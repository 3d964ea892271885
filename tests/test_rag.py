"""Grounded answers: the LLM client against a local OpenAI-compatible server, routing, citation
checks, refusal without a model call, tool calls, and the chat endpoint's JSON and SSE modes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.config import settings
from gantha.rag.agent import REFUSAL, Agent, ChatRequest
from gantha.rag.grounding import check
from gantha.rag.intent import detect
from gantha.rag.llm import ChatClient, Completion, LLMError, client_from_settings
from gantha.research import Research

from conftest import Server
from llm_server import ScriptedLLM

TUNGSTEN = "What is the boiling point of tungsten?"


@pytest.fixture()
def llm():
    server = ScriptedLLM()
    yield server
    server.close()


@pytest.fixture(scope="module")
def research(small_index):
    return Research.open(small_index)


def ask(question: str, **kw) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": question}], **kw)


# --- the client ------------------------------------------------------------------------------------


def test_client_streams_text_and_assembles_tool_calls(llm):
    client = ChatClient(llm.url, "test-model", api_key="k1")
    llm.script = [
        {"content": "Parivāsa is probation [1]."},
        {"tool_calls": [{"name": "search_pali", "arguments": {"term": "parivāsa"}}]},
    ]
    pieces = list(client.stream([{"role": "user", "content": "q"}]))
    assert "".join(p for p in pieces if isinstance(p, str)) == "Parivāsa is probation [1]."
    assert isinstance(pieces[-1], Completion) and pieces[-1].content == "Parivāsa is probation [1]."
    done = list(client.stream([{"role": "user", "content": "q"}], tools=[{"type": "function"}]))[-1]
    assert [(c.name, c.parsed()) for c in done.tool_calls] == [("search_pali", {"term": "parivāsa"})]
    assert llm.requests[0]["model"] == "test-model" and llm.requests[0]["_auth"] == "Bearer k1"
    assert llm.requests[1]["tools"] == [{"type": "function"}] and llm.requests[1]["stream"] is True


def test_client_retries_then_reports_clear_errors(llm):
    llm.script = [{"status": 503}, {"content": "ok"}]
    assert ChatClient(llm.url, "m", retries=1).complete([{"role": "user", "content": "q"}]).content == "ok"
    llm.script = [{"status": 401}]
    with pytest.raises(LLMError, match="answered 401") as exc:
        ChatClient(llm.url, "m", retries=3).complete([{"role": "user", "content": "q"}])
    assert exc.value.code == "llm_error" and len(llm.requests) == 3  # 401 is not retried
    with pytest.raises(LLMError, match="GANTHA_LLM_BASE_URL") as exc:
        ChatClient("http://127.0.0.1:9/v1", "m", retries=0, timeout=2).complete([])
    assert exc.value.code == "llm_unreachable"


def test_client_from_settings_names_missing_settings():
    s = settings().model_copy(update={"llm_base_url": None})
    assert client_from_settings(s) is None
    with pytest.raises(LLMError, match="GANTHA_LLM_MODEL"):
        client_from_settings(s.model_copy(update={"llm_base_url": "http://127.0.0.1:9/v1", "llm_model": ""}))


# --- routing and grounding ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kind", "tool"),
    [
        ("M3.58", "page_ref", "search_by_page_ref"),
        ("Where is PTS Vin II 31?", "page_ref", "search_by_page_ref"),
        ("cst/vin02m3.mul/75", "coordinate", "get"),
        ("What is parivāsa?", "term", "get_term_definition"),
        ("什么是夜叉", "term", "get_term_definition"),
        ("parivasa", "term", "get_term_definition"),
        ("Why did the monks on probation consent to greetings?", "descriptive", "search_by_query"),
        ("佛陀让阿难尊者制作如田地的袈裟出自哪里？给出巴利文和译文", "descriptive", "search_by_query"),
        ("bhikkhu sāvatthiyaṃ", "keywords", "search"),
    ],
)
def test_intent_routing(research, question, kind, tool):
    intent = detect(question, lambda w: bool(research.word(w).entries))
    assert (intent.kind, intent.steps[0].tool) == (kind, tool)


def test_citation_check_drops_unknown_numbers_and_marks_misquotes():
    sources = {1: "Tena kho pana samayena pārivāsikā bhikkhū sādiyanti", 2: "夜叉"}
    g = check(
        'Monks on probation, "parivutthā", consented [1]. They said "sadiyanti" [1][3]. 「夜叉」 [2]. "abc xyz" [2].',
        sources,
    )
    assert "[3]" not in g.answer and "[1]" in g.answer
    assert [(c.n, c.reason) for c in g.checks] == [
        (1, "quote_not_in_source"),
        (1, "ok"),
        (3, "no_such_source"),
        (2, "ok"),
        (2, "ok"),
    ]
    assert '"parivutthā", consented [1?]' in g.answer and g.cited == [1, 2]


# --- the agent -----------------------------------------------------------------------------------


def test_refusal_spends_no_model_call(research, llm):
    agent = Agent(research, ChatClient(llm.url, "m"))
    events = list(agent.run(ask(TUNGSTEN)))
    assert [k for k, _ in events] == ["sources", "token", "done"]
    done = events[-1][1]
    assert done["outcome"] == "not_found" and done["answer"] == REFUSAL
    assert done["sources"] and all(s["weak"] and "<mark>" not in s["text"] for s in done["sources"])
    assert llm.requests == []


def test_answer_cites_passages_that_get_resolves(research, llm):
    agent = Agent(research, ChatClient(llm.url, "m"), tools=False)
    ans = agent.answer(ask("What is parivāsa?"))
    assert ans.outcome == "answered" and ans.query_info.intent == "term" and ans.query_info.llm_calls == 1
    assert ans.citations and all(c.ok for c in ans.citations)
    cited = [s for s in ans.sources if s.cited]
    assert cited and cited[0].n == 1
    quoted = ans.answer.split('"')[1]
    item = research.get([cited[0].coordinate]).items[0]
    assert item.status == "ok" and quoted in item.text
    prompt = llm.requests[0]["messages"][-1]["content"]
    assert "[1]" in prompt and cited[0].coordinate in prompt and "parivāsa" in prompt  # sources and glossary given
    assert "tools" not in llm.requests[0]


def test_model_tool_calls_add_numbered_sources(research, llm):
    agent = Agent(research, ChatClient(llm.url, "m"))
    llm.script = [{"tool_calls": [{"name": "search_by_page_ref", "arguments": {"page_ref": "PTS Vin II 31"}}]}]
    events = list(agent.run(ask("What is parivāsa?", limit=3)))
    kinds = [k for k, _ in events]
    assert kinds[0] == "sources" and kinds[-1] == "done" and kinds.count("sources") == 2
    done = events[-1][1]
    use = next(u for u in done["query_info"]["tools"] if u["by"] == "model")
    assert use["tool"] == "search_by_page_ref" and use["sources"]
    assert "cst/vin02m3.mul/75" in {s["coordinate"] for s in done["sources"]}
    second = llm.requests[1]["messages"]
    assert second[-1]["role"] == "tool" and "New sources" in second[-1]["content"]
    assert second[-2]["tool_calls"][0]["function"]["name"] == "search_by_page_ref"
    assert {t["function"]["name"] for t in llm.requests[0]["tools"]} >= {
        "search_by_query",
        "search_by_page_ref",
        "get_term_definition",
        "search_pali",
        "get",
        "forms",
    }


def test_without_a_model_the_routed_passages_answer(research):
    ans = Agent(research).answer(ask("PTS Vin II 31"))
    assert ans.outcome == "passages" and ans.query_info.intent == "page_ref"
    assert "cst/vin02m3.mul/75" in [s.coordinate for s in ans.sources]
    assert any("GANTHA_LLM_BASE_URL" in n for n in ans.query_info.notes)


def test_multi_turn_history_reaches_the_model(research, llm):
    agent = Agent(research, ChatClient(llm.url, "m"), tools=False)
    turns = [
        {"role": "user", "content": "What is parivāsa?"},
        {"role": "assistant", "content": "Probation [1]."},
        {"role": "user", "content": "cst/vin02m3.mul/75"},
    ]
    agent.answer(ChatRequest(messages=turns))
    sent = llm.requests[0]["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2]["content"] == "Probation [1]."


def test_model_failure_is_an_error_event(research, llm):
    agent = Agent(research, ChatClient(llm.url, "m", retries=0), tools=False)
    llm.script = [{"status": 500}]
    events = list(agent.run(ask("What is parivāsa?")))
    assert [k for k, _ in events] == ["sources", "error"] and events[-1][1]["code"] == "llm_error"


# --- the HTTP endpoint and the CLI ---------------------------------------------------------------------


@pytest.fixture()
def chat_client(small_index, llm, monkeypatch):
    monkeypatch.setenv("GANTHA_LLM_BASE_URL", llm.url)
    monkeypatch.setenv("GANTHA_LLM_MODEL", "m")
    monkeypatch.setenv("GANTHA_LLM_TOOLS", "false")
    settings.cache_clear()
    yield TestClient(create_app(small_index))
    settings.cache_clear()


def _events(text: str) -> list[tuple[str, dict]]:
    out = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def test_chat_streams_sse_in_documented_order(chat_client):
    r = chat_client.post(
        "/api/v3/chat", json={"messages": [{"role": "user", "content": "What is parivāsa?"}], "stream": True}
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = _events(r.text)
    kinds = [k for k, _ in events]
    assert kinds[0] == "sources" and kinds[-1] == "done" and set(kinds[1:-1]) == {"token"}
    assert "".join(d["text"] for k, d in events if k == "token").startswith("The first source says")
    done = events[-1][1]
    assert done["outcome"] == "answered" and done["sources"][0]["url"].startswith("/read/cst/")


def test_chat_json_mode_and_errors(chat_client, llm):
    r = chat_client.post("/api/v3/chat", json={"messages": [{"role": "user", "content": TUNGSTEN}]})
    data = r.json()["data"]
    assert r.status_code == 200 and data["outcome"] == "not_found" and set(data) >= {"answer", "sources", "query_info"}
    assert llm.requests == []
    bad = chat_client.post("/api/v3/chat", json={"messages": [{"role": "assistant", "content": "hi"}]})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "invalid_parameter"
    web = chat_client.post(
        "/api/v3/chat", json={"messages": [{"role": "user", "content": "parivasa"}], "sources": "web"}
    )
    assert web.status_code == 400 and "GANTHA_WEB_ENGINE" in web.json()["error"]["message"]
    llm.script = [{"status": 400}]
    failed = chat_client.post("/api/v3/chat", json={"messages": [{"role": "user", "content": "What is parivāsa?"}]})
    assert failed.status_code == 502 and failed.json()["error"]["code"] == "llm_error"


def _gantha(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=300,
    )


def test_cli_ask(small_index, llm):
    env = {"GANTHA_INDEX": str(small_index), "GANTHA_LLM_BASE_URL": llm.url, "GANTHA_LLM_MODEL": "m"}
    r = _gantha("ask", TUNGSTEN, env=env)
    assert r.returncode == 0 and REFUSAL in r.stdout and llm.requests == []
    r = _gantha("ask", "What is parivāsa?", "--json", env=env | {"GANTHA_LLM_TOOLS": "false"})
    done = json.loads(r.stdout)
    assert r.returncode == 0 and done["outcome"] == "answered" and done["citations"][0]["ok"]
    r = _gantha(
        "ask", "parivasa", env=env | {"GANTHA_LLM_BASE_URL": "http://127.0.0.1:9/v1", "GANTHA_LLM_RETRIES": "0"}
    )
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "cannot reach the model" in r.stderr
    r = _gantha("ask", "parivasa", "--sources", "web", env=env)
    assert r.returncode == 2 and "GANTHA_WEB_ENGINE" in r.stderr


def test_sse_over_a_real_server(small_index, llm):
    """The stream arrives event by event from a real uvicorn process."""
    env = {"GANTHA_LLM_BASE_URL": llm.url, "GANTHA_LLM_MODEL": "m", "GANTHA_LLM_TOOLS": "false"}
    with Server(small_index, env) as server:
        body = {"messages": [{"role": "user", "content": "What is parivāsa?"}], "stream": True}
        with httpx.stream("POST", f"{server.url}/api/v3/chat", json=body, timeout=60) as r:
            kinds = [line[7:] for line in r.iter_lines() if line.startswith("event: ")]
    assert kinds[0] == "sources" and kinds[-1] == "done" and "token" in kinds
