"""Pali word search, first steps: did-you-mean over the attested words, leading wildcards, agent-sized pages."""

from __future__ import annotations

import pytest

from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.service import SearchError
from gantha.text.pali import fold


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


def test_a_typo_gets_the_nearest_attested_words(research):
    res = research.search(SearchRequest(q="parivsa"))
    assert res.outcome == "no_hits" and res.suggestions and "did you mean" in res.message
    assert any(fold(s).startswith("parivas") for s in res.suggestions)
    assert research.search(SearchRequest(q=res.suggestions[0])).total > 0  # every suggestion is attested


def test_leading_wildcards_find_compounds(research):
    res = research.search(SearchRequest(q="*parivāsaṃ", limit=100))
    assert res.total > 0 and "*parivasam" in res.query_info.prefixes
    marked = {m.lower() for h in res.hits for m in _marks(h.snippet)}
    assert any(fold(m).endswith("parivasam") and len(m) > len("parivāsaṃ") for m in marked)  # inside a compound
    inner = research.search(SearchRequest(q="*parivās*", limit=1))
    assert inner.total >= res.total
    with pytest.raises(SearchError, match="leading wildcards"):
        research.search(SearchRequest(q="*sa"))


def test_pages_up_to_a_thousand(research):
    res = research.search(SearchRequest(q="bhikkhu", limit=1000))
    assert 100 < len(res.hits) <= 1000 and res.total >= len(res.hits)


def _marks(snippet: str) -> list[str]:
    import re

    return re.findall(r"<mark>(.*?)</mark>", snippet)


def test_a_lemma_search_is_ranked_by_relevance(research):
    res = research.search(SearchRequest(limit=50), lemma="parivāsa")
    plain = [h.score for h in res.hits if not h.bold_match]
    assert len(set(plain)) > 5 and plain == sorted(plain, reverse=True)  # not one flat score for every hit
    bold = [h.bold_match for h in res.hits]
    assert bold == sorted(bold, reverse=True)  # bold definitions still first


def test_sati_is_searched_as_mindfulness_not_as_santa(research):
    """The issue's miss: `sati` was read as santa's locative and searched as sa, sam, se, santi …"""
    res = research.search(SearchRequest(q="sati"))
    read = {i["word"]: i for i in res.query_info.inflections}
    assert read["sati"]["lemma"] == "sati"
    assert not {"sa", "sam", "se", "santi", "santo"} & set(read["sati"]["forms"])
