"""The lexical route: a planned store query run and presented; a lemma search ranked by the lemma's
frequency (all its forms and compounds counted as one word), bold definitions first."""

from __future__ import annotations

import contextvars
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from gantha import deadline
from gantha.model import QueryInfo, SearchRequest, SearchResponse
from gantha.search.highlight import snippet
from gantha.search.plan import Planner
from gantha.search.present import Presenter
from gantha.search.words import Family
from gantha.store.base import StoreQuery, StoreResult
from gantha.text.pali import WORD_RE, canon, canon_word, fold

LEMMA_WINDOW = 100  # the best matches of a lemma search by BM25 over its forms, re-ranked by its frequency
BM25_K1, BM25_B = 1.2, 0.75
_SIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gantha-count")  # a lemma's total beside its page
COUNTS_KEPT = 256  # lemma searches whose total and aggregations are kept while the index is unchanged


class Counts:
    """The totals and aggregations of recent lemma searches (the union of thousands of posting lists for
    dhamma: most of a search's time), kept per query and index generation, so the next page of a lemma,
    or the same lemma asked again, is not counted again."""

    def __init__(self, size: int = COUNTS_KEPT):
        self.size, self._kept, self._lock = size, OrderedDict[tuple[str, str], StoreResult](), threading.Lock()

    def get(self, key: tuple[str, str]) -> StoreResult | None:
        with self._lock:
            if (found := self._kept.get(key)) is not None:
                self._kept.move_to_end(key)
            return found

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def put(self, key: tuple[str, str], counted: StoreResult) -> None:
        with self._lock:
            self._kept[key] = counted
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


class LexicalSearch:
    def __init__(self, planner: Planner, presenter: Presenter):
        self.planner, self.presenter = planner, presenter
        self.store = planner.store
        self.counts = Counts()

    def search(self, req: SearchRequest, family: Family | None = None) -> SearchResponse:
        """``family``: the lemma whose forms and compounds ``req.forms`` holds: its matches are ranked by its
        frequency, its own forms' bold occurrences first, and each hit says which forms matched."""
        started = time.perf_counter()
        sq, info, analysed = self.planner.plan(req, family.words(False) if family else None)
        info.routes = ["lexical"]
        if family and sq.order == "score" and not req.page_ref:
            result = self._by_lemma(sq, set(family.words()), info)
        else:
            result = self.store.search(sq)
        every = set(family.words()) if family else set(info.forms)  # forms whose occurrences each hit lists
        own = set(family.words(False)) if family else every  # the rest are compounds holding the lemma
        analyse = fold if info.field == "fold" else canon
        terms = set(analysed.terms) | set(info.forms)
        hits = []
        for rank, h in enumerate(result.hits, start=req.offset + 1):
            deadline.check()
            p = h.passage
            text, _ = snippet(
                p.text, analyse, terms, analysed.phrases, analysed.prefixes, inner=analysed.suffixes + analysed.infixes
            )
            hit = self.presenter.hit(p, rank, text, round(h.score, 4), bold_match=h.ranked_first and not req.page_ref)
            if every:  # a forms or lemma search: which of them stand here, and whether inside a compound
                hit.matched = list(dict.fromkeys(w for w in map(canon_word, WORD_RE.findall(p.text)) if w in every))
                hit.in_compound = any(w not in own for w in hit.matched)
            hits.append(hit)
        return SearchResponse.timed(
            started, result.total, hits, info, aggregations=self.presenter.buckets(result.aggregations)
        )

    def _by_lemma(self, sq: StoreQuery, forms: set[str], info: QueryInfo) -> StoreResult:
        """The matches ranked by BM25 over the lemma's forms (tantivy, each form's rarity divided out: a
        ``forms`` clause), then the first ``LEMMA_WINDOW`` of them re-ranked by the lemma's frequency (BM25
        with all its forms and compounds counted as one word, so a paragraph that repeats parivāsaṃ twenty
        times outranks one naming five rare compounds once), bold occurrences first.

        The total and the aggregations (every form and compound: thousands of posting lists for dhamma) are
        counted beside the window (once per query while the index is unchanged), which is drawn from the
        paragraphs holding the forms scored: a paragraph holding only compounds left unscored scores
        nothing and would rank after all of them anyway."""
        scored = [replace(c, kind="set") for c in sq.scoring if c.field == "exact"]
        count = replace(sq, limit=0, offset=0)
        key = (self.store.generation(), repr(count))
        counted = self.counts.get(key)
        counting = None if counted else _SIDE.submit(contextvars.copy_context().run, self.store.search, count)
        window = max(LEMMA_WINDOW, sq.offset + sq.limit)
        narrowed = replace(sq, must=[c for c in sq.must if c.kind != "set"] + scored) if scored else sq
        top = self.store.search(replace(narrowed, limit=window, offset=0, aggregate=()))
        if counting is not None:
            counted = counting.result()
            self.counts.put(key, counted)
        if top.total < counted.total and window > top.total:  # deep: the compound-only paragraphs follow
            top = self.store.search(replace(sq, limit=window, offset=0, aggregate=()))
        deadline.check()
        head = top.hits[:LEMMA_WINDOW]
        words = {id(h): WORD_RE.findall(h.passage.text.lower()) for h in head}  # stored text is canonical
        average = sum(len(w) for w in words.values()) / max(len(words), 1) or 1
        for h in head:
            tf = sum(w in forms for w in words[id(h)])
            norm = 1 - BM25_B + BM25_B * len(words[id(h)]) / average
            h.score = tf * (BM25_K1 + 1) / (tf + BM25_K1 * norm)
        ranked = sorted(head, key=lambda h: (not h.ranked_first, -h.score)) + top.hits[LEMMA_WINDOW:]
        note = "ranked by the lemma's frequency in each paragraph (BM25, forms counted as one word)"
        if counted.total > LEMMA_WINDOW:
            note += f" among the first {LEMMA_WINDOW} by BM25 over the forms; the rest by BM25 over the forms"
        info.notes.append(note)
        return StoreResult(counted.total, ranked[sq.offset : sq.offset + sq.limit], counted.aggregations)
