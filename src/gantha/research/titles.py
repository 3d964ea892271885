"""Texts a question names by their titles: "What is the Mahāparinibbāna Sutta about?" names DN 16, "the
bandit Aṅgulimāla" MN 86, "the chapter on love in 1 Corinthians" the book 1 Corinthians.

A named text (a sutta, a rule, a khandhaka: the index's ``texts``) is named by its Pali title without
"sutta" (``mahaparinibbana``), typed with or without diacritics, as one word or as consecutive words
(``Maha Parinibbana``), or by the content words of its English title in a row (``mindfulness of
breathing``: at least :data:`MIN_ENGLISH` of them); a book by its title without "pāḷi" (``Cūḷavagga``,
``1 Corinthians``). A title shared by more than :data:`MAX_SHARED` texts names none of them (twelve suttas
are called Ānandasutta), nor does a Pali title of fewer than :data:`MIN_KEY` letters (a word such as
dhamma or pavāraṇā names a topic) unless the question calls it a sutta ("the Piṇḍa Sutta") or, a book,
looks inside it ("love in Romans"). Pali lemmas bridged from a Chinese or English question count as typed
words.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gantha.model import TextRecord
from gantha.store.base import BookRecord
from gantha.text.english import STOPWORDS
from gantha.text.pali import WORD_RE, fold

MIN_KEY = 9  # letters of the shortest Pali title that names a text by itself (aṅgulimāla, cūḷavagga)
MIN_CALLED = 4  # … and of one the question calls a sutta (the Piṇḍa Sutta)
CALLED = frozenset(("sutta", "suttam", "suttanta", "sutra", "discourse"))
MAX_SHARED = 2  # texts one title may name (the Mahāsatipaṭṭhāna of DN 22 and MN 10)
MAX_JOINED = 3  # consecutive words of a question joined to spell one Pali title
MIN_ENGLISH = 2  # content words of an English title that must all be in the question
_PALI_ENDINGS = ("suttanta", "suttam", "sutta", "palim", "pali", "m")  # suttaṃ, pāḷi: not part of the name


@dataclass(frozen=True, slots=True)
class Named:
    """A text or book a question names: ``kind`` text (``key`` its label, MN 86) or book (``corpus/book``)."""

    kind: str
    key: str
    title: str
    corpus: str
    book: str
    first_para: str = ""


def title_key(title: str) -> str:
    """A Pali title as a question may spell it: folded, letters only, without "sutta" or "pāḷi"
    (Mahāparinibbānasutta → mahaparinibbana; 1 Corinthians → 1corinthians)."""
    key = "".join(WORD_RE.findall(fold(title).lower()))
    for ending in _PALI_ENDINGS:
        if key.endswith(ending) and len(key) - len(ending) >= MIN_CALLED:
            return key[: -len(ending)]
    return key


class Titles:
    """Every title of one index, looked up by the words of a question."""

    def __init__(self, texts: list[TextRecord], books: list[BookRecord]):
        by_key: dict[str, set[Named]] = defaultdict(set)
        by_phrase: dict[tuple[str, ...], set[Named]] = defaultdict(set)
        for t in texts:
            named = Named("text", t.label, t.pali_title or t.title, t.corpus, t.book, t.first_para)
            if t.pali_title:
                by_key[title_key(t.pali_title)].add(named)
            if len(phrase := _content(t.title)) >= MIN_ENGLISH:
                by_phrase[phrase].add(named)
        for r in books:
            if r.info.title:
                named = Named("book", f"{r.info.corpus}/{r.info.book}", r.info.title, r.info.corpus, r.info.book)
                by_key[title_key(r.info.title)].add(named)
        self._by_key = {k: v for k, v in by_key.items() if len(k) >= MIN_CALLED and len(v) <= MAX_SHARED}
        self._by_phrase = {k: v for k, v in by_phrase.items() if len(v) <= MAX_SHARED}
        self._longest = max(map(len, self._by_phrase), default=0)

    def named(self, question: str, lemmas: list[str] = ()) -> list[Named]:
        """The texts and books ``question`` names (``lemmas``: Pali words bridged from it), each once."""
        words = ["".join(WORD_RE.findall(w)) for w in fold(question).lower().split()]
        words = [w for w in words if w] + [title_key(lemma) for lemma in lemmas]
        found: dict[Named, None] = {}
        for i in range(len(words)):
            for n in range(1, min(MAX_JOINED, len(words) - i) + 1):
                joined = "".join(words[i : i + n])
                key = title_key(joined)
                called = key != joined or (i + n < len(words) and words[i + n] in CALLED)
                inside = i > 0 and words[i - 1] == "in"  # "love in Romans": a book
                for named in sorted(self._by_key.get(key, ()), key=lambda x: x.key):
                    if len(key) >= MIN_KEY or called or (inside and named.kind == "book"):
                        found.setdefault(named)
        asked = _content(question)
        for i in range(len(asked)):
            for n in range(MIN_ENGLISH, min(self._longest, len(asked) - i) + 1):
                for named in sorted(self._by_phrase.get(asked[i : i + n], ()), key=lambda x: x.key):
                    found.setdefault(named)
        return list(found)

    def unnamed(self, question: str, books: list[Named]) -> str:
        """The question without the words that name these books (and the "in" before them): "the chapter on
        love in Romans" → "the chapter on love" (searched inside Romans, the name would draw the vectors to
        "Rome")."""
        tokens = question.split()
        words = ["".join(WORD_RE.findall(w)) for w in fold(question).lower().split()]
        keys = {title_key(b.title) for b in books}
        for i in range(len(words)):
            for n in range(min(MAX_JOINED, len(words) - i), 0, -1):
                if title_key("".join(words[i : i + n])) in keys:
                    start = i - 1 if i > 0 and words[i - 1] in ("in", "of", "from") else i
                    return " ".join(tokens[:start] + tokens[i + n :])
        return question


def _content(text: str) -> tuple[str, ...]:
    """The folded words of an English text that are not function words, in their order."""
    return tuple(w for w in WORD_RE.findall(fold(text).lower()) if w not in STOPWORDS)
