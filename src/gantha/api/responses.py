"""The HTTP answers' envelopes: ``{success: true, data, ...}``; errors are in :mod:`gantha.api.errors`."""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from gantha.api.contract import Result
from gantha.model import Bucket, Hit, NodeHit, QueryInfo

T = TypeVar("T")


class Envelope(BaseModel, Generic[T]):
    success: bool = True
    data: T


class SearchData(BaseModel):
    total: int
    page: int
    page_size: int
    took: float  # milliseconds
    results: list[Result]
    aggregations: dict[str, list[Bucket]]
    outcome: str  # hits | no_hits | unattested_form | not_found
    message: str | None = None
    suggestions: list[str] = []
    weak: list[Hit] = []  # with not_found: the best candidates, below the confidence threshold
    nodes: list[NodeHit] = []  # granularity book, chapter, sutta or section: whole texts, best first


class SearchEnvelope(BaseModel):
    success: bool = True
    data: SearchData
    query_info: QueryInfo


class CompactSearchData(SearchData):
    """With ``fields``: each hit of ``results`` and ``weak`` holds only the fields asked for."""

    results: list[dict[str, Any]]
    weak: list[dict[str, Any]] = []


class CompactSearchEnvelope(SearchEnvelope):
    data: CompactSearchData


class BookData(BaseModel):
    book: str
    corpus: str
    title: str
    category: str
    tags: list[str]
    group_path: list[str]
    passages: int
    page_refs: int
    bold_terms: int
    ingested_at: str


class StoreData(BaseModel):
    """Which index a server reads: a folder, or a database (host, port, name; primary or replica, its lag)."""

    engine: str  # embedded | postgresql
    location: str
    generation: str = ""  # the index's generation now (changes at every write)
    serving: str = ""  # the generation of the index the server answers from
    host: str | None = None
    port: int | None = None
    database: str | None = None
    role: str | None = None  # primary | replica | unreachable
    replay_lag_seconds: float | None = None
    ranking: str | None = None  # a database's pages: bm25 (pg_textsearch's indexes) or tsvector (ranked in SQL)


class HealthData(BaseModel):
    status: str  # ok | degraded (a side file unreadable, a replica lagging or detached, the database gone)
    version: str
    passages: int
    books: int
    corpora: list[str]
    problems: list[str] = []
    store: StoreData | None = None
    # meaning search: the embedder of each language's vector route, and the background upgrade's progress
    # (state, rows_done, rows, percent, rows_per_s, seconds_left, complete) while one runs or ran
    embedders: dict[str, str] = {}
    upgrade: dict[str, Any] | None = None
