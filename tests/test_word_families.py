"""Every occurrence of a Pali word: inflection-blind search, verb paradigms, compounds and their members,
ranking by the lemma's frequency — on real CST books (the Cūḷavagga and its commentary among them)."""

from __future__ import annotations

import json
import statistics
from dataclasses import replace

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gantha.api.app import create_app
from gantha.api.cli import app
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.lexical import LEMMA_WINDOW
from gantha.search.service import SearchError
from gantha.text.derive import candidates
from gantha.text.pali import WORD_RE, canon
from gantha.tools import Toolbox, function_spec

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
    lemma = research.search(SearchRequest(compounds=False, derivatives=False), lemma="parivāsa")
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
    densest = res.aggregations["chapter"][0]  # the distribution by chapter (heading), beside book and category
    assert densest.key == "vin02m3.mul/ch3" and "Samuccayakkhandhaka" in densest.title
    assert sum(b.count for b in res.aggregations["chapter"]) <= res.total


def test_a_lemma_search_ranks_by_the_lemma_frequency(research):
    res = research.search(SearchRequest(books=["vin02m3.mul"], limit=1000), lemma="parivāsa")
    family = set(research.words.family("parivāsa", derivatives=True).words())  # the words searched
    assert res.total > LEMMA_WINDOW  # the window is re-ranked by the lemma's frequency, the rest keep BM25 order
    for part in (res.hits[:LEMMA_WINDOW], res.hits[LEMMA_WINDOW:]):
        scores = [h.score for h in part if not h.bold_match]
        assert scores == sorted(scores, reverse=True)
    assert any(f"first {LEMMA_WINDOW} by BM25" in n for n in res.query_info.notes)
    unbold = [h for h in res.hits if not h.bold_match]

    def occurrences(coordinate: str) -> int:
        words = [canon(w) for w in WORD_RE.findall(research.store.get([coordinate])[coordinate].text)]
        return sum(w in family for w in words)

    top = [occurrences(h.coordinate) for h in unbold[:10]]
    rest = [occurrences(h.coordinate) for h in unbold[10:]]
    assert min(top) >= 3 and statistics.mean(top) > 2 * statistics.mean(rest)  # the densest paragraphs first
    reading = research.search(SearchRequest(books=["vin02m3.mul"], order="reading", limit=5), lemma="parivāsa")
    assert [h.coordinate for h in reading.hits] != [h.coordinate for h in res.hits[:5]]


def test_compact_results_within_stated_bounds(research):
    tools = Toolbox(research)
    full = tools.search(lemma="parivāsa", limit=100)
    small = tools.search(lemma="parivāsa", limit=100, fields=["coordinate", "book", "path", "snippet"])
    assert len(small["hits"]) == len(full["hits"]) == 100
    assert all(set(h) == {"coordinate", "book", "path", "snippet"} for h in small["hits"])
    assert len(json.dumps(small, ensure_ascii=False)) < 0.7 * len(json.dumps(full, ensure_ascii=False))
    with pytest.raises(SearchError, match="unknown hit field"):
        tools.search(lemma="parivāsa", fields=["coordinates"])
    schema = function_spec(Toolbox.search)["function"]["parameters"]["properties"]
    assert schema["limit"]["maximum"] == 1000 and schema["limit"]["minimum"] == 1 and schema["limit"]["default"] == 10
    assert "maximum" in schema["offset"] and schema["order"]["enum"] == ["score", "reading"]
    paged = function_spec(Toolbox.search_by_query)["function"]["parameters"]["properties"]
    assert paged["page_size"]["maximum"] == 1000


def test_chapter_of_a_paragraph_range_and_of_a_section(research):
    span = research.chapter("cst/vin02m3.mul/150-160", confirm=True)
    coordinates = [p.coordinate for p in span.passages]
    assert coordinates[0] == "cst/vin02m3.mul/150" and coordinates[-1].startswith("cst/vin02m3.mul/160")
    assert span.paragraphs == len(coordinates) > 11
    whole = research.chapter("cst/vin02m3.mul/102")
    section = research.chapter("cst/vin02m3.mul/102", confirm=True, section=True)
    assert 0 < section.paragraphs < whole.paragraphs
    assert "cst/vin02m3.mul/102" in [p.coordinate for p in section.passages]
    with pytest.raises(SearchError, match="runs forward"):
        research.chapter("cst/vin02m3.mul/160-150")


_LEMMAS = (
    "bhikkhu dhamma saṅgha citta kamma āpatti parivāsa mānatta rūpa vedanā saññā nibbāna bhikkhunī vinaya "
    "sīla paññā kāya vācā gāma kusala akusala pārivāsika sabba paṭhama parivasati gacchati karoti bhāsati "
    "vadati passati deti labhati vasati hoti"
)


@pytest.mark.parametrize("lemma", _LEMMAS.split())
def test_paradigms_agree_with_the_dictionaries_and_the_text(research, lemma):
    """Nouns, adjectives and verbs of every stem class: each attested form is analysed back to the lemma
    (or to one of its participle stems) by the word analyses and ending tables, independently."""
    family = research.words.family(lemma, False)
    assert research.words.is_lemma(lemma), "a headword of the dictionaries or the word analyses"
    assert family.forms, "attested in the test books"
    own = {lemma, *(stem for stem, _ in research.words.derived(lemma))}
    agreeing = sum(f.paragraphs for f in family.forms if own & {c.lemma for c in research.lemmas(f.form)})
    assert agreeing >= 0.97 * sum(f.paragraphs for f in family.forms)
    if research.words.is_verb(lemma):  # a verb's participles are under it
        assert any(g.startswith(("prp.", "pp.", "fpp.")) for f in family.forms for g in f.grammar)


def test_hierarchical_tags_filter_with_all_of_and_any_of(research):
    def books(tags: str) -> set[str]:
        res = research.search(SearchRequest(q="parivasa", tags=[tags], limit=1))
        return {b.key for b in res.aggregations["book"]}

    assert books("vinaya,khandhaka") == {"vin02m3.mul", "vin02a3.att"}  # the Cūḷavagga and its commentary
    assert books("khandhaka,mula") == {"vin02m3.mul"}
    assert books("culavagga,atthakatha") == {"vin02a3.att"}
    assert books("khandhaka,mula;digha") >= {"vin02m3.mul"}
    assert "vin02a3.att" not in books("khandhaka,mula;digha")
    with pytest.raises(SearchError, match="unknown tag"):
        research.search(SearchRequest(q="parivasa", tags=["khandaka"]))


@pytest.mark.parametrize("lemma", ["parivāsa", "bhikkhu", "dhamma"])
def test_a_lemma_counted_in_two_parts_gives_the_whole_count(research, lemma):
    """Own forms counted per query, compound-only paragraphs once per lemma by chapter: the same total and
    aggregations as the union counted whole, whatever the books, categories or tags asked for."""
    lexical, family = research.searcher.lexical, research.words.family(lemma)
    own = list(dict.fromkeys(family.words(False)))
    compounds = [f for f in family.words() if f not in set(own)]
    assert compounds
    for filters in (
        {},
        {"categories": ["mula"]},
        {"tags": ["vinaya,khandhaka;digha"]},
        {"books": ["vin02m3.mul", "s0101m.mul"]},
        {"categories": ["atthakatha"], "tags": ["culavagga"]},
        {"channels": ["pali"]},
    ):
        plan, _, _ = lexical.planner.plan(SearchRequest(forms=family.words(), **filters), own)
        count = replace(plan, limit=0)
        whole = research.store.search(count)
        split = lexical.counter.count(count, own, compounds)
        assert split.total == whole.total, filters
        assert {k: sorted(v) for k, v in split.aggregations.items()} == {
            k: sorted(v) for k, v in whole.aggregations.items()
        }, filters
    assert lexical.counter._compounds_only.get  # the compound-only paragraphs were counted apart, and kept
    assert any(key[1] == tuple(own) for key in lexical.counter._compounds_only._kept)


# --- derivatives -----------------------------------------------------------------------------------


def test_derivatives_are_listed_apart_with_their_forms_and_counts(research):
    family = research.forms("parivāsa")
    derived = {d.lemma: d for d in family.derivatives}
    assert derived["pārivāsika"].suffix == "ika" and derived["pārivāsika"].evidence  # vṛddhi: pa → pā
    words = {f.form for d in family.derivatives for f in d.forms}
    assert not words & ({f.form for f in family.forms} | {c.form for c in family.compounds})  # each kind apart
    for d in family.derivatives:
        forms = [f.form for f in d.forms]
        assert all(f.startswith(d.lemma[:-1]) for f in forms)  # its own declension
        exact = research.search(SearchRequest(forms=forms, mode="exact", limit=1))
        assert d.paragraphs == exact.total > 0 and 0 <= d.bold_paragraphs <= d.paragraphs
    lemma_search = research.search(SearchRequest(limit=1), lemma="parivāsa")
    assert family.family_paragraphs == lemma_search.total > family.compound_paragraphs
    assert research.forms("parivāsa", derivatives=False).derivatives == []


def test_a_word_that_only_looks_derived_is_not_a_derivative(research):
    # the texts write sārattā (impassioned: the dictionaries give it the parent sārajjati, not sāra) and
    # pāṇinā (with the hand: WikiPali reads it as pāṇi's), both proposed by the suffix rules
    assert ("sāratta", "tta") in candidates("sāra") and ("pāṇī", "in") in candidates("pāṇa")
    for word in ("sārattā", "pāṇinā"):
        assert research.search(SearchRequest(q=word, mode="exact", limit=1)).total > 0
    assert "sāratta" not in {d.lemma for d in research.forms("sāra").derivatives}
    assert "pāṇinā" not in {f.form for d in research.forms("pāṇa").derivatives for f in d.forms}


def test_a_lemma_search_includes_the_derivatives_unless_asked_not_to(research, small_index):
    found = research.search(SearchRequest(limit=1000), lemma="parivāsa")
    without = research.search(SearchRequest(limit=1000, derivatives=False), lemma="parivāsa")
    derived = {f for d in found.query_info.lemma["derivatives"] for f in d["forms"]}
    assert derived and without.query_info.lemma["derivatives"] == []
    only = {h.coordinate for h in found.hits} - {h.coordinate for h in without.hits}
    assert only and found.total == without.total + len(only) and found.total == len(found.hits)
    for h in found.hits:
        if h.coordinate in only:  # found by a derivative alone, and it says which
            assert h.matched and set(h.matched) <= derived and h.in_compound is False
    cli = CliRunner().invoke(
        app, ["search", "--lemma", "parivāsa", "--no-derivatives", "--index", str(small_index), "--json"]
    )
    assert cli.exit_code == 0 and json.loads(cli.output)["total"] == without.total
    http = TestClient(create_app(small_index)).get(
        "/api/v3/search", params={"lemma": "parivāsa", "derivatives": "false", "fields": "coordinate"}
    )
    assert http.json()["data"]["total"] == without.total
    assert Toolbox(research).search(lemma="parivāsa", derivatives=False, limit=1)["total"] == without.total
