"""The document service (``/api/v1``) on a copy of the small real index: the envelope ``{code, data,
message}`` and its codes on success and on error, documents a page at a time, a document's outline with
summaries, idempotent deletes, task progress and retention, and the knowledge search answering what
``/api/v3/search`` answers."""

from __future__ import annotations

import shutil
import time
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.api.v1.envelope import CODES, MEANINGS, code_of, status_of
from gantha.config import settings
from gantha.store.embedded import EmbeddedStore
from gantha.tasks import TaskRunner

KEY = {"X-API-Key": "s3cret"}
NOTE = "# Uposatha handbook\n\n## Days\n\nThe **quixotrine** observance falls on the full moon.\n\n## Rules\n\nEight precepts.\n"


@pytest.fixture()
def index(small_index, tmp_path):
    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    return copy


@pytest.fixture()
def env(monkeypatch, tmp_path):
    monkeypatch.setenv("GANTHA_ADMIN_KEY", "s3cret")
    monkeypatch.setenv("GANTHA_INGEST_ROOTS", str(tmp_path))
    settings.cache_clear()
    yield monkeypatch
    settings.cache_clear()


@pytest.fixture()
def idle(index, env):
    """A client whose server runs no task runner (no lifespan): tasks stay queued until a test runs them."""
    return TestClient(create_app(index))


@pytest.fixture()
def client(index, env):
    with TestClient(create_app(index)) as c:
        yield c


def wait(client, task_id: str, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        task = client.get(f"/api/v1/documents/tasks/{task_id}", headers=KEY).json()["data"]
        if task["state"] in ("done", "failed"):
            return task
        time.sleep(0.2)
    raise AssertionError(f"task {task_id} did not finish")


def test_codes_carry_their_status():
    assert status_of(0) == 200
    for reason, code in CODES.items():
        assert code in MEANINGS and code_of(status_of(code), reason) == code, reason
    assert len(set(CODES.values())) == len(CODES)
    assert code_of(404, "not_found") == 1040 and code_of(400, "not_found") == 1000  # a reason at another status
    assert code_of(418, "whatever") == 1180 and code_of(504, "") == 2040 and status_of(2040) == 504


def test_envelope_on_success_and_on_error(idle):
    ok = idle.get("/api/v1/health")  # open, as a health check needs
    assert ok.status_code == 200 and set(ok.json()) == {"code", "data", "message"}
    assert ok.json()["code"] == 0 and ok.json()["data"]["passages"] > 10000
    answers = [
        idle.get("/api/v1/documents"),  # no key
        idle.get("/api/v1/documents", headers={"X-API-Key": "wrong"}),
        idle.get("/api/v1/documents/tasks/nope", headers=KEY),
        idle.get("/api/v1/documents/cst/nope.mul", headers=KEY),
        idle.get("/api/v1/no-such-route"),
        idle.put("/api/v1/health"),
        idle.post("/api/v1/search", json={"query": "bhikkhu", "page_size": 0}),
        idle.post("/api/v1/search", json={"query": "bhikkhu", "filters": {"colour": ["red"]}}),
        idle.post("/api/v1/search", json={"query": "", "filters": {"page_refs": "PTS Xyz 9"}}),
        idle.post("/api/v1/search", content=b"x" * (2**20 + 1), headers={"content-type": "application/json"}),
        idle.post("/api/v1/documents", json={"source": "markdown", "path": "/etc"}, headers=KEY),
    ]
    statuses = [r.status_code for r in answers]
    assert statuses == [401, 401, 404, 404, 404, 405, 422, 422, 400, 413, 403]
    codes = [r.json()["code"] for r in answers]
    assert codes == [1010, 1010, 1040, 1040, 1040, 1050, 1220, 1220, 1003, 1130, 1030]
    for r in answers:
        body = r.json()
        assert set(body) == {"code", "data", "message"} and body["message"], body
        assert status_of(body["code"]) == r.status_code and body["data"]["error"]
    assert answers[6].json()["data"]["details"][0]["loc"] == ["body", "page_size"]
    assert idle.get("/api/v3/health").json()["success"] is True  # /api/v3 keeps its own envelope
    assert idle.get("/api/v3/no-such").json()["error"]["code"] == "not_found"


def test_documents_page_through_every_document(idle):
    everything = idle.get("/api/v1/documents", params={"page_size": 500}, headers=KEY).json()["data"]
    keys = [d["key"] for d in everything["items"]]
    assert everything["total"] == len(keys) == 13 and keys == sorted(keys)
    seen = []
    for page in range(1, 5):
        data = idle.get("/api/v1/documents", params={"page": page, "page_size": 4}, headers=KEY).json()["data"]
        assert (data["total"], data["page"], data["page_size"]) == (13, page, 4)
        assert len(data["items"]) == (4 if page < 4 else 1)
        seen += [d["key"] for d in data["items"]]
    assert seen == keys  # no document twice, none left out
    past = idle.get("/api/v1/documents", params={"page": 5, "page_size": 4}, headers=KEY).json()["data"]
    assert past["items"] == [] and past["total"] == 13
    cst = idle.get("/api/v1/documents", params={"corpus": "cst"}, headers=KEY).json()["data"]
    assert cst["total"] == 4 and all(d["corpus"] == "cst" for d in cst["items"])


def test_detail_has_the_outline_with_sizes_and_summaries(idle):
    d = idle.get("/api/v1/documents/cst/vin02m3.mul", headers=KEY).json()["data"]
    assert d["title"] == "Cūḷavaggapāḷi" and d["classification"] is None  # the taxonomy is not served yet
    root = d["outline"]["root"]
    assert root["level"] == "book" and root["coordinate"] == "cst/vin02m3.mul" and root["summary"]
    chapters = root["nodes"]
    assert len(chapters) == root["children"] >= 10 and all(c["level"] == "chapter" for c in chapters)
    assert sum(c["paragraphs"] for c in chapters) <= root["paragraphs"] and all(c["characters"] for c in chapters)
    assert all(c["summary"] for c in chapters) and chapters[1]["summary_channel"] == "en"
    sections = chapters[1]["nodes"]
    assert sections and sections[0]["coordinate"] == "cst/vin02m3.mul/ch2.1" and sections[0]["summary"]
    assert d["outline"]["nodes"] == 1 + sum(1 + len(c["nodes"]) for c in chapters) and not d["outline"]["truncated"]
    v3 = idle.get("/api/v3/outline", params={"coordinate": "cst/vin02m3.mul"}).json()["data"]
    assert [c["coordinate"] for c in chapters] == [c["coordinate"] for c in v3["children"]]
    assert [c["summary"] for c in chapters] == [c["summary"] for c in v3["children"]]
    shallow = idle.get("/api/v1/documents/cst/vin02m3.mul", params={"depth": 0}, headers=KEY).json()["data"]
    assert shallow["outline"]["root"]["nodes"] == [] and shallow["outline"]["truncated"]
    bare = idle.get("/api/v1/documents/cst/vin02m3.mul", params={"summaries": "false"}, headers=KEY).json()["data"]
    assert bare["outline"]["root"]["summary"] is None and len(bare["outline"]["root"]["nodes"]) == len(chapters)


def test_an_uploaded_markdown_document_gets_its_outline(client):
    r = client.post("/api/v1/documents", files={"file": ("uposatha.md", NOTE.encode())}, headers=KEY)
    assert r.status_code == 202 and r.json()["code"] == 0 and r.json()["data"]["state"] == "queued"
    task = wait(client, r.json()["data"]["id"])
    assert task["state"] == "done" and task["progress"] == 1.0 and task["done"] == task["total"]
    d = client.get("/api/v1/documents/md/uposatha.md", headers=KEY).json()["data"]
    titles = [n["title"] for n in d["outline"]["root"]["nodes"]]
    assert titles == ["Days", "Rules"] or titles == ["Uposatha handbook"], titles
    flat = [n for top in d["outline"]["root"]["nodes"] for n in [top, *top["nodes"]]]
    days = next(n for n in flat if n["title"] == "Days")
    assert "quixotrine" in days["summary"] and days["paragraphs"] >= 1


def test_delete_is_idempotent(idle, index):
    first = idle.delete("/api/v1/documents/cst/vin02a3.att", headers=KEY)
    again = idle.delete("/api/v1/documents/cst/vin02a3.att", headers=KEY)
    assert first.status_code == again.status_code == 202 and first.headers["Location"].endswith(
        first.json()["data"]["id"]
    )
    assert again.json()["data"]["id"] == first.json()["data"]["id"]  # asked twice while queued: one task
    tasks = idle.get("/api/v1/documents/tasks", headers=KEY).json()["data"]
    assert [t["kind"] for t in tasks["items"]] == ["delete"] and tasks["total"] == 1
    runner = TaskRunner(index, idle=0.1)
    try:
        assert runner.step()  # the deletion, in the task process
    finally:
        runner.stop()
    assert wait(idle, first.json()["data"]["id"])["result"]["deleted"] == "cst/vin02a3.att"
    assert idle.get("/api/v1/documents/cst/vin02a3.att", headers=KEY).status_code == 404
    gone = idle.delete("/api/v1/documents/cst/vin02a3.att", headers=KEY)  # once more: nothing to do
    assert gone.status_code == 200 and gone.json()["code"] == 0 and gone.json()["data"]["deleted"] is False
    kinds = [t["kind"] for t in idle.get("/api/v1/documents/tasks", headers=KEY).json()["data"]["items"]]
    assert kinds == ["classify", "delete"]  # no second delete; the deleted book's topics follow as a task


def _age(queue, task_id: str, state: str, hours: float) -> None:
    stamp = (datetime.now(UTC) - timedelta(hours=hours)).isoformat(timespec="seconds")
    queue.db.execute("UPDATE tasks SET state=?, updated_at=? WHERE id=?", (state, stamp, task_id))


def test_task_progress_and_retention(idle, index, env, tmp_path):
    queue = EmbeddedStore(index).tasks()
    params = {"source": "markdown", "path": str(tmp_path / "x.md")}
    running = queue.submit("ingest", params)
    queue.update(running.id, state="running", done=3, total=4, passages=17, message="x.md")
    task = idle.get(f"/api/v1/documents/tasks/{running.id}", headers=KEY).json()["data"]
    assert (task["state"], task["progress"], task["done"], task["total"]) == ("running", 0.75, 3, 4)
    assert "worker" not in task
    old_done, fresh_done, old_failed, fresh_failed = (queue.submit("ingest", params) for _ in range(4))
    _age(queue, old_done.id, "done", 30)  # past 24 h
    _age(queue, fresh_done.id, "done", 1)
    _age(queue, old_failed.id, "failed", 200)  # past 7 days
    _age(queue, fresh_failed.id, "failed", 30)  # a failed task is kept longer
    runner = TaskRunner(index)
    try:
        assert runner.prune() == 2
        alive = {t["id"] for t in idle.get("/api/v1/documents/tasks", headers=KEY).json()["data"]["items"]}
        assert alive == {running.id, fresh_done.id, fresh_failed.id}
        assert idle.get(f"/api/v1/documents/tasks/{old_done.id}", headers=KEY).json()["code"] == 1040
        env.setenv("GANTHA_TASK_RETENTION_COUNT", "1")  # at most one finished task: the newest
        settings.cache_clear()
        assert runner.prune() == 1
    finally:
        runner.stop()
    listed = idle.get("/api/v1/documents/tasks", headers=KEY).json()["data"]
    assert [t["id"] for t in listed["items"]] == [fresh_failed.id, running.id] and listed["total"] == 2
    states = idle.get("/api/v1/knowledge/stats", headers=KEY).json()["data"]["tasks"]
    assert states == {"failed": 1, "running": 1}
    page = idle.get("/api/v1/documents/tasks", params={"state": "running"}, headers=KEY).json()["data"]
    assert [t["id"] for t in page["items"]] == [running.id] and page["total"] == 1


def test_the_runner_prunes_after_a_task(idle, index, env, tmp_path):
    env.setenv("GANTHA_TASK_RETENTION_COUNT", "1")
    settings.cache_clear()
    (tmp_path / "a.md").write_text(NOTE, encoding="utf-8")
    body = {"source": "markdown", "path": str(tmp_path / "a.md")}
    runner = TaskRunner(index, idle=0.1)
    try:
        first = idle.post("/api/v1/documents", json=body, headers=KEY).json()["data"]["id"]
        assert runner.step()  # the ingest: the tasks it queued still to run, so nothing is pruned yet
        assert idle.get(f"/api/v1/documents/tasks/{first}", headers=KEY).json()["data"]["state"] == "done"
        while runner.step():  # its classify and summarize tasks; the queue empty, the runner prunes
            pass
        assert idle.get(f"/api/v1/documents/tasks/{first}", headers=KEY).status_code == 404
        second = idle.post("/api/v1/documents", json=body, headers=KEY).json()["data"]["id"]
        ran = 0
        while runner.step():
            ran += 1
        items = idle.get("/api/v1/documents/tasks", headers=KEY).json()["data"]["items"]
        assert len(items) == 1 and items[0]["state"] == "done"  # the newest finished one is kept
        assert (items[0]["id"] == second) == (ran == 1)  # the write itself, unless tasks followed it
    finally:
        runner.stop()


SEARCHES = [
    ({"query": "parivāsa"}, {"q": "parivāsa"}),
    (
        {"query": "bhikkhu", "search_mode": "exact", "filters": {"book": ["vin02m3.mul"]}, "page": 2, "page_size": 5},
        {"q": "bhikkhu", "search_mode": "exact", "book": "vin02m3.mul", "page": 2, "page_size": 5},
    ),
    (
        {"query": "parivasa", "granularity": "chapter", "page_size": 5},
        {"q": "parivasa", "granularity": "chapter", "page_size": 5},
    ),
    (
        {"query": "sāmaññaphala", "granularity": "auto", "filters": {"book": ["s0101m.mul"]}},
        {"q": "sāmaññaphala", "granularity": "auto", "book": "s0101m.mul"},
    ),
    (
        {"query": "bhikkhu", "granularity": "sutta", "filters": {"category": ["mula"], "tags": ["sutta"]}},
        {"q": "bhikkhu", "granularity": "sutta", "category": "mula", "tags": "sutta"},
    ),
    (
        {"query": "love", "filters": {"resource_type": ["bible"], "language": ["en"]}},
        {"q": "love", "resource_type": "bible", "language": "en"},
    ),
    ({"query": "", "filters": {"page_refs": "PTS Vin II 31"}}, {"page_refs": "PTS Vin II 31"}),
]


@pytest.mark.parametrize(("body", "params"), SEARCHES, ids=[b["query"] or "page ref" for b, _ in SEARCHES])
def test_knowledge_search_answers_what_v3_search_answers(idle, body, params):
    v1 = idle.post("/api/v1/search", json=body)
    v3 = idle.get("/api/v3/search", params=params).json()
    assert v1.status_code == 200 and v1.json()["code"] == 0 and v3["success"]
    got, want = v1.json()["data"], v3["data"]
    assert got["total"] > 0 and got["outcome"] == want["outcome"] == v1.json()["message"]
    for field in ("total", "page", "page_size", "results", "nodes", "weak", "aggregations"):
        assert got[field] == want[field], field
    assert got["query_info"].get("hierarchy") == v3["query_info"].get("hierarchy")
    assert got["query_info"]["terms"] == v3["query_info"]["terms"]


def test_knowledge_search_filters_and_granularity_take_effect(idle):
    def search(**body):
        return idle.post("/api/v1/search", json=body).json()["data"]

    everywhere, one_book = search(query="bhikkhu"), search(query="bhikkhu", filters={"book": ["s0101m.mul"]})
    assert 0 < one_book["total"] < everywhere["total"]
    assert all(h["coordinate"].startswith("cst/s0101m.mul/") for h in one_book["results"])
    chapters = search(query="parivasa", granularity="chapter")
    assert not chapters["results"] and chapters["nodes"][0]["level"] == "chapter" and chapters["nodes"][0]["summary"]
    assert chapters["query_info"]["hierarchy"]["level"] == "chapter"
    assert search(query="sāmaññaphala", granularity="sutta")["nodes"][0]["coordinate"] == "DN 2"
