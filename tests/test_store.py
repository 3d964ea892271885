"""The embedded store: add, replace, delete, persistence, and an ingest killed half-way then resumed."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

from gantha.corpus.cst import book_info
from gantha.ingest import ingest_cst
from gantha.model import Passage
from gantha.store.base import BookRecord, Clause, StoreQuery
from gantha.store.embedded import EmbeddedStore, StoreError

from conftest import link_books


def _passage(para: str, text: str) -> Passage:
    return Passage(corpus="cst", book="x01m.mul", para=para, seq=int(para), text=text, display=text)


def _find(store: EmbeddedStore, word: str) -> list[str]:
    res = store.search(StoreQuery(must=[Clause("fold", [word])], limit=50))
    return sorted(h.passage.coordinate for h in res.hits)


def test_add_replace_delete_persist(tmp_path):
    store = EmbeddedStore(tmp_path)
    store.add([_passage("1", "sabbe saṅkhārā aniccā"), _passage("2", "sabbe dhammā anattā")])
    store.commit([BookRecord(book_info("x01m.mul", "X"), passages=2)])
    assert _find(store, "sabbe") == ["cst/x01m.mul/1", "cst/x01m.mul/2"]

    store.delete(["cst/x01m.mul/2"])  # replace = delete + add
    store.add([_passage("2", "sabbe dhammā dukkhā")])
    store.commit()
    assert _find(store, "anatta") == []
    assert _find(store, "dukkha") == ["cst/x01m.mul/2"]
    store.finish()
    store.close()

    reopened = EmbeddedStore(tmp_path, create=False)
    assert reopened.count() == 2
    assert reopened.get(["cst/x01m.mul/2", "cst/x01m.mul/9"]).keys() == {"cst/x01m.mul/2"}
    assert reopened.books()["cst/x01m.mul"].info.title == "X"
    reopened.delete_book("cst", "x01m.mul")
    reopened.commit()
    assert reopened.count() == 0 and not reopened.books()


def test_missing_index_is_a_clear_error(tmp_path):
    with pytest.raises(StoreError, match="no index at"):
        EmbeddedStore(tmp_path / "nowhere", create=False)


def test_a_damaged_book_table_is_one_line_naming_the_file_and_the_cure(tmp_path):
    store = EmbeddedStore(tmp_path)
    store.add([_passage("1", "sabbe saṅkhārā aniccā")])
    store.commit([BookRecord(book_info("x01m.mul", "X"), passages=1)])
    store.close()
    with open(tmp_path / "gantha.sqlite", "r+b") as f:
        f.write(b"not a database" * 8)
    run = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", "search", "sabbe", "--index", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and "Traceback" not in run.stderr
    message = " ".join(run.stderr.split())
    assert "gantha.sqlite is damaged" in message and "rebuild the index" in message and "gantha ingest" in message


def test_reingest_is_idempotent(tmp_path, small_cst):
    store = EmbeddedStore(tmp_path / "idx")
    first = ingest_cst(store, small_cst)
    again = ingest_cst(store, small_cst)
    assert again.books == 0 and again.unchanged == first.books
    forced = ingest_cst(store, small_cst, force=True)
    assert forced.passages == first.passages
    assert store.count() == first.passages  # replaced, not duplicated


KILLED_INGEST = textwrap.dedent("""
    import sys
    from pathlib import Path
    from gantha.ingest import ingest_cst
    from gantha.store.embedded import EmbeddedStore
    store = EmbeddedStore(Path(sys.argv[1]))
    original_commit = store.commit
    def commit(books=()):
        original_commit(books)
        print("committed", flush=True)
    store.commit = commit
    ingest_cst(store, Path(sys.argv[2]), commit_every=500)
    print("finished", flush=True)
""")


def test_ingest_killed_half_way_keeps_last_commit_and_resumes(tmp_path):
    corpus = link_books(tmp_path / "cst", ("vin02m3.mul", "vin02a3.att", "s0101m.mul", "vin02m2.mul"))
    index = tmp_path / "idx"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_INGEST, str(index), str(corpus)], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout.readline().strip() == "committed"
    proc.send_signal(signal.SIGKILL)  # no chance to clean up
    proc.wait()

    store = EmbeddedStore(index)
    recorded = store.books()
    assert 0 < len(recorded) < 4
    assert store.count() == sum(r.passages for r in recorded.values())  # exactly the committed books

    summary = ingest_cst(store, corpus)
    assert summary.unchanged == len(recorded) and summary.books == 4 - len(recorded)
    total = sum(r.passages for r in store.books().values())
    assert store.count() == total
    everything = store.search(StoreQuery(limit=10, aggregate=("book",)))
    assert everything.total == total
    per_book = dict(everything.aggregations["book"])
    assert per_book == {k.split("/")[1]: r.passages for k, r in store.books().items()}


def test_malformed_file_is_skipped_and_the_rest_ingested(tmp_path):
    import gzip

    corpus = link_books(tmp_path / "cst", ("vin02m3.mul", "s0101m.mul"))
    bad = corpus / "s0101m.mul2.xml.gz"
    bad.unlink()
    bad.write_bytes(gzip.compress(b"<TEI.2><body><p>unclosed"))
    (corpus / "stray.xml").write_text("<<< not xml")
    store = EmbeddedStore(tmp_path / "idx")
    summary = ingest_cst(store, corpus)
    assert summary.books == 1 and "cst/vin02m3.mul" in store.books()
    reasons = {s["item"]: s["reason"] for s in summary.skipped}
    assert "s0101m.mul2.xml.gz" in reasons["s0101m.mul"]
    assert "stray" in reasons
    assert store.count() == summary.passages
