"""PostgreSQL's counts and bold-first pages, statement by statement, on the stores of bench/backends.py (run it
first, at least ``--phases ingest``):

* counts: the count-by-unit statements (and bold-first counts) of the N most frequent words' searches, as the
  planner chooses and with sequential scans disabled (what ``PostgresStore._counts`` does): totals, slowest;
* first: for each search of a list whose first page has more than ``FIRST_SCORED`` bold-first matches, those
  matches ranked three ways — in SQL from the heaviest passages, walked down the field's BM25 index, each scored
  by the index's statistics — timed, and their top-10 overlap with the embedded store's bold-first hits; then
  the walk's time bound (``FIRST_WALK_MS``) simulated: a walk past it costs the bound plus the SQL ranking.

    python bench/pg_first.py [--words 60] [--queries bench/queries2.txt]

Fit the bound on bench/queries.txt (the default) and report it on bench/queries2.txt (held out).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import psycopg

from backends import DISTINCT, VAR, read_queries, tune
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.store.postgres.compiler import Plan
from gantha.store.postgres.store import FIRST_SCORED

from common import percentile

BOUNDS = (40, 60, 80, 100, 150, 200, 400, None)  # ms (None: no bound)


def _timed(conn: psycopg.Connection, statement: str, settings: dict[str, str]) -> tuple[float, list]:
    with conn.transaction():
        for name, value in settings.items():
            conn.execute(f"SET LOCAL {name} = {value}")
        started = time.perf_counter()
        rows = conn.execute(statement).fetchall()
        return (time.perf_counter() - started) * 1000, rows


def _plan(research: Research, store, q: str) -> Plan:
    sq, _, _ = research.searcher.plan(SearchRequest(q=q))
    return store.plan(sq)


def counts(postgres: Research, conn: psycopg.Connection, n: int) -> dict:
    """The count statements of the ``n`` most frequent words' searches, by the planner and by the indexes."""
    store = postgres.store
    words = [r[0] for r in store.db.fetch("SELECT form FROM vocab ORDER BY paragraphs DESC LIMIT %s", (n,))]
    statements = []
    for word in words:
        plan = _plan(postgres, store, word)
        statements += [(word, plan.count())] + ([(f"{word} (bold)", plan.first_units())] if plan.q.rank_first else [])
    out = {}
    for name, settings in (("planner", {}), ("indexes", {"enable_seqscan": "off"})):
        times = [(_timed(conn, s, settings)[0], w) for w, s in statements]
        out[name] = {
            "statements": len(times),
            "total_s": round(sum(t for t, _ in times) / 1000, 2),
            "slowest": [(w, round(t)) for t, w in sorted(times, reverse=True)[:3]],
        }
    return out


def first(embedded: Research, postgres: Research, conn: psycopg.Connection, queries: list[str]) -> dict:
    """Bold-first matches ranked three ways, and the walk's bound simulated."""
    store, rows = postgres.store, []
    ways = {
        "sql": lambda plan: (plan.page(None, first_only=True, window=(10, 0)), {}),
        "walk": lambda plan: (plan.bm25_first(10), {"enable_bitmapscan": "off", "enable_seqscan": "off"}),
        "each": lambda plan: (plan.bm25_first(10), {"enable_indexscan": "off"}),
    }
    for q in queries:
        plan = _plan(embedded, store, q)
        if not plan.q.rank_first or not plan.bm25():
            continue
        if sum(n for _, n in conn.execute(plan.first_units()).fetchall()) <= FIRST_SCORED:
            continue
        want = {h.passage.doc_id for h in embedded.store.search(plan.q).hits if h.ranked_first}
        row = {"q": q}
        for name, way in ways.items():
            ms, found = _timed(conn, *way(plan))
            ids = [r[0] for r in found][:10]
            got = {d for (d,) in conn.execute("SELECT doc_id FROM docs WHERE id = ANY(%s)", (ids,)).fetchall()}
            row[name], row[f"{name}_overlap"] = ms, len(got & want) / max(len(want), 1)
        rows.append(row)
    out: dict = {"searches": len(rows)}
    for name in ways:
        times = [r[name] for r in rows]
        out[name] = {
            "total_s": round(sum(times) / 1000, 2),
            "p95_ms": round(percentile(times, 95), 1),
            "overlap": round(sum(r[f"{name}_overlap"] for r in rows) / max(len(rows), 1), 3),
        }
    out["bounds"] = {}
    for bound in BOUNDS:
        past = [r for r in rows if bound is not None and r["walk"] > bound]
        times = [bound + r["sql"] if r in past else r["walk"] for r in rows]
        overlap = sum(r["sql_overlap"] if r in past else r["walk_overlap"] for r in rows) / max(len(rows), 1)
        out["bounds"][str(bound)] = {
            "total_s": round(sum(times) / 1000, 2),
            "p95_ms": round(percentile(times, 95), 1),
            "overlap": round(overlap, 3),
            "past": len(past),
        }
    return out


def main() -> None:
    import pgserver

    ap = argparse.ArgumentParser()
    ap.add_argument("--words", type=int, default=60, help="the most frequent words whose counts are timed")
    ap.add_argument("--queries", type=Path, help="another list (bench/queries2.txt: held out)")
    args = ap.parse_args()
    queries = read_queries(args.queries) if args.queries else DISTINCT
    server = pgserver.get_server(VAR / "bench-pg", cleanup_mode=None)
    tune(server.get_uri(), VAR / "bench-pg")
    database = server.get_uri().replace("/postgres?", "/gantha_bench?")
    embedded, postgres = Research.open(str(VAR / "bench-backends")), Research.open(database)
    with psycopg.connect(database, autocommit=True) as conn:
        report = {"counts": counts(postgres, conn, args.words), "first": first(embedded, postgres, conn, queries)}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
