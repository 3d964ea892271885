"""The admin API: key protection, asynchronous ingestion and deletion tasks (202 + polling), bad
input as errors in the envelope, and a queue that survives a server restart."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.config import settings
from gantha.ingest import ingest_markdown
from gantha.store.embedded import EmbeddedStore
from gantha.store.queue import Task, TaskQueue
from gantha.tasks import MAX_ATTEMPTS, TaskRunner, save_upload

from conftest import Server

KEY = {"X-API-Key": "s3cret"}
NOTE = "# Sīla notes\n\n## Precepts\n\nThe **zanzibarite** precept is kept on uposatha days.\n"


@pytest.fixture()
def index(small_index, tmp_path):
    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    return copy


@pytest.fixture()
def client(index, monkeypatch, tmp_path):
    monkeypatch.setenv("GANTHA_ADMIN_KEY", "s3cret")
    monkeypatch.setenv("GANTHA_INGEST_ROOTS", str(tmp_path))  # the only folder ingested by server path
    settings.cache_clear()
    with TestClient(create_app(index)) as c:
        yield c
    settings.cache_clear()


def wait(client, task_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get(f"/api/v1/documents/tasks/{task_id}", headers=KEY).json()["data"]
        if task["state"] in ("done", "failed"):
            return task
        time.sleep(0.2)
    raise AssertionError(f"task {task_id} did not finish")


def test_key_required(client, monkeypatch):
    r = client.get("/api/v1/knowledge/stats")
    assert r.status_code == 401 and r.json()["code"] == 1010 and r.json()["data"]["error"] == "unauthorized"
    assert client.get("/api/v1/knowledge/stats", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    monkeypatch.delenv("GANTHA_ADMIN_KEY")
    settings.cache_clear()
    r = client.get("/api/v1/knowledge/stats", headers=KEY)
    assert r.status_code == 503 and r.json()["code"] == 2033 and "GANTHA_ADMIN_KEY" in r.json()["message"]


def test_stats_counts(client):
    o = client.get("/api/v1/knowledge/stats", headers=KEY).json()["data"]
    assert o["passages"] > 10000 and o["books"] == 8 + 5 and o["index_bytes"] > 1_000_000  # and 5 dictionaries
    assert {c["corpus"] for c in o["corpora"]} == {"cst", "bible", "dict"}
    assert dict(o["categories"])["mula"] == 2 and dict(o["tags"])["vinaya"] == 2
    assert o["last_ingests"] and o["last_ingests"][0]["ingested_at"] >= o["last_ingests"][-1]["ingested_at"]


def test_ingest_path_then_search_then_delete(client, tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "sila.md").write_text(NOTE, encoding="utf-8")
    r = client.post("/api/v1/documents", json={"source": "markdown", "path": str(folder)}, headers=KEY)
    assert r.status_code == 202 and r.headers["Location"].endswith(r.json()["data"]["id"])
    task = wait(client, r.json()["data"]["id"])
    assert task["state"] == "done" and task["result"]["passages"] >= 1 and task["result"]["embedded"]
    assert (task["done"], task["passages"]) == (task["total"], task["result"]["passages"])  # progress adds up
    docs = client.get("/api/v1/documents", params={"corpus": "md"}, headers=KEY).json()["data"]["items"]
    assert [d["key"] for d in docs] == ["md/sila.md"]
    hits = client.get("/api/v3/search", params={"q": "zanzibarite", "resource_type": "md"}).json()["data"]["results"]
    assert hits and hits[0]["coordinate"].startswith("md/sila.md/")  # the serving index saw the new commit
    detail = client.get("/api/v1/documents/md/sila.md", headers=KEY).json()["data"]
    assert detail["title"] and detail["channels"][0]["passages"] >= 1
    r = client.delete("/api/v1/documents/md/sila.md", headers=KEY)
    assert r.status_code == 202 and wait(client, r.json()["data"]["id"])["state"] == "done"
    assert client.get("/api/v1/documents/md/sila.md", headers=KEY).status_code == 404
    assert client.get("/api/v3/search", params={"q": "zanzibarite", "resource_type": "md"}).json()["data"]["total"] == 0


def test_upload_markdown_and_reject_bad_input(client):
    r = client.post("/api/v1/documents", files={"file": ("vinaya notes.md", NOTE.encode())}, headers=KEY)
    assert r.status_code == 202
    task = wait(client, r.json()["data"]["id"])
    assert task["state"] == "done" and task["params"]["upload"] == "vinaya notes.md"
    assert not Path(task["params"]["path"]).exists()  # the upload is gone once its text is in the index
    bad = [
        client.post("/api/v1/documents", files={"file": ("x.pdf", b"%PDF")}, headers=KEY),
        client.post("/api/v1/documents", json={"source": "pdf", "path": "/"}, headers=KEY),
        client.post("/api/v1/documents", json={"source": "markdown", "path": "/no/such/dir"}, headers=KEY),
    ]
    assert [b.status_code for b in bad] == [400, 400, 403]  # /no/such/dir lies outside the allowed roots
    assert [b.json()["code"] for b in bad] == [1001, 1001, 1030]
    assert all(b.json()["data"]["error"] and b.json()["message"] for b in bad)
    assert (
        client.post("/api/v1/documents", content=b"{", headers=KEY | {"content-type": "application/json"}).status_code
        == 422
    )
    assert client.get("/api/v1/documents/tasks/nope", headers=KEY).status_code == 404
    assert client.delete("/api/v1/documents/md/nope", headers=KEY).json()["data"]["deleted"] is False  # idempotent


def test_ingest_by_path_only_inside_the_allowed_roots(client, tmp_path):
    before = client.get("/api/v1/documents/tasks", headers=KEY).json()["data"]
    for path in ("/proc/self/environ", "", str(tmp_path / ".." / ".."), "/etc"):
        r = client.post("/api/v1/documents", json={"source": "markdown", "path": path}, headers=KEY)
        assert r.status_code == 403 and r.json()["data"]["error"] == "forbidden_path", path
        assert r.json()["code"] == 1030 and "GANTHA_INGEST_ROOTS" in r.json()["message"]
    assert client.get("/api/v1/documents/tasks", headers=KEY).json()["data"] == before  # nothing queued


def test_malformed_cst_upload_is_reported_not_lost(client):
    r = client.post("/api/v1/documents", files={"file": ("broken.xml", b"<TEI><text><p>unclosed")}, headers=KEY)
    task = wait(client, r.json()["data"]["id"])
    assert task["state"] == "failed" or task["result"]["skipped"]
    assert client.get("/api/v3/health").json()["data"]["passages"] > 10000  # the index is intact


def resumed(index: Path, queue: TaskQueue, task_id: str, **row: object) -> Task | None:
    """The task marked running in a process that has died, then taken up by a new runner: its final row."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    queue.update(task_id, state="running", worker=f"{socket.gethostname()}:{dead.pid}", **row)
    runner = TaskRunner(index, idle=0.1).start()
    try:
        deadline = time.monotonic() + 120
        while queue.get(task_id).state not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        runner.stop()
    return queue.get(task_id)


def test_task_left_running_by_a_dead_process_is_resumed(index, tmp_path):
    (tmp_path / "a.md").write_text(NOTE, encoding="utf-8")
    queue = EmbeddedStore(index).tasks()
    task = queue.submit("ingest", {"source": "markdown", "path": str(tmp_path / "a.md")})
    done = resumed(index, queue, task.id)
    assert done.state == "done" and done.attempts == 1 and done.result["passages"] >= 1


def test_a_resumed_task_counts_the_books_it_committed_before_its_process_died(index, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text(NOTE, encoding="utf-8")
    (notes / "b.md").write_text(NOTE.replace("zanzibarite", "quokkaite"), encoding="utf-8")
    store = EmbeddedStore(index)
    task = store.tasks().submit("ingest", {"source": "markdown", "path": str(notes)})
    before = ingest_markdown(store, notes / "a.md")  # what the first run committed before its process died
    store.close()
    queue = EmbeddedStore(index).tasks()
    done = resumed(index, queue, task.id, attempts=1)
    assert done.state == "done" and done.attempts == 2, done
    assert before.books == 1 and before.passages >= 1
    assert done.result["books"] == 2 and done.result["unchanged"] == 0
    assert done.result["passages"] == 2 * before.passages == done.passages  # both books, in the result and row
    assert done.result["resumed"] == {"books": 1, "passages": before.passages}


def test_an_upload_is_removed_when_its_task_is_given_up(tmp_path):
    store = EmbeddedStore(tmp_path / "index")
    upload = save_upload(store, "notes.md", NOTE.encode())
    queue = store.tasks()
    task = queue.submit("ingest", {"source": "markdown", "path": str(upload), "upload": "notes.md"})
    for _ in range(MAX_ATTEMPTS):  # claimed, then the process dies: a restart queues it again
        assert queue.claim().id == task.id
        queue.update(task.id, state="queued", worker=None)
    assert upload.exists()
    assert queue.claim() is None and queue.get(task.id).state == "failed"  # given up
    assert not upload.parent.exists()  # its upload went with it
    store.close()


def test_queue_survives_a_server_restart(index, tmp_path):
    """A task accepted by a server that is then killed is finished by the next server."""
    (tmp_path / "b.md").write_text(NOTE, encoding="utf-8")
    env = {"GANTHA_ADMIN_KEY": "s3cret", "GANTHA_INGEST_ROOTS": str(tmp_path)}
    first = Server(index, env)
    body = {"source": "markdown", "path": str(tmp_path / "b.md")}
    task_id = httpx.post(f"{first.url}/api/v1/documents", json=body, headers=KEY).json()["data"]["id"]
    first.kill()  # SIGKILL: no chance to finish or clean up
    with Server(index, env) as second:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            task = httpx.get(f"{second.url}/api/v1/documents/tasks/{task_id}", headers=KEY).json()["data"]
            if task["state"] in ("done", "failed"):
                break
            time.sleep(0.3)
    assert task["state"] == "done", task
