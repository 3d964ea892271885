"""A written form's lemmas by the paradigms run backwards (``gantha.search.form_lemmas``) equal, lemma by lemma,
the paradigms run forwards over the real vocabulary of the test books: by folded form, and by written form
exactly ``Words.family``."""

from __future__ import annotations

import random
import shutil

import pytest

from gantha.ingest import ingest_cst
from gantha.search import form_lemmas
from gantha.search.form_lemmas import FormLemmas
from gantha.search.words import Words
from gantha.store.embedded import EmbeddedStore
from gantha.text.pali import fold

from conftest import link_books

SAMPLE = 400  # lemmas checked: those of the 100 most frequent words, and a random draw of the rest


@pytest.fixture(scope="module")
def backwards(small_store) -> tuple[Words, FormLemmas, dict[str, frozenset[str]]]:
    words = Words(small_store.lexicon(), small_store)
    folded = [r[0] for r in small_store.db.query("SELECT DISTINCT fold FROM vocab")]
    lemmas = FormLemmas(words)
    return words, lemmas, lemmas.many(folded)


def _named(by_form: dict[str, frozenset[str]]) -> dict[str, set[str]]:
    """Lemma → the forms that name it."""
    named: dict[str, set[str]] = {}
    for form, lemmas in by_form.items():
        for lemma in lemmas:
            named.setdefault(lemma, set()).add(form)
    return named


def _forwards(words: Words, lemma: str, attested: set[str]) -> set[str]:
    """The attested folded forms a spelling the lemma's paradigm proposes folds to."""
    return {fold(form) for form in words._proposals(lemma)} & attested


def test_each_lemmas_forms_backwards_equal_its_paradigm_forwards(backwards, small_store):
    words, _, by_form = backwards
    attested, named = set(by_form), _named(by_form)
    spelled = [small_store.forms_by_fold(w)[0][0] for w in small_store.frequent_words(100)]
    chosen = [lemma for lemma in dict.fromkeys(map(words.lemma, spelled)) if words.is_lemma(lemma)]
    sample = [*chosen, "parivāsa", "parivasati", "deti"]  # the lemmas of the most frequent words, a few more
    sample += random.Random(7).sample(sorted(named.keys() - set(sample)), SAMPLE - len(sample))
    assert len(chosen) > 50 and "bhikkhu" in chosen
    differences = {lemma: named.get(lemma, set()) ^ _forwards(words, lemma, attested) for lemma in sample}
    wrong = {lemma: forms for lemma, forms in differences.items() if forms}
    assert not wrong, list(wrong.items())[:5]


def test_written_forms_name_exactly_the_lemmas_whose_family_holds_them(backwards, small_store):
    words, lemmas, _ = backwards
    written = [r[0] for r in small_store.db.query("SELECT form FROM vocab")]
    named = _named(lemmas.many(written, written=True))
    sample = ["bhikkhu", "parivāsa", "parivasati", "deti", "āpatti", "saṅgha"]
    sample += random.Random(11).sample(sorted(named.keys() - set(sample)), 150)
    for lemma in sample:
        assert named.get(lemma, set()) == {f.form for f in words.family(lemma, compounds=False).forms}, lemma


def test_a_verbs_participles_name_the_verb_and_the_family_is_within(backwards):
    words, lemmas, by_form = backwards
    assert "parivasati" in lemmas.lemmas("parivasanto")  # a present participle's form names its verb
    for lemma in ("bhikkhu", "parivāsa", "parivasati", "deti"):
        family = {fold(f.form) for f in words.family(lemma, compounds=False).forms}
        named = {form for form, found in by_form.items() if lemma in found}
        assert family and family <= named, family - named  # today's forms, and spellings that fold alike


def _computed(words: Words) -> Words:
    """These words with nothing kept beside the index: each inflection computed here."""
    words._kept.close()
    return words


def test_the_table_beside_the_vocabulary_gives_the_same_inflections_as_the_paradigms(backwards, small_store):
    """The test index's forms' lemmas were tabulated as an ingest ends: each lemma's forms read from the table
    are its family's, and the ordinary search reads a typed word as the same forms with the table as without."""
    words, _, _ = backwards
    assert small_store.form_lemmas_state() == words.table_state and words._tabulated()
    for lemma in ("bhikkhu", "parivāsa", "parivasati", "deti", "āpatti", "saṅgha", "hoti"):
        tabled = {form for form, _, _ in small_store.lemma_forms(lemma)}
        assert tabled and tabled == {f.form for f in words.family(lemma, compounds=False).forms}, lemma
    typed = [*small_store.frequent_words(150), "parivasanto", "bhikkhūnaṃ", "kāyo", "nanam", "sati"]
    tabled, proposed = (_computed(Words(small_store.lexicon(), small_store)) for _ in range(2))
    proposed._tabulated = lambda: False
    assert [tabled.inflection(w) for w in typed] == [proposed.inflection(w) for w in typed]
    assert tabled.inflection("parivasanto").lemma == "parivasati"


def test_a_write_adds_only_its_new_forms_lemmas_and_a_lexicon_change_all(small_index, tmp_path):
    """After a write the words fall back to the paradigms until its new forms' lemmas are tabulated; then only
    those are computed. A lexicon that changed computes every form again, none twice."""
    store = EmbeddedStore(tmp_path / "index")
    assert ingest_cst(store, link_books(tmp_path / "kp", ("s0501m.mul",))).ok  # the Khuddakapāṭha
    shutil.copy(small_index / "lexicon.sqlite", tmp_path / "index" / "lexicon.sqlite")
    first = len(store.forms_without_lemmas(everything=True))
    assert form_lemmas.tabulate(store) == first and form_lemmas.tabulate(store) == 0
    assert ingest_cst(store, link_books(tmp_path / "dhp", ("s0502m.mul",))).ok  # the Dhammapada added
    words = Words(store.lexicon(), store)
    assert form_lemmas.due(store, words) and not words._tabulated()  # the paradigms meanwhile
    new = store.forms_without_lemmas()
    assert 0 < len(new) < len(store.forms_without_lemmas(everything=True))
    assert form_lemmas.tabulate(store) == len(new) and not store.forms_without_lemmas()
    words = Words(store.lexicon(), store)
    assert words._tabulated()
    assert {f for f, _, _ in store.lemma_forms("appamāda")} == {f.form for f in words.family("appamāda", False).forms}
    rows = store.db.query("SELECT count(*) FROM vocab_lemmas")[0][0]
    store.set_meta("form_lemmas", "another lexicon\n" + store.vocabulary_stamp())  # as if the lexicon changed
    assert form_lemmas.tabulate(store) == len(store.forms_without_lemmas(everything=True))
    assert store.db.query("SELECT count(*) FROM vocab_lemmas")[0][0] == rows
    store.close()
