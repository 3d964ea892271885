"""The inflections of the most frequent words, prepared in the background after a write (real CST books)."""

from __future__ import annotations

import shutil

import pytest

from gantha.config import settings
from gantha.search import form_lemmas
from gantha.search.words import Words
from gantha.store.embedded import EmbeddedStore
from gantha.tasks import TaskRunner

WARM = 60  # words prepared in these tests (the default prepares 30,000 on the whole canon)


@pytest.fixture
def index(small_index, tmp_path, monkeypatch):
    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    (copy / "expansions.sqlite").unlink(missing_ok=True)
    monkeypatch.setenv("GANTHA_WARM_WORDS", str(WARM))
    settings.cache_clear()
    yield copy
    settings.cache_clear()


def _words(index) -> tuple[EmbeddedStore, Words]:
    store = EmbeddedStore(index, create=False)
    return store, Words(store.lexicon(), store)


def test_warmed_inflections_are_read_not_computed_by_another_process(index, monkeypatch):
    store, words = _words(index)
    frequent = store.frequent_words(WARM)
    assert len(frequent) == WARM and "bhikkhave" in frequent[:10]  # the most frequent first
    computed = {w: words.inflection(w) for w in ("bhikkhave", "parivasa")}
    assert words.warm(WARM, seconds=60) == (WARM, WARM)
    store.close()

    store, fresh = _words(index)  # a worker started later: what was prepared is read, never computed
    monkeypatch.setattr(Words, "_computed_inflection", lambda self, word: pytest.fail(f"{word} computed again"))
    assert fresh.inflection("bhikkhave") == computed["bhikkhave"]
    assert fresh.inflection("bhikkhave").lemma == "bhikkhu" and "bhikkhunam" in fresh.inflection("bhikkhave").forms
    monkeypatch.undo()
    # another word of a prepared lemma: the lemma's paradigm is read, not worked out from the tables again
    monkeypatch.setattr(Words, "family", lambda self, *a, **k: pytest.fail("paradigm computed again"))
    lemma = computed["parivasa"].lemma
    assert fresh._paradigms(lemma)[1] == computed["parivasa"].forms
    store.close()


def test_a_slice_of_the_work_queues_the_rest_and_stops_when_all_are_kept(index):
    store, words = _words(index)
    kept, wanted = words.warm(WARM, seconds=0.0)  # nothing computed in no time
    assert (kept, wanted) == (0, WARM)
    runner = TaskRunner(index, idle=0.1)
    runner.store = store
    try:
        runner._expand_if_due()
        assert [t.kind for t in store.tasks().pending("expand")] == ["expand"]
        runner._expand_if_due()
        assert len(store.tasks().pending("expand")) == 1  # asked twice: one task
        assert runner.step()  # in the task process, at lower priority
        done = [t for t in store.tasks().list() if t.kind == "expand" and t.state == "done"]
        assert done and done[0].result == {"kept": WARM, "wanted": WARM}
        assert not store.tasks().pending("expand")  # all kept: nothing queued again
        runner._expand_if_due()
        assert not store.tasks().pending("expand")
    finally:
        runner.stop()
        store.close()


def test_forms_lemmas_that_lag_are_tabulated_by_the_background_task(index):
    """An index whose forms' lemmas lag behind (a lexicon copied in, a first run that left them to the server)
    gets them from the same task, with every inflection already kept: its searches then read them."""
    store, words = _words(index)
    assert words.warm(WARM, seconds=60) == (WARM, WARM)
    store.db.execute("DELETE FROM vocab_lemmas")
    store.set_meta("form_lemmas", "")
    assert form_lemmas.due(store, words) and not store.lemma_forms("bhikkhu")
    runner = TaskRunner(index, idle=0.1)
    runner.store = store
    try:
        runner._expand_if_due()
        assert [t.kind for t in store.tasks().pending("expand")] == ["expand"]
        assert runner.step()
        assert not form_lemmas.due(store, words) and not store.tasks().pending("expand")
        assert {f for f, _, _ in store.lemma_forms("bhikkhu")} == {f.form for f in words.family("bhikkhu", False).forms}
    finally:
        runner.stop()
        store.close()


def test_off_prepares_nothing(index, monkeypatch):
    monkeypatch.setenv("GANTHA_WARM_WORDS", "0")
    settings.cache_clear()
    store = EmbeddedStore(index, create=False)
    runner = TaskRunner(index)
    runner.store = store
    try:
        runner._expand_if_due()
        assert not store.tasks().pending("expand")
    finally:
        runner.stop()
        store.close()


def test_a_server_without_the_admin_api_runs_only_this_task(index):
    """No admin key: the server prepares the frequent words and leaves any other task queued for an admin."""
    store = EmbeddedStore(index, create=False)
    other = store.tasks().submit("ingest", {"source": "markdown", "path": str(index / "absent.md")})
    runner = TaskRunner(index, idle=0.1, kinds=("expand",))
    runner.store = store
    try:
        runner._expand_if_due()
        assert runner.step()  # the expand task, not the older ingest
        assert runner.step() is False  # nothing else for it
        assert store.tasks().get(other.id).state == "queued"
        assert [t.result for t in store.tasks().list() if t.kind == "expand"] == [{"kept": WARM, "wanted": WARM}]
    finally:
        runner.stop()
        store.close()
