"""PostgreSQL's whole-CST first ingest, phase by phase: the statements its connections ran, each with the second
it was first seen active (``pg_stat_activity``, sampled twice a second), so that the end of streaming (the first
``CREATE INDEX``), the index builds, the vocabulary and the closing ``VACUUM (ANALYZE)`` can be told apart; and the
CPU each process of the ingest used, sampled while it streams.

    python bench/pg_ingest.py [--books vin,s01]

On the server of ``bench/backends.py`` (var/bench-pg, its settings), into a fresh database ``gantha_phases``,
dropped at the end. Prints JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import threading
import time

import psutil

from backends import VAR, books, fresh_database, tune

ACTIVITY = "SELECT pid, state, query FROM pg_stat_activity WHERE datname = 'gantha_phases'"


def main() -> None:
    import pgserver
    import psycopg

    ap = argparse.ArgumentParser()
    ap.add_argument("--books", default="", help="CST books whose names begin so (comma-separated), else every one")
    args = ap.parse_args()
    VAR.mkdir(parents=True, exist_ok=True)
    base = pgserver.get_server(VAR / "bench-pg", cleanup_mode=None).get_uri()
    tune(base, VAR / "bench-pg")
    url = fresh_database(base, "gantha_phases")
    first_seen: dict[str, float] = {}
    cpu: dict[str, list[float]] = {}
    done = threading.Event()
    started = time.perf_counter()
    cmd = [sys.executable, "-m", "gantha.api.cli", "ingest", "cst", str(books(args.books, VAR / "bench-books"))]
    proc = psutil.Popen([*cmd, "--store", url, "--no-classify"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def watch() -> None:
        processes: dict[int, psutil.Process] = {}  # one object a pid: cpu_percent is since its last call
        with psycopg.connect(base, autocommit=True) as conn:
            while not done.wait(0.5):
                pids = [(proc.pid, "ingest")]
                with contextlib.suppress(psutil.NoSuchProcess):
                    pids += [(c.pid, "ingest") for c in proc.children()]
                for pid, state, query in conn.execute(ACTIVITY).fetchall():
                    pids.append((pid, "postgres"))
                    statement = " ".join(query.split()[:4])[:60]
                    if state == "active" and not statement.startswith(("COPY", "SELECT")):
                        first_seen.setdefault(statement, round(time.perf_counter() - started, 1))
                if any(k.startswith("CREATE INDEX") for k in first_seen):
                    continue  # streaming is over
                for pid, kind in pids:
                    with contextlib.suppress(psutil.NoSuchProcess):
                        if pid not in processes:
                            processes[pid] = psutil.Process(pid)
                        cpu.setdefault(f"{kind} {pid}", []).append(processes[pid].cpu_percent())

    watcher = threading.Thread(target=watch)
    watcher.start()
    _, err = proc.communicate()
    total = time.perf_counter() - started
    done.set()
    watcher.join()
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS gantha_phases")
    if proc.returncode not in (0, 3):
        raise SystemExit(err.decode()[-2000:])
    busy = {name: round(sum(v[1:]) / max(1, len(v) - 1)) for name, v in cpu.items() if len(v) > 1}
    print(
        json.dumps(
            {
                "seconds": round(total, 1),
                "first_seen_s": dict(sorted(first_seen.items(), key=lambda kv: kv[1])),
                "streaming_cpu_percent_by_process": busy,
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
