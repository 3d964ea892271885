"""Pali analysis: canonical form, folding, input schemes and scripts."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gantha.text.pali import _FOLD_TABLE, canon, detect_scheme, fold, normalize_query_text, to_roman


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Saṁyutta", "saṃyutta"),
        ("saŋgha", "saṃgha"),
        ("Mettā", "mettā"),
        ("sam\u0323", "saṃ"),
    ],
)
def test_canon_unifies_niggahita_case_and_composition(text, expected):
    assert canon(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mettā", "metta"),
        ("saṃyutta", "samyutta"),
        ("Saṁyutta", "samyutta"),
        ("paṭiccasamuppāda", "paticcasamuppada"),
        ("ñāṇa", "nana"),
        ("saṅgha", "sangha"),
        ("Ḍḷṭṇ", "dltn"),
    ],
)
def test_fold_removes_diacritics(text, expected):
    assert fold(text) == expected


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
def test_fold_is_the_fold_table_applied_to_the_canonical_form(text):
    """The fast paths (ASCII, the Pali letters by replace) give exactly what the whole table gives."""
    canonical = unicodedata.normalize("NFC", text).lower()
    canonical = canonical.replace("ṁ", "ṃ").replace("ŋ", "ṃ")
    assert canon(text) == canonical
    assert fold(text) == canonical.translate(_FOLD_TABLE)


@pytest.mark.parametrize(
    ("query", "expected", "step"),
    [
        ("sa.myutta mettaa", "saṃyutta mettā", "scheme:velthuis->roman"),
        ("pa~n~naa", "paññā", "scheme:velthuis->roman"),
        ('sa"ngha', "saṅgha", "scheme:velthuis->roman"),
        ("saMyutta mettA", "saṃyutta mettā", "scheme:harvard-kyoto->roman"),
        ("paJJA", "paññā", "scheme:harvard-kyoto->roman"),
    ],
)
def test_ascii_input_schemes(query, expected, step):
    assert normalize_query_text(query) == (expected, [step])


def test_plain_ascii_and_phrases_are_not_taken_for_a_scheme():
    assert detect_scheme("Tena samayena buddho") == "iast"
    assert detect_scheme('"natthi kho"') == "iast"
    assert normalize_query_text("appaṭicchannaabbhānaṃ")[0] == "appaṭicchannaabbhānaṃ"


@pytest.mark.parametrize(
    ("text", "script"),
    [
        ("ပရိဝါသံ", "Burmese"),
        ("පරිවාසං", "Sinhala"),
        ("ปริวาสํ", "Thai"),
        ("परिवासं", "Devanagari"),
    ],
)
def test_scripts_convert_to_roman(text, script):
    roman, steps = normalize_query_text(text)
    assert roman == "parivāsaṃ"
    assert steps == [f"script:{script.lower()}->roman"]


def test_burmese_nya_typed_for_u_is_read_as_u():
    assert to_roman("ဉပါသကော") == "upāsako"
    assert to_roman("ဥပါသကော") == "upāsako"
    assert to_roman("ဉာဏ") == "ñāṇa"  # a real nya stays nya


def test_cutting_words_does_not_wait_on_a_servers_other_threads():
    """A server's threads share one interpreter: cutting a passage into words (snippets, matched forms) must
    not hand the interpreter to a busy thread at every word, or each request waits behind all the others."""
    import threading
    import time

    from gantha.text.pali import WORD_RE

    text = "evaṃ me sutaṃ ekaṃ samayaṃ bhagavā sāvatthiyaṃ viharati jetavane anāthapiṇḍikassa ārāme " * 5
    stop = threading.Event()

    def busy() -> None:  # Python work, which hands the interpreter over at its switch interval
        while not stop.is_set():
            n = 0
            for i in range(10_000):
                n += i

    threads = [threading.Thread(target=busy) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        started = time.perf_counter()
        for _ in range(50):
            assert len(WORD_RE.findall(text)) == 55 and len(list(WORD_RE.finditer(text))) == 55
        spent = time.perf_counter() - started
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert spent < 1  # a few ms; 5,500 words each waiting for a busy thread's turn take seconds
