"""Derivatives: the words a lemma's family derives with a suffix (``pārivāsika`` from ``parivāsa``, ``aniccatā``
from ``anicca``), found in the index's vocabulary and kept apart from inflections and compounds.

A stem proposed by :func:`gantha.text.derive.candidates` is a derivative when the texts write some of its forms
and nothing says it comes from elsewhere: a dictionary headword must name the lemma in its parent, factors
or meanings, or share a meaning with it, and must not name another parent (``sāratta``, impassioned, is
``sārajjati``'s, not ``sāra``'s); a stem no dictionary lists must be one WikiPali's analyses read words as
forms of, or an abstract noun in -tā or -tta, whose sense is always the lemma's. A form WikiPali reads as
another word's (``pāṇinā``, with the hand, beside ``pāṇī``, a living being) is left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from gantha.model import DictEntry
from gantha.search.compounds import FormInfo
from gantha.store.lexicon import Lexicon
from gantha.text.derive import candidates
from gantha.text.pali import canon

TRANSPARENT = ("tā", "tta")  # abstract nouns: the lemma's sense, whatever the dictionaries list
_LETTER = "a-zāīūṃṅñṭḍṇḷ"
_ENGLISH = re.compile(r"[a-z]{4,}")
_HAN = re.compile(r"[\u3400-\u9fff]+")
_COMMON_WORDS = "with from into that this which being having made state quality nature thing person"
_COMMON = frozenset(_COMMON_WORDS.split())  # English words that say nothing of a meaning


@dataclass
class Derivative:
    """A derived stem of a lemma with its attested forms, and why it counts as the lemma's."""

    lemma: str
    suffix: str
    forms: list[FormInfo]
    evidence: str = ""
    left_out: list[str] = field(default_factory=list)  # forms WikiPali reads as another word's


class Derivatives:
    """Over one lexicon; ``family(stem)`` gives a stem's attested forms (its paradigm, without compounds)."""

    def __init__(self, lexicon: Lexicon, family: Callable[[str], list[FormInfo]]):
        self.lexicon, self.family = lexicon, family

    def find(self, lemma: str, own: list[FormInfo]) -> list[Derivative]:
        """The attested derivatives of a nominal lemma with these forms, most paragraphs first; each form in
        one of them only."""
        own_forms = {f.form for f in own}
        proposed = candidates(lemma)
        found: list[Derivative] = []
        taken = set(own_forms)
        for stem, suffix in proposed:
            if not (forms := [f for f in self.family(stem) if f.form not in taken]):
                continue
            siblings = [other for other, s in proposed if s == suffix and other != stem]  # with or without vṛddhi
            if (evidence := self._evidence(lemma, own_forms, stem, suffix, siblings)) is None:
                continue
            kept = [f for f in forms if self._reads_as(f.form, {stem, lemma, stem.removesuffix("ī") + "in"})]
            if kept:
                left_out = sorted({f.form for f in forms} - {f.form for f in kept})
                found.append(Derivative(stem, suffix, kept, evidence, left_out))
                taken |= {f.form for f in kept}
        return sorted(found, key=lambda d: (-sum(f.paragraphs for f in d.forms), d.lemma))

    def _evidence(self, lemma: str, own: set[str], stem: str, suffix: str, siblings: list[str]) -> str | None:
        """Why ``stem`` is the lemma's derivative, or None when it is not (see the module's rules);
        ``siblings``: the same derivative spelled with or without vṛddhi (parivāsika beside pārivāsika)."""
        names = re.compile(rf"(?<![{_LETTER}])(?:{'|'.join(map(re.escape, {lemma, *own}))})(?![{_LETTER}])")
        if entries := self.lexicon.entries(stem):
            if named := _naming(entries, names):
                return named
            if any(e.parent.strip() for e in entries):
                return None  # derived from another word
            shared = _senses(entries) & _senses(self.lexicon.entries(lemma))
            return f"shared meaning: {', '.join(sorted(shared)[:3])}" if shared else None
        for sibling in siblings:
            if named := _naming(self.lexicon.entries(sibling), names):
                return f"as {sibling}: {named}"
        if suffix in TRANSPARENT and self.lexicon.forms_of(stem):  # not a fragment such as (a)nāgatā
            return f"regular -{suffix}, analysed by WikiPali"
        return None

    def _reads_as(self, form: str, own: set[str]) -> bool:
        """WikiPali's analyses read ``form`` as a form of one of ``own`` (or do not know it)."""
        bases = self.lexicon.bases_of(form)
        return not bases or bases[0][0] in own


def _naming(entries: list[DictEntry], names: re.Pattern[str]) -> str | None:
    """The first parent, factors or meaning of these entries that names the lemma (``names``), quoted."""
    for e in entries:
        for where, text in (("parent", e.parent), ("factors", e.factors), ("meaning", " ".join(e.meanings))):
            if names.search(canon(text)):
                return f"{e.dictionary} {where}: {text.strip()[:60]}"
    return None


def _senses(entries: list[DictEntry]) -> set[str]:
    """The content of some meanings: English words (their first six letters) and Chinese character pairs."""
    out: set[str] = set()
    for e in entries:
        for meaning in e.meanings:
            text = meaning.lower()
            out |= {w[:6] for w in _ENGLISH.findall(text) if w not in _COMMON}
            out |= {run[i : i + 2] for run in _HAN.findall(text) for i in range(len(run) - 1)}
    return out
