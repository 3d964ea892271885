"""Place segments of one text in the paragraphs of another edition of the same text, by its words.

The Mahāsaṅgīti root text of SuttaCentral is the CST text segmented into sentences; CST is
paragraphed. Both are folded to diacritic-free words and the segments are placed in reading order:

1. **By text.** Each segment's word trigrams vote for where it starts in the paragraph stream; the
   vote is taken first in a window just after the previous segment (repetitive texts repeat whole
   sentences, and the nearest one is the right one), then, for a jump, among rare trigrams over the
   whole stream. A segment is placed in the paragraph that holds its middle word.
2. **Between neighbours.** A segment too short to vote (``bhikkhavoti``, a title) lies between two
   placed neighbours: it joins the paragraph between them that shares most word stems with it, or
   their common paragraph.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from gantha.text.pali import WORD_RE, fold

VERSION = 11  # changes when the method changes, so that recorded alignments are redone
K = 3  # words in a voting n-gram
WINDOW_BEHIND, WINDOW_AHEAD = 40, 4000  # words around the expected position searched first
MIN_SUPPORT = 0.3  # share of a text's segments (those long enough to vote) that its words must place
RARE = 30  # an n-gram found at most this often in the stream may vote for a jump
JUMP_SEGMENTS, JUMP_WORDS, JUMP_VOTES = 8, 80, 3  # a jump is voted by the next words of the text
MIN_SHARED = 4  # letters two words must share at their start to count as alike
SPAN = 60  # most paragraphs searched between two placed neighbours
LEAD = 4  # paragraphs before a text's first placed segment where its titles may stand
VOTING_WORDS = 6  # a shorter segment votes with the words of the segments after it
REACH = 12  # words around its counted place where a segment placed by its neighbours' words is looked for
INNER_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")  # a hyphen inside a word (the CST's veramaṇī-sikkhāpadaṃ)
MARKUP = re.compile(r"<[^>]+>")  # SuttaCentral's tags inside a word: ``<b>Cariyā</b>ti`` is the CST's ``Cariyāti``
QUOTES = re.compile(rf"[‘’“”'\"]|{INNER_HYPHEN.pattern}|{MARKUP.pattern}")  # dropped before words are cut
ABRIDGED = frozenset({"pe"})
"""The abridgement mark (``…pe…``), which the editions set in different places: not a word of the text."""
SHORT_REACH = 8  # paragraphs after the previous text searched for a text too short to vote (a peyyāla's line)
SHORT_SHARE = 0.45  # of its letters that such a text (or a text's opening line) shares with the paragraph it is put in
MIN_AHEAD = 200  # words ahead searched at least for a text's next segment, once the text is found


def tokens(text: str) -> list[str]:
    """Folded words (``ṁ`` and ``ṃ`` alike, punctuation and numbers dropped: SuttaCentral writes a sutta's
    number as a segment, ``an1.2:1.0`` "2", where the CST holds it apart from the text). Quotes are dropped
    before the words are cut: SuttaCentral's ``vāsamakappayī”ti`` is the CST's one word ``vāsamakappayīti``;
    so is a hyphen inside a word (the CST's ``veramaṇī-sikkhāpadaṃ``, SuttaCentral's ``veramaṇisikkhāpadaṁ``), and
    SuttaCentral's markup (``<b>Cariyā</b>ti``).
    A final niggahita is dropped (the CST's ``adāsi`` where SuttaCentral writes ``adāsiṃ``), and the abridgement
    mark ``pe``."""
    words = WORD_RE.findall(fold(QUOTES.sub("", text)))
    return [w[:-1] if w.endswith("m") else w for w in words if not w.isdecimal() and w not in ABRIDGED]


@dataclass
class ParagraphStream:
    """Paragraphs in reading order as one word stream, with an n-gram index for voting."""

    keys: list[Hashable]
    words: list[str] = field(default_factory=list)
    para_of_word: list[int] = field(default_factory=list)  # paragraph index of each word
    first_word: list[int] = field(default_factory=list)  # first word index of each paragraph
    grams: dict[int, list[int]] = field(default_factory=dict)  # hash of K words → start positions

    @classmethod
    def of(cls, paragraphs: Sequence[tuple[Hashable, str]]) -> ParagraphStream:
        stream = cls([key for key, _ in paragraphs])
        for i, (_, text) in enumerate(paragraphs):
            ws = tokens(text)
            stream.first_word.append(len(stream.words))
            stream.words += ws
            stream.para_of_word += [i] * len(ws)
        w = stream.words
        for pos in range(len(w) - K + 1):
            stream.grams.setdefault(hash(tuple(w[pos : pos + K])), []).append(pos)
        return stream

    def paragraph_at(self, position: int) -> int:
        return self.para_of_word[min(max(position, 0), len(self.para_of_word) - 1)]


@dataclass
class Placement:
    """Where each segment went: a paragraph index (or None) and how it was placed."""

    paragraphs: list[int | None]
    how: list[str]  # text | neighbours | "" (left out)
    end: int  # stream position after the last segment placed by text (the next text's expected start)

    @property
    def placed(self) -> int:
        return sum(p is not None for p in self.paragraphs)


def _grams(words: Sequence[str]) -> list[int]:
    return [hash(tuple(words[j : j + K])) for j in range(len(words) - K + 1)]


def _near(stream: ParagraphStream, words: list[str], expected: int, ahead: int = WINDOW_AHEAD) -> int | None:
    """The start of a segment in the window after ``expected`` (nearest of the best voted), or None."""
    grams = _grams(words)
    if not grams:
        return None
    need = len(grams) if len(grams) <= 2 else max(2, (len(grams) + 2) // 3)
    lo, hi = expected - WINDOW_BEHIND, expected + ahead
    votes: Counter[int] = Counter()
    for j, g in enumerate(grams):
        positions = stream.grams.get(g, ())
        for pos in positions[bisect_left(positions, lo + j) : bisect_right(positions, hi + j)]:
            votes[pos - j] += 1
    if not votes or (best := max(votes.values())) < need:
        return None
    return min((s for s, v in votes.items() if v == best), key=lambda s: abs(s - expected))


def _own_words(stream: ParagraphStream, ws: list[str], start: int) -> int:
    """Where a segment placed by the words around it begins: its own words, if they stand within
    :data:`REACH` words of where counting the borrowed words put it (an edition may hold a line the other
    lacks between them: ``Sabbaññutañāṇaniddeso tesattatimo`` before ``Ñāṇakathā niṭṭhitā``)."""
    if not ws:
        return start
    for shift in sorted(range(-REACH, REACH + 1), key=abs):
        at = start + shift
        if at >= 0 and stream.words[at : at + len(ws)] == ws:
            return at
    return start


def _jump(stream: ParagraphStream, block: list[str]) -> int | None:
    """Where a run of words starts anywhere in the stream, by the votes of its rare n-grams, or None."""
    votes: Counter[int] = Counter()
    for j, g in enumerate(_grams(block)):
        positions = stream.grams.get(g, ())
        if len(positions) <= RARE:
            for pos in positions:
                votes[pos - j] += 1
    if not votes:
        return None
    start, best = votes.most_common(1)[0]
    return start if best >= JUMP_VOTES else None


def _increasing(starts: list[tuple[int, int]], weights: list[int]) -> set[int]:
    """Indices (first of each pair) of the increasing run of starts that places the most words: placements in
    reading order. Weighed by words, a run of long lines outweighs one of the same number of one-word lines (the
    ordinals ``Dutiyaṃ`` … that the editions count one apart)."""
    ranks = {s: r for r, s in enumerate(sorted({s for _, s in starts}), start=1)}
    tree = [(0, -1)] * (len(ranks) + 1)  # Fenwick tree of (words, index of the run's last start) by rank
    back: list[int] = []
    best_end = (0, -1)
    for n, (i, start) in enumerate(starts):
        best, r = (0, -1), ranks[start] - 1  # the best run ending strictly below this start
        while r > 0:
            best, r = max(best, tree[r]), r - (r & -r)
        back.append(best[1])
        here, r = (best[0] + weights[i], n), ranks[start]
        best_end = max(best_end, here)
        while r < len(tree):
            tree[r], r = max(tree[r], here), r + (r & -r)
    keep, n = set(), best_end[1]
    while n >= 0:
        keep.add(starts[n][0])
        n = back[n]
    return keep


def align(
    stream: ParagraphStream,
    segments: Sequence[str],
    expected: int | None = None,
    body: int = 0,
    floor: int | None = None,
) -> Placement:
    """Place ``segments`` (one text, in reading order) in the stream's paragraphs.

    ``expected``: the stream position where the text probably starts (the previous text's end); ``body``: the
    first segment after the text's titles; ``floor``: where the previous text begins — a segment found in the
    window behind ``expected`` but before it is a line an earlier text shares (Thig 1.10's ``Dhārehi antimaṃ
    dehaṃ``, Thig 1.7's word for word where the CST's Thig 1.10 words it otherwise), not this text's.
    """
    words = [tokens(s) for s in segments]
    starts: list[tuple[int, int]] = []  # (segment, start position) placed by text
    cursor = expected
    remaining = sum(map(len, words))
    for i, ws in enumerate(words):
        voting, lead = _voting(words, i)
        # once the text is found, its next words are looked for no further ahead than it has words left (thrice:
        # an edition may write out what the other abridges): a short text's line is not taken from a later one
        ahead = min(WINDOW_AHEAD, max(MIN_AHEAD, 3 * remaining)) if starts else WINDOW_AHEAD
        remaining -= len(ws)
        start = None
        if cursor is not None and len(voting) > len(ws):  # with borrowed words: just ahead of the cursor only
            start = _near(stream, voting, cursor - lead, min(ahead, MIN_AHEAD))
            start = _own_words(stream, ws, start + lead) if start is not None else None
        if start is None and cursor is not None:
            start = _near(stream, ws, cursor, ahead)
        if start is None and len(ws) >= K:  # the text is elsewhere: find where, then this segment near there
            block = [w for seg in words[i : i + JUMP_SEGMENTS] for w in seg][:JUMP_WORDS]
            anchor = _jump(stream, block)
            if anchor is not None:
                start = _near(stream, ws, anchor, ahead)
                cursor = anchor if start is None else cursor
        if start is not None:
            starts.append((i, start))
            cursor = start + len(ws)
    if floor is not None and expected is not None:
        starts = [(i, s) for i, s in starts if not expected - WINDOW_BEHIND - VOTING_WORDS <= s < floor]
    kept = _increasing(starts, [max(1, len(ws)) for ws in words])
    paras: list[int | None] = [None] * len(segments)
    how = [""] * len(segments)
    end = expected if expected is not None else 0
    voters = sum(len(ws) >= K for ws in words)
    if not kept and expected is not None:  # a line too short or too unlike to vote: by its letters
        return _short(stream, words, expected, body)
    if len(kept) < MIN_SUPPORT * voters:  # a few stray matches: the text is not in these paragraphs
        return Placement(paras, how, end)
    for i, start in starts:
        if i in kept:
            paras[i], how[i] = stream.paragraph_at(start + len(words[i]) // 2), "text"
            end = start + len(words[i])
    by_text = [i for i, _ in starts if i in kept]
    floor = stream.paragraph_at(expected) if expected is not None else 0
    for i in range(body, len(segments)):
        if paras[i] is None:
            _between(stream, words, paras, how, i, by_text, floor)
    placed = [j for j in range(body, len(segments)) if paras[j] is not None]
    for i in range(body):  # the titles after the body: before its opening line, however that was placed
        if paras[i] is None:
            _between(stream, words, paras, how, i, placed, floor)
    for i in reversed(range(len(segments) - 1)):  # a number alone ("2"): with the text it numbers
        if not words[i] and paras[i + 1] is not None:
            paras[i], how[i] = paras[i + 1], "neighbours"
    for i in reversed(range(len(segments) - 1)):  # a text's leading titles with no word in common
        if paras[i] is None and paras[i + 1] is not None and all(p is None for p in paras[:i]):
            paras[i], how[i] = paras[i + 1], "neighbours"
    return Placement(paras, how, end)


def _short(stream: ParagraphStream, words: list[list[str]], expected: int, body: int) -> Placement:
    """A text none of whose lines is found by its runs of words (too short to vote, a peyyāla's ``…
    Puthupaññatāya saṁvattantī”ti. Dutiyaṁ.``, or run together in the CST, ``Appamādavagga-balakaraṇīyavaggā``):
    in the paragraph just after the previous text that shares most of its letters, if one shares
    :data:`SHORT_SHARE` of them (the CST's ``… Puthupaññatā saṃvattantī’’ti. Dutiyaṃ.``); its titles with it."""
    mine = [w for ws in words[body:] for w in ws]
    letters = sum(len(w) for w in mine)
    floor = stream.paragraph_at(expected)
    reach = range(floor, min(floor + SHORT_REACH, len(stream.keys)))
    scores = [(_shared(mine, _words_of(stream, p)), -p) for p in reach]
    if not letters or not scores or max(scores)[0] < SHORT_SHARE * letters:
        return Placement([None] * len(words), [""] * len(words), expected)
    p = -max(scores)[1]
    titled = p  # the titles: in the paragraph before it that shares most with the last of them, if one does
    if body and words[body - 1]:
        shared, q = max(((_shared(words[body - 1], _words_of(stream, q)), q) for q in range(floor, p)), default=(0, p))
        titled = q if shared else p
    return Placement([titled] * body + [p] * (len(words) - body), ["words"] * len(words), _end(stream, p))


def _voting(words: list[list[str]], i: int) -> tuple[list[str], int]:
    """The words segment ``i`` votes with, and how many of them come before its own: its own, and those of the
    segments after it while it has fewer than :data:`VOTING_WORDS` (a verse's half-lines, ``Susukhaṃ vata
    jīvāma``, repeat in the verses around it; the line that follows tells them apart); at a text's end, those
    of the segments before it (a closing line, ``Bhadditthivimānaṃ pañcamaṃ``, placed after its verse)."""
    voting = list(words[i])
    for following in words[i + 1 :]:
        if len(voting) >= VOTING_WORDS:
            break
        voting += following
    voting = voting[: max(VOTING_WORDS, len(words[i]))]
    lead = 0
    for preceding in reversed(words[:i]):
        if len(voting) >= VOTING_WORDS:
            break
        voting, lead = preceding + voting, lead + len(preceding)
    return voting, lead


def _between(
    stream: ParagraphStream,
    words: list[list[str]],
    paras: list[int | None],
    how: list[str],
    i: int,
    by_text: list[int],
    floor: int,
) -> None:
    """Place segment ``i`` between its placed neighbours, by shared word stems or their common paragraph."""
    before = next((paras[j] for j in range(i - 1, -1, -1) if paras[j] is not None), None)
    after = next((paras[j] for j in by_text if j > i), None)
    if before is None and after is None:
        return
    lo = before if before is not None else max(floor, after - LEAD)  # type: ignore[operator]
    hi = after if after is not None else min(lo + LEAD, len(stream.keys) - 1)
    if hi < lo:  # neighbours out of order: no safe place between them
        return
    if hi - lo > SPAN:
        return
    scores = [_shared(words[i], _words_of(stream, p)) for p in range(lo, hi + 1)]
    best = max(range(len(scores)), key=lambda k: (scores[k], k if before is None else -k))
    if before is None:  # a text's opening line: the first paragraph holding most of it, not a later one quoting it
        letters = sum(len(w) for w in words[i])
        best = next((k for k, score in enumerate(scores) if score >= SHORT_SHARE * letters > 0), best)
    if scores[best]:
        paras[i], how[i] = lo + best, "neighbours"
    elif before is not None:
        paras[i], how[i] = before, "neighbours"  # nothing in common with what follows: it continues what precedes


def _end(stream: ParagraphStream, p: int) -> int:
    return stream.first_word[p + 1] if p + 1 < len(stream.first_word) else len(stream.words)


def _words_of(stream: ParagraphStream, p: int) -> list[str]:
    return stream.words[stream.first_word[p] : _end(stream, p)]


def _shared(mine: list[str], theirs: list[str]) -> int:
    """Letters shared by word pairs, at their start or one inside the other (a title's ``satipatthanasutta``
    and CST's ``mahasatipatthanasuttam``)."""
    total = 0
    for w in mine:
        if w.isdecimal():
            continue
        best = max((len(w) if len(w) >= MIN_SHARED and w in t else common_start(w, t) for t in theirs), default=0)
        total += best if best >= MIN_SHARED else 0
    return total


def common_start(a: str, b: str) -> int:
    """Length of the common start of two words."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i
