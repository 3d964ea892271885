"""``POST /api/v3/chat``: grounded answers, as JSON or as Server-Sent Events."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from gantha.api.errors import ERRORS, ErrorResponse
from gantha.api.live import LiveIndex
from gantha.api.responses import Envelope
from gantha.rag.agent import ChatAnswer, ChatRequest

RESPONSES: dict[int | str, dict[str, Any]] = {
    **ERRORS,
    502: {"model": ErrorResponse, "description": "the model or the web engine failed"},
    200: {
        "description": "JSON `{success, data: {answer, outcome, sources, citations, query_info}}`, or with "
        "stream=true an event stream: `sources` (repeatable) → `token`… → `done` (the checked answer), "
        "or `error` last",
        "content": {"text/event-stream": {}},
    },
}


def router(index: LiveIndex) -> APIRouter:
    api = APIRouter()

    @api.post(
        "/api/v3/chat",
        summary="Answer a question from the texts, citing them; stream=true sends Server-Sent Events",
        responses=RESPONSES,
    )
    def chat(req: ChatRequest) -> Envelope[ChatAnswer]:
        turn = index.agent()
        if req.stream:
            return StreamingResponse(  # type: ignore[return-value]
                _sse(turn.run(req)),
                media_type="text/event-stream",
                headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            )
        return Envelope(data=turn.answer(req))

    return api


def _sse(events: Any) -> Any:
    """Server-Sent Events: ``event: <kind>`` and one JSON ``data:`` line each; errors become an ``error`` event."""
    try:
        for kind, data in events:
            yield f"event: {kind}\ndata: {orjson.dumps(data).decode()}\n\n"
    except Exception as exc:  # the stream has begun: report in-band rather than cut the connection
        yield f"event: error\ndata: {orjson.dumps({'code': 'internal_error', 'message': str(exc)}).decode()}\n\n"
