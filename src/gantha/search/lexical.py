"""The lexical route: a planned store query run and presented; a lemma search ranked by the lemma's
frequency (all its forms and compounds counted as one word), bold definitions first."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from gantha import deadline
from gantha.model import Bucket, Hit, QueryInfo, SearchRequest, SearchResponse
from gantha.search.counts import Counted, Kept, LemmaCounter
from gantha.search.highlight import snippet
from gantha.search.plan import Planner, canonical_forms
from gantha.search.present import Presenter
from gantha.search.words import Family
from gantha.store.base import StoreHit, StoreQuery
from gantha.text.pali import WORD_RE, canon, canon_word, fold
from gantha.text.variants import readings as variant_readings

LEMMA_WINDOW = 100  # the best matches of a lemma search by BM25 over its forms, re-ranked by its frequency
BM25_K1, BM25_B = 1.2, 0.75
_SIDE = ThreadPoolExecutor(max_workers=4, thread_name_prefix="gantha-count")  # a lemma's total beside its page


class LexicalSearch:
    def __init__(self, planner: Planner, presenter: Presenter):
        self.planner, self.presenter = planner, presenter
        self.store = planner.store
        self.counts: Kept[Counted] = Kept()  # lemma queries: total, aggregations, window
        self.counter = LemmaCounter(self.store)

    def search(self, req: SearchRequest, family: Family | None = None) -> SearchResponse:
        """``family``: the lemma whose forms and compounds ``req.forms`` holds: its matches are ranked by its
        frequency, its own forms' bold occurrences first, and each hit says which forms matched."""
        started = time.perf_counter()
        sq, info, analysed = self.planner.plan(req, family.words(False) if family else None)
        info.routes = ["lexical"]
        if family and sq.order == "score" and not req.page_ref:
            page, counted = self._by_lemma(sq, family, info)
        else:
            result = self.store.search(sq)
            page, counted = result.hits, lambda: (result.total, self.presenter.buckets(result.aggregations))
        every = set(family.words()) if family else set(info.forms)  # forms whose occurrences each hit lists
        compounds = {c.form for c in family.compounds} if family else set()  # words holding the lemma
        analyse = fold if info.field == "fold" else canon
        terms = set(analysed.terms) | set(info.forms)
        hits = []
        for rank, h in enumerate(page, start=req.offset + 1):
            deadline.check()
            p = h.passage
            text, _ = snippet(
                p.text, analyse, terms, analysed.phrases, analysed.prefixes, inner=analysed.suffixes + analysed.infixes
            )
            hit = self.presenter.hit(p, rank, text, round(h.score, 4), bold_match=h.ranked_first and not req.page_ref)
            if every:  # a forms or lemma search: which of them stand here, and whether inside a compound
                hit.matched = list(dict.fromkeys(w for w in map(canon_word, WORD_RE.findall(p.text)) if w in every))
                hit.in_compound = any(w in compounds for w in hit.matched)
            hits.append(hit)
        if req.variants and hits:
            self._mark_variants(req, page, hits, sq)
        if req.comments_on:
            info.comments_on = {"roots": req.comments_on, "paragraphs": len(req.within)}
        total, buckets = counted()
        return SearchResponse.timed(started, total, hits, info, aggregations=buckets)

    def _mark_variants(self, req: SearchRequest, page: list[StoreHit], hits: list[Hit], sq: StoreQuery) -> None:
        """Which hits of a search in the variant readings were found only there, and the readings that hold
        a searched word."""
        plain, _, _ = self.planner.plan(req.model_copy(update={"variants": False, "offset": 0, "limit": len(page)}))
        plain.ids, plain.aggregate = [h.passage.doc_id for h in page], ()
        in_text = {h.passage.doc_id for h in self.store.search(plain).hits}
        in_variants = [c for group in sq.alternatives for c in group if c.field.startswith("variants_")]
        searched = {t for c in in_variants for t in [*c.tokens, *(w for g in c.groups for w in g)]}
        analyse = fold if any(c.field == "variants_fold" for c in in_variants) else canon
        for h, hit in zip(page, hits, strict=True):
            hit.variant_only = h.passage.doc_id not in in_text
            readings = [r.text for note in h.passage.notes for r in variant_readings(note)]
            held = [r for r in readings if {analyse(w) for w in WORD_RE.findall(r)} & searched]
            hit.variant_readings = held or None

    def _by_lemma(
        self, sq: StoreQuery, family: Family, info: QueryInfo
    ) -> tuple[list[StoreHit], Callable[[], tuple[int, dict[str, list[Bucket]]]]]:
        """The page of a lemma search, and how to wait for its total and aggregations.

        The matches are ranked by BM25 over the lemma's forms (tantivy, each form's rarity divided out: a
        ``forms`` clause), then the first ``LEMMA_WINDOW`` of them re-ranked by the lemma's frequency (BM25
        with all its forms and compounds counted as one word, so a paragraph that repeats parivāsaṃ twenty
        times outranks one naming five rare compounds once), bold occurrences first. The window is drawn from
        the paragraphs holding the forms scored: a paragraph holding only compounds left unscored scores
        nothing and would rank after all of them anyway.

        The total and the aggregations (every form and compound: thousands of posting lists for dhamma) are
        counted (:class:`LemmaCounter`) and presented in another thread while the page is ranked and presented;
        both, and the window, are kept per query while the index is unchanged."""
        count = replace(sq, limit=0, offset=0)
        key = (self.store.generation(), repr(count))
        kept = self.counts.get(key)
        own = canonical_forms(tuple(family.words(False)))
        owned = frozenset(own)
        compounds = [f for f in canonical_forms(tuple(family.words())) if f not in owned]
        counting = None if kept else _SIDE.submit(contextvars.copy_context().run, self._count, count, own, compounds)
        window = max(LEMMA_WINDOW, sq.offset + sq.limit)
        if kept and kept.head is not None and window == LEMMA_WINDOW:
            head, rest = kept.head, []
        else:
            scored = [c for c in sq.scoring if c.field == "exact"]  # the forms ranked: they select the window too
            narrowed = replace(sq, must=[c for c in sq.must if c.kind != "set"] + scored, scoring=[]) if scored else sq
            top = self.store.search(replace(narrowed, limit=window, offset=0, aggregate=()))
            if window > top.total:  # the window is not full: the compound-only paragraphs may follow
                kept = kept or counting.result()
                if top.total < kept.result.total:
                    top = self.store.search(replace(sq, limit=window, offset=0, aggregate=()))
            deadline.check()
            forms = set(family.words())
            head = kept.head if kept and kept.head is not None else _by_frequency(top.hits[:LEMMA_WINDOW], forms)
            rest = top.hits[LEMMA_WINDOW:]

        def counted() -> tuple[int, dict[str, list[Bucket]]]:
            done = kept or counting.result()
            done.head = head
            self.counts.put(key, done)
            note = "ranked by the lemma's frequency in each paragraph (BM25, forms counted as one word)"
            if done.result.total > LEMMA_WINDOW:
                note += f" among the first {LEMMA_WINDOW} by BM25 over the forms; the rest by BM25 over the forms"
            info.notes.append(note)
            return done.result.total, done.buckets

        return [*head, *rest][sq.offset : sq.offset + sq.limit], counted

    def _count(self, count: StoreQuery, own: tuple[str, ...], compounds: list[str]) -> Counted:
        """A lemma query's total and aggregations, counted and presented."""
        result = self.counter.count(count, list(own), compounds)
        return Counted(result, self.presenter.buckets(result.aggregations))


def _by_frequency(hits: list[StoreHit], forms: set[str]) -> list[StoreHit]:
    """Hits ranked by BM25 with every one of ``forms`` counted as one word, bold occurrences first (each hit is
    given a new hit with that score: the store's hits are not changed)."""
    words = [WORD_RE.findall(h.passage.text.lower()) for h in hits]  # stored text is canonical
    average = sum(len(w) for w in words) / max(len(words), 1) or 1
    scored = []
    for h, ws in zip(hits, words, strict=True):
        tf = sum(w in forms for w in ws)
        norm = 1 - BM25_B + BM25_B * len(ws) / average
        scored.append(StoreHit(h.passage, tf * (BM25_K1 + 1) / (tf + BM25_K1 * norm), h.ranked_first))
    return sorted(scored, key=lambda h: (not h.ranked_first, -h.score))
