"""Index status and the books it holds."""

from __future__ import annotations

from fastapi import APIRouter

from gantha import __version__, upgrade
from gantha.api.errors import ERRORS
from gantha.api.live import LiveIndex
from gantha.api.responses import BookData, Envelope, HealthData
from gantha.config import settings


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()

    @api.get("/api/v3/health", summary="Index status", responses=ERRORS)
    def health() -> Envelope[HealthData]:
        research = index.research()
        store = research.store
        corpora = sorted({r.info.corpus for r in store.books(channel=None).values()})
        return Envelope(
            data=HealthData(
                status="degraded" if research.problems else "ok",
                version=__version__,
                passages=store.count(),
                books=len(store.books()),
                corpora=corpora,
                problems=research.problems,
                embedders=research.searcher.routes.names(),
                upgrade=upgrade.status(store, upgrade.wanted(settings().upgrade_embedder)),
            )
        )

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
