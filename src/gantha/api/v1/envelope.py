"""The document service's envelope (``/api/v1``): ``{code, data, message}``, and its numeric codes.

``code`` is 0 on success (HTTP 200, or 202 for a queued task). An error keeps a meaningful HTTP status
and a four-digit code from which that status can be read back: the first digit is the class (1: the
client's error, a 4xx; 2: the server's, a 5xx), the next two the status's last two digits, the last one
the reason within that status. So ``1040`` is a 404, ``1220`` a 422, ``2032`` a 503; a reason without a
code of its own gets its status's general one (``…0``). ``data`` of an error is ``{error, details?}``:
the reason by name, as ``/api/v3`` names it.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

from fastapi.responses import JSONResponse
from pydantic import BaseModel

T = TypeVar("T")

# reason → code; the HTTP status of each is read from its digits (see the module's docstring)
CODES: dict[str, int] = {
    "bad_request": 1000,
    "invalid_parameter": 1001,
    "invalid_coordinate": 1002,
    "invalid_page_ref": 1003,
    "unauthorized": 1010,
    "forbidden_path": 1030,
    "not_found": 1040,
    "method_not_allowed": 1050,
    "too_large": 1130,
    "invalid_request": 1220,
    "internal_error": 2000,
    "upstream_failed": 2020,
    "unavailable": 2030,
    "index_unavailable": 2031,
    "deadline_exceeded": 2032,
    "admin_disabled": 2033,
    "read_only": 2034,
}
MEANINGS: dict[int, str] = {
    0: "ok (HTTP 200; 202 when a task was queued)",
    1000: "bad request",
    1001: "a parameter the service cannot use (an unknown source, an upload that is not a text, an empty query)",
    1002: "a coordinate that does not parse",
    1003: "a page reference that does not parse",
    1010: "missing or wrong API key (X-API-Key or Authorization: Bearer)",
    1030: "a server path outside GANTHA_INGEST_ROOTS",
    1040: "no such document, task, node or route",
    1050: "method not allowed on this path",
    1130: "request body too large (refused before it is read)",
    1220: "the request does not match the schema (a missing or malformed field)",
    2000: "internal error",
    2020: "the model or a web engine failed",
    2030: "service unavailable",
    2031: "the index cannot be read",
    2032: "the request stopped at its deadline (GANTHA_REQUEST_TIMEOUT)",
    2033: "the admin routes are off (GANTHA_ADMIN_KEY unset)",
    2034: "this server reads a read-only database (a replica): writes go to the server on the primary",
}


def status_of(code: int) -> int:
    """The HTTP status a code is answered with."""
    return 200 if code == 0 else (400 if code < 2000 else 500) + code % 1000 // 10


def code_of(status: int, reason: str) -> int:
    """The code of a reason answered with ``status`` (the status's general code if the reason has none)."""
    code = CODES.get(reason)
    if code is not None and status_of(code) == status:
        return code
    return (1000 if status < 500 else 2000) + status % 100 * 10


class Reply(BaseModel, Generic[T]):
    """A successful answer."""

    code: int = 0
    data: T
    message: str = "ok"


class ErrorData(BaseModel):
    error: str  # the reason by name: not_found, forbidden_path …
    details: list[dict[str, Any]] | None = None


class ErrorReply(BaseModel):
    """An error: ``code`` ≥ 1000, its HTTP status kept (see the module's docstring)."""

    code: int
    data: ErrorData
    message: str


class ApiError(Exception):
    """An error a ``/api/v1`` route answers: HTTP status, reason, message."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(message)
        self.status, self.reason = status, reason


def error_response(
    status: int, reason: str, message: str, headers: dict[str, str] | None = None, **extra: Any
) -> JSONResponse:
    data: dict[str, Any] = {"error": reason, **extra}
    body = {"code": code_of(status, reason), "data": data, "message": message}
    return JSONResponse(body, status_code=status, headers=headers)


def answers(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` for these error statuses, with the codes each may carry."""
    out: dict[int | str, dict[str, Any]] = {}
    for status in statuses:
        codes = [c for c in MEANINGS if c and status_of(c) == status]
        described = "; ".join(f"{c}: {MEANINGS[c]}" for c in codes) or f"code {code_of(status, '')}"
        out[status] = {"model": ErrorReply, "description": described}
    return out


def table() -> str:
    """The codes as a Markdown table (README, OpenAPI description)."""
    rows = [
        f"| {c} | {status_of(c)} | {next((r for r, v in CODES.items() if v == c), 'ok')} | {m} |"
        for c, m in MEANINGS.items()
    ]
    return "\n".join(["| code | HTTP | reason | meaning |", "| --- | --- | --- | --- |", *rows])
