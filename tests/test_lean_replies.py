"""Replies sized for an agent, on real CST books: defaults that match the schemas (``get`` answers the
original text), no field repeated in an item, ``fields`` trimming query_info too, a reply budget every
MCP tool, HTTP route and CLI command honours (saying what it left out), and a tool list under 10 KB."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from fastapi.testclient import TestClient
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from typer.testing import CliRunner

from gantha.api.app import create_app
from gantha.api.cli import app
from gantha.budget import AGENT_BYTES, fit, lean, size
from gantha.research import Research
from gantha.tools import Toolbox
from gantha.verbs import VERBS

TOOL_LIST_BYTES = 10_000


@pytest.fixture(scope="module")
def tools(small_index) -> Toolbox:
    return Toolbox(Research.open(small_index))


def test_fit_cuts_the_largest_list_then_the_longest_text_and_says_so():
    data = {"total": 40, "hits": [{"n": i, "text": "word " * 40} for i in range(40)], "tags": ["a", "b"]}
    cut = fit(data, 2_000)
    assert size(cut) <= 2_000 and data["hits"][39]["n"] == 39  # the original is left whole
    assert cut["tags"] == ["a", "b"] and 1 <= len(cut["hits"]) < 40
    assert cut["omitted"]["cuts"] == [{"at": "hits", "of": 40, "kept": len(cut["hits"])}]
    assert cut["omitted"]["bytes"] == size(data) and "offset" in cut["omitted"]["hint"]
    one = fit({"items": [{"text": "pada " * 3_000}]}, 1_500)  # one item: its text is cut at a word
    assert size(one) <= 1_500 and one["items"][0]["text"].endswith("pada…")
    assert one["omitted"]["cuts"][0]["at"] == "items.0.text" and one["omitted"]["cuts"][0]["of_chars"] == 15_000
    assert fit(data, None) is data and fit(data, 10**6) is data
    fields = fit({f"k{i}": "v" * 100 for i in range(30)}, 1_000)  # nothing to cut: it says how far over it stays
    assert fields["omitted"]["over_budget"] == size(fields) > 1_000 and fields["omitted"]["cuts"] == []
    assert lean({"a": [], "b": {"c": [], "d": None, "e": 0}}) == {"a": [], "b": {"e": 0}}  # top-level keys stay


def test_fit_ends_on_texts_without_spaces_cut_to_their_floor():
    """Chinese texts have no space to cut at: texts at the floor are left, and the reply says it stays over."""
    cut = fit({"pali": "聞" * 201, "chinese": "如是我聞" * 60, "english": "一時佛住" * 51}, 1_000)
    assert [len(t) for t in cut.values() if isinstance(t, str)] == [201, 201, 201]
    assert cut["omitted"]["over_budget"] > 1_000


def test_get_answers_the_original_unless_channels_are_named(tools):
    got = tools.get(coordinates=["DN 2"])["items"]
    assert {i["channel"] for i in got} == {"pali"} and got[0]["coordinate"].startswith("cst/s0101m.mul/")
    both = tools.get(coordinates=["DN 2"], channel=["pali", "en"])["items"]
    assert {i["channel"] for i in both} == {"pali", "en"}
    schema = next(v for v in VERBS if v.name == "get").params.model_fields["channel"].description
    assert "default: the original" in schema


def test_get_gives_the_markdown_only_when_asked(tools):
    bold = "cst/vin02a3.att/75"  # the commentary's bold lemmas
    plain = tools.get(coordinates=[bold])["items"][0]
    assert "display" not in plain and "**" not in plain["text"] and plain["bold"]
    marked = tools.get(coordinates=[bold], display=True)["items"][0]
    assert "**" in marked["display"] and marked["text"] == plain["text"]


def test_no_field_repeated_in_an_agents_items(tools):
    hits = tools.search(query="parivāsa", limit=3, max_bytes=AGENT_BYTES)["hits"]
    assert hits and not {"corpus", "book", "paragraph", "language"} & set().union(*hits)
    assert all(h["coordinate"].startswith("cst/") for h in hits)
    full = tools.search(query="parivāsa", limit=3)["hits"]  # without a budget (the chat's own use): as before
    assert {"corpus", "book", "paragraph"} <= set(full[0])
    links = tools.links(coordinate="cst/vin02m3.mul/75", kind=["commentary"], max_bytes=AGENT_BYTES)
    items = links["commentary"]["items"]
    assert items and all("of" not in i and "layer" not in i for i in items)  # the asked paragraph, the kind's layer
    item = tools.get(coordinates=["cst/vin02m3.mul/75"], max_bytes=AGENT_BYTES)["items"][0]
    assert "language" not in item and "display" not in item and item["channel"] == "pali"


def test_fields_trim_query_info_too(tools):
    full = tools.search(lemma="parivāsa", limit=5)
    small = tools.search(lemma="parivāsa", limit=5, fields=["coordinate", "snippet"])
    assert set(small["query_info"]) == {"original", "mode"} and len(json.dumps(full["query_info"])) > 500
    named = tools.search(lemma="parivāsa", limit=5, fields=["coordinate", "lemma"])
    assert set(named["query_info"]) == {"original", "mode", "lemma"} and named["query_info"]["lemma"]["forms"]
    similar = tools.similar_sentences(sentence="parivāsaṃ deti", fields=["coordinate", "similarity"])
    assert "similar" not in similar["query_info"] and similar["hits"]


def test_http_replies_honour_a_budget(small_index):
    client = TestClient(create_app(small_index))
    params = {"q": "bhikkhu", "page_size": 20}
    whole = client.get("/api/v3/search", params=params)
    cut = client.get("/api/v3/search", params={**params, "max_bytes": 8_000})
    assert len(whole.content) > 8_000 >= len(cut.content) == int(cut.headers["content-length"])
    body = cut.json()
    assert body["success"] and abs(body["omitted"]["bytes"] - len(whole.content)) < 50  # (its "took" differs)
    assert {"at": "data.results", "of": 20, "kept": len(body["data"]["results"])} in body["omitted"]["cuts"]
    links = client.get("/api/v3/links", params={"coordinate": "cst/vin02m3.mul/75", "max_bytes": 3_000})
    assert links.status_code == 200 and len(links.content) <= 3_000 and links.json()["omitted"]["cuts"]
    bad = client.get("/api/v3/get", params={"coordinates": "cst/vin02m3.mul/75", "max_bytes": 10})
    assert bad.status_code in (400, 422)


def test_cli_json_honours_a_budget(small_index):
    args = ["links", "cst/vin02m3.mul/75", "--max-bytes", "2000", "--index", str(small_index), "--json"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    assert len(out.output.encode()) <= 2_100 and json.loads(out.output)["omitted"]["cuts"]  # (printed indented)


def test_mcp_tools_are_listed_small_and_answer_within_their_budget(small_index):
    async def run() -> tuple[int, dict, dict, dict, dict]:
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "gantha.api.cli", "mcp", "--index", str(small_index)]
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            listing = size(listed.model_dump(mode="json", by_alias=True, exclude_none=True))  # as on the wire

            async def call(name: str, **args) -> tuple[dict, int]:
                result = await session.call_tool(name, args)
                assert not result.is_error, result.content
                text = result.content[0].text
                assert json.loads(text) == result.structured_content  # the same data, compact JSON
                return result.structured_content, len(text.encode())

            search, search_bytes = await call("search", query="bhikkhu", limit=100)
            chapter, chapter_bytes = await call("chapter", coordinate="cst/vin02m3.mul/75", confirm=True)
            small, small_bytes = await call("links", coordinate="cst/vin02m3.mul/75", max_bytes=2_500)
            manual, _ = await call("help", tool="search")
            assert search_bytes <= AGENT_BYTES and chapter_bytes <= AGENT_BYTES and small_bytes <= 2_500
            return listing, search, chapter, small, manual

    listing, search, chapter, small, manual = asyncio.run(run())
    assert listing <= TOOL_LIST_BYTES
    assert search["omitted"]["cuts"][0] == {"at": "hits", "of": 100, "kept": len(search["hits"])}
    assert len(search["hits"]) >= 3 and search["total"] > 100
    assert chapter["omitted"]["cuts"] and chapter["passages"][0]["coordinate"].startswith("cst/vin02m3.mul/")
    assert small["omitted"]["max_bytes"] == 2_500 and "over_budget" not in small["omitted"]
    assert "NEAR/3" in manual["description"] and manual["arguments"]["comments_on"] is not None
