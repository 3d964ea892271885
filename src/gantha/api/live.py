"""The index a server answers from: opened once, reopened when another process changed it.

A reopen (the tantivy reader, the lexicon, the vectors: seconds on the whole canon) runs in a
background thread while requests go on being answered from the index already open. Where opening
takes less than ``FRESH_WAIT`` seconds (a small index), a request waits for it, so a write is read
back at once — up to ``FRESH_WAIT`` after the reopen began, so one that takes longer this time (a
vocabulary changed: word families computed again) delays requests once, not each for a second; a
large index never makes readers queue behind its reopening. After a reopen the next
waits as long as it took, so an ingest that commits often keeps at most half a core busy reopening.
The index replaced is closed as soon as the last request reading it has finished (each request holds the
indexes it was given: :class:`Leases`), and at the latest ``RETIRE_AFTER`` seconds later; an index given
outside a request (no lease) is closed only then. A server whose index changes every few seconds (the first
run's vectors saved group by group, then classified) so holds one or two indexes, not one for each change of
the last two minutes (4.3 GB a worker under `gantha up`, measured, against 1.3 GB).

An open index is hundreds of thousands of Python objects (word families, outlines, lexicon caches) that
live as long as it does: they are frozen out of the garbage collector's full passes (``gc.freeze``), which
otherwise stop every request for a third of a second now and then; the index replaced is unfrozen and
collected once when it is retired. What an index loads when first asked (the lexicon, the inflections of
words searched) is frozen likewise once a full collection has found it alive (:func:`freeze_survivors`): on
the whole canon a full pass took 75 ms, stopping every request of the worker, and about 3 ms after it (a
server process installs it: ``gantha.api.server``).
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from contextvars import ContextVar

from starlette.types import ASGIApp, Receive, Scope, Send

from gantha.config import settings
from gantha.rag.agent import Agent, agent_from_settings
from gantha.research import Research

FRESH_WAIT = 1.0  # an index that opens faster than this is waited for; a slower one answers from the open one
RETIRE_AFTER = 120.0  # seconds a replaced index stays open for the requests still reading it
THAW_EVERY = 600.0  # seconds between the full collections that look at frozen objects too
_thawed = [time.monotonic()]  # when the frozen objects were last given back to full collections
_lease: ContextVar[list[Research] | None] = ContextVar("gantha_lease", default=None)  # the request's indexes

log = logging.getLogger(__name__)


def freeze_survivors(phase: str, info: dict) -> None:
    """A garbage collector's callback: what survived a full collection is long-lived, so frozen out of the
    next ones. Objects frozen are still freed when no longer referenced; cycles among them (a request in
    flight during the collection, since finished) are collected by the first full collection after
    :data:`THAW_EVERY` seconds, for which everything is unfrozen once."""
    if phase != "stop" or info["generation"] != 2:
        return
    now = time.monotonic()
    if now - _thawed[0] > THAW_EVERY:
        _thawed[0] = now
        gc.unfreeze()
    else:
        gc.freeze()


class LiveIndex:
    """The :class:`Research` (and chat agent) over ``location``, current with the index's generation."""

    def __init__(self, location: str) -> None:
        self.location = location
        self._research: Research | None = None
        self._generation: object = None
        self._agent: Agent | None = None
        self._lock = threading.Lock()
        self._reopened = threading.Event()  # set while no reopen is running
        self._reopened.set()
        self._next_reopen = 0.0  # monotonic time before which no reopen starts
        self._opening = 0.0  # seconds the last open took
        self._reopen_started = 0.0  # monotonic time the running (or last) reopen began
        self._readers: dict[int, int] = {}  # id of an index given to requests -> requests holding it now
        self._replaced: dict[int, Research] = {}  # indexes replaced, by id, until closed
        self._unleased: set[int] = set()  # ids of indexes given outside a request: closed only after RETIRE_AFTER

    @property
    def serving(self) -> str:
        """The generation of the index requests are answered from ("" before the first request)."""
        return str(self._generation) if self._research is not None else ""

    def current(self) -> Research | None:
        """The index open now, without checking the store for a newer one."""
        return self._research

    def research(self) -> Research:
        """The index to answer from, held for the request that asks (if any) until it finishes."""
        return self._held(self._current())

    def _current(self) -> Research:
        current = self._research
        if current is None:
            with self._lock:  # the first request opens the index; the others wait for it once
                if self._research is None:
                    started = time.monotonic()
                    self._install(Research.open(self.location))
                    self._opening = time.monotonic() - started
            assert self._research is not None
            return self._research
        if current.store.generation() != self._generation:
            self._start_reopen()
            left = FRESH_WAIT - (time.monotonic() - self._reopen_started)  # a long reopen is waited for once
            if self._opening < FRESH_WAIT and left > 0:
                self._reopened.wait(left)
        return self._research or current

    def _held(self, research: Research) -> Research:
        """``research`` held for the request that asks, or if it was closed meanwhile the one that replaced it."""
        lease = _lease.get()
        with self._lock:
            if research is not self._research and id(research) not in self._replaced:
                research = self._research or research  # replaced and closed since it was looked up
            if lease is None:
                self._unleased.add(id(research))  # read by something that does not say when it is done
            else:
                self._readers[id(research)] = self._readers.get(id(research), 0) + 1
                lease.append(research)
        return research

    def release(self, lease: list[Research]) -> None:
        """A request has finished: the indexes it held are closed if they were replaced and no one reads them."""
        done = []
        with self._lock:
            for research in lease:
                key = id(research)
                self._readers[key] -= 1
                if not self._readers[key]:
                    del self._readers[key]
                    if key in self._replaced and key not in self._unleased:
                        done.append(self._replaced.pop(key))
            lease.clear()
        if done:  # not on the server's event loop: a full collection takes a moment
            _retire_apart(done)

    def _start_reopen(self) -> None:
        with self._lock:
            if not self._reopened.is_set() or time.monotonic() < self._next_reopen:
                return
            self._reopened.clear()
            self._reopen_started = time.monotonic()
        threading.Thread(target=self._reopen, name="gantha-reopen", daemon=True).start()

    def _reopen(self) -> None:
        started = time.monotonic()
        try:
            generation = self._research.store.generation() if self._research is not None else None
            research = Research.open(self.location, previous=self._research)
            with self._lock:
                old = self._research
                self._install(research, generation)
                idle = old is not None and not self._readers.get(id(old)) and id(old) not in self._unleased
                if old is not None and not idle:
                    self._replaced[id(old)] = old
            if idle:  # in its own thread: a full collection is not part of the opening's time
                retiring, old = [old], None  # nothing here holds it while it is collected
                _retire_apart(retiring)
            elif old is not None:
                self._retire_later(old)
        except Exception as exc:  # mid-write or unreadable now: the open index answers, the next request retries
            log.warning("reopening the index at %s failed: %s", self.location, exc)
        finally:
            finished = time.monotonic()
            self._opening = finished - started
            self._next_reopen = finished + self._opening
            self._reopened.set()

    def _install(self, research: Research, generation: object = None) -> None:
        """Answer from ``research`` from now on; ``generation``, read before it was opened, is the one it was
        opened at (a write during the opening makes the next request open it again)."""
        generation = research.store.generation() if generation is None else generation
        self._research, self._generation, self._agent = research, generation, None
        gc.freeze()  # what the index holds now is not traversed by full collections

    def agent(self) -> Agent:
        """The chat agent over the index the request is given (kept while that index is the one open)."""
        research = self.research()
        agent = self._agent
        if agent is None or agent.research is not research:
            agent = agent_from_settings(research, settings())
            with self._lock:
                if research is self._research:
                    self._agent = agent
        return agent

    def _retire_later(self, old: Research) -> None:
        """Close an index replaced while requests read it ``RETIRE_AFTER`` seconds later, unless the last of
        them (or the last request of a reader outside any lease) has closed it before."""

        key = id(old)  # not the index itself: requests that end sooner let it be freed sooner

        def retire() -> None:
            with self._lock:
                late = self._replaced.pop(key, None)
                self._unleased.discard(key)
            if late is not None:
                _retire([late])

        timer = threading.Timer(RETIRE_AFTER, retire)
        timer.daemon = True
        timer.start()


def _retire_apart(old: list[Research]) -> None:
    """:func:`_retire` on a thread of its own."""
    threading.Thread(target=_retire, args=(old,), name="gantha-retire", daemon=True).start()


def _retire(old: list[Research]) -> None:
    """Close the indexes replaced and collect what they held (frozen with them), freezing the rest again; the
    list is emptied first, so that nothing here keeps them from being freed."""
    while old:
        old.pop().store.close()
    gc.unfreeze()
    gc.collect()
    gc.freeze()


class Leases:
    """A plain ASGI middleware: each request holds the indexes it is given (:meth:`LiveIndex.research`) until its
    response is sent, so that one replaced meanwhile is closed when its last reader finishes."""

    def __init__(self, app: ASGIApp, index: LiveIndex):
        self.app, self.index = app, index

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        lease: list[Research] = []
        token = _lease.set(lease)
        try:
            await self.app(scope, receive, send)
        finally:
            _lease.reset(token)
            self.index.release(lease)
