"""Understanding follow-up questions: hit@k of the follow-up's retrieval as asked (no rewrite), rewritten by
the rules, and rewritten and routed by the model (at the fitted confidence, and always), against a
hand-written standalone question (the ceiling); and the model's cost per rewrite (p50 / p95).

python bench/understand.py [--model PATH] [--k 5] [--threads N] [--cache FILE]
    (GANTHA_BENCH_INDEX: the full index; eval/followups.jsonl; --cache: the model's rewrites kept and reused)

Each conversation's expected entries are coordinates (a paragraph, a book, a chapter node) or sutta
references ("MN 22"); a hit matches when its coordinate is one, lies inside one, or its sutta is one. The
confidence threshold is fitted on the first half of the set (by id order, as written) and reported on
the second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from gantha.config import settings
from gantha.rag.understand import Understanding, by_model, by_rules, granularity_rules, plan
from gantha.research import Research
from gantha.text.pali import fold
from gantha.tools import Toolbox

from common import INDEX, ROOT, percentile

SET = ROOT / "eval" / "followups.jsonl"


def load() -> list[dict[str, Any]]:
    return [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines() if line.strip()]


def retrieve(u: Understanding, research: Research, tools: Toolbox) -> list[dict[str, Any]]:
    """The ranked hits (or nodes) of the plan's steps, as the chat agent numbers them."""
    steps = plan(u, lambda w: bool(research.word(w).entries), research.searcher.semantic is not None).steps
    out: list[dict[str, Any]] = []
    for step in steps:
        try:
            result = getattr(tools, step.tool)(**step.arguments)
        except ValueError:
            continue
        found = result.get("nodes") or result.get("hits") or result.get("bold_passages") or result.get("items") or []
        out += [h for h in found if h.get("coordinate") not in {o.get("coordinate") for o in out}]
    return out


def hit(found: list[dict[str, Any]], expected: list[str], k: int) -> bool:
    for h in found[:k]:
        c = h.get("coordinate") or ""
        if any(c == e or c.startswith(e + "/") or h.get("sutta") == e for e in expected):
            return True
    return False


def check_expected(research: Research, conversations: list[dict[str, Any]]) -> list[str]:
    """Expected entries the full index does not know."""
    missing = []
    for conv in conversations:
        for e in conv["expected"]:
            try:
                if "/ch" in e or e.count("/") == 1:
                    research.outline(e, summaries=False)
                elif research.get([e]).items[0].status != "ok":
                    missing.append(f"{conv['id']}: {e}")
            except Exception as exc:
                missing.append(f"{conv['id']}: {e} ({exc})")
    return missing


def read_cache(path: Path) -> dict[tuple[str, str], Understanding]:
    """The model's rewrites of earlier runs, by model file name and conversation (its latency as measured then)."""
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            entry = json.loads(line)
            out[(entry["model"], entry["messages"])] = Understanding.model_validate(entry["understanding"])
    return out


def progress(line: str, started: float) -> None:
    print(f"{time.perf_counter() - started:7.1f}s {line}", file=sys.stderr, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", type=Path, default=settings().llm_model_path)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--threads", type=int, help="the model's threads (default: every core; 1 on a shared machine)")
    ap.add_argument("--cache", type=Path, help="the model's rewrites (JSONL), read and appended: reruns reuse them")
    args = ap.parse_args()
    research = Research.open(INDEX)
    tools = Toolbox(research)
    conversations = load()
    report: dict[str, Any] = {"conversations": len(conversations), "k": args.k}
    report["expected_missing"] = check_expected(research, conversations)
    rows = []
    started = time.perf_counter()
    for i, conv in enumerate(conversations, 1):
        msgs = conv["messages"]
        asked = msgs[-1]["content"]
        none = Understanding(question=asked, query=asked, granularity=granularity_rules(asked))
        standalone = conv["standalone"]
        gold = Understanding(question=asked, query=standalone, granularity=granularity_rules(standalone))
        rules = by_rules(msgs)
        row = {"id": conv["id"], "rules_query": rules.query}
        for name, u in (("none", none), ("rules", rules), ("gold", gold)):
            row[name] = hit(retrieve(u, research, tools), conv["expected"], args.k)
        rows.append((conv, row, rules))
        hits = " ".join(f"{name}={row[name]}" for name in ("none", "rules", "gold"))
        progress(f"[{i}/{len(conversations)}] {conv['id']}: {hits}", started)
    cache = read_cache(args.cache) if args.cache else {}
    client = None
    latencies = []
    for i, (conv, row, rules) in enumerate(rows, 1):
        key = json.dumps(conv["messages"], ensure_ascii=False)
        u = cache.get((args.model.name, key))
        if u is None and client is None and "model" not in report:
            try:
                from gantha.rag.llm import ChatClient
                from gantha.rag.local import LocalServer

                server = LocalServer(args.model, 4096, threads=args.threads)
                client = ChatClient(server.base_url, server.model, timeout=600)
            except Exception as exc:
                report["model"] = f"skipped: {exc}"
        if u is None and client is None:
            break
        if u is None:
            try:  # once per conversation: "model always" and "model at the threshold" both read this row
                u = by_model(client, conv["messages"])
            except Exception as exc:
                row["model_error"] = str(exc)
                progress(f"[model {i}/{len(rows)}] {conv['id']}: error {exc}", started)
                continue
            if args.cache:
                with args.cache.open("a", encoding="utf-8") as f:
                    entry = {"model": args.model.name, "messages": key, "understanding": u.model_dump()}
                    f.write(json.dumps(entry, ensure_ascii=False) + "\n")
        latencies.append(u.took_ms or 0.0)
        row |= {"model_query": u.query, "confidence": u.confidence, "granularity": u.granularity}
        # as understand() takes the model's reading: the rules' carried term kept where the query holds it
        kept = rules.carried if rules.carried and fold(rules.carried) in fold(u.query) else None
        u = u.model_copy(update={"carried": kept})
        row["model"] = hit(retrieve(u, research, tools), conv["expected"], args.k)
        line = f"{conv['id']}: model={row['model']} confidence={u.confidence} took={u.took_ms} ms {u.query!r}"
        progress(f"[model {i}/{len(rows)}] {line}", started)
    half = len(rows) // 2
    fit, test = rows[:half], rows[half:]

    def score(part: list, threshold: float | None = None, name: str | None = None) -> float:
        got = []
        for _, row, _ in part:
            if name:
                got.append(row.get(name, False))
            else:
                use_model = "model" in row and (row.get("confidence") or 0) >= (threshold or 0)
                got.append(row["model"] if use_model else row["rules"])
        return round(sum(got) / max(1, len(got)), 3)

    if latencies:
        candidates = sorted({0.0, *(row.get("confidence", 0) for _, row, _ in fit)})
        best = max(candidates, key=lambda t: (score(fit, t), t))  # ties: the higher threshold (rules are free)
        report["threshold_fitted_on_first_half"] = best
        report["model_latency_ms"] = {
            "n": len(latencies),
            "p50": round(percentile(latencies, 50), 1),
            "p95": round(percentile(latencies, 95), 1),
        }
    for part_name, part in (("fit_half", fit), ("test_half", test), ("all", rows)):
        entry = {name: score(part, name=name) for name in ("none", "rules", "gold")}
        if latencies:
            entry["model_always"] = score(part, 0.0)
            entry["model_at_threshold"] = score(part, report["threshold_fitted_on_first_half"])
        report[f"hit@{args.k}_{part_name}"] = entry
    report["rows"] = [row for _, row, _ in rows]
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
