"""The research chain on the whole corpus, through the CLI, the HTTP API and an MCP client over stdio:
forms → search --forms --bold → dist → get → chapter → versions."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gantha.api.app import create_app

pytestmark = pytest.mark.full
REQUIRED = ("parivāsaṃ", "parivāso", "parivāse", "parivāsā", "parivāsesu", "parivāsassa")


def gantha(index, *args: str) -> dict:
    r = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", *args, "--index", str(index), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def check_chain(forms: dict, bold: dict, dist: dict, got: dict, chapter: dict, versions: dict) -> None:
    by_form = {f["form"]: f for f in forms["forms"]}
    assert set(REQUIRED) <= set(by_form)
    assert all(by_form[f]["paragraphs"] > 0 for f in REQUIRED)
    assert by_form["parivāsaṃ"]["bold_paragraphs"] > 0 and by_form["parivāso"]["bold_paragraphs"] > 0
    assert bold["total"] > 0
    assert all(h["bold_match"] for h in bold["hits"])
    assert dist["total"] == sum(b["count"] for b in dist["books"]) >= bold["total"]
    assert dist["books"][0]["book"] == "vin02m3.mul"
    pali, burmese = got["items"]
    assert pali["coordinate"] == "cst/vin02m3.mul/75" and pali["status"] == "ok"
    assert pali["citations"]["default"].startswith("Kd 12 Probation: Cūḷavaggapāḷi, Pārivāsikakkhandhaka, CST para 75")
    assert burmese["channel"] == "my" and burmese["status"] == "ok" and burmese["text"]
    assert chapter["paragraphs"] > 100 and chapter.get("passages") is None
    channels = {c["channel"]: c["status"] for c in versions["channels"]}
    assert channels["pali"] == "available" and channels["my"] == "available"


def test_chain_cli(full_ingest):
    index = full_ingest[0]
    forms = gantha(index, "forms", "parivāsa")
    bold = gantha(index, "search", "--forms", ",".join(f["form"] for f in forms["forms"]), "--bold", "--limit", "5")
    dist = gantha(index, "dist", "--lemma", "parivāsa")
    got = gantha(index, "get", "cst/vin02m3.mul/75", "--channel", "pali,my")
    chapter = gantha(index, "chapter", "cst/vin02m3.mul/75")
    versions = gantha(index, "versions", "cst/vin02m3.mul/75")
    check_chain(forms, bold, dist, got, chapter, versions)
    for hit in bold["hits"]:  # every hit resolves to the text it came from
        item = gantha(index, "get", hit["coordinate"])["items"][0]
        assert item["status"] == "ok" and hit["coordinate"] == item["coordinate"]


def test_chain_http(full_ingest):
    client = TestClient(create_app(full_ingest[0]))

    def call(path: str, **params) -> dict:
        r = client.get(f"/api/v3/{path}", params=params)
        assert r.status_code == 200, r.text
        return r.json()["data"]

    forms = call("forms", word="parivāsa")
    search = client.get(
        "/api/v3/search", params={"forms": ",".join(f["form"] for f in forms["forms"]), "bold": True, "page_size": 5}
    ).json()["data"]
    bold = {"total": search["total"], "hits": search["results"]}
    check_chain(
        forms,
        bold,
        call("dist", lemma="parivāsa"),
        call("get", coordinates="cst/vin02m3.mul/75", channel="pali,my"),
        call("chapter", coordinate="cst/vin02m3.mul/75"),
        call("versions", coordinate="cst/vin02m3.mul/75"),
    )
    bad = client.get("/api/v3/chapter", params={"coordinate": "cst/vin02m3.mul/99999"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "not_found"
    suggest = call("search-suggest", q="satipatthana")
    assert suggest["suggestions"][0]["text"].startswith("satipaṭṭhān")


def test_chain_mcp(full_ingest):
    async def run() -> dict:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "gantha.api.cli", "mcp", "--index", str(full_ingest[0])]
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            names = {t.name for t in (await session.list_tools()).tools}
            assert {
                "search",
                "forms",
                "word",
                "dist",
                "get",
                "chapter",
                "versions",
                "search_by_query",
                "search_by_page_ref",
                "get_term_definition",
                "search_pali",
                "links",
            } <= names

            budgeted = {t.name for t in (await session.list_tools()).tools if "max_bytes" in t.input_schema["properties"]}

            async def call(name: str, **args) -> dict:  # the whole reply: the chain, not the reply budget, is tested
                result = await session.call_tool(name, args | ({"max_bytes": 1_000_000} if name in budgeted else {}))
                assert not result.is_error, result.content
                return result.structured_content

            forms = await call("forms", word="parivāsa")
            out = {
                "forms": forms,
                "bold": await call("search", forms=[f["form"] for f in forms["forms"]], bold=True, limit=5),
                "dist": await call("dist", lemma="parivāsa"),
                "got": await call("get", coordinates=["cst/vin02m3.mul/75"], channel=["pali", "my"]),
                "chapter": await call("chapter", coordinate="cst/vin02m3.mul/75"),
                "versions": await call("versions", coordinate="cst/vin02m3.mul/75"),
                "page": await call("search_by_page_ref", page_ref="PTS Vin II 31"),
                "links": await call("links", coordinate="cst/vin02a3.att/75", kind=["root", "cites"], limit=5),
            }
            schema = next(t for t in (await session.list_tools()).tools if t.name == "links").input_schema
            assert schema["properties"]["limit"]["maximum"] == 100  # its bounds in its schema
            error = await session.call_tool("chapter", {"coordinate": "nonsense"})
            assert error.is_error and "not a coordinate" in error.content[0].text
            return out

    out = asyncio.run(run())
    check_chain(out["forms"], out["bold"], out["dist"], out["got"], out["chapter"], out["versions"])
    assert out["page"]["hits"][0]["coordinate"] == "cst/vin02m3.mul/75"
    links = out["links"]  # from the commentary to the rule it explains and the Mahāvagga rule it cites
    assert links["root"]["items"][0]["coordinate"] == "cst/vin02m3.mul/75"
    assert "cst/vin02m2.mul/86" in [i["coordinate"] for i in links["cites"]["items"]]
