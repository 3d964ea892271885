"""Texts as trees: outlines with stable node coordinates, extractive summaries, and search at the
granularity of books, chapters, suttas and sections (and the auto descent), on real CST books."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.corpus import bible
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.errors import SearchError
from gantha.tools import Toolbox, function_spec
from gantha.verbs import VERBS

from conftest import DATA


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


def test_a_book_outline_is_its_chapters_with_sizes(research):
    book = research.outline("cst/vin02m3.mul")
    assert book.node.level == "book" and book.node.title == "Cūḷavaggapāḷi"
    chapters = book.children
    assert len(chapters) >= 10 and all(c.level == "chapter" for c in chapters)
    assert chapters[1].coordinate == "cst/vin02m3.mul/ch2" and "Pārivāsikakkhandhak" in chapters[1].title
    assert sum(c.paragraphs for c in chapters) <= book.node.paragraphs
    assert chapters[1].sutta == "Kd 12"  # the chapter is SuttaCentral's Kd 12, whole
    # node coordinates agree with the chapter aggregation of search
    res = research.search(SearchRequest(books=["vin02m3.mul"], limit=1), lemma="parivāsa")
    buckets = {b.key: b.title for b in res.aggregations["chapter"]}
    assert "vin02m3.mul/ch2" in buckets and "Pārivāsikakkhandhak" in buckets["vin02m3.mul/ch2"]


def test_a_chapter_has_sections_and_a_paragraph_names_the_smallest_node(research):
    chapter = research.outline("cst/vin02m3.mul/ch2")
    sections = chapter.children
    assert sections[0].coordinate == "cst/vin02m3.mul/ch2.1" and "Pārivāsikavatta" in sections[0].title
    assert [p.coordinate for p in chapter.parents] == ["cst/vin02m3.mul"]
    inner = research.outline("cst/vin02m3.mul/75")
    assert inner.node.coordinate == "cst/vin02m3.mul/ch2.1"
    assert inner.node.first and inner.node.last  # its span: first and last paragraph
    span = research.chapter(inner.node.first, confirm=True, section=True)
    assert any(p.coordinate == "cst/vin02m3.mul/75" for p in span.passages)
    again = Research.open(research.store.location)  # the same text gives the same coordinates
    assert [c.coordinate for c in again.outline("cst/vin02m3.mul/ch2").children] == [s.coordinate for s in sections]


def test_a_sutta_reference_names_the_sutta_node(research):
    node = research.outline("DN 2").node
    assert node.sutta == "DN 2" and "Sāmaññaphala" in node.title
    assert node.coordinate.startswith("cst/s0101m.mul/ch")


def test_summaries_are_extractive_from_the_english_where_there_is_one(research):
    node = research.outline("cst/s0101m.mul/ch2.3").node  # a section of DN 2: SuttaCentral's blurb is of the sutta
    assert node.summary_channel == "en" and node.summary and node.summary_by == "extractive"
    english = " ".join(p.text for p in research.store.book_passages("cst", "s0101m.mul", "en") if p.text)
    sentences = [s.strip() for s in node.summary.replace(" …", "").split(". ") if len(s) > 20]
    assert sentences and all(s.rstrip(".")[:60] in english for s in sentences)  # taken from the text, not made up
    commentary = research.outline("cst/vin02a3.att/ch2").node
    assert commentary.summary_channel == "pali" and commentary.summary
    assert research.outline("cst/vin02m3.mul", summaries=False).node.summary is None


def test_the_corpus_outline_lists_its_books(research):
    cst = research.outline("cst")
    assert cst.node.level == "corpus" and cst.node.children == len(cst.children) >= 4
    assert {"cst/vin02m3.mul", "cst/s0101m.mul"} <= {b.coordinate for b in cst.children}
    bible = research.outline("bible/genesis")
    assert bible.children[0].coordinate == "bible/genesis/ch1" and len(bible.children) == 50
    assert bible.node.summary_channel == "kjv"  # no original: sized and summarised from the English


def test_a_numbered_bible_book_is_titled_as_it_is_cited():
    path = next(f for f in bible.files(DATA / "bible" / "kjv") if f.path.name == "kjv46.xml")  # "Corinthians1"
    info, _, verses = bible.read_file(path)
    assert (info.book, info.title) == ("1corinthians", "1 Corinthians")
    first = next(verses)
    assert first.path == ["1 Corinthians", "1 Corinthians 1"] and first.coordinate == "bible/1corinthians/1:1"


def test_unknown_nodes_are_clear_errors(research):
    with pytest.raises(SearchError, match="no node"):
        research.outline("cst/vin02m3.mul/ch99.1")
    with pytest.raises(SearchError, match="no book"):
        research.outline("cst/nothing.mul")


def test_chapters_found_by_their_paragraphs(research):
    res = research.search(SearchRequest(q="parivasa", granularity="chapter", limit=5))
    assert not res.hits and res.nodes and res.query_info.hierarchy["level"] == "chapter"
    top = res.nodes[0]
    assert top.level == "chapter" and top.book in ("vin02m3.mul", "vin02a3.att")
    assert all(a.score >= b.score for a, b in zip(res.nodes, res.nodes[1:], strict=False))
    assert 0 < top.confidence <= 1 and sum(n.confidence for n in res.nodes) <= 1.0001
    assert top.evidence and all(c.startswith(f"cst/{top.book}/") for c in top.evidence)
    assert top.summary and top.paragraphs
    assert top.matches >= top.hits  # every matching paragraph, not only the ones weighed
    suttas = research.search(SearchRequest(q="sāmaññaphala", granularity="sutta", limit=3))
    assert suttas.nodes and suttas.nodes[0].coordinate == "DN 2"
    books = research.search(SearchRequest(q="parivasa", granularity="book", limit=3))
    assert books.nodes[0].coordinate in ("cst/vin02m3.mul", "cst/vin02a3.att")


def test_a_text_named_by_its_title_is_found_as_a_whole(research):
    titles = research.titles()
    assert [n.key for n in titles.named("What is the Brahmajala Sutta about?")] == ["DN 1"]  # no diacritics
    assert [n.key for n in titles.named("which discourse is about the fruits of the ascetic life")] == ["DN 2"]
    romans = titles.named("the chapter on love in Romans")
    assert [n.key for n in romans] == ["bible/romans"]
    assert titles.unnamed("the chapter on love in Romans", romans) == "the chapter on love"  # searched inside it
    assert not titles.named("what does the Buddha teach about dhamma")  # topic words, not names
    asked = SearchRequest(q="What is the Brahmajāla Sutta about?", mode="hybrid", granularity="sutta", limit=5)
    res = research.search(asked)
    assert res.nodes[0].coordinate == "DN 1" and res.nodes[0].named
    assert any("named by title: DN 1" in note for note in res.query_info.notes)
    love = research.search(SearchRequest(q="the chapter on love in Romans", granularity="chapter", corpora=["bible"]))
    assert love.nodes and all(n.book == "romans" for n in love.nodes)  # searched inside the book it names
    assert love.nodes[0].coordinate == "bible/romans/ch13"  # "Love worketh no ill to his neighbour"


def test_auto_descends_while_sure_and_falls_back_when_not(research):
    sure = research.search(SearchRequest(q="sāmaññaphala", granularity="auto", books=["s0101m.mul"], limit=5))
    path = sure.query_info.hierarchy["path"]
    assert path[0]["level"] == "book" and path[0]["descended"]
    assert sure.hits and sure.query_info.hierarchy["answered"] != "flat: no level was sure"
    answered = sure.query_info.hierarchy["answered"]
    assert all(h.coordinate.startswith(f"cst/{answered.split('/')[1]}/") for h in sure.hits)
    unsure = research.search(SearchRequest(q="bhikkhu", granularity="auto", limit=5))
    flat = research.search(SearchRequest(q="bhikkhu", limit=5))
    if not unsure.query_info.hierarchy["path"][0]["descended"]:
        assert [h.coordinate for h in unsure.hits] == [h.coordinate for h in flat.hits]


def test_every_surface_has_outline_and_granularity(small_index, research):
    client = TestClient(create_app(small_index))
    got = client.get("/api/v3/outline", params={"coordinate": "cst/vin02m3.mul/ch2"}).json()
    assert got["success"] and got["data"]["node"]["title"] == research.outline("cst/vin02m3.mul/ch2").node.title
    nodes = client.get("/api/v3/search", params={"q": "parivasa", "granularity": "chapter"}).json()["data"]
    assert nodes["nodes"] and nodes["results"] == [] and nodes["total"] >= len(nodes["nodes"])
    bad = client.get("/api/v3/outline", params={"coordinate": "cst/vin02m3.mul/ch99"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "not_found"
    tools = Toolbox(research)
    assert tools.outline(coordinate="DN 2")["node"]["sutta"] == "DN 2"
    cli = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", "outline", "DN 2", "--index", str(small_index), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0 and json.loads(cli.stdout)["node"]["sutta"] == "DN 2"


def test_each_verb_is_declared_once_for_every_surface(small_index, research):
    """The HTTP route, the CLI command and the MCP tool of a verb take the same parameters with the same
    bounds, because all three are generated from its declaration."""
    schema = TestClient(create_app(small_index)).get("/openapi.json").json()
    tools = {fn.__name__: fn for fn in Toolbox(research).functions()}
    for verb in VERBS:
        declared = set(verb.params.model_fields)
        route = {p["name"] for p in schema["paths"][verb.path]["get"]["parameters"]}
        tool = set(function_spec(tools[verb.tool_name])["function"]["parameters"]["properties"])
        assert route == declared == tool, verb.name
        help_text = subprocess.run(
            [sys.executable, "-m", "gantha.api.cli", verb.name, "--help"], capture_output=True, text=True, timeout=60
        ).stdout
        for name in declared - set(verb.arguments):
            assert f"--{name.replace('_', '-')}" in help_text, (verb.name, name)
    limit = function_spec(tools["suggest"])["function"]["parameters"]["properties"]["limit"]
    route_limit = next(
        p for p in schema["paths"]["/api/v3/search-suggest"]["get"]["parameters"] if p["name"] == "limit"
    )
    assert limit["maximum"] == route_limit["schema"]["maximum"] == 50
    too_many = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", "suggest", "pariva", "--limit", "500", "--index", str(small_index)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert too_many.returncode == 2 and too_many.stderr.count("\n") == 1 and "--limit" in too_many.stderr


def test_whole_text_evaluation_compares_flat_and_hierarchical(research):
    from gantha.evaluate import EvalQuery, whole_texts

    queries = [
        EvalQuery(id="dn2", group="pali", query="sāmaññaphala", mode="fuzzy", suttas=["dn2"]),
        EvalQuery(id="dn3", group="pali", query="ambaṭṭha", mode="fuzzy", suttas=["dn3"]),
        EvalQuery(id="none", group="pali", query="nothing", answerable=False),
        EvalQuery(
            id="kd12",
            group="pali",
            split="report",
            query="pārivāsika",
            mode="fuzzy",
            level="chapter",
            nodes=["cst/vin02m3.mul/ch2", "cst/vin02m3.mul/ch3"],
        ),
    ]
    report = whole_texts(research, queries)
    pali, chapters = report["groups"]["pali"], report["groups"]["report/pali"]
    assert pali["queries"] == 2 and chapters["queries"] == 1
    assert pali["level hit@5"] == 1.0 and 0 <= pali["flat hit@5"] <= 1 and 0 <= pali["auto mrr"] <= 1
    assert chapters["level hit@1"] == 1.0 and 0 <= chapters["auto level"] <= 1
    kd12 = next(q for q in report["queries"] if q["id"] == "kd12")
    assert kd12["chapter top"][0] in ("cst/vin02m3.mul/ch2", "cst/vin02m3.mul/ch3")
