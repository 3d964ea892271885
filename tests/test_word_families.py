"""Every occurrence of a Pali word: inflection-blind search, verb paradigms, compounds and their members,
ranking by the lemma's frequency — on real CST books (the Cūḷavagga and its commentary among them)."""

from __future__ import annotations

import statistics

import pytest

from gantha.model import SearchRequest
from gantha.research import Research
from gantha.text.pali import WORD_RE, canon

# real compounds of the Cūḷavagga's Samuccayakkhandhaka (vin02m3.mul), with the members read by hand
COMPOUNDS = {
    "ekāhaparivāsaṃ": ["ekāha", "parivāsaṃ"],
    "pakkhaparivāsaṃ": ["pakkha", "parivāsaṃ"],
    "samodhānaparivāsaṃ": ["samodhāna", "parivāsaṃ"],
    "suddhantaparivāsaṃ": ["suddhanta", "parivāsaṃ"],
    "parivāsadānaṃ": ["parivāsa", "dānaṃ"],
}


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


def test_compounds_are_found_with_their_members(research):
    family = research.forms("parivāsa")
    found = {c.form: c.members for c in family.compounds}
    for word, members in COMPOUNDS.items():
        assert found.get(word) == members, word
    assert not {f.form for f in family.forms} & set(found)  # inflected forms and compounds apart
    assert all(c.paragraphs > 0 and c.bold_paragraphs <= c.paragraphs for c in family.compounds)
    assert family.compound_paragraphs > family.total_paragraphs
    assert research.forms("parivāsa", compounds=False).compounds == []


def test_derivations_are_not_compounds(research):
    vasa = {c.form for c in research.forms("vāsa").compounds}
    assert "parivāsaṃ" not in vasa and "parivāso" not in vasa  # pari- is a verbal prefix, not a member
    mana = {c.form for c in research.forms("māna").compounds}
    participles = [w for w in mana if w.startswith(("labha", "gacchamā", "vasamā"))]
    assert participles == []  # labhamāno is labhati's participle, not a compound of māna (conceit)


def test_a_verb_has_its_participles_gerundives_and_absolutives(research):
    verb = research.forms("parivasati")
    forms = {f.form: f for f in verb.forms}
    assert "parivasanto" in forms and any("prp." in g for g in forms["parivasanto"].grammar)
    assert "parivasitabbaṃ" in forms and any("fpp." in g for g in forms["parivasitabbaṃ"].grammar)
    assert any(f.startswith("parivasitvā") for f in forms)
    assert verb.unattested is None and verb.unattested_count > 0  # unattested forms only on request
    listed = research.forms("parivasati", unattested=True).unattested
    assert listed and len(listed) == verb.unattested_count and not set(listed) & set(forms)


def test_a_noun_keeps_its_cases_and_is_its_own_lemma(research):
    noun = research.forms("parivāsa")
    assert {"parivāsaṃ", "parivāso"} <= {f.form for f in noun.forms}
    assert all(f.bold_paragraphs <= f.paragraphs for f in noun.forms)
    word = research.word("parivāsa")
    assert word.entries and word.entries[0].word == "parivāsa"
    assert not any(m.grammar.endswith("aor.") for m in word.morphology)  # not the aorist of parivāseti
    assert research.word("parivasanto").lemmas[0] == "parivasati"


def test_the_ordinary_search_is_inflection_blind(research):
    typed = research.search(SearchRequest(q="parivasa"))
    lemma = research.search(SearchRequest(compounds=False), lemma="parivāsa")
    assert typed.total >= lemma.total > 20  # every form of the noun (and the typed spelling itself)
    inflection = typed.query_info.inflections[0]
    assert inflection["lemma"] == "parivāsa" and "parivasam" in inflection["forms"]
    exact = research.search(SearchRequest(q="parivāsaṃ", mode="exact"))
    assert 0 < exact.total < typed.total  # exact keeps the typed form
    plain = research.search(SearchRequest(q="parivasa", inflections=False))
    assert plain.total < typed.total


def test_a_lemma_search_finds_the_compounds_and_says_which_form_matched(research):
    res = research.search(SearchRequest(limit=1000), lemma="parivāsa")
    hit = next(h for h in res.hits if h.coordinate == "cst/vin02m3.mul/102")
    assert hit.in_compound and "ekāhaparivāsaṃ" in hit.matched
    assert res.query_info.lemma["compounds"] and res.total > research.forms("parivāsa").total_paragraphs


def test_a_lemma_search_ranks_by_the_lemma_frequency(research):
    res = research.search(SearchRequest(books=["vin02m3.mul"], limit=1000), lemma="parivāsa")
    family = set(res.query_info.lemma["forms"]) | set(res.query_info.lemma["compounds"])
    unbold = [h for h in res.hits if not h.bold_match]
    assert [h.score for h in unbold] == sorted((h.score for h in unbold), reverse=True)

    def occurrences(coordinate: str) -> int:
        words = [canon(w) for w in WORD_RE.findall(research.store.get([coordinate])[coordinate].text)]
        return sum(w in family for w in words)

    top = [occurrences(h.coordinate) for h in unbold[:10]]
    rest = [occurrences(h.coordinate) for h in unbold[10:]]
    assert min(top) >= 3 and statistics.mean(top) > 2 * statistics.mean(rest)  # the densest paragraphs first
    reading = research.search(SearchRequest(books=["vin02m3.mul"], order="reading", limit=5), lemma="parivāsa")
    assert [h.coordinate for h in reading.hits] != [h.coordinate for h in res.hits[:5]]
