"""The research verbs: forms, word, search by forms, dist, get, chapter, outline, versions, suggest, similar, links.

Each returns a pydantic model (beside its verb) that the CLI prints, the HTTP API returns and the MCP
tools hand to a model. Every text returned carries a coordinate that ``get`` resolves to the same text.
Search runs through the pipeline of :mod:`gantha.search.pipeline`; the other verbs are the small
modules of this package, joined here over one store and its lexicon.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from gantha.config import settings
from gantha.model import SearchRequest, SearchResponse
from gantha.research.chapters import ChannelStatus, ChapterPassage, ChapterResult, ChapterVerbs, VersionsResult
from gantha.research.desk import DeskVerbs
from gantha.research.distribution import BookCount, DistResult, DistributionVerbs
from gantha.research.links import LinksResult, LinkVerbs
from gantha.research.nodes import LEVELS, NodeVerbs
from gantha.research.outline import OutlineNode, OutlineResult, OutlineVerbs
from gantha.research.reading import Citations, GetItem, GetResult, ReadingVerbs, Token
from gantha.research.similar import SimilarVerbs
from gantha.research.suggest import Suggestion, SuggestResult, SuggestVerbs
from gantha.research.words import Entry, FormsResult, Morphology, WordResult, WordVerbs
from gantha.search.pipeline import Pipeline
from gantha.search.plan import check_query
from gantha.search.rerank import SCRIPTS, SHIPPED_STRONG, Calibration, EmbeddingReranker, Judge
from gantha.search.routes import Routes
from gantha.search.semantic import SemanticRoute, VectorsUnreadable
from gantha.search.service import Searcher
from gantha.search.words import Words
from gantha.store.base import LexiconUnreadable, Store, StoreError
from gantha.store.factory import open_store
from gantha.store.lexicon import Lexicon
from gantha.store.sql import SqliteDatabase

__all__ = [
    "BookCount",
    "ChannelStatus",
    "ChapterPassage",
    "ChapterResult",
    "Citations",
    "DistResult",
    "Entry",
    "FormsResult",
    "GetItem",
    "GetResult",
    "LinksResult",
    "Morphology",
    "OutlineNode",
    "OutlineResult",
    "Research",
    "SuggestResult",
    "Suggestion",
    "Token",
    "VersionsResult",
    "WordResult",
]


class Research(
    WordVerbs,
    ReadingVerbs,
    ChapterVerbs,
    OutlineVerbs,
    NodeVerbs,
    DistributionVerbs,
    SimilarVerbs,
    SuggestVerbs,
    LinkVerbs,
    DeskVerbs,
):
    """The research verbs over one index and its lexicon."""

    @classmethod
    def open(
        cls,
        location: str | Path,
        embedder: str | None = None,
        fusion: str | None = None,
        previous: Research | None = None,
    ) -> Research:
        """The verbs over the index at ``location`` (a folder or a database URL); embedder and fusion
        default to the settings. ``previous``, the same index opened before, lends what has not changed
        since: its vectors, its word families and their caches."""
        s = settings()
        store = open_store(location, create=False)
        problem = None
        try:
            semantic = SemanticRoute.open(store, embedder or s.embedder, previous and previous.searcher.semantic)
        except VectorsUnreadable as exc:  # lexical search and the verbs answer; meaning search says why not
            semantic, problem = None, str(exc)
        try:
            lexicon, lexicon_problem = store.lexicon(), None
        except LexiconUnreadable as exc:  # search answers, without inflections and dictionary meanings
            lexicon, lexicon_problem = Lexicon(SqliteDatabase(Path(":memory:"))), str(exc)
            lexicon.problem = lexicon_problem  # a stand-in: what is worked out with it is not kept
        words = previous.words.reopened(lexicon, store) if previous is not None and not lexicon_problem else None
        routes = Routes.open(store, semantic, previous.searcher.routes if previous is not None else None)
        research = cls(store, lexicon, semantic, fusion or s.fusion, words, routes)
        research.searcher.vector_problem = problem
        research.opening_problems = [p for p in (problem, lexicon_problem) if p]
        return research

    def __init__(
        self,
        store: Store,
        lexicon: Lexicon,
        semantic: SemanticRoute | None = None,
        fusion: str = "fitted",
        words: Words | None = None,
        routes: Routes | None = None,
    ):
        self.store = store
        self.lexicon = lexicon
        judge = None
        if semantic:
            stronger = routes.stronger() if routes is not None else None
            second = (stronger.embedder, stronger.vectors) if stronger else None
            name = stronger.embedder.name if stronger else ""
            names = [name, *(f"{name}:{s}" for s in SCRIPTS)] if stronger else []
            strong = {n: c for n in names if (c := Calibration.saved(store, n)) is not None}
            strong = strong or {n: SHIPPED_STRONG[n] for n in names if n in SHIPPED_STRONG}  # none fitted here
            reranker = EmbeddingReranker(semantic.embedder, semantic.vectors, second)
            judge = Judge(reranker, Calibration.load(store), strong.pop(name, None), strong)
        self.words = words or Words(lexicon, store)
        inflect = self.words.inflection if lexicon is not None else None
        headword = self.words.is_headword if lexicon is not None else None
        self.searcher = Searcher(store, semantic, fusion, judge, inflect=inflect, headword=headword, routes=routes)
        self.pipeline = Pipeline(store, lexicon, self.searcher, self)
        self._analyse = lru_cache(maxsize=65536)(self._analyse_uncached)
        self._outlines, self._summaries, self._named_texts, self._titles = {}, {}, None, None
        self._descriptions = {}
        self.opening_problems: list[str] = []  # side files that could not be read: the index answers degraded

    @property
    def problems(self) -> list[str]:
        """Why the index answers degraded: side files unreadable when it was opened, or found damaged since."""
        found = [p for p in (getattr(self.lexicon, "problem", None), self._tasks_problem()) if p]
        return [*self.opening_problems, *(p for p in found if p not in self.opening_problems)]

    def _tasks_problem(self) -> str | None:
        """Why the admin API's task queue cannot be read (asked only while the admin API is on)."""
        if not settings().admin_key:
            return None
        try:
            self.store.tasks()
        except StoreError as exc:
            return str(exc)
        return None

    @property
    def judge(self) -> Judge | None:
        """The reranker and its calibration (None without vectors)."""
        return self.searcher.judge

    def search(self, req: SearchRequest, lemma: str | None = None) -> SearchResponse:
        """Search, expanding ``lemma`` to its attested forms and compounds first; explain an empty answer.
        Above paragraphs (granularity book, chapter, sutta, section, auto): whole texts by their evidence."""
        check_query(req.q)
        if req.comments_on and not req.within:  # the commentary paragraphs on those root paragraphs
            req = req.model_copy(update={"within": self.commentaries_on(req.comments_on)})
        if req.granularity in (*LEVELS, "auto"):
            return self.search_nodes(req, lemma)
        return self.pipeline.search(req, lemma)

    def verse(self, reference: str) -> str:
        """The coordinate of a Bible verse reference (``Rom 3:24``, ``罗马书 3:24``)."""
        return self.pipeline.verse(reference)

    def bridges(self, text: str) -> list[dict]:
        """Pali lemmas (with their attested forms) that a Chinese or English query names."""
        return self.pipeline.bridges.find(text)
