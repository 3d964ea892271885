"""The original design's API contract on real books: resource types, categories, the result fields,
aggregations by language and resource type, suggestions by language, dictionary entries as documents,
and an OpenAPI schema that states every status a route answers."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app


@pytest.fixture(scope="module")
def client(small_index) -> TestClient:
    return TestClient(create_app(small_index))


def _search(client: TestClient, **params) -> dict:
    r = client.get("/api/v3/search", params=params)
    assert r.status_code == 200, r.text
    return r.json()["data"]


def test_results_carry_the_design_fields(client):
    data = _search(client, q="parivāsaṃ", search_mode="exact", category="commentary")
    assert data["page_size"] == 20 and data["results"]  # the design's default page size
    bold = next(h for h in data["results"] if h["bold_match"])
    assert bold["id"] == f"{bold['coordinate']}@pali" and bold["resource_type"] == "origin_text"
    assert len(bold["resource_id"]) == 36 and bold["title"] and bold["language"] == "pali"
    assert "**" in bold["content"]["display"] and "**" not in bold["content"]["text"]
    assert "**" in bold["highlight"] and "<mark>" in bold["highlight"]  # highlights keep the bold
    assert bold["highlight"].count("**") % 2 == 0
    assert any("parivāsa" in b.lower() for b in bold["bold"])
    meta = bold["metadata"]
    assert meta["channel"] == "pali" and "Vipassana Research Institute" in meta["APA"] and meta["MLA"]
    assert bold["updated_at"] and bold["category"] == "atthakatha"  # "commentary" is CST's atthakatha
    again = _search(client, q="parivāsaṃ", search_mode="exact", category="commentary")
    assert [h["resource_id"] for h in again["results"]] == [h["resource_id"] for h in data["results"]]


def test_resource_types_select_originals_translations_and_dictionaries(client):
    originals = _search(client, q="probation", resource_type="origin_text")  # the Pali, reached by the bridge
    translations = _search(client, q="probation", resource_type="translation")  # the English word itself
    assert originals["total"] > 0 and {h["language"] for h in originals["results"]} == {"pali"}
    assert {h["resource_type"] for h in originals["results"]} == {"origin_text"}
    assert translations["total"] > 0 and {h["resource_type"] for h in translations["results"]} == {"translation"}
    assert {h["language"] for h in translations["results"]} <= {"en", "my"}
    entries = _search(client, q="probation", resource_type="dictionary")
    assert entries["total"] > 0 and {h["resource_type"] for h in entries["results"]} == {"dictionary"}
    assert all(h["coordinate"].startswith("dict/") for h in entries["results"])
    assert _search(client, q="parivasa", resource_type="term")["total"] > 0  # a term is a dictionary headword
    nissaya = _search(client, q="parivasa", resource_type="nissaya")
    assert nissaya["total"] == 0 and nissaya["outcome"] == "no_hits"  # none in this index: an honest zero
    both = _search(client, q="parivasa", resource_type="origin_text,dictionary")
    assert {h["resource_type"] for h in both["results"]} == {"origin_text", "dictionary"}
    bad = client.get("/api/v3/search", params={"q": "x", "resource_type": "novel"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "unknown_resource_type"


def test_aggregations_by_language_and_resource_type(client):
    data = _search(client, q="parivasa", resource_type="origin_text,translation,dictionary")
    languages = {b["key"]: b["count"] for b in data["aggregations"]["language"]}
    kinds = {b["key"]: b["count"] for b in data["aggregations"]["resource_type"]}
    assert sum(languages.values()) == sum(kinds.values()) == data["total"]
    assert {"pali", "zh-Hant"} <= set(languages) and {"origin_text", "dictionary"} <= set(kinds)


def test_dictionary_entries_are_documents_with_their_headword_as_coordinate(client):
    items = client.get("/api/v3/get", params={"coordinates": "dict/shuihan/parivāsa"}).json()["data"]["items"]
    assert items[0]["status"] == "ok" and items[0]["language"] == "zh-Hant" and "別住" in items[0]["text"]


def test_suggestions_honour_the_language(client):
    pali = client.get("/api/v3/search-suggest", params={"q": "pariva"}).json()["data"]["suggestions"]
    assert pali[0]["text"].startswith("pariv") and pali[0]["romanized"] and pali[0]["frequency"] > 0
    chinese = client.get("/api/v3/search-suggest", params={"q": "parivasa", "language": "zh"}).json()["data"]
    renderings = chinese["suggestions"]
    assert renderings and all(any("\u4e00" <= c <= "\u9fff" for c in s["text"]) for s in renderings)
    assert any(s["pali"].startswith("parivās") for s in renderings)


def test_the_schema_states_every_status(client):
    paths = client.get("/openapi.json").json()["paths"]
    search = paths["/api/v3/search"]["get"]["responses"]
    assert {"200", "400", "422", "503"} <= set(search)
    for path, methods in paths.items():
        for method, spec in methods.items():
            if path.startswith("/api/v1/"):  # the document service: every error in its envelope
                assert "503" in spec["responses"], (method, path)
                assert ("401" in spec["responses"]) == ("admin" in spec["tags"]), (method, path)
                for status, answer in spec["responses"].items():
                    if status >= "400":
                        schema = answer["content"]["application/json"]["schema"]["$ref"]
                        assert schema.endswith("/ErrorReply"), (method, path, status)
    assert "403" in paths["/api/v1/documents"]["post"]["responses"]
    assert "404" in paths["/api/v1/documents/tasks/{task_id}"]["get"]["responses"]
    resource = next(p for p in paths["/api/v3/search"]["get"]["parameters"] if p["name"] == "resource_type")
    assert "origin_text" in resource["description"] and "dictionary" in resource["description"]
