"""Chinese analysis: traditional → simplified (OpenCC) and word segmentation (jieba) with Buddhist terms.

Index and query go through the same two steps, so 說法 and 说法 land on the same terms. The
segmenter learns the headwords of the Chinese Pali dictionaries (and any user word list) so that
terms such as 夜叉 or 比丘尼 stay whole. Offsets are kept: ``tokens`` returns each word with its
position in the original text, so highlights land on the characters the reader typed or sees.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_lock = threading.Lock()
_user_words: set[str] = set()
_pending: list[str] = []  # terms to teach the segmenter when it first starts


def has_chinese(text: str) -> bool:
    return bool(CJK.search(text))


@lru_cache(maxsize=1)
def _converter():
    import opencc

    return opencc.OpenCC("t2s")


def to_simplified(text: str) -> str:
    """Traditional characters to simplified (OpenCC ``t2s``); other text passes unchanged."""
    return _converter().convert(text) if has_chinese(text) else text


@lru_cache(maxsize=1)
def _segmenter():
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.initialize()
    _add(tokenizer, _pending)
    return tokenizer


def read_words(path: Path) -> list[str]:
    """A word list, one term per line (anything after the first blank is ignored, as jieba does)."""
    return [line.split()[0] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _add(seg, words: Iterable[str]) -> int:
    n = 0
    with _lock:
        for w in words:
            w = to_simplified(w.strip())
            if 1 < len(w) <= 12 and has_chinese(w) and w not in _user_words:
                seg.add_word(w, freq=2000)
                _user_words.add(w)
                n += 1
    return n


def register_words(words: Iterable[str]) -> None:
    """Use these terms for every segmentation, from the first one on (an index's fixed term list)."""
    words = list(words)
    if _segmenter.cache_info().currsize:  # already running: add the words now
        _add(_segmenter(), words)
    else:
        with _lock:
            _pending.extend(words)


def add_words(words: Iterable[str]) -> int:
    """Teach the segmenter terms (simplified form); return how many were new."""
    return _add(_segmenter(), words)


def tokens(text: str) -> list[tuple[str, int, int]]:
    """Words of Chinese text as (simplified word, start, end) in the original text; punctuation dropped."""
    simplified = to_simplified(text)
    if len(simplified) != len(text):  # OpenCC changed the length: segment, then map by character count
        simplified = "".join(to_simplified(ch) for ch in text)
    out = []
    for word, start, end in _segmenter().tokenize(simplified):
        if word.strip() and (has_chinese(word) or word.isalnum()):
            out.append((word.lower(), start, end))
    return out


_FUNCTION = (
    "什么 一个 这个 那个 我们 他们 你们 自己 可以 应该 因为 所以 如何 怎样 怎么 为什么 是否 还是 关于 "
    "哪些 哪个 如果 就是 或者 而且 但是 然后 为了 已经 没有 不是 这样 那样 这些 那些 规定 教导 说法"
)
FUNCTION_WORDS = frozenset(_FUNCTION.split())  # words of a Chinese question that name nothing to look for
