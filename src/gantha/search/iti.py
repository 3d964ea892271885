"""The quotative *iti*: one word, three spellings.

The texts close a quotation with *iti* and write it three ways: after a closing quote
(``‘gacchāmī’ti``, ``‘sarīra’nti``), joined (``gacchāmīti``, ``sarīranti``), or as a separate word
(``gacchāmī ti``, ``sarīraṃ ti``). The index reads the quoted spelling as two words (``gacchāmī``,
``ti``), so a typed word is rewritten into the spellings it stands for, each an alternative: a joined
``Xti`` also matches ``X ti`` (``X’ti``), a nasal ``Xnti`` also ``X nti`` and ``Xṃ ti``. The query
parser joins a typed ``X’ti`` or ``X ti`` first (:func:`join`), so every spelling reaches the same
rewrite. Pure functions over canonical or folded words.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product

LONG = {"a": "ā", "i": "ī", "u": "ū"}  # a short vowel before iti is lengthened: gacchāmi + iti → gacchāmīti
BEFORE_TI = ("ā", "ī", "ū", "e", "o")  # a word before a quoted ’ti ends so (CST: 99% of 157,000)
BEFORE_NTI = ("a", "i", "u")  # ṃ + iti → nti: sarīraṃ → sarīra’nti (CST: 99.9% of 37,000)
FOLDED_BEFORE_TI = ("a", "i", "u", "e", "o")
MIN_BASE = 2  # letters of the word before iti
MAX_VARIANTS = 16  # spellings of one phrase (each word's multiply)


def join(word: str, enclitic: str) -> str | None:
    """``word`` followed by a separate ``ti``/``nti`` (canonical, as typed: ``gacchāmī’ti``, ``ahaṃ ti``)
    as one joined word (``gacchāmīti``, ``ahanti``), or None when it cannot stand before iti."""
    if len(word) < MIN_BASE or not word[-1].isalpha():
        return None
    if enclitic == "nti":
        return word + "nti" if word.endswith(BEFORE_NTI) else None
    if word.endswith(("ṃ", "n")) and word[:-1].endswith(BEFORE_NTI):  # ahaṃ ti, ahan’ti → ahanti
        return word[:-1] + "nti"
    if word.endswith(tuple(LONG)):  # gacchāmi ti → gacchāmīti
        return word[:-1] + LONG[word[-1]] + "ti"
    return word + "ti" if word.endswith(BEFORE_TI) else None


def spellings(word: str, folded: bool) -> list[list[str]]:
    """The word's spellings as the index reads them, itself first: ``gacchāmīti`` → ``gacchāmīti``,
    ``gacchāmī ti``; ``sarīranti`` → ``sarīranti``, ``sarīra nti``, ``sarīraṃ ti``. A word that cannot be
    a word joined with iti has only itself."""
    out = [[word]]
    if word.endswith("nti") and len(word) - 3 >= MIN_BASE and word[:-3].endswith(BEFORE_NTI):
        base = word[:-3]
        out += [[base, "nti"], [base + ("m" if folded else "ṃ"), "ti"]]
    elif (
        word.endswith("ti")
        and len(word) - 2 >= MIN_BASE
        and word[:-2].endswith(FOLDED_BEFORE_TI if folded else BEFORE_TI)
    ):
        out.append([word[:-2], "ti"])
    return out


def variants(words: list[str], spelled: Callable[[str], list[list[str]]]) -> list[list[str]]:
    """The spellings of a phrase: every combination of its words' spellings (``spelled``, as typed first),
    at most :data:`MAX_VARIANTS`."""
    out: list[list[str]] = []
    for combo in product(*(spelled(w) for w in words)):
        out.append([t for part in combo for t in part])
        if len(out) == MAX_VARIANTS:
            break
    return out
