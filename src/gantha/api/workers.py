"""A server's worker processes, each listening on its own socket of the shared port (``SO_REUSEPORT``), so that
the kernel spreads new connections evenly among them.

uvicorn's own workers share one listening socket: whichever wakes first accepts every connection waiting, so
the 8 keep-alive connections of a client that opens them at once often all land on one worker while the other
idles (measured on the whole CST, 2 workers, wrk c=8: 105.8 distinct requests/s with one worker holding every
connection, 167.7–200.4 when they were shared). Here each worker binds the port itself and the kernel hashes each
new connection to one of them. Where the platform does not spread connections so (not Linux), uvicorn's workers
serve instead.

The supervisor starts a worker again when it exits (but stops when one could not start: uvicorn's
``STARTUP_FAILURE``, or the port taken meanwhile), and stops them all on SIGINT or SIGTERM.
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import socket
import sys
import threading
from multiprocessing.process import BaseProcess

import uvicorn
from uvicorn.config import STARTUP_FAILURE

APP = "gantha.api.server:app"
BACKLOG = 2048  # uvicorn's default
STOP_WAIT = 30  # seconds a worker is given to finish its requests once asked to stop

log = logging.getLogger(__name__)


def balanced() -> bool:
    """Whether the kernel spreads connections among sockets sharing a port (Linux's ``SO_REUSEPORT``)."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def listening(host: str, port: int, shared: bool = True) -> socket.socket:
    """A socket listening on ``host:port``; ``shared``: one of several on it (``SO_REUSEPORT``)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET  # as uvicorn binds one worker's
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if shared:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except BaseException:
        sock.close()
        raise
    return sock


class WorkerError(RuntimeError):
    """A worker could not start (its own message went to standard error)."""


def _work(host: str, port: int, log_level: str) -> None:
    """One worker: its own socket on the port, the app served on it until it is asked to stop."""
    try:
        sock = listening(host, port)
    except OSError as exc:  # the port taken since the supervisor found it free
        print(f"cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        sys.exit(STARTUP_FAILURE)
    uvicorn.Server(uvicorn.Config(APP, log_level=log_level)).run(sockets=[sock])


def serve(host: str, port: int, workers: int, log_level: str = "warning") -> None:
    """Serve the app from ``workers`` processes until SIGINT or SIGTERM; the port must be free (a second server
    on it is refused, not given half the connections)."""
    if workers < 2 or not balanced():
        uvicorn.run(APP, host=host, port=port, workers=workers, log_level=log_level)
        return
    with listening(host, port, shared=False) as probe:  # free? (a server already on it fails here: EADDRINUSE)
        port = probe.getsockname()[1]  # port 0: the one the kernel chose, for every worker
    spawn = multiprocessing.get_context("spawn")
    stopping = threading.Event()

    def start() -> BaseProcess:
        process = spawn.Process(target=_work, args=(host, port, log_level), name="gantha-worker", daemon=False)
        process.start()
        return process

    def stop(signum: int, _frame: object) -> None:
        stopping.set()

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    processes = [start() for _ in range(workers)]
    try:
        while not stopping.wait(0.5):
            for i, process in enumerate(processes):
                if not process.is_alive():
                    if process.exitcode == STARTUP_FAILURE:  # started again, it would fail again
                        raise WorkerError(f"a worker could not start (exit code {STARTUP_FAILURE}); see above")
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
