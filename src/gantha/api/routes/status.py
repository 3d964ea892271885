"""Index status and the books it holds."""

from __future__ import annotations

from fastapi import APIRouter

from gantha import __version__, upgrade
from gantha.api.errors import ERRORS
from gantha.api.live import LiveIndex
from gantha.api.responses import BookData, Envelope, HealthData, StoreData
from gantha.config import settings
from gantha.store.base import Store, StoreError


def health_data(index: LiveIndex) -> HealthData:
    """The index a server answers from and what is wrong with it: degraded with the reasons when a side file is
    unreadable, the replica it reads lags or has lost its primary (it answers from what it holds), or the
    database it was serving cannot be reached (it answers nothing). A server that never had its index answers
    503 ``index_unavailable``, as every route does."""
    try:
        research = index.research()
    except StoreError as exc:
        open_now = index.current()
        if open_now is None:
            raise
        store, problems = _store(index, open_now.store)
        return HealthData(
            status="degraded",
            version=__version__,
            passages=0,
            books=0,
            corpora=[],
            problems=[f"index unavailable: {exc}", *problems],
            store=store,
        )
    store, problems = _store(index, research.store)
    problems = research.problems + problems
    books = research.store.books(channel=None).values()
    return HealthData(
        status="degraded" if problems else "ok",
        version=__version__,
        passages=research.store.count(),
        books=len(research.store.books()),
        corpora=sorted({r.info.corpus for r in books}),
        problems=problems,
        store=store,
        embedders=research.searcher.routes.names(),
        upgrade=upgrade.status(research.store, upgrade.wanted(settings().upgrade_embedder)),
    )


def _store(index: LiveIndex, store: Store) -> tuple[StoreData, list[str]]:
    """What the store says of itself (a database: where, primary or replica, its lag) and its problems."""
    database = getattr(store, "database", None)
    if database is None:
        return StoreData(
            engine="embedded", location=store.location, generation=store.generation(), serving=index.serving
        ), []
    info = database()
    problems = info.pop("problems")
    return StoreData(location=store.location, serving=index.serving, **info), problems


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()

    @api.get("/api/v3/health", summary="Index status", responses=ERRORS)
    def health() -> Envelope[HealthData]:
        return Envelope(data=health_data(index))

    @api.get("/api/v3/books", summary="Indexed books with title, category, tags and counts", responses=ERRORS)
    def books(corpus: str | None = None) -> Envelope[list[BookData]]:
        records = index.research().store.books(corpus).values()
        return Envelope(
            data=[
                BookData(
                    book=r.info.book,
                    corpus=r.info.corpus,
                    title=r.info.title,
                    category=r.info.category,
                    tags=r.info.tags,
                    group_path=r.info.group_path,
                    passages=r.passages,
                    page_refs=r.page_refs,
                    bold_terms=r.bold_terms,
                    ingested_at=r.ingested_at,
                )
                for r in sorted(records, key=lambda r: (r.info.corpus, r.info.book))
            ]
        )

    return api
