"""Secondary derivation (taddhita): the stems a nominal lemma derives with a common suffix. Pure functions.

-ika and -ya take the vṛddhi of the first vowel (a → ā, i/ī → e, u/ū → o: parivāsa → pārivāsika, kusala →
kosalla) or, before a double consonant, often none (dhamma → dhammika); -ya assimilates a final dental,
nasal or l (samaṇa → sāmañña, paṇḍita → paṇḍicca); -in is named by its nominative, -ī (dhammī); -tā and
-tta make abstract nouns of the whole stem (aniccatā, manussatta). Proposals only: the caller keeps the
stems the texts attest and the dictionaries do not give another origin.
"""

from __future__ import annotations

SUFFIXES = ("ika", "ya", "in", "tā", "tta")
VOWELS = "aāiīuūeo"
VRDDHI = {"a": "ā", "i": "e", "ī": "e", "u": "o", "ū": "o"}
ASSIMILATED = {"th": "cch", "dh": "jjh", "t": "cc", "d": "jj", "n": "ññ", "ṇ": "ññ", "l": "ll"}  # before -ya
MIN_STEM = 3  # letters of a stem that takes a suffix


def vrddhi(stem: str) -> str:
    """The stem with its first vowel strengthened: ``parivās`` → ``pārivās``, ``vinay`` → ``venay``."""
    for i, ch in enumerate(stem):
        if ch in VOWELS:
            return stem[:i] + VRDDHI.get(ch, ch) + stem[i + 1 :]
    return stem


def _with_ya(stem: str) -> str:
    for ending, assimilated in ASSIMILATED.items():
        if stem.endswith(ending):
            return stem[: len(stem) - len(ending)] + assimilated + "a"
    return stem + "ya"


def candidates(lemma: str) -> list[tuple[str, str]]:
    """(derived stem, suffix) a nominal lemma may have: its -ika, -ya and -in stems (from an a- or ā-stem),
    its -tā and -tta nouns (from an a-, i- or u-stem); each once, the lemma itself never."""
    out: dict[str, str] = {}
    if lemma.endswith(("a", "ā")) and len(lemma) > MIN_STEM:
        bare = lemma[:-1]
        for stem in dict.fromkeys((vrddhi(bare), bare)):
            out.setdefault(stem + "ika", "ika")
            out.setdefault(_with_ya(stem), "ya")
        out.setdefault(bare + "ī", "in")
    if lemma.endswith(("a", "i", "u")) and len(lemma) >= MIN_STEM:
        out.setdefault(lemma + "tā", "tā")
        out.setdefault(lemma + "tta", "tta")
    out.pop(lemma, None)
    return list(out.items())
