"""Servers reading a streaming replica (scripts/deploy_postgres.py on this machine): they say which database
they read and what generation they see; when the replica lags they answer from what it holds and say so;
when it is gone they say so and answer 503, not 500; a write sent to them is refused (503 read_only)."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psycopg
import pytest

from gantha.store.base import ReadOnlyIndex
from gantha.store.factory import open_store
from test_store_conformance import _passage, _record

from conftest import Server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
pytest.importorskip("pgserver")
import deploy_postgres


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    # not under pytest's folder, which a concurrent pytest may close to other users (PostgreSQL's, when root)
    folder = Path(tempfile.mkdtemp(prefix="gantha-replica-"))
    port = _free_port()
    primary = deploy_postgres.start_primary(folder, port)
    store = open_store(primary)
    store.add([_passage("note", "1", "the quuxite rule")])
    store.commit([_record("note")])
    store.finish()
    store.close()
    replica = deploy_postgres.start_replica(folder, port, _free_port())
    yield folder, primary, replica
    for data in ("replica", "primary"):
        deploy_postgres.stop_postgres(folder / data, mode="immediate")
    shutil.rmtree(folder, ignore_errors=True)


def _health(server: Server) -> dict:
    return httpx.get(f"{server.url}/api/v3/health", timeout=10).json()["data"]


def _total(server: Server, word: str) -> httpx.Response:
    return httpx.get(f"{server.url}/api/v3/search", params={"q": word}, timeout=30)


def _until(check, seconds: float = 30) -> None:
    stop = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < stop, "timed out"
        time.sleep(0.2)


def _write(primary: str, para: str, text: str) -> str:
    store = open_store(primary, create=False)
    store.add([_passage("note", para, text)])
    store.commit([_record("note")])
    generation = store.generation()
    store.close()
    return generation


def test_a_reader_on_the_replica_says_what_it_reads_and_follows_the_primary(cluster):
    _, primary, replica = cluster
    with Server(replica, env={"GANTHA_ADMIN_KEY": "k"}) as reader:
        health = _health(reader)
        store = health["store"]
        assert store["engine"] == "postgresql" and store["role"] == "replica" and store["database"] == "gantha"
        assert store["port"] == _port(replica) and health["status"] == "ok"
        # pg_textsearch 1.0's BM25 index does not follow the primary's writes on a standby: pages ranked in SQL
        assert store["ranking"] == "tsvector (a replica)"
        generation = _write(primary, "2", "another quuxite")
        _until(lambda: _health(reader)["store"]["generation"] == generation)
        _until(lambda: _total(reader, "quuxite").json()["data"]["total"] == 2)
        assert len(_total(reader, "quuxite").json()["data"]["results"]) == 2  # the new passage on the page too
        # a write sent to a server on the replica: refused, and said why
        upload = httpx.post(
            f"{reader.url}/api/v1/documents",
            headers={"X-API-Key": "k"},
            files={"file": ("note.md", b"# Note\n\nquuxite", "text/markdown")},
            timeout=30,
        )
        assert upload.status_code == 503 and upload.json()["data"]["error"] == "read_only", upload.text
        with pytest.raises(ReadOnlyIndex):
            open_store(replica, create=False).add([_passage("note", "9", "x")])


def test_a_lagging_replica_is_answered_from_and_reported(cluster):
    _, primary, replica = cluster
    with Server(replica) as reader, psycopg.connect(replica.replace("/gantha", "/postgres"), autocommit=True) as conn:
        before = _total(reader, "quuxite").json()["data"]["total"]
        conn.execute("SELECT pg_wal_replay_pause()")
        try:
            generation = _write(primary, "3", "a third quuxite")
            health = _health(reader)
            assert health["status"] == "degraded" and any("paused" in p for p in health["problems"])
            assert health["store"]["generation"] != generation  # what the replica holds
            answer = _total(reader, "quuxite")
            assert answer.status_code == 200 and answer.json()["data"]["total"] == before
        finally:
            conn.execute("SELECT pg_wal_replay_resume()")
        _until(lambda: _health(reader)["store"]["generation"] == generation)
        _until(lambda: _health(reader)["status"] == "ok")


def test_a_replica_gone_is_reported_and_answered_503_then_served_again(cluster):
    folder, primary, replica = cluster
    with Server(replica) as reader:
        assert _total(reader, "quuxite").status_code == 200
        deploy_postgres.stop_postgres(folder / "replica", mode="immediate")
        try:
            health = httpx.get(f"{reader.url}/api/v3/health", timeout=30)
            assert health.status_code == 200
            assert health.json()["data"]["status"] == "degraded"
            assert any("unavailable" in p for p in health.json()["data"]["problems"])
            answer = _total(reader, "quuxite")
            assert answer.status_code == 503 and answer.json()["error"]["code"] == "index_unavailable"
        finally:
            deploy_postgres.start_replica(folder, _port(primary), _port(replica))
        _until(lambda: _total(reader, "quuxite").status_code == 200, 60)
        _until(lambda: _health(reader)["status"] == "ok")  # once it streams from its primary again
