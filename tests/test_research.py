"""The research verbs on real CST books with the real lexicon and translations."""

from __future__ import annotations

import html
import json
import re

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gantha.api.app import create_app
from gantha.api.cli import app
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.service import SearchError
from gantha.store.embedded import EmbeddedStore
from gantha.tools import Toolbox


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    store = EmbeddedStore(small_index, create=False)
    return Research(store, store.lexicon())


def plain(snippet: str) -> str:
    return html.unescape(re.sub(r"</?mark>", "", snippet)).strip(" …")


def test_forms_of_parivasa(research):
    res = research.forms("parivāsa")
    assert res.lemma == "parivāsa"
    by_form = {f.form: f for f in res.forms}
    for form in ("parivāsaṃ", "parivāso", "parivāse", "parivāsā"):
        assert form in by_form and by_form[form].paragraphs > 0
        assert "wikipali-analysis" in by_form[form].sources
    for f in res.forms:  # counts agree with an independent exact search
        exact = research.search(SearchRequest(q=f.form, mode="exact", limit=1))
        assert f.paragraphs == exact.total
        bold = research.search(SearchRequest(q=f.form, mode="exact", bold_only=True, limit=1))
        assert f.bold_paragraphs == bold.total
    assert res.total_paragraphs >= max(f.paragraphs for f in res.forms)
    assert res.unattested is None and "parivāsaṃ" not in research.forms("parivāsa", unattested=True).unattested


def test_forms_from_an_inflected_form_and_diacritic_free_input(research):
    assert research.forms("parivāsaṃ").lemma == "parivāsa"
    assert research.lemmas("parivāsaṃ")[0].lemma == "parivāsa"
    assert research.forms("parivasam").lemma == "parivāsa"  # ASCII input: its most frequent written form


def test_ending_tables_expand_a_lemma_without_word_analysis(research):
    # the tables alone propose forms, filtered by what the index holds
    res = research.forms("bhikkhu")
    sources = {s for f in res.forms for s in f.sources}
    assert "wikipali-endings" in sources
    assert any(f.form == "bhikkhūnaṃ" for f in res.forms)


def test_word_meanings_and_morphology(research):
    res = research.word("parivāsaṃ")
    assert res.lemmas[0] == "parivāsa"
    assert any(m.grammar == "m. sg. acc." for m in res.morphology)
    dictionaries = {e.dictionary for e in res.entries}
    assert {"uhan_en", "shuihan"} <= dictionaries
    assert any("Living apart" in " ".join(e.meanings) for e in res.entries)
    assert research.word("xyzzyq").message


def test_search_by_forms_bold_and_lemma(research):
    forms = [f.form for f in research.forms("pārivāsika").forms]
    wide = research.search(SearchRequest(forms=forms, limit=100))
    bold = research.search(SearchRequest(forms=forms, bold_only=True, limit=100))
    assert 0 < bold.total < wide.total
    for h in bold.hits:
        p = research.store.get([h.coordinate])[h.coordinate]
        assert any(w in forms for b in p.bold for w in re.findall(r"\w+", b.lower()))
    by_lemma = research.search(SearchRequest(limit=5, compounds=False), lemma="pārivāsika")
    assert by_lemma.total == wide.total
    assert by_lemma.query_info.lemma["forms"] == forms


def test_unattested_headword_is_explained(research):
    res = research.search(SearchRequest(q="parivāsa", mode="exact", books=["s0101m.mul"]))
    assert res.total == 0 and res.outcome == "unattested_form"
    assert "gantha forms parivāsa" in res.message and "parivāsaṃ" in res.suggestions
    nonsense = research.search(SearchRequest(q="qqqzzz"))
    assert nonsense.outcome == "no_hits"


def test_dist(research):
    res = research.dist([], lemma="parivāsa")
    assert res.total == sum(b.count for b in res.books)
    assert [b.count for b in res.books] == sorted((b.count for b in res.books), reverse=True)
    top = res.books[0]
    assert top.book == "vin02m3.mul" and top.title == "Cūḷavaggapāḷi" and top.category == "mula"
    assert set(res.by_category) <= {"mula", "atthakatha", "tika", "anya"}
    with pytest.raises(SearchError):
        research.dist(["nosuchformxyz"], lemma="nosuchlemmaxyz")


def test_get_with_channels_citations_and_tokens(research):
    res = research.get(
        ["cst/vin02m3.mul/75", "cst/vin02m3.mul/99999", "nonsense"], channels=["pali", "my", "en", "kjv"], tokens=True
    )
    items = {(i.coordinate, i.channel): i for i in res.items}
    pali = items[("cst/vin02m3.mul/75", "pali")]
    assert pali.status == "ok" and pali.text.startswith("Tena samayena")
    assert (
        pali.citations.default
        == "Kd 12 Probation: Cūḷavaggapāḷi, Pārivāsikakkhandhaka, CST para 75 (PTS Vin II 30–31; VRI 76–77)"
    )
    assert "Cūḷavaggapāḷi" in pali.citations.apa and "Cūḷavaggapāḷi" in pali.citations.mla
    samayena = next(t for t in pali.tokens if t.surface == "samayena")
    assert samayena.lemma == "samaya" and samayena.grammar == "sg.inst"
    burmese = items[("cst/vin02m3.mul/75", "my")]
    assert burmese.status == "ok" and re.search("[\u1000-\u109f]", burmese.text)
    english = items[("cst/vin02m3.mul/75", "en")]
    assert english.status == "ok" and english.text.startswith("At one time the Buddha was staying at Sāvatthī")
    missing = items[("cst/vin02m3.mul/75", "kjv")]  # a channel of the index without text there
    assert missing.status == "missing" and missing.text is None
    assert items[("cst/vin02m3.mul/99999", "pali")].status == "not_found"
    assert items[("nonsense", "pali")].status == "not_found"


def test_unnumbered_paragraph_translation_is_part_of_its_anchor(research):
    item = research.get(["cst/vin02m3.mul/75.1"], channels=["my"]).items[0]
    assert item.status == "part_of" and item.anchor == "cst/vin02m3.mul/75"


def test_chapter_size_first_then_text(research):
    size = research.chapter("cst/vin02m3.mul/75")
    assert size.passages is None and size.paragraphs > 50 and size.approx_tokens == size.characters // 4
    assert size.chapter == "2. Pārivāsikakkhandhakaṃ"
    full = research.chapter("cst/vin02m3.mul/75", confirm=True)
    assert len(full.passages) == size.paragraphs
    coords = [p.coordinate for p in full.passages]
    assert "cst/vin02m3.mul/75" in coords
    assert full.passages[0].kind == "chapter" and full.passages[0].text == "2. Pārivāsikakkhandhakaṃ"
    fetched = research.get(coords[:30]).items
    assert [i.text for i in fetched] == [p.text for p in full.passages[:30]]
    with pytest.raises(SearchError, match="has no paragraph 99999"):  # and what it has instead
        research.chapter("cst/vin02m3.mul/99999")


def test_versions_lists_present_and_missing(research):
    res = {c.channel: c for c in research.versions("cst/vin02m3.mul/75").channels}
    assert res["pali"].status == "available" and res["my"].status == "available"
    assert res["en"].status == "available" and res["en"].licence == "CC0"
    assert res["my"].provenance == "human" and res["my"].type == "translation"
    digha = {c.channel: c for c in research.versions("cst/s0101m.mul/1").channels}
    assert digha["en"].status == "available" and digha["my"].status == "available"
    assert digha["en"].author == "Bhikkhu Sujato" and research.versions("cst/vin02m3.mul/75").channels


def test_search_results_resolve_to_the_same_text(research):
    res = research.search(SearchRequest(q="pārivāsikā", limit=20))
    assert {h.channel for h in res.hits} == {"pali"}  # the original unless a language or channel is asked
    got = research.get([h.coordinate for h in res.hits]).items
    for hit, item in zip(res.hits, got, strict=True):
        assert item.coordinate == hit.coordinate
        for piece in plain(hit.snippet).split(" … "):
            assert piece in item.text
    english = research.search(SearchRequest(q="probation", mode="exact", languages=["en"], limit=5))
    assert english.total > 0
    for hit in english.hits:
        item = research.get([hit.coordinate], channels=[hit.channel]).items[0]
        assert item.status == "ok" and "probation" in item.text.lower()


def test_suggest(research):
    pali = research.suggest("parivas", limit=5).suggestions
    assert pali and all(s.kind == "pali" for s in pali)
    assert any("ā" in s.text for s in pali)
    assert [s.count for s in pali] == sorted((s.count for s in pali), reverse=True)
    chinese = research.suggest("夜叉").suggestions
    assert chinese[0].text == "yakkha"
    page = research.suggest("PTS Vin II 31", type="page_ref").suggestions
    assert page[0].text == "P2.0031"


def test_similar_sentences_whatever_the_inflection(research):
    res = research.similar("pārivāsikassa bhikkhuno", limit=20)
    assert res.total > 0 and res.hits[0].similarity == 1.0
    assert res.query_info.similar["lemmas"][:1] == ["pārivāsika"]
    sims = [h.similarity for h in res.hits]
    assert sims == sorted(sims, reverse=True) and all(0 < s <= 1 for s in sims)
    forms_seen = {re.search(r"<mark>(\w+)</mark>", h.snippet).group(1).lower() for h in res.hits}
    assert len(forms_seen) > 1  # other inflections than the one typed
    for hit in res.hits[:5]:  # a sentence coordinate resolves to the same sentence
        item = research.get([hit.coordinate]).items[0]
        assert item.status == "ok" and item.text == plain(hit.snippet)


def test_sentence_granularity(research):
    res = research.search(SearchRequest(q="pārivāsikā", granularity="sentence", limit=50))
    assert res.total > 0 and all(h.granularity == "sentence" and ".s" in h.coordinate for h in res.hits)
    for hit in res.hits[:10]:
        item = research.get([hit.coordinate]).items[0]
        assert item.text == plain(hit.snippet) and "<mark>" in hit.snippet
    bad = research.get(["cst/vin02m3.mul/75.s999"]).items[0]
    assert bad.status == "not_found" and "no sentence 999" in bad.message


def test_similar_sentences_agent_sized_on_every_surface(research, small_index):
    # the opening of a sutta: a few sentences alike, many that share a word or two
    sentence = "evaṃ me sutaṃ ekaṃ samayaṃ bhagavā"
    every = research.similar(sentence, limit=100)
    close = [h.coordinate for h in every.hits if h.similarity >= 0.5]
    assert every.total == len(every.hits) > len(close) > 0  # some far, some close
    kept = research.similar(sentence, limit=100, min_similarity=0.5)
    assert [h.coordinate for h in kept.hits] == close and kept.total == len(close)
    client = TestClient(create_app(small_index))
    params = {"sentence": sentence, "limit": 100}
    whole = client.get("/api/v3/similar", params=params)
    small = client.get("/api/v3/similar", params={**params, "min_similarity": 0.5, "fields": "coordinate,similarity"})
    hits = small.json()["data"]["hits"]
    assert [h["coordinate"] for h in hits] == close and all(set(h) == {"coordinate", "similarity"} for h in hits)
    assert len(small.content) < len(whole.content) / 2
    bad = client.get("/api/v3/similar", params={**params, "fields": "coordinate,nonsense"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_parameter"
    assert client.get("/api/v3/similar", params={**params, "min_similarity": 1.5}).status_code == 422
    cli = CliRunner().invoke(
        app,
        [
            "similar",
            sentence,
            "--limit",
            "100",
            "--min-similarity",
            "0.5",
            "--fields",
            "coordinate",
            "--index",
            str(small_index),
            "--json",
        ],
    )
    assert cli.exit_code == 0 and [h["coordinate"] for h in json.loads(cli.output)["hits"]] == close
    tool = Toolbox(research).similar_sentences(sentence=sentence, limit=100, min_similarity=0.5, fields=["coordinate"])
    assert [h["coordinate"] for h in tool["hits"]] == close
