"""The PostgreSQL store on pg_textsearch's BM25 indexes (scripts/deploy_postgres.py's servers on this machine):
a fresh data folder loads the extension and the store ranks by it; the ranked fields' text is cut back by
PostgreSQL into exactly the tokens gantha's analysis cut; a page from the index is the page BM25 over every
match gives, its many bold-first matches walked down the index or, past a bound, ranked in SQL; searches go on,
without an error, while a book is written again; a server without the extension is said at start and ranks the
slower way; an index made with BM25 indexes on a server that lost them is refused."""

from __future__ import annotations

import logging
import shutil
import socket
import sys
import tempfile
import threading
from pathlib import Path

import orjson
import pytest

from gantha.ingest import ingest_cst
from gantha.model import Passage
from gantha.store.base import Clause, StoreError, StoreQuery
from gantha.store.factory import open_store
from test_store_conformance import _passage, _record

from conftest import link_books

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
pytest.importorskip("pgserver")
import deploy_postgres

BOOK = "vin02m3.mul"  # the Cūḷavagga: 1,500 paragraphs, words from the rarest to bhikkhu and ca
GLOSSED = "s0501a.att"  # the Khuddakapāṭha's commentary: words in bold, ranked first


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def folder():
    # not under pytest's folder, which a concurrent pytest may close to other users (PostgreSQL's, when root)
    path = Path(tempfile.mkdtemp(prefix="gantha-bm25-"))
    yield path
    for server in path.iterdir():
        if (server / "primary" / "PG_VERSION").exists():
            deploy_postgres.stop_postgres(server / "primary", mode="immediate")
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def indexed(folder, tmp_path_factory) -> str:
    """A fresh server with the project's settings, holding two real CST books; its URL."""
    url = deploy_postgres.start_primary(folder / "bm25", _free_port())
    store = open_store(url)
    assert ingest_cst(store, link_books(tmp_path_factory.mktemp("cst"), (BOOK, GLOSSED))).ok
    store.close()
    return url


def test_a_fresh_data_folder_loads_the_extension_and_ranks_by_it(indexed, folder):
    import psycopg

    assert "shared_preload_libraries = 'pg_textsearch'" in (folder / "bm25" / "primary" / "postgresql.conf").read_text()
    store = open_store(indexed, create=False)
    assert store.ranking == "bm25" and store.bm25_pages and not store.counts_ahead
    assert store.database()["ranking"] == "bm25"
    with psycopg.connect(indexed) as conn:
        assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'pg_textsearch'").fetchone()
        indexes = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%USING bm25%'")}
    assert indexes == {"docs_fold_bm25", "docs_exact_bm25", "docs_bold_fold_bm25", "docs_bold_exact_bm25"}
    store.close()


def test_postgresql_cuts_the_ranked_text_into_the_analysed_tokens(indexed):
    """pg_textsearch tokenizes ``name_words`` with the 'simple' configuration: the same words, each as often."""
    import psycopg

    with psycopg.connect(indexed) as conn:
        for name in ("fold", "exact", "bold_fold", "bold_exact"):
            rows, differ = conn.execute(
                f"SELECT count(*), count(*) FILTER (WHERE to_tsvector('simple', {name}_words) <> {name}) FROM docs"
            ).fetchone()
            assert rows > 1000 and differ == 0, name


@pytest.mark.parametrize(
    "q",
    [
        StoreQuery(must=[Clause("fold", ["bhikkhu"])], rank_first=[Clause("bold_fold", ["bhikkhu"])]),
        StoreQuery(must=[Clause("fold", ["ca"])], limit=10, offset=20),
        StoreQuery(must=[Clause("exact", ["saṅgho", "saṅghassa", "saṅghaṃ"])], filters={"primary": ["yes"]}),
        StoreQuery(
            must=[Clause("exact", ["parivāsaṃ", "mānattaṃ", "abbhānaṃ"], "set")],
            scoring=[Clause("exact", ["abbhānaṃ"])],
        ),
        StoreQuery(must=[Clause("fold", ["parivasam"]), Clause("fold", ["deti"])]),
    ],
    ids=["frequent, bold first", "most frequent, third page", "three forms", "a set ranked by one", "two words"],
)
def test_a_page_from_the_index_is_the_page_of_bm25_over_every_match(indexed, monkeypatch, q):
    store = open_store(indexed, create=False)
    assert store.plan(q).bm25()
    got = store.search(q)
    monkeypatch.setattr("gantha.store.postgres.compiler.TIERS", ())  # every match ranked in SQL
    monkeypatch.setattr(store, "bm25_pages", False)
    want = store.search(q)
    store.close()
    assert got.total == want.total > 0 and got.aggregations == want.aggregations
    assert len(got.hits) == len(want.hits) > 0
    assert [h.ranked_first for h in got.hits] == [h.ranked_first for h in want.hits]
    # the same page up to ties and to BM25's field lengths (tantivy's one-byte norms there, exact in the index)
    overlap = {h.passage.doc_id for h in got.hits} & {h.passage.doc_id for h in want.hits}
    assert len(overlap) >= 0.8 * len(want.hits)
    assert got.hits[0].score == pytest.approx(want.hits[0].score, rel=0.1)


def test_many_matches_ranked_first_are_walked_down_the_index_else_ranked_in_sql(indexed, monkeypatch):
    """Past :data:`FIRST_SCORED` matches ranked first, the page's are found down the BM25 index (its scores, as
    if each were scored); a walk longer than :data:`FIRST_WALK_MS` gives way to the SQL ranking."""
    import gantha.store.postgres.store as pg
    from gantha.store.postgres.compiler import Plan

    store = open_store(indexed, create=False)
    words = ["buddham", "saranam", "gacchami", "dhammam", "sangham"]
    q = StoreQuery(must=[Clause("fold", words)], rank_first=[Clause("bold_fold", words)])
    monkeypatch.setattr(pg, "KEPT_FROM", 10**9)  # nothing kept: each way computed
    monkeypatch.setattr(pg, "FIRST_SCORED", 10**9)
    scored = store.search(q)
    monkeypatch.setattr(pg, "FIRST_SCORED", 0)
    walked = store.search(q)
    first = [h for h in scored.hits if h.ranked_first]
    assert first and [h.ranked_first for h in walked.hits] == [h.ranked_first for h in scored.hits]
    assert [h.score for h in walked.hits] == pytest.approx([h.score for h in scored.hits])
    assert {h.passage.doc_id for h in walked.hits} == {h.passage.doc_id for h in scored.hits}
    walk = Plan.bm25_first
    monkeypatch.setattr(  # a walk that takes a second
        Plan, "bm25_first", lambda self, limit: f"SELECT w.* FROM ({walk(self, limit)}) w, pg_sleep(1) s"
    )
    monkeypatch.setattr(pg, "FIRST_WALK_MS", 50)
    fallen = store.search(q)
    in_sql = store.db.fetch(store.plan(q).page(None, first_only=True, window=(q.limit, 0)))
    want = [Passage(**orjson.loads(passage)).doc_id for _, _, ranked_first, _, passage in in_sql if ranked_first]
    assert [h.passage.doc_id for h in fallen.hits if h.ranked_first] == want and want
    store.close()


def test_searches_go_on_while_a_book_is_written_again(indexed, tmp_path):
    store = open_store(indexed, create=False)
    q = StoreQuery(must=[Clause("fold", ["bhikkhu"])], rank_first=[Clause("bold_fold", ["bhikkhu"])])
    before = store.search(q)
    errors: list[BaseException] = []
    totals: set[int] = set()
    stop = threading.Event()

    def search() -> None:
        while not stop.is_set():
            try:
                res = store.search(q)
                totals.add(res.total)
                assert len(res.hits) == q.limit
            except BaseException as exc:  # reported below
                errors.append(exc)
                return

    readers = [threading.Thread(target=search) for _ in range(2)]
    for r in readers:
        r.start()
    try:
        writer = open_store(indexed, create=False)
        assert ingest_cst(writer, link_books(tmp_path / "cst", (BOOK,)), force=True).ok
        writer.close()
    finally:
        stop.set()
        for r in readers:
            r.join()
    assert not errors, errors
    assert totals == {before.total}  # the old book, then the new one: never half of it
    after = store.search(q)
    assert after.total == before.total and len(after.hits) == len(before.hits)
    assert [h.passage.doc_id for h in after.hits][:3] == [h.passage.doc_id for h in before.hits][:3]
    store.close()


def test_a_server_without_the_extension_is_said_and_ranks_the_slower_way(folder, caplog):
    url = deploy_postgres.start_primary(folder / "plain", _free_port(), preload="")
    with caplog.at_level(logging.WARNING, logger="gantha"):
        store = open_store(url)
    assert store.ranking == "tsvector" and store.counts_ahead
    assert any("no pg_textsearch" in r.getMessage() for r in caplog.records)
    store.add([_passage("note", "1", "the quuxite rule"), _passage("note", "2", "another quuxite quuxite")])
    store.commit([_record("note")])
    res = store.search(StoreQuery(must=[Clause("fold", ["quuxite"])]))
    assert res.total == 2 and res.hits[0].passage.para == "2"
    store.close()


def test_an_index_made_with_bm25_on_a_server_that_lost_the_extension_is_refused(folder):
    url = deploy_postgres.start_primary(folder / "lost", _free_port())
    store = open_store(url)
    store.add([_passage("note", "1", "the quuxite rule")])
    store.commit([_record("note")])
    store.close()
    data = folder / "lost" / "primary"
    deploy_postgres.stop_postgres(data)
    with open(data / "postgresql.conf", "a") as conf:
        conf.write("shared_preload_libraries = ''\n")
    deploy_postgres._start(data)
    with pytest.raises(StoreError, match="shared_preload_libraries"):
        open_store(url, create=False)


def test_damaged_data_is_a_store_error_that_says_what_to_do(indexed):
    """A table rewritten under pg_textsearch 1.0 (VACUUM FULL: measured on the whole CST, its BM25 index then read
    blocks past the table's end until reindexed and the server restarted) answers a store error with the remedy,
    which the API gives as 503 index_unavailable, not a bare 500."""
    from psycopg import errors

    store = open_store(indexed, create=False)
    with pytest.raises(StoreError, match="REINDEX its bm25 indexes and restart PostgreSQL"), store.db._errors():
        raise errors.DataCorrupted('could not read blocks 87640..87640 in file "base/16384/1972006"')
    store.close()
