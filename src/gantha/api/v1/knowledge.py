"""The knowledge routes of ``/api/v1``: health and search (open, as ``/api/v3`` is), stats (admin key).

``POST /api/v1/search`` is ``GET /api/v3/search`` with a JSON body: the same search service, the same
hits, nodes and ``query_info``, in the document service's envelope.
"""

from __future__ import annotations

from collections import Counter

from fastapi import APIRouter, Depends

from gantha.api.live import LiveIndex
from gantha.api.routes.search import answer, check_page
from gantha.api.routes.status import health_data
from gantha.api.v1.documents import require_key
from gantha.api.v1.envelope import Reply, answers
from gantha.api.v1.models import (
    CategoriesData,
    CategoryData,
    CorpusCount,
    HealthData,
    KnowledgeData,
    KnowledgeQuery,
    LastIngest,
    StatsData,
)
from gantha.model import SearchRequest, comma_list
from gantha.topics import configured_taxonomy, scope
from gantha.topics.taxonomy import UNCATEGORIZED


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter(prefix="/api/v1", tags=["knowledge"], responses=answers(413, 422, 503))

    @api.get("/health", summary="Index status (for a health check: no key)")
    def health() -> Reply[HealthData]:
        data = health_data(index)
        return Reply(data=data, message=data.status)

    @api.post(
        "/search",
        summary="Knowledge search: a question at a granularity (paragraph … book, or auto) with filters",
        responses=answers(400, 404),
    )
    def search(body: KnowledgeQuery) -> Reply[KnowledgeData]:
        check_page(body.page, body.page_size)
        f = body.filters
        req = SearchRequest(
            q=body.query,
            mode=body.search_mode,
            page_ref=f.page_refs,
            books=comma_list(f.book),
            categories=comma_list(f.category),
            tags=comma_list(f.tags),
            languages=comma_list(f.language),
            resource_types=comma_list(f.resource_type),
            granularity=body.granularity,
            limit=body.page_size,
            offset=(body.page - 1) * body.page_size,
        )
        data, query_info = answer(index.research(), req, lemma=body.lemma)
        return Reply(data=KnowledgeData(**dict(data), query_info=query_info), message=data.outcome)

    @api.get(
        "/knowledge/stats",
        summary="Corpora, documents, passages, index size, last ingests, categories, tags and tasks",
        dependencies=[Depends(require_key)],
        tags=["admin"],
        responses=answers(401),
    )
    def stats() -> Reply[StatsData]:
        s = index.research().store
        records = list(s.books(channel=None).values())
        every = [c for r in records for c in s.channels(r.info.corpus, r.info.book)]
        corpora: dict[str, CorpusCount] = {}
        for r in every:
            corpora.setdefault(
                r.info.corpus, CorpusCount(corpus=r.info.corpus, books=0, passages=0)
            ).passages += r.passages
        for r in records:
            corpora[r.info.corpus].books += 1
        latest = sorted(every, key=lambda r: r.ingested_at, reverse=True)[:10]
        data = StatsData(
            passages=s.count(),
            books=len(records),
            index_bytes=s.size(),
            corpora=[corpora[k] for k in sorted(corpora)],
            channels=sorted(Counter(r.channel.name for r in every).items()),
            categories=sorted(Counter(r.info.category for r in records).items()),
            tags=sorted(Counter(t for r in records for t in r.info.tags).items(), key=lambda kv: -kv[1]),
            last_ingests=[
                LastIngest(
                    key=f"{r.info.corpus}/{r.info.book}",
                    title=r.info.title,
                    channel=r.channel.name,
                    passages=r.passages,
                    ingested_at=r.ingested_at,
                )
                for r in latest
            ],
            tasks=s.tasks().states(),
            classification=Counter(t.topic for t in s.topics() if t.chapter == 0).most_common(),
            summarised={"documents": len(summarised := s.summarised_books()), "nodes": sum(summarised.values())},
        )
        return Reply(data=data)

    @api.get(
        "/knowledge/categories",
        summary="The taxonomy's categories with the documents and chapters classified into each",
        dependencies=[Depends(require_key)],
        tags=["admin"],
        responses=answers(401),
    )
    def categories() -> Reply[CategoriesData]:
        s = index.research().store
        taxonomy = configured_taxonomy()
        records = s.topics()
        labels = scope.labels(s)
        described = {c.id: c.description for c in taxonomy.categories}
        ids = scope.known_topics(s) or [*taxonomy.ids, UNCATEGORIZED]
        rows = [
            CategoryData(
                id=topic,
                label=labels.get(topic) or taxonomy.label(topic),
                description=described.get(topic, "below the taxonomy's threshold"),
                documents=sum(t.topic == topic and t.chapter == 0 for t in records),
                chapters=sum(t.topic == topic and t.chapter > 0 for t in records),
            )
            for topic in ids
        ]
        data = CategoriesData(taxonomy=taxonomy.source, threshold=taxonomy.threshold, categories=rows)
        return Reply(data=data)

    return api
