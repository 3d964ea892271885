"""The bodies of the document service (``/api/v1``): tasks, documents, stats, the knowledge search."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from gantha.api.responses import HealthData, SearchData
from gantha.model import MAX_LIMIT, MAX_OFFSET, QueryInfo, SearchMode
from gantha.research.tree import OutlineTree
from gantha.search.plan import MAX_QUERY_CHARS, MAX_QUERY_WORDS
from gantha.store.queue import Task

Granularity = Literal["paragraph", "sentence", "book", "chapter", "sutta", "section", "auto"]


class TaskData(Task):
    """A task with its progress: ``done / total`` while it runs (files or books), 1 once done."""

    progress: float = 0.0

    @classmethod
    def of(cls, task: Task) -> TaskData:
        progress = round(min(task.done / task.total, 1.0), 4) if task.total else 0.0
        if task.state == "done":
            progress = 1.0
        return cls(**task.model_dump(), progress=progress)


class TaskPage(BaseModel):
    total: int
    page: int
    page_size: int
    items: list[TaskData]


class ChannelData(BaseModel):
    channel: str
    language: str
    passages: int
    page_refs: int
    bold_terms: int
    source: str
    ingested_at: str


class DocumentData(BaseModel):
    key: str  # corpus/book: the document's coordinate
    corpus: str
    book: str
    title: str
    category: str  # the canon's division (mula, atthakatha, tika, anya), as /api/v3 filters by it
    tags: list[str]
    group_path: list[str]
    channels: list[ChannelData]
    passages: int
    ingested_at: str


class DocumentPage(BaseModel):
    total: int
    page: int
    page_size: int
    items: list[DocumentData]


class Classification(BaseModel):
    """A node's category in the taxonomy (``gantha.topics``)."""

    coordinate: str
    topic: str  # a category id, or "uncategorized" below the taxonomy's threshold
    label: str
    confidence: float
    tags: list[str]  # soft tags: the other candidate categories
    fixed: bool  # set by a person: kept by every classification


class DocumentDetail(DocumentData):
    outline: OutlineTree  # book › chapter › section, each node with its size, summary and topic
    classification: Classification | None = None  # the document's category (None: not classified yet)


class TopicFix(BaseModel):
    model_config = ConfigDict(extra="forbid")
    topic: str | None = Field(description="a category id of the taxonomy (or uncategorized); null: drop the fix")


class CategoryData(BaseModel):
    id: str
    label: str
    description: str
    documents: int  # books classified into it
    chapters: int


class CategoriesData(BaseModel):
    taxonomy: str  # the file the index was classified with
    threshold: float
    categories: list[CategoryData]  # the taxonomy's, then uncategorized


class DeletedData(BaseModel):
    """A delete of a document the index does not hold: nothing to do (a delete is idempotent)."""

    key: str
    deleted: bool = False
    message: str


class CorpusCount(BaseModel):
    corpus: str
    books: int
    passages: int


class LastIngest(BaseModel):
    key: str
    title: str
    channel: str
    passages: int
    ingested_at: str


class StatsData(BaseModel):
    passages: int
    books: int
    index_bytes: int
    corpora: list[CorpusCount]
    channels: list[tuple[str, int]]
    categories: list[tuple[str, int]]  # books per canon division
    tags: list[tuple[str, int]]
    last_ingests: list[LastIngest]
    tasks: dict[str, int]  # tasks per state
    classification: list[tuple[str, int]] = Field(default_factory=list)  # documents per taxonomy category
    summarised: dict[str, int] = Field(default_factory=dict)  # stored summaries: documents, nodes (gantha summarize)


class SearchFilters(BaseModel):
    """What ``GET /api/v3/search`` filters by, as lists."""

    model_config = ConfigDict(extra="forbid")

    resource_type: list[str] = Field(
        default_factory=list,
        description="origin_text, translation, nissaya, dictionary, term, article, or a corpus: cst, bible, md, dict",
    )
    language: list[str] = Field(default_factory=list, description="languages, e.g. pali, en")
    category: list[str] = Field(default_factory=list, description="mula, atthakatha, tika, anya")
    tags: list[str] = Field(default_factory=list, description="tags, e.g. vinaya, sutta, digha")
    book: list[str] = Field(default_factory=list, description="book ids, e.g. vin02m3.mul")
    page_refs: str | None = Field(None, description="a page reference: P2.0031, P2.31, PTS Vin II 31")


class KnowledgeQuery(BaseModel):
    """A knowledge search: the question, the granularity of the answer, filters, a page."""

    model_config = ConfigDict(extra="forbid")

    query: str = Field(
        "",
        max_length=MAX_QUERY_CHARS,
        description='words, "a phrase", -excluded, prefix*; any script or ASCII scheme '
        f"(at most {MAX_QUERY_WORDS} words)",
    )
    granularity: Granularity | None = Field(
        None,
        description="paragraph (default), sentence, or whole texts: book, chapter, sutta, section (data.nodes), "
        "or auto (descends book → chapter → section while sure; query_info.hierarchy says the path)",
    )
    search_mode: SearchMode = SearchMode.FUZZY
    filters: SearchFilters = Field(default_factory=SearchFilters)
    lemma: str | None = Field(None, description="expand this lemma to its attested forms first")
    page: int = Field(1, ge=1, le=MAX_OFFSET)
    page_size: int = Field(20, ge=1, le=MAX_LIMIT)


class KnowledgeData(SearchData):
    query_info: QueryInfo


__all__ = [
    "DeletedData",
    "DocumentData",
    "DocumentDetail",
    "DocumentPage",
    "HealthData",
    "KnowledgeData",
    "KnowledgeQuery",
    "StatsData",
    "TaskData",
    "TaskPage",
]
