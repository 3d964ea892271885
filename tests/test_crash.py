"""``kill -9`` at several moments of every ingest phase (CST, word analysis, grammar, dictionaries,
Burmese, SuttaCentral, Bible, vectors, summaries; each ingest ends by classifying what changed) leaves the
last committed state consistent, and the re-run completes the job: the index then equals the one a clean
run built, table by table.

Each phase runs as ``gantha ingest`` / ``gantha embed`` / ``gantha summarize`` in a process killed at 30 % and
70 % of the time the clean run of that phase took, or (the four slowest: word analysis, dictionaries, vectors,
summaries, each 14–35 s) halfway.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from gantha.model import SearchRequest
from gantha.research import Research
from gantha.store.base import StoreQuery
from gantha.store.embedded import EmbeddedStore

from conftest import DATA, link_bible, link_books

BOOKS = ("vin02m3.mul", "vin02a3.att", "s0101m.mul")
QUERIES = ("bhikkhu", "parivāsa", "love", "爱", "monk")
VOLATILE = {"tasks", "meta"}  # task history and timestamps; sqlite's own tables are skipped too


def _phases(tmp: Path) -> list[tuple[str, list[str], tuple[float, ...]]]:
    cst = link_books(tmp / "cst", BOOKS)
    bible = link_bible(tmp / "bible", ("45",))  # Romans: 433 verses in each translation
    lexicon = DATA / "wikipali"
    return [
        ("cst", ["ingest", "cst", str(cst)], (0.3, 0.7)),
        ("wordstats", ["ingest", "wordstats", str(lexicon / "word_statistics")], (0.5,)),
        ("grammar", ["ingest", "grammar", str(lexicon / "grammar")], (0.5,)),
        ("dict", ["ingest", "dict", str(lexicon / "dict")], (0.5,)),
        ("myanmar", ["ingest", "myanmar", str(DATA / "myanmar")], (0.3, 0.7)),
        ("suttacentral", ["ingest", "suttacentral", str(DATA / "suttacentral")], (0.3, 0.7)),
        ("bible", ["ingest", "bible", str(bible)], (0.3, 0.7)),
        ("vectors", ["embed", "--corpus", "bible,cst:en"], (0.5,)),
        ("summaries", ["summarize", "--no-model"], (0.5,)),
    ]


def _gantha(args: list[str], index: Path) -> subprocess.Popen:
    env = {**os.environ, "GANTHA_VECTOR_CORPORA": "none", "GANTHA_EMBEDDER": "usem3"}  # vectors: their own phase
    return subprocess.Popen(
        [sys.executable, "-m", "gantha.api.cli", *args, "--index", str(index), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _complete(args: list[str], index: Path) -> float:
    started = time.monotonic()
    proc = _gantha(args, index)
    _, err = proc.communicate(timeout=900)
    assert proc.returncode in (0, 3), err[-2000:]  # 3: done, with skipped items reported (Burmese, SuttaCentral)
    return time.monotonic() - started


def _tables(path: Path) -> dict[str, int]:
    if not path.exists():
        return {}
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            f"{path.name}:{n}": db.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0]
            for n in names
            if n not in VOLATILE and not n.startswith("sqlite_")
        }


def fingerprint(index: Path) -> dict[str, object]:
    """What a user of the index sees: books and their counts, documents, side tables, vectors, answers."""
    store = EmbeddedStore(index, create=False)
    try:
        books = {k: (r.passages, r.page_refs, r.bold_terms, r.signature) for k, r in store.books(channel=None).items()}
        every = store.search(StoreQuery(limit=1, aggregate=("book", "channel")))
        vectors = {name: len(store.vectors(name, 0)) for name in store.vector_sets()} if store.vector_sets() else {}
    finally:
        store.close()
    research = Research.open(index)
    try:  # totals (not orders: a re-added document leaves deleted postings that BM25 still counts until merged)
        answers = {q: research.search(SearchRequest(q=q, corpora=["cst", "bible"])).total for q in QUERIES}
    finally:
        research.store.close()
    return {
        "books": books,
        "documents": every.total,
        "per book": every.aggregations.get("book"),
        "per channel": every.aggregations.get("channel"),
        "tables": {**_tables(index / "gantha.sqlite"), **_tables(index / "lexicon.sqlite")},
        "vectors": vectors,
        "answers": answers,
    }


def _consistent(index: Path) -> None:
    """An interrupted index opens and answers, and every book it records holds exactly its recorded documents
    (a book whose documents were committed but not yet recorded is ingested again by the re-run)."""
    store = EmbeddedStore(index)
    try:
        for key, r in store.books(channel=None).items():
            q = StoreQuery(limit=0, aggregate=(), filters={"corpus": [r.info.corpus], "book": [r.info.book]})
            q.filters["channel"] = [r.channel.name]
            assert store.search(q).total == r.passages, f"{key} ({r.channel.name}) lacks recorded documents"
    finally:
        store.close()


def test_an_ingest_killed_at_any_moment_resumes_to_the_clean_result(tmp_path):
    phases = _phases(tmp_path)
    clean, crashed = tmp_path / "clean", tmp_path / "crashed"
    for name, args, moments in phases:
        took = _complete(args, clean)
        expected = fingerprint(clean)
        for moment in moments:
            proc = _gantha(args, crashed)
            time.sleep(took * moment)
            proc.send_signal(signal.SIGKILL)  # no chance to finish, roll back or clean up
            proc.wait()
            _consistent(crashed)
        _complete(args, crashed)  # the re-run completes the job
        assert fingerprint(crashed) == expected, f"after {name} was killed and re-run"
