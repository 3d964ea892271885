"""Search on real CST books: fuzzy vs exact, phrases, filters, aggregations, bold ranking, page refs."""

from __future__ import annotations

import pytest

from gantha.model import SearchRequest
from gantha.search.service import Searcher, SearchError
from gantha.text.pali import fold
from gantha.text.refs import PageRefError


@pytest.fixture(scope="module")
def searcher(small_store):
    return Searcher(small_store)


def coords(res):
    return [h.coordinate for h in res.hits]


def test_fuzzy_ignores_diacritics_either_way(searcher):
    plain = searcher.search(SearchRequest(q="parivasam", limit=100))
    marked = searcher.search(SearchRequest(q="parivāsaṃ", limit=100))
    assert plain.total == marked.total > 0
    assert coords(plain) == coords(marked)


def test_exact_distinguishes_forms(searcher):
    acc = searcher.search(SearchRequest(q="parivāsaṃ", mode="exact", limit=100))
    nom = searcher.search(SearchRequest(q="parivāso", mode="exact", limit=100))
    assert acc.total > 0 and nom.total > 0
    assert all("parivāsaṃ" in h.snippet.lower() for h in acc.hits)
    assert all("parivāso" in h.snippet.lower() for h in nom.hits)
    folded_only = searcher.search(SearchRequest(q="parivasam", mode="exact"))
    assert folded_only.total == 0  # exact needs the diacritics as written


def test_phrase_matches_only_the_sequence(searcher):
    words = searcher.search(SearchRequest(q="samayena buddho bhagavā", limit=100))
    phrase = searcher.search(SearchRequest(q='"samayena buddho bhagavā"', limit=100))
    reversed_phrase = searcher.search(SearchRequest(q='"bhagavā buddho samayena"'))
    assert 0 < phrase.total <= words.total
    assert reversed_phrase.total == 0
    for h in phrase.hits:
        assert "<mark>samayena</mark> <mark>buddho</mark> <mark>bhagavā</mark>" in h.snippet
    assert phrase.query_info.phrases == [["samayena", "buddho", "bhagava"]]


def test_exclusion_and_prefix(searcher):
    base = searcher.search(SearchRequest(q="parivasa*", limit=100))
    without = searcher.search(SearchRequest(q="parivasa* -manatta*", limit=100))
    assert base.total > without.total > 0
    assert base.query_info.prefixes == ["parivasa"]
    for h in without.hits:
        assert "mānatt" not in h.snippet.lower() or "…" in h.snippet


def test_filters_and_aggregations_agree(searcher):
    res = searcher.search(SearchRequest(q="bhikkhu"))
    by_cat = {b.key: b.count for b in res.aggregations["category"]}
    by_book = {b.key: b.count for b in res.aggregations["book"]}
    assert sum(by_cat.values()) == res.total == sum(by_book.values())
    comm = searcher.search(SearchRequest(q="bhikkhu", categories=["aṭṭhakathā"]))
    assert comm.total == by_cat["atthakatha"]
    assert {h.category for h in comm.hits} == {"atthakatha"}
    one = searcher.search(SearchRequest(q="bhikkhu", books=["vin02m3.mul"]))
    assert one.total == by_book["vin02m3.mul"]
    sutta = searcher.search(SearchRequest(q="bhikkhu", tags=["sutta"]))
    assert sutta.total == by_book.get("s0101m.mul", 0)
    titles = {b.key: b.title for b in res.aggregations["book"]}
    assert titles["vin02m3.mul"] == "Cūḷavaggapāḷi"


def test_paging_is_consistent(searcher):
    full = searcher.search(SearchRequest(q="bhikkhu", limit=30))
    pages = [searcher.search(SearchRequest(q="bhikkhu", limit=10, offset=o)) for o in (0, 10, 20)]
    assert [c for p in pages for c in coords(p)] == coords(full)
    assert [h.rank for h in pages[1].hits] == list(range(11, 21))


def test_bold_matches_rank_first(searcher):
    res = searcher.search(SearchRequest(q="pārivāsikā", mode="exact", limit=100))
    flags = [h.bold_match for h in res.hits]
    assert any(flags) and not all(flags)
    assert flags == sorted(flags, reverse=True)  # every bold hit before every plain one
    p = searcher.store.get([res.hits[0].coordinate])[res.hits[0].coordinate]
    assert any("pārivāsikā" in b.lower() for b in p.bold)
    assert f"**{p.bold[0]}**" in p.display


def test_other_scripts_find_the_same(searcher):
    roman = searcher.search(SearchRequest(q="parivāsaṃ", mode="exact"))
    burmese = searcher.search(SearchRequest(q="ပရိဝါသံ", mode="exact"))
    assert burmese.total == roman.total > 0
    assert burmese.query_info.steps == ["script:burmese->roman"]


@pytest.mark.parametrize("ref", ["PTS Vin II 31", "P2.0031", "P2.31", "Vin.II.31"])
def test_page_ref_returns_the_page_start_first(searcher, ref):
    res = searcher.search(SearchRequest(page_ref=ref))
    assert res.hits[0].coordinate == "cst/vin02m3.mul/75"
    assert all("P2.0031" in h.page_refs for h in res.hits)
    assert res.query_info.page_ref["key"] == "P2.0031"


@pytest.mark.parametrize(("ref", "key"), [("M0.82", "M0.0082"), ("V0.77", "V0.0077")])
def test_page_ref_other_editions(searcher, ref, key):
    res = searcher.search(SearchRequest(page_ref=ref, books=["vin02m3.mul"]))
    assert res.hits[0].coordinate == "cst/vin02m3.mul/75"
    assert all(key in h.page_refs for h in res.hits)


@pytest.mark.parametrize(
    ("req", "code"),
    [
        (SearchRequest(q=""), "empty_query"),
        (SearchRequest(q='   ""  '), "empty_query"),
        (SearchRequest(q="x", books=["nope.mul"]), "unknown_book"),
        (SearchRequest(q="x", categories=["sutta"]), "unknown_category"),
        (SearchRequest(q="x", tags=["nonsense"]), "unknown_tag"),
        (SearchRequest(q="x", mode="semantic"), "mode_unavailable"),
    ],
)
def test_bad_requests_say_why(searcher, req, code):
    with pytest.raises(SearchError) as exc:
        searcher.search(req)
    assert exc.value.code == code


def test_bad_page_ref(searcher):
    with pytest.raises(PageRefError, match="accepted forms"):
        searcher.search(SearchRequest(page_ref="page thirty-one"))


def test_absurd_page_size_is_refused():
    with pytest.raises(ValueError):
        SearchRequest(q="x", limit=10**6)


def test_snippets_highlight_the_matched_words(searcher):
    res = searcher.search(SearchRequest(q="pārivāsikā", limit=20))
    for h in res.hits:
        assert "<mark>" in h.snippet
        marked = h.snippet.split("<mark>")[1].split("</mark>")[0]
        assert fold(marked) == "parivasika"
