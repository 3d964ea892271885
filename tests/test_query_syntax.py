"""Query syntax on real CST books: a word quoted before iti found however it is typed, and word NEAR/n word.

Every expectation is read from the books' own text: the paragraphs that write a word before iti in any
spelling, the paragraphs where two words stand within n words of each other."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gantha.api.app import create_app
from gantha.api.cli import app
from gantha.model import SearchMode, SearchRequest
from gantha.research import Research
from gantha.search.query import MAX_NEAR
from gantha.search.service import SearchError
from gantha.text.pali import WORD_RE, canon, fold


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


@pytest.fixture(scope="module")
def client(small_index) -> TestClient:
    return TestClient(create_app(small_index))


def _coordinates(research: Research, q: str, mode: str, book: str) -> set[str]:
    res = research.search(SearchRequest(q=q, mode=SearchMode(mode), books=[book], limit=1000))
    assert res.total == len(res.hits)
    return {h.coordinate for h in res.hits}


def _written(research: Research, book: str, pattern: str) -> dict[str, set[str]]:
    """Paragraphs of a book whose canonical text matches ``pattern``, by the spelling matched."""
    found: dict[str, set[str]] = {}
    for p in research.store.book_passages("cst", book):
        for m in re.finditer(pattern, canon(p.text)):
            found.setdefault(m.group(0), set()).add(p.coordinate)
    return found


# --- iti ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["exact", "fuzzy"])
def test_a_word_quoted_before_iti_is_found_however_it_is_typed(research, mode):
    # the Cūḷavagga writes ‘‘…dhārayāmī’’ti in most paragraphs and dhārayāmīti in a few
    book = "vin02m3.mul"
    spelled = _written(research, book, r"\bdhārayāmī(’*ti|ti)\b")
    quoted = {c for s, cs in spelled.items() if "’" in s for c in cs}
    joined = spelled.get("dhārayāmīti", set())
    assert quoted - joined and joined  # both spellings stand in the book
    for typed in ("dhārayāmīti", "dhārayāmī’ti", "dhārayāmī ti", '"dhārayāmī’’ti"'):
        found = _coordinates(research, typed, mode, book)
        if mode == "exact":
            assert found == quoted | joined, typed
        else:  # every form of the lemma, these among them
            assert found >= quoted | joined, typed
    info = research.search(SearchRequest(q="dhārayāmīti", mode=SearchMode(mode))).query_info
    assert [len(i["spellings"]) for i in info.iti] == [2]  # the method shown: the word, and the word before ’ti
    assert research.search(SearchRequest(q="dhārayāmī", mode=SearchMode.EXACT, books=[book])).total >= len(quoted)


@pytest.mark.parametrize("mode", ["exact", "fuzzy"])
def test_a_phrase_with_a_word_quoted_before_iti(research, mode):
    # the arahant's formula in the Dīgha: ‘…nāparaṃ itthattāyā’ti pajānāti, or itthattāyāti pajānāti
    book = "s0101m.mul"
    spelled = _written(research, book, r"\bitthattāyā(’*ti| ti|ti) pajānāti\b")
    every = {c for cs in spelled.values() for c in cs}
    assert any("’" in s for s in spelled) and "itthattāyāti pajānāti" in spelled
    for typed in ('"itthattāyāti pajānāti"', '"itthattāyā’ti pajānāti"', '"itthattāyā ti pajānāti"'):
        assert _coordinates(research, typed, mode, book) == every, typed
    res = research.search(SearchRequest(q='"itthattāyāti pajānāti"', mode=SearchMode(mode), books=[book]))
    assert all("<mark>" in h.snippet for h in res.hits)  # the quoted spelling is marked too
    assert len(res.query_info.iti) == 1 and len(res.query_info.iti[0]["spellings"]) == 2


def test_a_headword_ending_in_ti_is_not_read_as_iti(research):
    # pajānāti is the verb, not pajānā + iti; -pajānāti leaves out the same paragraphs
    book = "s0101m.mul"
    res = research.search(SearchRequest(q="pajānāti", mode=SearchMode.EXACT, books=[book], limit=1000))
    assert res.query_info.iti == []
    assert {h.coordinate for h in res.hits} == {
        c for cs in _written(research, book, r"\bpajānāti\b").values() for c in cs
    }


# --- NEAR -----------------------------------------------------------------------------------------


def _near_truth(research: Research, book: str, left: set[str], right: set[str], distance: int, analyse) -> set[str]:
    """Paragraphs where a word of ``left`` and one of ``right`` stand with at most ``distance`` words between."""
    out = set()
    for p in research.store.book_passages("cst", book):
        tokens = [analyse(t) for t in WORD_RE.findall(p.text)]
        a = [i for i, t in enumerate(tokens) if t in left]
        b = [j for j, t in enumerate(tokens) if t in right]
        if any(i != j and abs(i - j) - 1 <= distance for i in a for j in b):
            out.add(p.coordinate)
    return out


def test_near_finds_two_words_within_n_words_either_order_every_form(research):
    book = "vin02m3.mul"
    res = research.search(SearchRequest(q="parivāsa NEAR/3 dātabba", books=[book], limit=1000))
    (near,) = res.query_info.near
    left, right = (set(forms) for forms in near["forms"])
    assert near["distance"] == 3 and len(left) > 3 and len(right) > 3  # every attested form of each lemma
    truth = _near_truth(research, book, left, right, 3, fold)
    assert {h.coordinate for h in res.hits} == truth and res.total == len(truth)
    reversed_ = {
        p.coordinate
        for p in research.store.book_passages("cst", book)
        if (toks := [fold(t) for t in WORD_RE.findall(p.text)])
        and any(t in right and any(u in left for u in toks[k + 1 : k + 5]) for k, t in enumerate(toks))
    }
    assert reversed_ & truth  # dātabbo … parivāso: the other order is found too
    swapped = research.search(SearchRequest(q="dātabba NEAR/3 parivāsa", books=[book], limit=1000))
    assert {h.coordinate for h in swapped.hits} == truth
    totals = [
        research.search(SearchRequest(q=f"parivāsa NEAR/{n} dātabba", books=[book], limit=1)).total for n in (0, 3, 12)
    ]
    assert totals[0] < totals[1] < totals[2]  # the bound is a bound
    assert res.hits and all("<mark>" in h.snippet for h in res.hits)


def test_near_in_exact_mode_takes_the_forms_as_typed(research):
    book = "vin02m3.mul"
    res = research.search(SearchRequest(q="parivāso NEAR/2 dinno", mode=SearchMode.EXACT, books=[book], limit=1000))
    assert res.query_info.near[0]["forms"] == [["parivāso"], ["dinno"]]
    truth = _near_truth(research, book, {"parivāso"}, {"dinno"}, 2, canon)
    assert truth and {h.coordinate for h in res.hits} == truth


def test_near_alone_and_chained(research):
    one = research.search(SearchRequest(q="parivāsa NEAR dātabba", limit=1))
    assert one.query_info.near[0]["distance"] == 5  # documented default
    chain = research.search(SearchRequest(q="bhikkhu NEAR/2 parivāsa NEAR/3 dātabba", limit=1))
    assert [n["words"] for n in chain.query_info.near] == [["bhikkhu", "parivasa"], ["parivasa", "databba"]]
    assert 0 < chain.total <= one.total


@pytest.mark.parametrize(
    "query",
    [
        "parivāsa NEAR/x dātabba",
        f"parivāsa NEAR/{MAX_NEAR + 1} dātabba",
        "NEAR dātabba",
        "parivāsa NEAR",
        '"a b" NEAR c',
    ],
)
def test_a_malformed_near_is_a_clear_error_on_every_surface(research, client, small_index, query):
    with pytest.raises(SearchError, match="NEAR") as err:
        research.search(SearchRequest(q=query))
    assert err.value.code == "invalid_query"
    r = client.get("/api/v3/search", params={"q": query})
    assert (
        r.status_code == 400 and r.json()["error"]["code"] == "invalid_query" and "NEAR" in r.json()["error"]["message"]
    )
    r = CliRunner().invoke(app, ["search", query, "--index", str(small_index)])
    assert r.exit_code != 0 and "NEAR" in r.output and len(r.output.strip().splitlines()) == 1
