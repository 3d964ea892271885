"""The index a server answers from: opened once, reopened when another process changed it.

A reopen (the tantivy reader, the lexicon, the vectors: seconds on the whole canon) runs in a
background thread while requests go on being answered from the index already open. Where opening
takes less than ``FRESH_WAIT`` seconds (a small index), a request waits for it, so a write is read
back at once — up to ``FRESH_WAIT`` after the reopen began, so one that takes longer this time (a
vocabulary changed: word families computed again) delays requests once, not each for a second; a
large index never makes readers queue behind its reopening. After a reopen the next
waits as long as it took, so an ingest that commits often keeps at most half a core busy reopening.
The index replaced is closed ``RETIRE_AFTER`` seconds later, when no request can still be reading it.

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

from gantha.config import settings
from gantha.rag.agent import Agent, agent_from_settings
from gantha.research import Research

FRESH_WAIT = 1.0  # an index that opens faster than this is waited for; a slower one answers from the open one
RETIRE_AFTER = 120.0  # seconds a replaced index stays open for the requests still reading it
THAW_EVERY = 600.0  # seconds between the full collections that look at frozen objects too
_thawed = [time.monotonic()]  # when the frozen objects were last given back to full collections

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

    @property
    def serving(self) -> str:
        """The generation of the index requests are answered from ("" before the first request)."""
        return str(self._generation) if self._research is not None else ""

    def current(self) -> Research | None:
        """The index open now, without checking the store for a newer one."""
        return self._research

    def research(self) -> Research:
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
            research = Research.open(self.location, previous=self._research)
            with self._lock:
                old = self._research
                self._install(research)
            if old is not None:
                _retire_later(old)
        except Exception as exc:  # mid-write or unreadable now: the open index answers, the next request retries
            log.warning("reopening the index at %s failed: %s", self.location, exc)
        finally:
            finished = time.monotonic()
            self._opening = finished - started
            self._next_reopen = finished + self._opening
            self._reopened.set()

    def _install(self, research: Research) -> None:
        self._research, self._generation, self._agent = research, research.store.generation(), None
        gc.freeze()  # what the index holds now is not traversed by full collections

    def agent(self) -> Agent:
        research = self.research()
        if self._agent is None:
            self._agent = agent_from_settings(research, settings())
        return self._agent


def _retire_later(old: Research) -> None:
    """In ``RETIRE_AFTER`` seconds, when no request reads it any more, close an index replaced and collect
    what it held (frozen with it), freezing the rest again."""
    held = [old]

    def retire() -> None:
        held.pop().store.close()
        gc.unfreeze()
        gc.collect()
        gc.freeze()

    timer = threading.Timer(RETIRE_AFTER, retire)
    timer.daemon = True
    timer.start()
