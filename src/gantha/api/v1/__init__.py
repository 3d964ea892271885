"""The document service of the original design, under ``/api/v1`` in its envelope ``{code, data, message}``:
documents and tasks (:mod:`.documents`), health, search and stats (:mod:`.knowledge`); codes in
:mod:`.envelope`. The taxonomy's categories (``/api/v1/knowledge/categories``) are not served yet."""

from __future__ import annotations

from fastapi import APIRouter

from gantha.api.live import LiveIndex
from gantha.api.v1 import documents, knowledge


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()
    api.include_router(knowledge.router(index))
    api.include_router(documents.router(index))
    return api
