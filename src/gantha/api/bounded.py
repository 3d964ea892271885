"""Every search and research request runs under a deadline that also ends when its client leaves, and no
request body is read past its route's limit.

:class:`DeadlineMiddleware`, an ASGI middleware (not ``BaseHTTPMiddleware``, which hides disconnects), opens a
:class:`~gantha.deadline.Deadline` for the request and owns the connection's ``receive``; once
the body is read it keeps listening, and a disconnect marks the deadline so the worker thread stops at
its next check. The chat (a model may take minutes; it has ``GANTHA_LLM_TIMEOUT``) and the document
service's routes other than its search (their work is queued as tasks) are left alone.

A bounded request may name a reply budget, ``max_bytes``: its JSON answer is cut to fit
(:func:`gantha.budget.fit`: the largest lists, then the longest texts), what was cut named in ``omitted``.

Heavy requests — a similar-sentence search, a query with ``prefix*`` or ``*wildcard`` terms (each a scan of
the term dictionary) — run one at a time across the server's workers (:class:`OneHeavy`: a file lock per
index), waiting their turn under their deadline: they may use one core, never all of them, so a client
sending them cannot starve the ordinary searches of everyone else.

:class:`BodyLimitMiddleware` counts the bytes of a body as they arrive, whether or not a Content-Length
was declared (chunked transfer): the request is answered 413 as soon as the limit is passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gantha.budget import MAX_BYTES, MIN_BYTES, fit
from gantha.deadline import Deadline, bounded

UNBOUNDED = ("/api/v3/chat", "/api/v1/")  # path prefixes not under the deadline
BOUNDED = ("/api/v1/search",)  # … except these


HEAVY_PATHS = ("/api/v3/similar",)
POLL = 0.01  # seconds between two tries of a heavy request's turn


def heavy(scope: Scope) -> bool:
    """Whether a request is one of the heavy kinds (see the module docstring)."""
    path = scope.get("path", "")
    if path.startswith(HEAVY_PATHS):
        return True
    if path != "/api/v3/search":
        return False
    params = parse_qs(scope.get("query_string", b"").decode("utf-8", "replace"))
    return "similar" in params or any("*" in q for q in params.get("q", []))


class OneHeavy:
    """One heavy request at a time among the processes serving one index (an exclusive file lock)."""

    def __init__(self, location: str):
        digest = hashlib.sha1(location.encode()).hexdigest()[:16]
        self.path = Path(tempfile.gettempdir()) / f"gantha-heavy-{digest}.lock"

    @contextlib.asynccontextmanager
    async def turn(self, deadline: Deadline) -> AsyncIterator[None]:
        """Wait for the turn (or until the deadline passes: the request then stops at its first check)."""
        with open(self.path, "a") as lock:
            held = False
            while not held and not deadline.expired():
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held = True
                except BlockingIOError:
                    await asyncio.sleep(POLL)
            try:
                yield
            finally:
                if held:
                    fcntl.flock(lock, fcntl.LOCK_UN)


class DeadlineMiddleware:
    def __init__(self, app: ASGIApp, seconds: float, heavy: OneHeavy | None = None):
        self.app, self.seconds, self.heavy = app, seconds, heavy

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
        if (budget := reply_budget(scope)) is not None:
            send = within(send, budget)
        messages: asyncio.Queue[Message] = asyncio.Queue()
        listener = asyncio.create_task(_listen(receive, messages, deadline))
        try:
            turn = self.heavy.turn(deadline) if self.heavy and heavy(scope) else contextlib.nullcontext()
            async with turn:
                with bounded(deadline):
                    await self.app(scope, messages.get, send)
        finally:
            listener.cancel()


def reply_budget(scope: Scope) -> int | None:
    """The request's ``max_bytes``, if it names one within the bounds (a verb's route refuses one outside)."""
    values = parse_qs(scope.get("query_string", b"").decode("utf-8", "replace")).get("max_bytes", [])
    if values and values[-1].isdecimal() and MIN_BYTES <= int(values[-1]) <= MAX_BYTES:
        return int(values[-1])
    return None


def within(send: Send, max_bytes: int) -> Send:
    """``send`` with a successful JSON answer cut to ``max_bytes`` (held until its last chunk); any other
    answer passes as it comes."""
    start: Message | None = None
    chunks: list[bytes] = []

    async def budgeted(message: Message) -> None:
        nonlocal start
        if message["type"] == "http.response.start":
            kind = Headers(raw=message.get("headers", [])).get("content-type", "")
            if message["status"] == 200 and kind.startswith("application/json"):
                start = message
                return
        if start is None or message["type"] != "http.response.body":
            await send(message)
            return
        chunks.append(message.get("body", b""))
        if message.get("more_body", False):
            return
        body = b"".join(chunks)
        if len(body) > max_bytes and isinstance(data := json.loads(body), dict):
            body = json.dumps(fit(data, max_bytes), ensure_ascii=False, separators=(",", ":")).encode()
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    return budgeted


async def _listen(receive: Receive, messages: asyncio.Queue[Any], deadline: Deadline) -> None:
    """Pass the connection's messages on to the app; a disconnect cancels the request's work."""
    while True:
        message = await receive()
        await messages.put(message)
        if message["type"] == "http.disconnect":
            deadline.leave()
            return


class BodyLimitMiddleware:
    """Bodies over ``limit(path)`` bytes are refused with ``refuse(scope, limit)``: at once when Content-Length
    says so, else as soon as the bytes received pass it, the rest unread; the app then reads a disconnect and
    whatever it answers or raises is dropped. Outermost, so that no other layer reads the body first."""

    def __init__(self, app: ASGIApp, limit: Callable[[str], int], refuse: Callable[[Scope, int], Response]):
        self.app, self.limit, self.refuse = app, limit, refuse

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope.get("path", ""))
        length = Headers(scope=scope).get("content-length")
        if length is not None and (not length.isdecimal() or int(length) > limit):
            await self.refuse(scope, limit)(scope, receive, send)
            return
        received, started, refused = 0, False, False

        async def bounded_receive() -> Message:
            nonlocal received, refused
            if received > limit:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    if not started:  # (an app answering without reading the body keeps its answer)
                        refused = True
                        await self.refuse(scope, limit)(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if not refused:
                started = True
                await send(message)

        try:
            await self.app(scope, bounded_receive, guarded_send)
        except Exception:
            if not refused:
                raise
