"""A passage as a row of ``docs`` in COPY's text format: its analysed fields as ``tsvector`` literals.

The tokens are exactly those the embedded store indexes (:func:`gantha.text.analysis.index_texts`, cut into
words as tantivy's tokenizer cuts them, lower-cased, words of 120 bytes or more left out), each at its
position (1-based; PostgreSQL keeps positions up to 16,383 and 256 of them per word). A field's length is
tantivy's field norm (the token count, rounded down to one of 256 steps), so that BM25 sees the same lengths.

The ``_top`` vector of a long text field holds the tokens whose BM25 term weight in the passage,
``tf·(k1+1) / (tf + k1·(1 − b + b·len/avg))`` at a nominal average length of :data:`TIER_AVG` words, is at
least :data:`TIER_WEIGHT` (of 2.2 at most): a word repeated in its passage, or standing in a short one, with
its frequency as its one position, and beside it ``word!1`` if its weight reaches 1.75 and ``word!2`` if 1.9.
The ranking of a frequent word starts from these passages (see :mod:`gantha.store.postgres.compiler`).

With BM25 indexes (``bm25``) a ranked field also gets its tokens as text, in order and space-separated
(``name_words``, for pg_textsearch).

A :class:`Tally` sums, while the rows are made, what ``lexemes`` and the length totals need from them: a first
ingest writes these sums instead of re-reading every vector.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

import orjson

from gantha.model import Passage
from gantha.store.postgres.schema import BY_NAME, FIELDS
from gantha.text.analysis import index_texts
from gantha.text.pali import WORD_RE
from gantha.text.variants import variant_text

BM25_K1, BM25_B = 1.2, 0.75
LONGEST_TOKEN = 120  # bytes: the embedded analyzer drops longer tokens
MAX_POSITION, MAX_POSITIONS = 16383, 256  # PostgreSQL's limits on a tsvector's positions
TIER_AVG, TIER_WEIGHT = 20.0, 1.4  # the CST's paragraphs average 19 words
TIER_MARKS = (1.75, 1.9)  # the weights from which a _top word is marked heavier (level 1, 2)


def _fieldnorms() -> list[int]:
    """The field lengths BM25 sees in tantivy, which keeps a length in one byte: exact up to 40, then eight
    steps per doubling (40, 42 … 56, 60 … 88, 96 …); a length counts as the largest of these not above it."""
    out, value, step = list(range(41)), 40, 2
    while len(out) < 256:
        for _ in range(min(8, 256 - len(out))):
            value += step
            out.append(value)
        step *= 2
    return out


FIELDNORMS = _fieldnorms()


def fieldnorm(length: int) -> int:
    return FIELDNORMS[bisect_right(FIELDNORMS, length) - 1]


def copy_text(value: str) -> str:
    """A value in COPY's text format."""
    return value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def copy_array(values: list[str]) -> str:
    """A text array in COPY's text format."""
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return copy_text("{" + ",".join(quoted) + "}")


def lexeme(token: str) -> str:
    """A token quoted for a tsvector or tsquery literal."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"


def words(text: str) -> list[str | None]:
    """The words of an analysed text by position, as the embedded store's tokenizer cuts them (None: a word too
    long to index, which keeps its position)."""
    return [w if len(w) < 30 or len(w.encode()) < LONGEST_TOKEN else None for w in WORD_RE.findall(text.lower())]


class Analysed(NamedTuple):
    """A field of a passage: its tsvector literal, its length (BM25's), its ``_top`` literal, its lexemes, its
    tokens as text (for a BM25 index)."""

    literal: str
    length: int
    top: str
    lexemes: Iterable[str]
    words: str = ""


NOTHING = Analysed("", 0, "", ())


def vector(tokens: list[str | None], tiered: bool, text: bool = False) -> Analysed:
    """A field's tsvector literal, its length (field norm), its ``_top`` literal (empty unless ``tiered``), its
    distinct tokens and (``text``) its tokens space-separated. The tokens are letters, marks and digits: quoted as
    they are, nothing to escape for COPY."""
    if len(tokens) > MAX_POSITIONS:  # a word may pass PostgreSQL's limits on positions
        return _long_vector(tokens, tiered, text)
    where: dict[str | None, str] = {}  # each token's literal, its positions appended as they come
    for i, t in enumerate(tokens, start=1):
        if t in where:
            where[t] += f",{i}"
        else:
            where[t] = f"'{t}':{i}"
    too_long = where.pop(None, None) is not None
    length = fieldnorm(len(tokens) - tokens.count(None) if too_long else len(tokens))
    top = ""
    if tiered and where:
        k = BM25_K1 * (1 - BM25_B + BM25_B * length / TIER_AVG)
        least = _least_tf(k)
        if len(tokens) >= least:  # else no word is frequent enough
            top = " ".join([_top(t, n, k) for t, n in Counter(tokens).items() if n >= least and t is not None])
    words = ""
    if text:
        words = " ".join(t for t in tokens if t is not None) if too_long else " ".join(tokens)  # type: ignore[arg-type]
    return Analysed(" ".join(where.values()), length, top, where.keys(), words)  # type: ignore[arg-type]


def _long_vector(tokens: list[str | None], tiered: bool, text: bool) -> Analysed:
    """``vector`` of a field of more than 256 tokens: positions past 16,383 counted as that one, at most 256 a
    word (PostgreSQL's limits)."""
    where: dict[str | None, list[int]] = {}
    for i, t in enumerate(tokens, start=1):
        where.setdefault(t, []).append(i)
    where.pop(None, None)
    if len(tokens) > MAX_POSITION or any(len(p) > MAX_POSITIONS for p in where.values()):
        where = {t: sorted({min(i, MAX_POSITION) for i in p})[:MAX_POSITIONS] for t, p in where.items()}
    length = fieldnorm(len(tokens) - tokens.count(None))
    literal = " ".join([f"'{t}':{','.join(map(str, p))}" for t, p in where.items()])
    top = ""
    if tiered and where:
        k = BM25_K1 * (1 - BM25_B + BM25_B * length / TIER_AVG)
        least = _least_tf(k)
        top = " ".join([_top(t, len(p), k) for t, p in where.items() if len(p) >= least])
    words = " ".join(t for t in tokens if t is not None) if text else ""
    return Analysed(literal, length, top, where.keys(), words)  # type: ignore[arg-type]


def _least_tf(k: float) -> int:
    """The frequency in its passage from which a word's BM25 term weight reaches :data:`TIER_WEIGHT`."""
    return max(1, math.ceil(TIER_WEIGHT * k / (BM25_K1 + 1 - TIER_WEIGHT) - 1e-9))


def _top(token: str, tf: int, k: float) -> str:
    """A heavy word of a passage in its ``_top`` vector (its frequency as its position), with a marker word
    ``token!1`` when it weighs at least 1.75, and ``token!2`` at least 1.9, for the most frequent words."""
    weight = tf * (BM25_K1 + 1) / (tf + k)
    marks = "".join(f" '{token}!{level}'" for level, least in enumerate(TIER_MARKS, start=1) if weight >= least)
    return f"'{token}':{tf}{marks}"


def keys(values: list[str]) -> Analysed:
    """A raw field's tsvector: each value one token, in order."""
    unique = list(dict.fromkeys(values))
    kept = unique[:MAX_POSITION]
    return Analysed(" ".join(f"{lexeme(v)}:{i}" for i, v in enumerate(kept, start=1)), len(unique), "", kept)


def analysed(p: Passage, bm25: bool = False) -> dict[str, Analysed]:
    """Every analysed field of a passage by name (``bm25``: with the ranked fields' tokens as text)."""
    texts: dict[str, str] = {}
    texts["fold"], texts["exact"] = index_texts(p.text)
    if p.bold:
        texts["bold_fold"], texts["bold_exact"] = index_texts(" \n ".join(p.bold))
    if p.notes:  # variant readings: searched, never shown
        texts["variants_fold"], texts["variants_exact"] = index_texts(variant_text(p.notes))
    out = {}
    for f in FIELDS:
        if not f.text:
            out[f.name] = keys(getattr(p, f.name))
        elif f.name in texts:
            out[f.name] = vector(words(texts[f.name]), f.tiered, bm25 and f.ranked)
        else:
            out[f.name] = NOTHING
    return out


@dataclass
class Tally:
    """What rows add to ``lexemes`` and the length totals: per field, the documents holding each lexeme and
    the sum of the lengths; and the number of documents."""

    docs: int = 0
    df: dict[str, Counter[str]] = field(default_factory=lambda: {f.name: Counter() for f in FIELDS})
    lengths: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BY_NAME, 0))

    def add(self, fields: dict[str, Analysed]) -> None:
        self.docs += 1
        for name, value in fields.items():
            self.df[name].update(value.lexemes)
            self.lengths[name] += value.length

    def merge(self, other: Tally) -> None:
        self.docs += other.docs
        for name, counts in other.df.items():
            self.df[name].update(counts)
            self.lengths[name] += other.lengths[name]


def doc_row(number: int, unit: int, p: Passage, tally: Tally | None = None, bm25: bool = False) -> str:
    """The passage's line for ``COPY docs (DOC_COLUMNS)``, its fields summed into ``tally`` if one is given
    (``bm25``: with the ranked fields' text for BM25 indexes)."""
    head = (number, p.doc_id, unit, p.corpus, p.book, p.category, p.channel, p.granularity)
    line = "\t".join(copy_text(str(v)) for v in head)
    line += f"\t{'t' if p.primary else 'f'}\t{copy_array(sorted({p.language, p.language.split('-')[0]}))}"
    line += f"\t{copy_array(p.tags)}\t{p.seq}\t{p.chapter}\t{copy_text(orjson.dumps(p).decode())}"
    fields = analysed(p, bm25)
    if tally is not None:
        tally.add(fields)
    for f in FIELDS:
        literal, length, top, _, text = fields[f.name]
        line += f"\t{literal if f.text else copy_text(literal)}\t{length}"  # words need no escaping
        if f.tiered:
            line += f"\t{top}"
        if f.ranked:
            line += f"\t{text}"
    return line + "\n"
