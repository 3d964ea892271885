"""The index a server answers from: opened once, reopened when another process changed it."""

from __future__ import annotations

import threading

from gantha.config import settings
from gantha.rag.agent import Agent, agent_from_settings
from gantha.research import Research


class LiveIndex:
    """The :class:`Research` (and chat agent) over ``location``, current with the index's generation."""

    def __init__(self, location: str) -> None:
        self.location = location
        self._research: Research | None = None
        self._generation: object = None
        self._agent: Agent | None = None
        self._lock = threading.Lock()

    def research(self) -> Research:
        current = self._research
        if current is not None and current.store.generation() == self._generation:
            return current
        with self._lock:  # first use, or the index changed under us: one thread reopens it
            if self._research is not current and self._research is not None:
                return self._research
            self._research = Research.open(self.location)
            self._generation = self._research.store.generation()
            self._agent = None
            if current is not None:
                current.store.close()
            return self._research

    def agent(self) -> Agent:
        research = self.research()
        if self._agent is None:
            self._agent = agent_from_settings(research, settings())
        return self._agent
