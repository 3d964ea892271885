"""Compounds: the attested words a lemma stands in as a member, found in the index's vocabulary.

A compound is an attested word that ends with a form of the lemma after another dictionary stem
(``ekāha|parivāsaṃ``, ``pañc-āha|parivāsaṃ``) or begins with the lemma's stem before another attested
word (``parivāsa|dānaṃ``). Verbal prefixes are derivation, not composition (``pari|vāsaṃ`` is not a
compound of ``vāsa``), and a form of the lemma itself or an enclitic join is never a compound.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from pydantic import BaseModel, Field

from gantha.store.base import Store

_PREFIXES = "a an ā pa pā pari sam saṃ sa vi ni nī anu abhi adhi upa u ud ut ava o apa pati paṭi ati du dur su nir"
VERBAL_PREFIXES = frozenset(_PREFIXES.split())  # upasagga and negation: derivation, not composition
_ENCLITICS = "ca pi va eva iti ti hi nu kho pana tu ceva yeva api pīti nti mpi ñca"
ENCLITICS = frozenset(_ENCLITICS.split())
MIN_MEMBER = 3  # letters of the shortest compound member recognised
AROUND = 2000  # words looked at around each form when finding compounds


class FormInfo(BaseModel):
    form: str
    paragraphs: int
    bold_paragraphs: int
    sources: list[str]
    grammar: list[str] = Field(default_factory=list)
    members: list[str] = Field(default_factory=list)  # a compound's parts, the lemma's among them


class Compounds:
    """Over one store's vocabulary; ``is_lemma`` says which words are dictionary headwords."""

    def __init__(
        self, store: Store, is_lemma: Callable[[str], bool], participle_suffixes: Callable[[], frozenset[str]]
    ):
        self.store, self.is_lemma = store, is_lemma
        self._suffixes = participle_suffixes

    @cached_property
    def _participle_suffixes(self) -> frozenset[str]:
        return self._suffixes()

    def find(self, lemma: str, forms: list[FormInfo]) -> list[FormInfo]:
        own = {f.form for f in forms}
        found: dict[str, FormInfo] = {}
        for f in forms:  # the lemma as the last member: another stem before one of its forms
            if len(f.form) <= MIN_MEMBER:
                continue
            for word, n, bold in self.store.words_around(f.form, ending=True, limit=AROUND):
                head = word[: len(word) - len(f.form)]
                if word in own or self._derives(head, lemma):
                    continue
                if members := self.stems(head):
                    found.setdefault(word, FormInfo(form=word, paragraphs=n, bold_paragraphs=bold, sources=[]))
                    found[word].members = [*members, f.form]
        if not lemma.endswith("ti"):  # a nominal stem as the first member: another word after it
            for word, n, bold in self.store.words_around(lemma, ending=False, limit=AROUND):
                tail = word[len(lemma) :]
                if word not in own and word not in found and self._is_word(tail, n):
                    found[word] = FormInfo(form=word, paragraphs=n, bold_paragraphs=bold, sources=[])
                    found[word].members = [lemma, tail]
        for info in found.values():
            info.sources = ["compound"]
        return sorted(found.values(), key=lambda f: (-f.paragraphs, f.form))

    def _derives(self, head: str, lemma: str) -> bool:
        """``head`` + ``lemma`` is not a compound of ``lemma`` but a derivation or a longer word: a participle
        (labha|māna, visodhiya|māna, a|labha|māna), or a headword ending in it after a stem (dhamma|samā|dāna
        holds samādāna; ghar|ā|vāsa holds āvāsa; pari|vāsa is a prefix)."""
        if (
            lemma in self._participle_suffixes
            and (  # a verb's present stem before it (any last part of the head)
                head.endswith("ya") or any(self.is_lemma(head[-k:] + "ti") for k in range(MIN_MEMBER, len(head) + 1))
            )
        ):
            return True
        if _prefixed(head) or _prefixed(head.removesuffix("ā")):  # sam|ā|dāna, pari|y|ā|dāna, up|ā|dāna
            return True
        for k in range(2, min(6, len(head))):  # a fragment, not a stem, that makes another word with the lemma
            rest, part = head[: len(head) - k], head[len(head) - k :]
            fragment = part != "sa" and (not self._is_stem(part) or _prefixed(part.removesuffix("ā")))
            if fragment and self.is_lemma(part + lemma) and (rest in VERBAL_PREFIXES or self.stems(rest)):
                return True
        return False

    def stems(self, text: str) -> list[str]:
        """``text`` read as one or two dictionary stems (vowel sandhi at the join undone), or []."""
        if self._is_stem(text):
            return [text]
        for i in range(MIN_MEMBER, len(text) - MIN_MEMBER + 1):
            left, right = text[:i], text[i:]
            for lhs, rhs in _joins(left, right):
                if self._is_stem(lhs) and self._is_stem(rhs):
                    return [lhs, rhs]
        return []

    def _is_stem(self, text: str) -> bool:
        if len(text) < MIN_MEMBER or text in VERBAL_PREFIXES:
            return False
        return self.is_lemma(text) or (text[-1] in "āīū" and self.is_lemma(text[:-1] + _SHORT[text[-1]]))

    def _is_word(self, text: str, paragraphs: int) -> bool:
        """A word attested on its own more often than in the compound, that can stand after a first member."""
        if len(text) < MIN_MEMBER or text in ENCLITICS or text.startswith(("ti", "nti", "pi", "mpi", "m")):
            return False
        return self.store.word_counts([text]).get(text, (0, 0))[0] > max(2, paragraphs)


_SHORT = {"ā": "a", "ī": "i", "ū": "u"}


def _prefixed(text: str) -> bool:
    """A verbal prefix, alone or with a glide or a stem vowel (up|a, pari|y)."""
    return text in VERBAL_PREFIXES or (text[:-1] in VERBAL_PREFIXES and text[-1:] in ("a", "y"))


def _joins(left: str, right: str) -> list[tuple[str, str]]:
    """Ways two members may have been joined: as they stand, or a + a → ā (pañc|āha = pañca + aha)."""
    out = [(left, right)]
    if right[:1] == "ā":
        out.append((left + "a", "a" + right[1:]))
    return out
