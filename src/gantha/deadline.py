"""A request's deadline: long work checks it between its steps and stops when the time is up or the
client has gone.

A surface opens a :class:`Deadline` around a request (:func:`bounded`); the search pipeline and the
research verbs call :func:`check` between steps — after the index answers, between the hits they
present, before a query is embedded or reranked. An index call already running finishes (tantivy
cannot be interrupted, and each is bounded by the request limits); nothing after it is done. Without an
open deadline (the CLI, the tests, MCP over stdio) :func:`check` costs one context-variable read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class DeadlineExceeded(Exception):
    """The request ran past its deadline, or its client left; ``gone``: nobody waits for the answer."""

    def __init__(self, message: str, gone: bool = False):
        super().__init__(message)
        self.gone = gone


class Deadline:
    """Time left to one request, and whether its client is still there (set from another thread)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.ends = time.monotonic() + seconds
        self._gone = threading.Event()

    def leave(self) -> None:
        """The client disconnected: the work still running for it stops at its next check."""
        self._gone.set()

    @property
    def gone(self) -> bool:
        return self._gone.is_set()

    def expired(self) -> bool:
        """Whether the time is up or the client has left (what ``check`` would raise for)."""
        return self._gone.is_set() or time.monotonic() > self.ends

    def check(self) -> None:
        if self._gone.is_set():
            raise DeadlineExceeded("the client closed the connection; the request was cancelled", gone=True)
        if time.monotonic() > self.ends:
            raise DeadlineExceeded(
                f"the request took longer than {self.seconds:g} s (GANTHA_REQUEST_TIMEOUT) and was stopped; "
                "narrow it: fewer or longer words, a filter, a smaller page"
            )


_CURRENT: ContextVar[Deadline | None] = ContextVar("gantha_deadline", default=None)


def check() -> None:
    """Stop here (``DeadlineExceeded``) if the current request's time is up or its client has left."""
    if (deadline := _CURRENT.get()) is not None:
        deadline.check()


@contextmanager
def bounded(deadline: Deadline) -> Iterator[Deadline]:
    """Run the enclosed work (and the threads it starts from a copy of this context) under ``deadline``."""
    token = _CURRENT.set(deadline)
    try:
        yield deadline
    finally:
        _CURRENT.reset(token)
