"""A server's worker processes: connections opened at once are shared among them, a second server on the port (or
started beside the first) is refused, a worker that dies is replaced, SIGTERM stops them all, and they stop when
their supervisor is killed."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from gantha.api.workers import balanced

from conftest import Server

pytestmark = pytest.mark.skipif(not balanced(), reason="connections are spread by the kernel only on Linux")
CONNECTIONS = 16  # all on one worker by the kernel's hashing: once in 2**15


def workers(server: Server) -> list[psutil.Process]:
    """The processes answering on the server's port."""
    found = []
    for child in psutil.Process(server.proc.pid).children():
        try:
            if any(c.laddr.port == server.port and c.status == "LISTEN" for c in child.net_connections("tcp")):
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


def listening_socket(process: psutil.Process, port: int) -> str:
    """The kernel's name of the socket a process listens on ``port`` with (``socket:[inode]``)."""
    fd = next(c.fd for c in process.net_connections("tcp") if c.laddr.port == port and c.status == "LISTEN")
    return os.readlink(f"/proc/{process.pid}/fd/{fd}")


def two_workers(server: Server, gone: int | None = None, seconds: float = 60) -> list[psutil.Process]:
    """The server's two workers once both listen (``gone``: a pid that must not be one of them)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = workers(server)
        if len(found) == 2 and gone not in {p.pid for p in found}:
            return found
        time.sleep(0.2)
    raise AssertionError(f"the server has not two workers listening after {seconds} s")


def test_connections_opened_at_once_are_shared_by_the_workers(small_index: Path):
    """As a load generator or a proxy opens its keep-alive connections: all before the first request."""
    with Server(small_index, workers=2) as server:
        processes = two_workers(server)
        # each its own socket on the port (uvicorn's workers share one: the first awake takes every waiting connection)
        assert len({listening_socket(p, server.port) for p in processes}) == 2
        connections = [socket.create_connection(("127.0.0.1", server.port), timeout=30) for _ in range(CONNECTIONS)]
        try:
            for c in connections:
                c.sendall(f"GET /api/v3/search?q=parivasa HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n\r\n".encode())
            assert all(c.recv(64).startswith(b"HTTP/1.1 200") for c in connections)
            held = {
                p.pid: sum(bool(c.raddr) and c.status == "ESTABLISHED" for c in p.net_connections("tcp"))
                for p in processes
            }
            assert sum(held.values()) == CONNECTIONS, held  # every keep-alive connection, held by a worker
            assert all(n > 0 for n in held.values()), held  # and none of the workers idle
        finally:
            for c in connections:
                c.close()


def test_a_second_server_on_the_port_is_refused_in_one_line(small_index: Path):
    with Server(small_index, workers=2) as server:
        cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--index", str(small_index)]
        second = subprocess.run(
            [*cmd, "--port", str(server.port), "--workers", "2"], capture_output=True, text=True, timeout=60
        )
        assert second.returncode == 1
        assert f"cannot listen on 127.0.0.1:{server.port}: Address already in use" in second.stderr
        assert httpx.get(f"{server.url}/api/v3/health", timeout=10).status_code == 200  # the first one unharmed


def test_an_address_not_this_machines_is_refused_in_one_line(small_index: Path):
    cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--index", str(small_index), "--workers", "2"]
    refused = subprocess.run(
        [*cmd, "--host", "192.0.2.1", "--port", "8999"], capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 1
    assert "cannot listen on 192.0.2.1:8999: Cannot assign requested address" in refused.stderr


def test_a_worker_that_dies_is_replaced_and_sigterm_stops_them_all(small_index: Path):
    server = Server(small_index, workers=2)
    try:
        first = two_workers(server)
        os.kill(first[0].pid, signal.SIGKILL)
        now = two_workers(server, gone=first[0].pid)
        for _ in range(10):  # whichever worker the kernel gives each new connection, it answers
            assert httpx.get(f"{server.url}/api/v3/health", timeout=30).status_code == 200
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(60) == 0
        assert not any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in now)
    finally:
        stop_all(server.proc)


def test_two_servers_started_at_once_on_one_port_one_is_refused(small_index: Path):
    """The port is held from the supervisor's start, not only checked: of two servers started together, one is
    refused (neither is given half of the other's connections)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "gantha.api.cli", "serve", "--index", str(small_index), "--port", str(port)]
    both = [subprocess.Popen([*cmd, "--workers", "2"], stderr=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        deadline = time.monotonic() + 60
        while all(p.poll() is None for p in both) and time.monotonic() < deadline:
            time.sleep(0.2)
        refused = [p for p in both if p.poll() is not None]
        assert len(refused) == 1, "both servers are running on one port"
        assert refused[0].returncode == 1
        assert "Address already in use" in refused[0].stderr.read()
        assert answers(f"http://127.0.0.1:{port}/api/v3/health")  # the other one serves
    finally:
        for p in both:
            stop_all(p)


def test_the_workers_stop_when_their_supervisor_is_killed(small_index: Path):
    server = Server(small_index, workers=2)
    try:
        processes = two_workers(server)
        server.kill()  # SIGKILL: no chance to stop its workers
        _, alive = psutil.wait_procs(processes, timeout=60)
        assert not alive, alive  # none serves on without a supervisor, holding the port
    finally:
        stop_all(server.proc)


def answers(url: str, seconds: float = 60) -> bool:
    """Whether ``url`` answers 200 within ``seconds`` (a server's workers listen once their app has started)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(url, timeout=5).status_code == 200:
                return True
        time.sleep(0.2)
    return False


def stop_all(proc: subprocess.Popen) -> None:
    """A server and every process it started, killed (a failed test leaves none serving)."""
    try:
        children = psutil.Process(proc.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        children = []
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    for child in children:
        with contextlib.suppress(psutil.NoSuchProcess):
            child.kill()
