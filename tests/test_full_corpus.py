"""The whole CST corpus: every book indexed, counts checked against the XML, search on all of it."""

from __future__ import annotations

import re

import pytest
from lxml import etree

from gantha.corpus.cst import discover, read_book
from gantha.corpus.files import logical_name, read_text
from gantha.model import Coordinate, SearchRequest
from gantha.search.service import Searcher
from gantha.search.words import Words
from gantha.store.base import StoreQuery
from gantha.text.pali import fold

from conftest import CST

pytestmark = pytest.mark.full


def test_all_books_indexed_with_counts_from_the_xml(full_ingest, full_store):
    _, summary = full_ingest
    assert summary.ok, summary.skipped[:3]
    assert summary.books == 217
    xml_files = [f for f in CST.iterdir() if re.search(r"\.(mul|att|tik|nrf)\d*\.xml$", logical_name(f))]
    expected = {"paragraphs": 0, "page_refs": 0, "bold": 0}
    for f in xml_files:
        root = etree.fromstring(re.sub(r"^<\?xml[^>]*\?>", "", read_text(f)))
        expected["paragraphs"] += int(root.xpath("count(//p)"))
        expected["page_refs"] += int(root.xpath("count(//pb)"))
        expected["bold"] += int(
            root.xpath("count(//hi[@rend='bold'][normalize-space(.)!=''][not(ancestor::hi[@rend='bold'])])")
        )
    pali = full_store.search(StoreQuery(filters={"channel": ["pali"]}, limit=1, aggregate=())).total
    assert summary.passages == expected["paragraphs"] == pali
    assert summary.page_refs == expected["page_refs"]
    assert summary.bold_terms >= expected["bold"]  # each span, and the whole word where one stops inside it
    books = full_store.books("cst")
    assert len(books) == 217
    assert {r.info.category for r in books.values()} == {"mula", "atthakatha", "tika", "anya"}


def test_coordinates_unique_over_the_corpus():
    books, problems = discover(CST)
    assert not problems
    seen: set[str] = set()
    total = 0
    for book in books:
        for p in read_book(book):
            seen.add(p.coordinate)
            total += 1
    assert total == len(seen) == 523_729


def test_fuzzy_parivasa_with_and_without_diacritics(full_store):
    s = Searcher(full_store)
    a = s.search(SearchRequest(q="parivasa", limit=100))
    b = s.search(SearchRequest(q="parivāsa", limit=100))
    assert a.total == b.total > 0
    assert [h.coordinate for h in a.hits] == [h.coordinate for h in b.hits]


def test_a_word_is_read_as_the_lemma_of_its_spelling(full_store):
    """ñāṇaṃ folds to nanam, which is also the rare nanaṃ (a pronoun's form, whose family stands in most of
    the canon): the search is for knowledge, ñāṇa, not for the pronoun's forms na, no, naṃ …"""
    words = Words(full_store.lexicon(), full_store)
    spellings = full_store.forms_by_fold("nanam")
    assert spellings[0][0] == "ñāṇaṃ" and len(spellings) > 1  # the word really is ambiguous once folded
    for typed in ("ñāṇaṃ", "nanam"):
        inflection = words.inflection(fold(typed))
        assert inflection is not None and inflection.lemma == "ñāṇa"
        assert "nanena" in inflection.forms and "na" not in inflection.forms
    for typed, lemma in (("bālaṃ", "bāla"), ("balaṃ", "bala"), ("kūlaṃ", "kūla")):  # the diacritics typed choose
        inflection = words.inflection(typed)
        assert inflection is not None and inflection.lemma == lemma, typed


def test_exact_forms_differ_on_the_full_corpus(full_store):
    s = Searcher(full_store)
    acc = s.search(SearchRequest(q="parivāsaṃ", mode="exact", limit=100))
    nom = s.search(SearchRequest(q="parivāso", mode="exact", limit=100))
    assert acc.total > 0 and nom.total > 0
    assert {h.coordinate for h in acc.hits} != {h.coordinate for h in nom.hits}


def test_pts_footnote_reference(full_store):
    res = Searcher(full_store).search(SearchRequest(page_ref="PTS Vin II 31"))
    assert res.hits[0].coordinate == "cst/vin02m3.mul/75"
    assert res.hits[0].path[2] == "2. Pārivāsikakkhandhakaṃ"
    assert {h.book for h in res.hits} == {"vin02m3.mul"}


def test_page_ref_narrowed_by_collection(full_store):
    s = Searcher(full_store)
    any_book = s.search(SearchRequest(page_ref="P2.0031", limit=100))
    vinaya = s.search(SearchRequest(page_ref="Vin II 31", limit=100))
    assert len({h.book for h in any_book.hits}) > 1  # volume 2 of several PTS collections
    assert {h.book for h in vinaya.hits} == {"vin02m3.mul"}


def test_commentary_filter_and_tags(full_store):
    s = Searcher(full_store)
    res = s.search(SearchRequest(q="parivasa*", categories=["atthakatha"], tags=["vinaya"], limit=50))
    assert res.total > 0
    assert all(h.category == "atthakatha" and "vinaya" in h.tags for h in res.hits)


def test_chinese_term_reaches_pali_through_the_dictionaries(full_ingest):
    from gantha.research import Research
    from gantha.text.pali import fold

    res = Research.open(full_ingest[0]).search(SearchRequest(q="夜叉", limit=10))
    bridge = res.query_info.bridges[0]
    assert bridge["to"] == "yakkha" and "yakkhā" in bridge["forms"] and "bridge" in res.query_info.routes
    assert res.total > 100 and res.hits and all(h.channel == "pali" for h in res.hits)
    assert all("yakkh" in fold(h.snippet) for h in res.hits)


def test_multi_character_chinese_terms_reach_their_lemma(full_ingest):
    from gantha.research import Research

    research = Research.open(full_ingest[0])
    for term, lemma, at_least in (
        ("四圣谛", "ariyasacca", 600),
        ("四念处", "satipaṭṭhāna", 800),
        ("世尊", "bhagavant", 20_000),
        ("比丘尼", "bhikkhunī", 3_000),
    ):
        res = research.search(SearchRequest(q=term, limit=5))
        assert res.query_info.bridges[0]["to"] == lemma and res.total >= at_least, (term, res.total)


def test_every_sutta_and_vinaya_text_is_aligned(full_store):
    counts = {
        prefix: len([t for t in full_store.texts(prefix) if t.uid[len(prefix)].isdigit()])
        for prefix in ("dn", "mn", "sn", "an", "pli-tv-kd")
    }
    assert counts["dn"] == 34 and counts["mn"] == 152 and counts["pli-tv-kd"] == 22
    assert (
        counts["sn"] > 1800 and counts["an"] > 1900
    )  # a range file (an1.1-10) may name its suttas one by one or as one
    english = full_store.search(StoreQuery(filters={"channel": ["en"]}, limit=1, aggregate=())).total
    assert english > 50_000
    mn10 = full_store.text("mn10")
    assert (mn10.book, mn10.first_para) == ("s0201m.mul", "105")


def test_book_categories_and_tags_follow_cst_classification():
    books, _ = discover(CST)
    layer = {"Tipiṭaka (Mūla)": "mula", "Aṭṭhakathā": "atthakatha", "Tīkā": "tika", "Anya": "anya"}
    for b in books:  # the category is CST's own (its table of contents), and a tag beside the piṭaka's
        assert b.info.category == layer[b.info.group_path[0]], b.book
        assert b.info.category in b.info.tags
    by_book = {b.book: b.info.tags for b in books}
    assert {"vinaya", "khandhaka", "culavagga", "mula"} <= set(by_book["vin02m3.mul"])
    assert {"vinaya", "khandhaka", "culavagga", "atthakatha"} <= set(by_book["vin02a3.att"])
    assert {"sutta", "digha", "silakkhandhavagga", "tika"} <= set(by_book["s0101t.tik"])


def test_paragraph_ranges_are_written_in_full(full_store):
    # CST numbers some paragraphs with a range written short (n="156-9"): the coordinate is written in
    # full, as the long form is elsewhere, and the short form still resolves
    assert "cst/abh01a.att/156-159" in full_store.get(["cst/abh01a.att/156-159"])
    assert str(Coordinate.parse("cst/abh01a.att/156-9")) == "cst/abh01a.att/156-159"
