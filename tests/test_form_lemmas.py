"""A written form's lemmas by the paradigms run backwards (``gantha.search.form_lemmas``) equal, lemma by lemma,
the paradigms run forwards over the real vocabulary of the test books: by folded form, and by written form
exactly ``Words.family``."""

from __future__ import annotations

import random

import pytest

from gantha.search.form_lemmas import FormLemmas
from gantha.search.words import Words
from gantha.text.pali import fold

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
