"""HTTP API: the search shape, errors as JSON 4xx, and a real server process."""

from __future__ import annotations

import re

import httpx
import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app

from conftest import Server


@pytest.fixture(scope="module")
def client(small_index):
    return TestClient(create_app(small_index))


def test_search_shape(client):
    r = client.get("/api/v3/search", params={"q": "parivāsaṃ", "search_mode": "exact", "page_size": 5})
    assert r.status_code == 200
    body = r.json()
    assert body["success"] is True
    data = body["data"]
    assert set(data) >= {"total", "page", "page_size", "took", "results", "aggregations"}
    assert data["page"] == 1 and data["page_size"] == 5 and len(data["results"]) == 5
    hit = data["results"][0]
    assert hit["coordinate"].startswith("cst/") and "<mark>" in hit["snippet"]
    assert {b["key"] for b in data["aggregations"]["category"]} <= {"mula", "atthakatha", "tika", "anya"}
    assert body["query_info"]["terms"] == ["parivāsaṃ"] and body["query_info"]["field"] == "exact"


def test_paging_and_filters(client):
    p1 = client.get("/api/v3/search", params={"q": "bhikkhu", "page_size": 10}).json()["data"]
    p2 = client.get("/api/v3/search", params={"q": "bhikkhu", "page_size": 10, "page": 2}).json()["data"]
    assert p2["results"][0]["rank"] == 11
    assert not {h["coordinate"] for h in p1["results"]} & {h["coordinate"] for h in p2["results"]}
    r = client.get("/api/v3/search", params={"q": "bhikkhu", "category": "atthakatha", "tags": "vinaya"}).json()
    assert all(h["category"] == "atthakatha" for h in r["data"]["results"])
    r = client.get("/api/v3/search", params={"q": "bhikkhu", "resource_type": "pali"})
    assert r.json()["data"]["total"] == p1["total"]
    # language=pali also reaches the Mahāsaṅgīti Pali of the SuttaCentral channel
    r = client.get("/api/v3/search", params={"q": "bhikkhu", "language": "pali"}).json()
    assert r["data"]["total"] > p1["total"] and {h["channel"] for h in r["data"]["results"]} <= {"pali", "pli-ms"}


def test_page_ref(client):
    r = client.get("/api/v3/search", params={"page_refs": "PTS Vin II 31"}).json()
    assert r["data"]["results"][0]["coordinate"] == "cst/vin02m3.mul/75"


@pytest.mark.parametrize(
    ("params", "status", "code"),
    [
        ({"q": "x", "page_size": 10**6}, 422, "invalid_parameter"),
        ({"q": "x", "page": 0}, 422, "invalid_parameter"),
        ({"q": "x", "search_mode": "psychic"}, 422, "invalid_parameter"),
        ({"q": ""}, 400, "empty_query"),
        ({"q": "x", "book": "nope.mul"}, 400, "unknown_book"),
        ({"q": "x", "category": "sutta"}, 400, "unknown_category"),
        ({"page_refs": "page 31"}, 400, "invalid_page_ref"),
        ({"q": "x", "resource_type": "video"}, 400, "unknown_resource_type"),
    ],
)
def test_bad_parameters_get_json_4xx(client, params, status, code):
    r = client.get("/api/v3/search", params=params)
    assert r.status_code == status
    body = r.json()
    assert body["success"] is False and body["error"]["code"] == code and body["error"]["message"]


def test_health_books_openapi_and_unknown_route(client):
    health = client.get("/api/v3/health").json()["data"]
    assert health["status"] == "ok" and health["books"] == 4 and health["passages"] > 0
    books = client.get("/api/v3/books").json()["data"]
    assert {b["book"] for b in books} == {"vin02m3.mul", "vin02a3.att", "s0101m.mul", "e1208n.nrf"}
    spec = client.get("/openapi.json").json()
    assert "/api/v3/search" in spec["paths"]
    params = {p["name"] for p in spec["paths"]["/api/v3/search"]["get"]["parameters"]}
    assert params >= {
        "q",
        "resource_type",
        "granularity",
        "language",
        "category",
        "tags",
        "page_refs",
        "page",
        "page_size",
        "search_mode",
    }
    missing = client.get("/api/v3/nothing")
    assert missing.status_code == 404 and missing.json()["success"] is False


def test_pages_ship_their_web_fonts(tmp_path):
    """app.css imports fonts.css, whose every face is served as a woff2 font (a browser test checks they draw)."""
    client = TestClient(create_app(tmp_path / "none"))
    assert '@import url("fonts/fonts.css")' in client.get("/static/app.css").text
    css = client.get("/static/fonts/fonts.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    families = set(re.findall(r'font-family: "([^"]+)"', css.text))
    assert families == {
        "Noto Sans Myanmar",
        "Noto Sans Sinhala",
        "Noto Sans Thai",
        "Noto Sans Devanagari",
        "Noto Sans SC",
    }
    files = re.findall(r'url\("([^"]+)"\)', css.text)
    assert len(files) > 50  # the CJK font in its unicode-range chunks
    for name in files:
        r = client.get(f"/static/fonts/{name}")
        assert r.status_code == 200 and r.headers["content-type"] == "font/woff2" and r.content[:4] == b"wOF2", name
    for package in ("myanmar", "sinhala", "thai", "devanagari", "sc"):
        assert "SIL Open Font License" in client.get(f"/static/fonts/OFL-noto-sans-{package}.txt").text


def test_missing_index_is_503(tmp_path):
    r = TestClient(create_app(tmp_path / "none")).get("/api/v3/health")
    assert r.status_code == 503 and r.json()["error"]["code"] == "index_unavailable"


def test_real_server(small_index):
    with Server(small_index) as server:
        r = httpx.get(f"{server.url}/api/v3/search", params={"q": "parivasa*"}, timeout=5)
        assert r.status_code == 200 and r.json()["data"]["total"] > 0


def test_hybrid_and_refusal_over_http(client):
    r = client.get(
        "/api/v3/search",
        params={
            "q": "In the beginning God created",
            "search_mode": "hybrid",
            "language": "zh",
            "resource_type": "bible",
        },
    ).json()
    assert r["data"]["outcome"] == "hits" and r["data"]["results"][0]["coordinate"] == "bible/genesis/1:1"
    assert r["query_info"]["routes"] == ["lexical", "vector"]
    r = client.get("/api/v3/search", params={"q": "boiling point of tungsten", "search_mode": "hybrid"}).json()
    assert r["data"]["outcome"] == "not_found" and r["data"]["results"] == []


def test_semantic_without_vectors_is_a_clear_400(tmp_path, small_cst):
    from gantha.ingest import ingest_cst
    from gantha.store.embedded import EmbeddedStore

    store = EmbeddedStore(tmp_path)
    ingest_cst(store, small_cst / "e1208n.nrf.toc.xml.gz")
    store.close()
    r = TestClient(create_app(tmp_path)).get("/api/v3/search", params={"q": "x", "search_mode": "semantic"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "mode_unavailable"


def test_the_same_search_again_is_answered_from_the_kept_answers_until_the_index_changes(tmp_path):
    from gantha.ingest import ingest_markdown
    from gantha.store.embedded import EmbeddedStore

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "one.md").write_text("# One\n\nThe quixotrine observance falls on the full moon.\n", encoding="utf-8")
    store = EmbeddedStore(tmp_path / "index")
    ingest_markdown(store, docs)
    store.close()
    client = TestClient(create_app(str(tmp_path / "index")))
    params = {"q": "quixotrine", "page_size": 5}
    first, again = client.get("/api/v3/search", params=params), client.get("/api/v3/search", params=params)
    assert first.headers["x-gantha-cache"] == "miss" and again.headers["x-gantha-cache"] == "hit"
    assert {**first.json()["data"], "took": 0} == {**again.json()["data"], "took": 0} and again.json()["data"][
        "total"
    ] == 1
    assert client.get("/api/v3/search", params={**params, "page_size": 4}).headers["x-gantha-cache"] == "miss"
    (docs / "two.md").write_text("# Two\n\nAnother quixotrine rite.\n", encoding="utf-8")
    store = EmbeddedStore(tmp_path / "index")
    ingest_markdown(store, docs)
    store.close()
    changed = client.get("/api/v3/search", params=params)  # a write: the kept answers no longer stand
    assert changed.headers["x-gantha-cache"] == "miss" and changed.json()["data"]["total"] == 2
