"""A server's worker processes, each listening on its own socket of the shared port (``SO_REUSEPORT``), so that
the kernel spreads new connections evenly among them.

uvicorn's own workers share one listening socket: whichever wakes first accepts every connection waiting, so
the 8 keep-alive connections of a client that opens them at once often all land on one worker while the other
idles (measured on the whole CST, 2 workers, wrk c=8: 105.8 distinct requests/s with one worker holding every
connection, 167.7–200.4 when they were shared). Here each worker binds the port itself and the kernel hashes each
new connection to one of them. Where the platform does not spread connections so (not Linux), uvicorn's workers
serve instead.

The supervisor holds a lock on the port while it runs, so that no other gantha server's workers join it; starts a
worker again when it exits (but stops when one could not start: uvicorn's ``STARTUP_FAILURE``), and stops them
all on SIGINT, SIGTERM or SIGHUP. A worker listens only once its app has started, and stops when its supervisor
dies.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import IO

import uvicorn
from uvicorn.config import STARTUP_FAILURE

APP = "gantha.api.server:app"
STOP_WAIT = 30  # seconds a worker is given to finish its requests once asked to stop
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

log = logging.getLogger(__name__)


def balanced() -> bool:
    """Whether the kernel spreads connections among sockets sharing a port (Linux's ``SO_REUSEPORT``)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def bound(host: str, port: int, shared: bool = True) -> socket.socket:
    """A socket bound to ``host:port``, not yet listening; ``shared``: one of several on it (``SO_REUSEPORT``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn binds one worker's
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if shared:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    return sock


class ServeError(RuntimeError):
    """The server could not start: the port taken, the address not this machine's, a worker that failed."""


def _work(host: str, port: int, log_level: str) -> None:
    """One worker: its own socket on the port, listening once the app has started (uvicorn listens on it), the app
    served until the worker is asked to stop, or its supervisor is gone."""
    try:
        sock = bound(host, port)
    except OSError as exc:  # the port taken by a process of another user since the supervisor found it free
        print(f"cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        sys.exit(STARTUP_FAILURE)
    threading.Thread(target=_stop_with_supervisor, daemon=True).start()
    with contextlib.suppress(KeyboardInterrupt):  # a Ctrl-C: uvicorn has already shut down
        uvicorn.Server(uvicorn.Config(APP, log_level=log_level)).run(sockets=[sock])


def _stop_with_supervisor() -> None:
    """Stop this worker (as SIGTERM does) when the supervisor has died, not serve on without one."""
    parent = multiprocessing.parent_process()
    if parent is not None:
        multiprocessing.connection.wait([parent.sentinel])
        os.kill(os.getpid(), signal.SIGTERM)


def _claim(port: int) -> IO[str] | None:
    """A lock on ``port`` held while this server runs: another gantha server's workers would join this one's
    sockets (the kernel lets one user's ``SO_REUSEPORT`` sockets share a port), so a second one is refused."""
    try:
        lock = open(Path(tempfile.gettempdir()) / f"gantha-serve-{port}.lock", "a")  # noqa: SIM115 (held while serving)
    except OSError:  # another user's file: the kernel keeps that user's sockets apart anyway
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise OSError(errno.EADDRINUSE, f"{os.strerror(errno.EADDRINUSE)} (another gantha server)") from None
    return lock


def serve(host: str, port: int, workers: int, log_level: str = "warning") -> None:
    """Serve the app from ``workers`` processes until SIGINT, SIGTERM or SIGHUP; the port must be free (a second
    server on it is refused, not given half the connections)."""
    if workers < 2 or not balanced():
        uvicorn.run(APP, host=host, port=port, workers=workers, log_level=log_level)
        return
    try:
        with bound(host, port, shared=False) as probe:  # free? (a listener already on it fails here: EADDRINUSE)
            port = probe.getsockname()[1]  # port 0: the one the kernel chose, for every worker
            claim = _claim(port)  # before the probe is let go: a server started beside this one is refused
    except OSError as exc:
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    spawn = multiprocessing.get_context("spawn")
    asked: list[int] = []  # the signal that asked the server to stop (a flag: a handler must not take locks)

    def start() -> BaseProcess:
        process = spawn.Process(target=_work, args=(host, port, log_level), name="gantha-worker", daemon=False)
        process.start()
        return process

    previous = {s: signal.signal(s, lambda signum, _frame: asked.append(signum)) for s in STOP_SIGNALS}
    processes: list[BaseProcess] = []
    try:
        processes += [start() for _ in range(workers)]
        while True:
            time.sleep(0.5)
            if asked:  # (looked at after the sleep: a Ctrl-C reaches the workers too, those it ended stay ended)
                break
            for i, process in enumerate(processes):
                if not process.is_alive():
                    if process.exitcode == STARTUP_FAILURE:  # started again, it would fail again
                        raise ServeError(f"a worker could not start (exit code {STARTUP_FAILURE}); see above")
                    log.warning("worker %s exited (%s); starting another", process.pid, process.exitcode)
                    processes[i] = start()
    finally:
        for process in processes:
            process.terminate()  # SIGTERM: uvicorn finishes the requests it has, then exits
        for process in processes:
            process.join(STOP_WAIT)
            if process.is_alive():
                process.kill()
                process.join()
        for s, handler in previous.items():
            signal.signal(s, handler)
        if claim is not None:
            claim.close()
