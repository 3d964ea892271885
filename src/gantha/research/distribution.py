"""The verb ``dist``: how the paragraphs holding any of some forms (or a lemma's) spread over the books."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from gantha.model import (
    SearchRequest,
)


class BookCount(BaseModel):
    book: str
    title: str
    category: str
    tags: list[str]
    count: int


class DistResult(BaseModel):
    forms: list[str]
    total: int
    books: list[BookCount]
    by_category: dict[str, int]
    query_info: dict[str, Any] = Field(default_factory=dict)


class DistributionVerbs:
    """Needs ``store`` and ``search``."""

    def dist(self, forms: list[str], lemma: str | None = None, **filters: Any) -> DistResult:
        """Hits per book (with title, category and tags) for any of the forms, most first."""
        req = SearchRequest(forms=forms, limit=1, **filters)
        res = self.search(req, lemma=lemma)
        books = self.store.books()
        rows = []
        for bucket in res.aggregations.get("book", []):
            rec = books.get(f"cst/{bucket.key}")
            info = rec.info if rec else None
            rows.append(
                BookCount(
                    book=bucket.key,
                    title=info.title if info else bucket.key,
                    category=info.category if info else "",
                    tags=info.tags if info else [],
                    count=bucket.count,
                )
            )
        rows.sort(key=lambda r: (-r.count, r.book))
        return DistResult(
            forms=res.query_info.forms,
            total=res.total,
            books=rows,
            by_category={b.key: b.count for b in res.aggregations.get("category", [])},
            query_info=res.query_info.model_dump(),
        )
