"""The lemma a written form is read as (``Lexicon.lemma``), on the real lexicon: WikiPali's analysis, checked
against the dictionaries and the ending tables, and a sample of the agreement with it (eval/lemma_agreement.py)."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from gantha.research import Research
from gantha.store.embedded import EmbeddedStore
from gantha.store.lexicon import Lemmatizer, Lexicon

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "eval"))
from lemma_agreement import ARGUMENTS, measure


@pytest.fixture(scope="module")
def lexicon(small_index) -> Lexicon:
    return EmbeddedStore(small_index, create=False).lexicon()


@pytest.mark.parametrize(
    ("form", "lemma"),
    [
        ("sati", "sati"),  # mindfulness, not the locative of santa
        ("māse", "māsa"),  # the month's locative, not a plural of WikiPali's pronoun ma
        ("kāyo", "kāya"),  # the body, not the pronoun ka's feminine plural
        ("mānaṃ", "māna"),
        ("kāya", "kāya"),  # a dictionary stem with its own forms, not the pronoun's dative
        ("bālaṃ", "bāla"),  # the fool's forms outnumber the girl's (bālā) tenfold
    ],
)
def test_frequent_words_read_as_their_own_lemma(lexicon, form, lemma):
    assert lexicon.lemma(form) == lemma


@pytest.mark.parametrize(
    ("form", "lemma", "rule"),
    [
        ("dhammo", "dhamma", "wikipali"),
        ("katvā", "karoti", "wikipali"),  # an absolutive: its verb, as WikiPali says
        ("so", "ta", "wikipali"),  # a suppletive pronoun form, no ending derives it
        ("me", "amha", "wikipali"),
        ("pana", "pana", "indeclinable"),  # not a verb panati
        ("kho", "kho", "indeclinable"),  # not the neuter kha's plural
        ("uppajjati", "uppajjati", "verb"),  # not the locative of its participle uppajjanta
        ("gahetvā", "gaṇhāti", "wikipali"),  # WikiPali's ganhāti, in the dictionaries' spelling
        ("tampi", "ta", "enclitic"),  # taṃ + pi
        ("parivasanto", "parivasati", "participle"),  # no analysis: the participle's verb
    ],
)
def test_wikipali_is_followed_unless_shown_wrong(lexicon, form, lemma, rule):
    assert lexicon.lemmatizer.explain(form) == (lemma, rule)


def test_agreement_with_wikipali_on_the_most_frequent_forms(lexicon):
    """The 300 most frequent analysed forms: WikiPali's base, spelling aside, for at least 90 %; every other
    lemma chosen by one of the argued rules, and at least 98 % agreeing or argued."""
    rows = measure(lexicon, 300, statistics=None)
    verdicts = Counter(r.verdict for r in rows)
    assert len(rows) == 300 and verdicts["none"] == 0
    assert (verdicts["agree"] + verdicts["spelling"]) / len(rows) >= 0.9, verdicts
    assert set(verdicts) <= {"agree", "spelling", "miss", *ARGUMENTS}, verdicts
    assert (len(rows) - verdicts["miss"]) / len(rows) >= 0.98
    assert sum(r.before == r.base for r in rows) < verdicts["agree"]  # the rule before this change agreed less


def test_a_lemma_is_pure_and_fast(lexicon):
    """The same answer from a fresh lemmatizer; hundreds of forms in a few seconds once its tables are read."""
    fresh = Lemmatizer(lexicon)
    forms = [w for w, in lexicon._query("SELECT DISTINCT word FROM analysis LIMIT 500")]
    fresh.lemma(forms[0])
    started = time.perf_counter()
    lemmas = [fresh.lemma(f) for f in forms]
    assert time.perf_counter() - started < 20
    assert lemmas == [lexicon.lemma(f) for f in forms]


def test_word_forms_and_search_read_the_same_lemma(small_index):
    research = Research.open(small_index)
    assert research.lemmas("kāyo")[0].lemma == "kāya"
    assert research.word("kāyo").lemmas[0] == "kāya"
    assert research.forms("māse").lemma == "māsa"
    inflection = research.words.inflection("sati")
    assert inflection is not None and inflection.lemma == "sati"
    assert {"satiya", "satim"} <= set(inflection.forms) and not {"santi", "sa", "se"} & set(inflection.forms)  # folded
