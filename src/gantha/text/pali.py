"""Pali text analysis: canonical form, diacritic folding, tokens, input schemes and scripts.

Pure functions, no I/O. The same functions analyse the corpus at ingest and the query at search
time, so a form typed by a user lands on the same index terms as the text it should match.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

import regex


class HeldPattern:
    """A ``regex`` pattern matched without letting other threads run meanwhile. By default the ``regex`` module
    releases the GIL at every match in a str; in a server, where a request's threads share the GIL, each word
    of a snippet then waited for another thread's turn (a scan of a 50-word passage ran 5 times a second
    beside three busy threads, 12,744 times holding the GIL)."""

    __slots__ = ("pattern",)

    def __init__(self, pattern: str):
        self.pattern = regex.compile(pattern)

    def findall(self, string: str, pos: int = 0, endpos: int | None = None) -> list[str]:
        return self.pattern.findall(string, pos, endpos, concurrent=False)

    def finditer(self, string: str, pos: int = 0, endpos: int | None = None) -> Iterator[regex.Match]:
        return self.pattern.finditer(string, pos, endpos, concurrent=False)


WORD_RE = HeldPattern(r"[\p{L}\p{M}\p{N}]+")
"""A word: a run of letters, combining marks and digits (the index tokenizes with the same class)."""


def _build_fold_table() -> dict[int, str | None]:
    table: dict[int, str | None] = {}
    for block in (range(0x00C0, 0x0250), range(0x1E00, 0x1F00)):
        for cp in block:
            base = "".join(c for c in unicodedata.normalize("NFD", chr(cp)) if not unicodedata.combining(c))
            if base != chr(cp) and base.isascii() and len(base) == 1:  # length-preserving
                table[cp] = base.lower()
    for cp in range(0x0300, 0x0370):  # stray combining marks
        table[cp] = None
    table[ord("ŋ")] = "m"
    table[ord("Ŋ")] = "m"
    return table


_FOLD_TABLE = _build_fold_table()
# the Pali letters, folded by str.replace (fast C loops) before the rest goes through the table (a slow
# per-character path that only text in other scripts or with other accents still needs)
_PALI_FOLDS = tuple((c, _FOLD_TABLE[ord(c)]) for c in "āīūṃṅñṭḍṇḷ")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def canon(text: str) -> str:
    """Canonical Pali: NFC, lower case, every niggahīta spelling (ṁ, ŋ) as ṃ."""
    text = unicodedata.normalize("NFC", text).lower()
    return text if text.isascii() else text.replace("ṁ", "ṃ").replace("ŋ", "ṃ")


@lru_cache(maxsize=262_144)
def canon_word(word: str) -> str:
    """``canon`` of one word, remembered (a lemma's thousands of forms are canonicalised per search)."""
    return canon(word)


def fold(text: str) -> str:
    """Diacritic-free form: ``mettā`` → ``metta``, ``saṃyutta`` → ``samyutta``."""
    return unaccent(canon(text))


def unaccent(text: str) -> str:
    """``fold`` of a text already canonical (``canon``)."""
    if text.isascii():
        return text
    for accented, plain in _PALI_FOLDS:
        text = text.replace(accented, plain)
    return text if text.isascii() else _NON_ASCII.sub(lambda m: m.group().translate(_FOLD_TABLE), text)


def words(text: str) -> list[str]:
    """The words of a text, as they stand (no case or diacritic change)."""
    return WORD_RE.findall(text)


# --- input schemes -------------------------------------------------------------------------------

_VELTHUIS = [
    (r"aa", "ā"),
    (r"ii", "ī"),
    (r"uu", "ū"),
    (r"\.m", "ṃ"),
    (r"~n", "ñ"),
    (r'(?<=[a-z])"n', "ṅ"),
    (r"\.n", "ṇ"),
    (r"\.t", "ṭ"),
    (r"\.d", "ḍ"),
    (r"\.l", "ḷ"),
    (r"\.r", "ṛ"),
    (r"\.h", "ḥ"),
    (r"\.s", "ṣ"),
    (r'(?<=[a-z])"s', "ś"),
]
_VELTHUIS_RE = re.compile(r'[a-z]\.[mntdlrhs]|~n|[a-z]"[ns]')
_HK_MAP = {
    "A": "ā",
    "I": "ī",
    "U": "ū",
    "M": "ṃ",
    "H": "ḥ",
    "G": "ṅ",
    "J": "ñ",
    "T": "ṭ",
    "D": "ḍ",
    "N": "ṇ",
    "L": "ḷ",
    "R": "ṛ",
    "z": "ś",
    "S": "ṣ",
}
_HK_RE = re.compile(r"[a-z][AIUMHGJTDNLRS]")


def from_velthuis(text: str) -> str:
    """Velthuis ASCII (``mettaa``, ``sa.myutta``, ``pa~n~na``) to Roman Pali."""
    for pattern, dst in _VELTHUIS:
        text = re.sub(pattern, dst, text)
    return text


def from_harvard_kyoto(text: str) -> str:
    """Harvard-Kyoto ASCII (``mettA``, ``saMyutta``, ``paJJA``) to Roman Pali."""
    return "".join(_HK_MAP.get(c, c) for c in text)


def detect_scheme(text: str) -> str:
    """Guess the input scheme of an ASCII query: ``velthuis``, ``hk`` or ``iast`` (plain Roman).

    Only unambiguous signs count: Velthuis dots/tildes/quotes (``.m``, ``~n``, ``"n``) and
    Harvard-Kyoto capitals inside a lower-case word (``saMyutta``). Plain ASCII such as
    ``mettaa`` is left alone: doubled vowels also occur in real Pali compounds.
    """
    if _VELTHUIS_RE.search(text):
        return "velthuis"
    if _HK_RE.search(text):
        return "hk"
    return "iast"


# --- scripts -------------------------------------------------------------------------------------

_SCRIPT_RANGES = {
    "Burmese": (0x1000, 0x109F),
    "Sinhala": (0x0D80, 0x0DFF),
    "Thai": (0x0E00, 0x0E7F),
    "Devanagari": (0x0900, 0x097F),
}
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_MYANMAR_U_FIX = re.compile("\u1009(?=[\u1000-\u1021])")  # ဉ typed for ဥ before a consonant


def detect_script(text: str) -> str:
    """The script of a query: ``Roman``, ``Han`` (Chinese) or one of Burmese, Sinhala, Thai, Devanagari."""
    if _HAN.search(text):
        return "Han"
    for ch in text:
        cp = ord(ch)
        for script, (lo, hi) in _SCRIPT_RANGES.items():
            if lo <= cp <= hi:
                return script
    return "Roman"


@lru_cache(maxsize=4096)
def to_roman(text: str, script: str | None = None) -> str:
    """Convert Pali in Myanmar, Sinhala, Thai or Devanagari script to canonical Roman.

    Burmese text often carries ``ဉ`` (nya) where ``ဥ`` (u) is meant; a ``ဉ`` directly followed by a
    consonant cannot be nya (a conjunct would need the virama), so it is read as ``ဥ``.
    """
    script = script or detect_script(text)
    if script == "Roman":
        return canon(text)
    from aksharamukha import transliterate  # heavy import: only when a script query arrives

    if script == "Burmese":
        text = _MYANMAR_U_FIX.sub("\u1025", text)
    return canon(transliterate.process(script, "IASTPali", text))


SCRIPTS = ("Roman", "Burmese", "Sinhala", "Thai", "Devanagari")


@lru_cache(maxsize=8192)
def from_roman(text: str, script: str) -> str:
    """Roman Pali in another script (one of ``SCRIPTS``)."""
    if script not in SCRIPTS:
        raise ValueError(f"unknown script {script!r}; one of {', '.join(SCRIPTS)}")
    if script == "Roman":
        return text
    from aksharamukha import transliterate

    return transliterate.process("IASTPali", script, text)


def normalize_query_text(text: str, scheme: str = "auto") -> tuple[str, list[str]]:
    """Bring query text to canonical Roman Pali; return it with the steps applied (for query_info)."""
    steps: list[str] = []
    script = detect_script(text)
    if script == "Han":
        from gantha.text.chinese import to_simplified

        simplified = to_simplified(text)
        if simplified != text:
            steps.append("chinese:traditional->simplified")
        return simplified.lower(), steps
    if script != "Roman":
        text = to_roman(text, script)
        steps.append(f"script:{script.lower()}->roman")
    elif scheme != "iast":
        chosen = detect_scheme(text) if scheme == "auto" else scheme
        if chosen == "velthuis":
            text = from_velthuis(text)
            steps.append("scheme:velthuis->roman")
        elif chosen == "hk":
            text = from_harvard_kyoto(text)
            steps.append("scheme:harvard-kyoto->roman")
    return canon(text), steps
