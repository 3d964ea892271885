"""Every search and research request runs under a deadline that also ends when its client leaves.

An ASGI middleware (not Starlette's ``BaseHTTPMiddleware``, which hides disconnects): it opens a
:class:`~gantha.deadline.Deadline` for the request and owns the connection's ``receive``; once
the body is read it keeps listening, and a disconnect marks the deadline so the worker thread stops at
its next check. The chat (a model may take minutes; it has ``GANTHA_LLM_TIMEOUT``) and the document
service's routes other than its search (their work is queued as tasks) are left alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gantha.deadline import Deadline, bounded

UNBOUNDED = ("/api/v3/chat", "/api/v1/")  # path prefixes not under the deadline
BOUNDED = ("/api/v1/search",)  # … except these


class DeadlineMiddleware:
    def __init__(self, app: ASGIApp, seconds: float):
        self.app, self.seconds = app, seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            scope["type"] != "http"
            or not path.startswith("/api/")
            or (path.startswith(UNBOUNDED) and not path.startswith(BOUNDED))
        ):
            await self.app(scope, receive, send)
            return
        deadline = Deadline(self.seconds)
        messages: asyncio.Queue[Message] = asyncio.Queue()
        listener = asyncio.create_task(_listen(receive, messages, deadline))
        try:
            with bounded(deadline):
                await self.app(scope, messages.get, send)
        finally:
            listener.cancel()


async def _listen(receive: Receive, messages: asyncio.Queue[Any], deadline: Deadline) -> None:
    """Pass the connection's messages on to the app; a disconnect cancels the request's work."""
    while True:
        message = await receive()
        await messages.put(message)
        if message["type"] == "http.disconnect":
            deadline.leave()
            return
