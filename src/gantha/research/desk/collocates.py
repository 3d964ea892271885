"""The verb ``collocates``: the words that stand within a window of a query's occurrences, grouped by lemma
(inflection-blind) and ranked by an association measure.

Counted per node and window: ``f(x,y)``, the occurrences of the collocate's forms within ``window`` words of
a node (a compound of the lemma counts its other members too, ``suddhanta`` in *suddhantaparivāsa*); ``f(x)``
the nodes; ``f(y)`` the collocate lemma's occurrences in the corpus (every form WikiPali analyses as it, and
every form seen, counted in the index: :mod:`~gantha.research.desk.tally`); ``N`` the corpus' words. Within
filters ``f(y)`` is estimated from the whole corpus in proportion to the books' sizes.

* ``logdice`` (default) = 14 + log2(2·f(x,y) / (f(x) + f(y))): Rychlý's measure, the Sketch Engine's. It
  does not depend on the corpus' size (a subcorpus, a layer and the whole canon give comparable scores), it
  does not lift rare words seen once or twice as MI does, nor the particles everywhere (ca, vā, pana) as raw
  counts and the t-score do: the words typical of this word come first.
* ``mi`` = log2(f(x,y) / E), E = f(x)·f(y)·span / N (span: the window's words): how much more often than
  chance; favours rare words.
* ``tscore`` = (f(x,y) − E) / √f(x,y): how sure the association is; favours frequent words.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlencode

import numpy as np
from pydantic import BaseModel, Field

from gantha.model import QueryInfo
from gantha.research.desk.concordance import FormCount, pali_key
from gantha.research.desk.scan import Node, Scan
from gantha.research.desk.tally import BREAK, Tally
from gantha.search.words import Family
from gantha.store.lexicon import Lexicon

Measure = Literal["logdice", "mi", "tscore"]


class Collocate(BaseModel):
    lemma: str
    score: float
    cooccurrences: int = Field(description="f(x,y): its occurrences within the window of a node")
    frequency: int = Field(description="f(y): the lemma's occurrences in the corpus (in the scope: estimated)")
    in_compound: int = Field(0, description="of the co-occurrences, as another member of a compound of the node")
    forms: list[FormCount] = Field(description="its forms seen in the windows, most first")
    link: str = Field(description="the concordance lines it stands in: GET /api/v3/concordance?<link>")


class CollocatesResult(BaseModel):
    query: str
    measure: str
    window: int
    nodes: int = Field(description="f(x): the query's occurrences")
    corpus_words: int = Field(description="N: the words of the corpus (of the books in the scope)")
    collocates: list[Collocate]
    candidates: int = Field(description="lemmas seen in the windows at least min_freq times")
    query_info: dict = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


def score(measure: str, fxy: int, fx: int, fy: int, n: int, span: int) -> float:
    """The association of a collocate with the node (see the module's doc)."""
    fy = max(fy, fxy)  # a form the tally misses (a reading of another edition) is seen at least here
    if measure == "logdice":
        return 14 + math.log2(2 * fxy / (fx + fy))
    expected = fx * fy * span / max(n, 1)
    if measure == "mi":
        return math.log2(fxy / expected)
    return (fxy - expected) / math.sqrt(fxy)


READABLE = {"ay$i": "ima", "asu$amu": "amu"}
"""WikiPali's two pronoun bases written as a pair of stems, by their dictionary headword (ayaṃ, ime, imehi … →
*ima*)."""
_WIKIPALI = {readable: base for base, readable in READABLE.items()}


class Lemmas:
    """Each word's lemma (WikiPali's most frequent analysis; a word it never analysed is its own lemma)."""

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon
        self._known: dict[str, str] = {}

    def of(self, words: set[str]) -> dict[str, str]:
        missing = [w for w in words if w not in self._known]
        if missing:
            found = self.lexicon.first_bases(missing)
            for w in missing:
                base = found.get(w, w)
                self._known[w] = READABLE.get(base, base)
        return {w: self._known[w] for w in words}

    def frequency(self, lemma: str, seen: set[str], tally: Tally) -> int:
        """The lemma's occurrences in the corpus: its analysed forms and the forms seen, counted in the tally."""
        forms = {w for w, _ in self.lexicon.forms_of(_WIKIPALI.get(lemma, lemma))} | seen | {lemma}
        return sum(tally.forms.get(w, 0) for w in forms)


def partners(family: Family | None) -> dict[str, list[str]]:
    """The other members of each compound of the lemma (``suddhantaparivāso`` → ``suddhanta``)."""
    if family is None:
        return {}
    own = {*family.words(False), family.lemma}
    return {c.form: [m for m in c.members if m not in own and not m.startswith(family.lemma)] for c in family.compounds}


def window_words(scan: Scan, node: Node, window: int, occupied: set[tuple[int, int]]) -> Iterator[str]:
    """The words within ``window`` of a node, other nodes left out."""
    words = scan.paragraphs[node.para].words
    for i in (*range(max(0, node.start - window), node.start), *range(node.end, min(len(words), node.end + window))):
        if (node.para, i) not in occupied:
            yield words[i]


def occupied(scan: Scan) -> set[tuple[int, int]]:
    return {(n.para, i) for n in scan.nodes for i in range(n.start, n.end)}


@dataclass(slots=True)
class Windows:
    """What a collocation counts: the nodes (``f(x)``), the words within their windows (other nodes left out)
    and the other members of the compounds the nodes are."""

    nodes: int
    seen: Counter[str]
    compound: Counter[str]


def scan_windows(scan: Scan, window: int) -> Windows:
    """The windows of a scan's nodes (phrases, ``NEAR``, wildcards: any query)."""
    taken = occupied(scan)
    members = partners(scan.family)
    paragraphs = scan.paragraphs
    seen = Counter(w for node in scan.nodes for w in window_words(scan, node, window, taken))
    compound = Counter(
        m
        for node in scan.nodes
        if node.end - node.start == 1
        for m in members.get(paragraphs[node.para].words[node.start], ())
    )
    return Windows(len(scan.nodes), seen, compound)


def text_windows(tally: Tally, forms: set[str], books: list[str] | None, window: int, family: Family | None) -> Windows:
    """The windows of every occurrence of ``forms`` (words as written) in these books of the canon (None: all),
    counted in its word ids: what :func:`scan_windows` counts for a query of words, without a paragraph read."""
    size = len(tally.vocab)
    is_form = tally.mask(forms)
    around, at = [], []
    nodes = 0
    for text in tally.parts(books):
        node = is_form[text]
        where = np.flatnonzero(node)
        nodes += len(where)
        at.append(text[where])
        for step in (-1, 1):  # outwards from each node, until the paragraph ends
            alive = np.ones(len(where), dtype=bool)
            for d in range(1, window + 1):
                pos = where + step * d
                alive &= (pos >= 0) & (pos < len(text))
                pos = np.clip(pos, 0, max(len(text) - 1, 0))
                ids = text[pos]
                alive &= ids != BREAK
                around.append(ids[alive & ~node[pos]])
    seen_ids = np.bincount(np.concatenate(around or [np.zeros(0, np.uint32)]), minlength=size)
    node_ids = np.bincount(np.concatenate(at or [np.zeros(0, np.uint32)]), minlength=size)
    vocab = tally.vocab
    seen = Counter({vocab[i]: int(seen_ids[i]) for i in np.flatnonzero(seen_ids)})
    compound: Counter[str] = Counter()
    members = partners(family)
    for i in np.flatnonzero(node_ids):
        for m in members.get(vocab[i], ()):
            compound[m] += int(node_ids[i])
    return Windows(nodes, seen, compound)


def collocates(
    windows: Windows,
    query: str,
    link: dict[str, str],
    family: Family | None,
    info: QueryInfo,
    lemmas: Lemmas,
    tally: Tally,
    scope_words: int,
    *,
    measure: str = "logdice",
    window: int = 5,
    min_freq: int = 3,
    limit: int = 50,
) -> CollocatesResult:
    """The collocates counted in ``windows``, best first."""
    seen, compound = windows.seen, windows.compound
    lemma_of = lemmas.of(set(seen) | set(compound))
    by_lemma: dict[str, Counter[str]] = defaultdict(Counter)
    for word, n in (seen + compound).items():
        by_lemma[lemma_of[word]][word] += n
    in_compound: Counter[str] = Counter()
    for word, n in compound.items():
        in_compound[lemma_of[word]] += n
    own = {family.lemma} if family else set()
    fx, n, span = windows.nodes, scope_words, 2 * window
    ratio = scope_words / max(tally.words, 1)
    candidates = [(lem, forms) for lem, forms in by_lemma.items() if lem not in own and forms.total() >= min_freq]
    # every measure falls as f(y) grows: a score from the forms seen alone (a lower bound of f(y)) bounds the
    # exact one, so the lemma's every form is looked up only while a candidate can still reach the best
    bounded = []
    for lem, forms in candidates:
        least = round(sum(tally.forms.get(w, 0) for w in forms) * ratio)
        bounded.append((score(measure, forms.total(), fx, least, n, span), lem, forms))
    bounded.sort(key=lambda r: -r[0])
    rows: list[tuple[float, str, int, int, Counter[str]]] = []
    best: list[float] = []  # the best ``limit`` scores so far, the least first (a heap)
    for bound, lem, forms in bounded:
        if len(best) >= limit and bound < best[0]:
            break
        fxy = forms.total()
        fy = round(lemmas.frequency(lem, set(forms), tally) * ratio)
        rows.append((score(measure, fxy, fx, fy, n, span), lem, fxy, max(fy, fxy), forms))
        heapq.heappush(best, rows[-1][0])
        if len(best) > limit:
            heapq.heappop(best)
    rows.sort(key=lambda r: (-r[0], -r[2], pali_key(r[1])))
    return CollocatesResult(
        query=query,
        measure=measure,
        window=window,
        nodes=fx,
        corpus_words=n,
        candidates=len(candidates),
        collocates=[
            Collocate(
                lemma=lem,
                score=round(s, 3),
                cooccurrences=fxy,
                frequency=fy,
                in_compound=in_compound.get(lem, 0),
                forms=[FormCount(form=f, count=c) for f, c in forms.most_common(8)],
                link=urlencode({**link, "collocate": lem, "window": str(window)}),
            )
            for s, lem, fxy, fy, forms in rows[:limit]
        ],
        query_info=info.model_dump(exclude_defaults=True),
    )


def with_collocate(scan: Scan, lemmas: Lemmas, collocate: str, window: int) -> list[int]:
    """The nodes with a form of ``collocate`` (a lemma, or a word as written) within ``window`` words, or as
    another member of the node's compound."""
    taken = occupied(scan)
    members = partners(scan.family)
    near = [set(window_words(scan, node, window, taken)) for node in scan.nodes]
    words = {w for ws in near for w in ws} | {m for ms in members.values() for m in ms}
    lemma_of = lemmas.of(words)
    wanted = {w for w in words if lemma_of[w] == collocate or w == collocate}
    found = []
    for i, node in enumerate(scan.nodes):
        word = scan.paragraphs[node.para].words[node.start]
        if near[i] & wanted or wanted.intersection(members.get(word, ())):
            found.append(i)
    return found
