"""The retrieval pipeline: analyse → expand (lemma and compounds, bridges, synonyms) → route (a reference,
lexical, vector, fused, sentences) → rerank and refuse → present, with an explained empty answer.

It needs a few research verbs (a lemma's family and forms, a named text): ``Verbs`` says which.
"""

from __future__ import annotations

import html
import time
from dataclasses import replace
from typing import Any, Protocol

from gantha.corpus.bible import parse_reference
from gantha.model import Hit, Passage, QueryInfo, SearchRequest, SearchResponse, TextRecord
from gantha.search.bridges import Bridges
from gantha.search.errors import SearchError
from gantha.search.fusion import rrf
from gantha.search.highlight import snippet
from gantha.search.meaning import Ranked
from gantha.search.service import Searcher
from gantha.search.words import Family
from gantha.store.base import Clause, Store
from gantha.store.lexicon import Lexicon
from gantha.text.pali import canon, fold
from gantha.text.sentences import split as split_sentences

LISTED_COMPOUNDS = 50  # compounds named in a lemma search's query_info (the most frequent; all in `forms`)
SENTENCE_PARAGRAPHS = 1000  # paragraphs split for a sentence-granularity search


class Verbs(Protocol):
    def family(self, word: str, compounds: bool = True, derivatives: bool = False) -> Family: ...

    def forms(self, word: str, compounds: bool = True, unattested: bool = False, derivatives: bool = True) -> Any: ...

    def named(self, reference: str) -> TextRecord | None: ...


class Pipeline:
    """Search requests through every route, over one searcher and the verbs it needs."""

    def __init__(self, store: Store, lexicon: Lexicon, searcher: Searcher, verbs: Verbs):
        self.store, self.lexicon, self.searcher, self.verbs = store, lexicon, searcher, verbs
        self.bridges = Bridges(store, lexicon, searcher.planner, verbs.forms)

    def verse(self, reference: str) -> str:
        """The coordinate of a verse reference (``Rom 3:24``, ``罗马书 3:24``) among the indexed Bibles."""
        books = self.store.books("bible", channel=None)
        names = {alias: rec.info.book for rec in books.values() for alias in rec.info.aliases}
        try:
            ref = parse_reference(reference, names, [rec.info.book for rec in books.values()])
        except ValueError as exc:  # not a reference, or an unknown book
            raise SearchError("invalid_parameter", str(exc)) from exc
        if ref.coordinate is None:
            raise SearchError("invalid_parameter", f"{reference!r} names a chapter; give a verse (e.g. Rom 3:24)")
        return ref.coordinate

    def _related(self, req: SearchRequest) -> SearchResponse:
        """The paragraphs of a named text (``MN 10``: Pali, English beside), or every channel's text of a verse."""
        started = time.perf_counter()
        if named := self.verbs.named(req.related_id or ""):
            paragraphs = self.store.book_passages(named.corpus, named.book, "pali", (named.first_seq, named.last_seq))
            page = paragraphs[req.offset : req.offset + req.limit]
            hits = [
                self.searcher.hit(p, rank, html.escape(p.text), 1.0)
                for rank, p in enumerate(page, start=req.offset + 1)
            ]
            self.searcher.attach_translations(hits, set())
            info = QueryInfo(
                original=req.related_id or "",
                mode=req.mode,
                normalized=f"{named.label} = {named.corpus}/{named.book}/{named.first_para}–{named.last_para}",
                routes=["reference"],
            )
            return SearchResponse.timed(started, len(paragraphs), hits, info)
        coordinate = self.verse(req.related_id or "")
        channels = [c.name for c in self.store.all_channels()]
        passages = [p for ch in channels if (p := self.store.get([coordinate], ch).get(coordinate))]
        if req.languages:
            passages = [p for p in passages if p.language.split("-")[0] in {x.split("-")[0] for x in req.languages}]
        hits = [Hit.of(p, i, html.escape(p.text), 1.0) for i, p in enumerate(passages, start=1)]
        info = QueryInfo(original=req.related_id or "", mode=req.mode, normalized=coordinate, routes=["reference"])
        return SearchResponse.timed(time.perf_counter(), len(hits), hits, info)

    def search(self, req: SearchRequest, lemma: str | None = None, refuse: bool = True) -> SearchResponse:
        """Search, expanding ``lemma`` to its attested forms first; explain an empty answer (``refuse=False``:
        semantic and hybrid candidates are kept below the refusal threshold)."""
        if req.related_id:
            return self._related(req)
        bridges = self._bridges(req, lemma)
        if bridges:
            return self._bridged(req, bridges, refuse)
        family = None
        if lemma:
            family = self.verbs.family(lemma, req.compounds, req.derivatives)
            if not family.forms:
                raise SearchError("unattested_lemma", f"no attested forms of {lemma!r} (see `gantha forms {lemma}`)")
            req = req.model_copy(update={"forms": [*req.forms, *family.words()]})
        res = self._sentence_search(req) if req.granularity == "sentence" else self.searcher.search(req, family, refuse)
        if family:
            res.query_info.lemma = {
                "lemma": family.lemma,
                "forms": family.words(False),
                "derivatives": [
                    {"lemma": d.lemma, "suffix": d.suffix, "forms": [f.form for f in d.forms]}
                    for d in family.derivatives
                ],
                "compounds": [f.form for f in family.compounds[:LISTED_COMPOUNDS]],
                "compound_count": len(family.compounds),
                "sources": sorted({s for f in family.forms for s in f.sources}),
            }
            res.query_info.forms = []  # listed once, under lemma
        if res.outcome == "past_end":
            res.message = f"no hits on this page: {res.total:,} in all, and the page starts at hit {req.offset + 1:,}"
        if res.total == 0 and "none" in res.query_info.filters.get("channel", []) + res.query_info.filters.get(
            "corpus", []
        ):
            res.message = f"this index holds no documents of resource type {', '.join(req.resource_types)}"
            return res
        if res.total == 0 and req.mode in ("fuzzy", "exact") and not (lemma or req.forms or req.page_ref):
            self._did_you_mean(res)
        if res.total == 0 and req.languages and not req.corpora and not req.books:
            res.message = (
                f"no {', '.join(req.languages)} text matches in the default scope (the Tipiṭaka and its "
                "translations); other corpora answer when asked for (resource_type / --corpus: bible, md)"
            )
        elif res.total == 0 and req.mode in ("fuzzy", "exact"):
            words = res.query_info.forms or res.query_info.terms
            for w in words:
                headword = canon(w) if res.query_info.field == "exact" else w
                if self.lexicon.is_lemma(headword) or self.lexicon.entries(headword, folded=True):
                    attested = self.verbs.forms(headword, derivatives=False)
                    res.outcome = "unattested_form"
                    res.message = (
                        f"{headword!r} is a dictionary headword, but this form does not occur in the "
                        f"indexed texts; its attested forms are listed in suggestions "
                        f"(see `gantha forms {headword}`)"
                    )
                    res.suggestions = [f.form for f in attested.forms[:20]]
                    break
        return res

    def _bridges(self, req: SearchRequest, lemma: str | None = None) -> list[dict[str, Any]]:
        """The Pali lemmas a query in other words names (Chinese or English terms), where a search bridges."""
        if not req.q.strip() or lemma or req.forms or req.page_ref or req.mode == "exact":
            return []
        if req.granularity == "sentence" or self.searcher.is_pali(req.q):
            return []
        return self.bridges.find(req.q)

    def route_rankings(self, req: SearchRequest) -> Ranked:
        """Each route's ranking of a semantic or hybrid search, as :meth:`search` fuses them (the dictionary
        bridge included where the query names a Pali lemma): for fitting the fusion weights and judging them."""
        if bridges := self._bridges(req):
            ranking = self.bridges.ranking(bridges, req, max(50, req.offset + req.limit))
            return self.searcher.route_rankings(req, extra=[ranking], extra_routes=["bridge"])
        return self.searcher.route_rankings(req)

    def _did_you_mean(self, res: SearchResponse) -> None:
        """For a query without hits: the attested words nearest to the first word the texts never write."""
        for word in res.query_info.terms:
            folded = fold(word)
            if self.store.forms_by_fold(folded):
                continue
            near = self.store.nearest_words(folded)
            if near:
                res.suggestions = [form for form, _ in near]
                res.message = (
                    f"no hits: {word!r} does not occur in the texts; did you mean {', '.join(res.suggestions)}?"
                )
            return

    def _bridged(self, req: SearchRequest, bridges: list[dict[str, Any]], refuse: bool = True) -> SearchResponse:
        """The query's own route fused (RRF) with the Pali passages of the lemmas it names."""
        if req.mode in ("semantic", "hybrid"):
            bridge = self.bridges.ranking(bridges, req, max(50, req.offset + req.limit))
            res = self.searcher.search_fused(req, extra=[bridge], extra_routes=["bridge"], refuse=refuse)
        else:  # the query's own words, or a form of a bridged lemma: exact totals and aggregations from one
            # store query, the page from the two rankings fused (their scores are not comparable)
            started = time.perf_counter()
            forms = sorted({f for b in bridges for f in b["forms"]})
            sq, info, analysed = self.searcher.planner.plan(req)
            own = list(sq.must)
            groups = [own + group for group in sq.alternatives] or [own]  # a word quoted before iti: its spellings
            count = replace(sq, must=[], alternatives=[g for g in (*groups, [Clause("exact", forms)]) if g], limit=1)
            result = self.store.search(count)
            depth = max(50, req.offset + req.limit)
            rankings = [
                [h.passage.doc_id for h in self.store.search(replace(sq, limit=depth, offset=0, aggregate=())).hits]
                if own or sq.alternatives
                else [],
                [d for d, _ in self.bridges.ranking(bridges, req, depth)],
            ]
            page = rrf(rankings)[req.offset : req.offset + req.limit]
            passages = self.store.get_ids([d for d, _ in page])
            terms = set(forms) | {canon(t) for t in analysed.terms}
            hits = [
                self.searcher.hit(p, rank, snippet(p.text, canon, terms)[0], round(score, 4))
                for rank, (d, score) in enumerate(page, req.offset + 1)
                if (p := passages.get(d))
            ]
            info.routes, info.fusion = ["lexical", "bridge"], "rrf"
            res = SearchResponse.timed(
                started, result.total, hits, info, aggregations=self.searcher.buckets(result.aggregations)
            )
        res.query_info.bridges = bridges
        return res

    def _sentence_search(self, req: SearchRequest) -> SearchResponse:
        """Sentence hits: the matching sentences of the best matching paragraphs, in their order."""
        started = time.perf_counter()
        sq, info, analysed = self.searcher.planner.plan(req.model_copy(update={"granularity": None}))
        sq.limit, sq.offset, sq.aggregate = SENTENCE_PARAGRAPHS, 0, ()
        result = self.store.search(sq)
        analyse_word = fold if info.field == "fold" else canon
        terms = set(analysed.terms) | set(info.forms)
        found: list[tuple[Passage, int, str]] = []
        for h in result.hits:
            for k, sentence in enumerate(split_sentences(h.passage.text), start=1):
                marked, count = snippet(
                    sentence, analyse_word, terms, analysed.phrases, analysed.prefixes, width=10_000
                )
                if count:
                    found.append((h.passage, k, marked))
        if result.total > SENTENCE_PARAGRAPHS:
            info.notes.append(f"sentences of the {SENTENCE_PARAGRAPHS} best of {result.total} matching paragraphs")
        page = found[req.offset : req.offset + req.limit]
        hits = [Hit.of(p, rank, marked, 1.0, sentence=k) for rank, (p, k, marked) in enumerate(page, req.offset + 1)]
        return SearchResponse.timed(started, len(found), hits, info)
