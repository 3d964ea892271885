"""Search: one entry over the planner, the lexical route and meaning search (see :mod:`gantha.search.plan`,
:mod:`gantha.search.lexical`, :mod:`gantha.search.meaning`, :mod:`gantha.search.present`).

Backend-agnostic: it speaks to any ``Store``."""

from __future__ import annotations

from collections.abc import Callable

from gantha.model import SearchMode, SearchRequest, SearchResponse
from gantha.search.errors import SearchError
from gantha.search.lexical import LexicalSearch
from gantha.search.meaning import REFUSAL_DEPTH, MeaningSearch
from gantha.search.plan import DEFAULT_CORPUS, Planner, tag_groups
from gantha.search.present import HIT_FIELDS, Presenter, compact, original_of
from gantha.search.rerank import Judge
from gantha.search.routes import Routes
from gantha.search.semantic import SemanticRoute
from gantha.search.words import Family, Inflection
from gantha.store.base import Store

__all__ = [
    "DEFAULT_CORPUS",
    "HIT_FIELDS",
    "REFUSAL_DEPTH",
    "SearchError",
    "Searcher",
    "compact",
    "original_of",
    "tag_groups",
]


class Searcher:
    """Answers search requests against one store: lexical, semantic or hybrid."""

    def __init__(
        self,
        store: Store,
        semantic: SemanticRoute | None = None,
        fusion: str = "fitted",
        judge: Judge | None = None,
        inflect: Callable[[str], Inflection | None] | None = None,
        headword: Callable[[str, bool], bool] | None = None,
        routes: Routes | None = None,
    ):
        self.store = store
        self.planner = Planner(store, inflect, headword)
        self.presenter = Presenter(store)
        self.lexical = LexicalSearch(self.planner, self.presenter)
        self.meaning = MeaningSearch(self.planner, self.presenter, semantic, fusion, judge, routes)
        self.plan = self.planner.plan
        self.hit = self.presenter.hit
        self.buckets = self.presenter.buckets
        self.attach_translations = self.presenter.attach_translations
        self.search_fused = self.meaning.search_fused
        self.fused_ranking = self.meaning.fused_ranking
        self.route_rankings = self.meaning.route_rankings
        self.fuse = self.meaning.fuse
        self.lexical_ranking = self.meaning.lexical_ranking
        self.vector_ranking = self.meaning.vector_ranking
        self.evidence_passages = self.meaning.evidence_passages
        self.is_pali = self.meaning.is_pali

    @property
    def semantic(self) -> SemanticRoute | None:
        return self.meaning.semantic

    @property
    def routes(self) -> Routes:
        return self.meaning.routes

    @property
    def judge(self) -> Judge | None:
        return self.meaning.judge

    @property
    def vector_problem(self) -> str | None:
        return self.meaning.vector_problem

    @vector_problem.setter
    def vector_problem(self, problem: str | None) -> None:
        self.meaning.vector_problem = problem

    def search(self, req: SearchRequest, family: Family | None = None, refuse: bool = True) -> SearchResponse:
        """``family``: the lemma whose forms and compounds ``req.forms`` holds: its matches are ranked by its
        frequency, its own forms' bold occurrences first, and each hit says which forms matched."""
        if req.mode in (SearchMode.SEMANTIC, SearchMode.HYBRID):
            return self.meaning.search_fused(req, refuse=refuse)
        return self.lexical.search(req, family)
