"""Chinese analysis: traditional → simplified (OpenCC), variant characters made one, and the two ways of cutting.

The index holds Chinese character by character (:func:`characters`), as the Chinese canon's search engines
do: a segmenter trained on modern Chinese cuts the classical text of the Āgamas badly, while a word typed
as a phrase of its characters finds it wherever it is written. Index and query both simplify (OpenCC ``t2s``)
and fold the variant characters of :data:`VARIANTS`, so 說法, 说法 and 説法 land on the same characters.
Questions in modern Chinese are cut into words by jieba (:func:`question_words`), each then searched as a
phrase. The
segmenter learns the headwords of the Chinese Pali dictionaries (and any user word list) so that
terms such as 夜叉 or 比丘尼 stay whole. Offsets are kept: ``tokens`` returns each word with its
position in the original text, so highlights land on the characters the reader typed or sees.
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
CJK = re.compile(f"[{_HAN}]")
_TOKEN = re.compile(f"[{_HAN}]|[^\\W{_HAN}]+")  # a Han character, or a run of other letters and digits
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


# variant characters (異體字) OpenCC leaves apart, each folded to the form OpenCC gives the standard character;
# measured on the Āgamas by eval/chinese_variants.py
VARIANTS = str.maketrans(
    {
        "衞": "卫", "靑": "青", "淸": "清", "吿": "告", "嗔": "瞋", "喩": "喻", "慙": "惭", "媿": "愧", "硏": "研",
        "戸": "户", "觧": "解", "兎": "兔", "徧": "遍", "窻": "窗", "窓": "窗", "姉": "姊", "珎": "珍", "虵": "蛇",
        "讐": "雠", "恠": "怪", "罸": "罚", "舩": "船", "鬪": "斗", "鬭": "斗", "甞": "尝", "呪": "咒", "婬": "淫",
        "麤": "粗", "僊": "仙", "彊": "强", "醻": "酬", "菓": "果", "秖": "只", "旣": "既", "卽": "即", "敎": "教",
        "眞": "真", "黃": "黄", "內": "内", "說": "说", "脫": "脱", "悅": "悦", "爲": "为", "衆": "众", "閒": "闲",
    }
)


def fold(text: str) -> str:
    """Simplified, NFKC (compatibility ideographs), variant characters folded; the same length as ``text``."""
    folded = unicodedata.normalize("NFKC", text)
    if len(folded) != len(text):
        folded = "".join(c if len(c := unicodedata.normalize("NFKC", ch)) == 1 else ch for ch in text)
    simplified = to_simplified(folded)
    if len(simplified) != len(folded):
        simplified = "".join(c if len(c := to_simplified(ch)) == 1 else ch for ch in folded)
    return simplified.translate(VARIANTS)


def characters(text: str) -> list[tuple[str, int, int]]:
    """Chinese text as (folded character, start, end) for each Han character; a run of letters or digits
    inside it is one token; punctuation dropped."""
    folded = fold(text)
    out = []
    for m in _TOKEN.finditer(folded):
        out.append((m.group().lower(), m.start(), m.end()))
    return out


def question_words(text: str) -> list[str]:
    """The words of a question in (modern) Chinese that name something to look for: jieba's cut, folded,
    without function words and one-character particles."""
    words = [fold(w) for w, _, _ in tokens(text)]
    return [w for w in words if w not in FUNCTION_WORDS and (len(w) > 1 or w not in PARTICLES)]


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
# one-character particles and pronouns of classical and modern Chinese: alone they find nearly every paragraph
PARTICLES = frozenset("之乎者也矣焉哉兮而其於于以與与則则亦且乃所為为是此彼吾我汝爾尔何的了吗呢吧么在和有不")
