"""Variant readings: the CST's ``<note>`` elements read as the readings of other editions.

A note holds one or more readings, each followed by the editions that have it in parentheses:
``samphusito (syā.), saṃpuṭito (pī. ka.)``. The sigla are spelled out (``EDITIONS``); a note without any
(a reference such as ``mahāva. 9``, or a remark) is not a variant. The reading stands in the text in place of
the word the note follows (``replaces``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gantha.text.pali import WORD_RE

EDITIONS = {
    "sī.": "Sinhalese (Sīhaḷa) edition",
    "syā.": "Thai (Syāmaraṭṭha) edition",
    "kaṃ.": "Cambodian (Kamboja) edition",
    "pī.": "Pali Text Society edition",
    "ka.": "another manuscript or edition (ka.)",
    "aṭṭha.": "the commentary's reading",
    "ṭī.": "the subcommentary's reading",
    "ṭīkā": "the subcommentary's reading",
    "bahūsu": "most editions",
    "sabbattha": "all editions",
    "katthaci": "some editions",
    "potthake": "a manuscript",
    "?": "uncertain reading",
}
_GROUP = re.compile(r"\(([^()]*)\)")
_SIGLUM = re.compile("|".join(re.escape(s) for s in sorted(EDITIONS, key=len, reverse=True)))
_MARKER = re.compile(r"\[\^(\d+)\]")


@dataclass(frozen=True, slots=True)
class Edition:
    siglum: str
    name: str


@dataclass(frozen=True, slots=True)
class Reading:
    """One variant reading: its text and the editions that have it."""

    text: str
    editions: tuple[Edition, ...]


def readings(note: str) -> list[Reading]:
    """The readings a note gives (none: the note is not a variant)."""
    out: list[Reading] = []
    start = 0
    for m in _GROUP.finditer(note):
        sigla = _SIGLUM.findall(m.group(1))
        text = note[start : m.start()].strip(" ,;")
        start = m.end()
        if sigla and text:
            editions = tuple(Edition(s, EDITIONS[s]) for s in dict.fromkeys(sigla))
            out.append(Reading(text, editions))
    return out


def variant_text(notes: list[str]) -> str:
    """The text of every variant reading of a passage (what a search in the variants matches)."""
    return " ".join(r.text for note in notes for r in readings(note))


def replaced_words(display: str) -> dict[int, str]:
    """Note number (1-based) → the word the note follows in a passage's display text."""
    out = {}
    for m in _MARKER.finditer(display):
        before = WORD_RE.findall(display[max(0, m.start() - 80) : m.start()].replace("**", ""))
        out[int(m.group(1))] = before[-1] if before else ""
    return out
