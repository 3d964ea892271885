"""The error body every route answers with, and the statuses the OpenAPI schema documents for each."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorResponse(BaseModel):
    success: bool = False
    error: ErrorBody


def answers(*statuses: int, **described: str) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses (with their usual meaning, or the one given)."""
    meaning = {**MEANINGS, **{int(k.removeprefix("s")): v for k, v in described.items()}}
    return {s: {"model": ErrorResponse, "description": meaning[s]} for s in statuses}


MEANINGS = {
    400: "bad request (code says why)",
    401: "missing or wrong API key",
    403: "a server path outside GANTHA_INGEST_ROOTS",
    404: "no such document, task or route",
    413: "request body too large (refused before it is read)",
    422: "invalid parameter",
    502: "the model or the web engine failed",
    503: "index unavailable, the admin API off (GANTHA_ADMIN_KEY unset), a write to a server reading a replica "
    "(read_only), or the request stopped at its deadline (GANTHA_REQUEST_TIMEOUT)",
}
ERRORS = answers(400, 413, 422, 503)
