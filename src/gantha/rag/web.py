"""Web search engines as sources: DuckDuckGo, Bing, Exa, SearXNG, Tavily.

Each adapter sends the engine's documented request and reads its documented response into
:class:`WebDocument` (title, url, snippet, text). ``base_url`` replaces the public address (a
SearXNG instance, a proxy, or a test server). Missing keys and failing engines raise
:class:`WebSearchError` naming the setting or the engine's answer. A result is kept only with an absolute
``http``/``https`` URL: one without a link, or with a ``javascript:``, ``data:`` or relative one, is dropped
(a web source is cited by its link, which the pages and answers show as is).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from gantha.rag.errors import ServiceError


class WebSearchError(ServiceError):
    """A web engine is not configured, cannot be reached, or answered an error."""


@dataclass
class WebDocument:
    title: str
    url: str
    snippet: str
    text: str = ""  # page text when the engine returns it (Exa, Tavily)

    @property
    def body(self) -> str:
        return self.text or self.snippet


def web_link(url: str) -> bool:
    """Whether ``url`` is an absolute http(s) address with a host (not ``javascript:``, ``data:``, relative)."""
    parts = urlsplit(url)  # leading blanks and control characters stripped, as a browser does
    return parts.scheme in ("http", "https") and bool(parts.netloc)


class WebSearch:
    """One engine. Subclasses set ``name``, ``public_url``, ``needs_key`` and implement ``_search``."""

    name = ""
    public_url = ""
    needs_key = False

    def __init__(self, api_key: str | None = None, base_url: str | None = None, timeout: float = 15.0) -> None:
        if self.needs_key and not api_key:
            raise WebSearchError("web_key_missing", f"{self.name} needs an API key: set GANTHA_WEB_API_KEY")
        if not (base_url or self.public_url):
            raise WebSearchError("web_url_missing", f"{self.name} needs the instance address: set GANTHA_WEB_URL")
        self.api_key = api_key
        self.base_url = (base_url or self.public_url).rstrip("/")
        self._http = httpx.Client(timeout=timeout, headers={"User-Agent": "gantha"})

    def search(self, query: str, limit: int = 5) -> list[WebDocument]:
        """The engine's first ``limit`` results that link to a web page (see :func:`web_link`)."""
        try:
            docs = self._search(query, limit)
        except httpx.HTTPStatusError as exc:
            body = exc.response.text[:200]
            raise WebSearchError(
                "web_engine_error", f"{self.name} answered {exc.response.status_code}: {body}"
            ) from exc
        except httpx.HTTPError as exc:
            raise WebSearchError("web_unreachable", f"cannot reach {self.name} at {self.base_url}: {exc}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise WebSearchError("web_engine_error", f"{self.name} answered an unexpected format: {exc}") from exc
        return [d for d in docs if web_link(d.url)][:limit]

    def _json(self, resp: httpx.Response) -> Any:
        resp.raise_for_status()
        return resp.json()

    def _search(self, query: str, limit: int) -> list[WebDocument]:
        raise NotImplementedError


class DuckDuckGo(WebSearch):
    """The Instant Answer API (no key): the abstract and related topics."""

    name = "duckduckgo"
    public_url = "https://api.duckduckgo.com"

    def _search(self, query: str, limit: int) -> list[WebDocument]:
        data = self._json(
            self._http.get(f"{self.base_url}/", params={"q": query, "format": "json", "no_html": 1, "skip_disambig": 1})
        )
        docs = []
        if data.get("AbstractText"):
            title = data.get("Heading") or query
            docs.append(WebDocument(title, data.get("AbstractURL", ""), data["AbstractText"]))
        topics = list(data.get("Results") or []) + list(data.get("RelatedTopics") or [])
        for topic in topics:
            for t in topic.get("Topics", [topic]):  # groups nest their topics
                if t.get("Text") and t.get("FirstURL"):
                    docs.append(WebDocument(t["Text"].split(" - ")[0], t["FirstURL"], t["Text"]))
        return docs


class Bing(WebSearch):
    """Bing Web Search API v7."""

    name = "bing"
    public_url = "https://api.bing.microsoft.com"
    needs_key = True

    def _search(self, query: str, limit: int) -> list[WebDocument]:
        data = self._json(
            self._http.get(
                f"{self.base_url}/v7.0/search",
                params={"q": query, "count": limit, "responseFilter": "Webpages", "textFormat": "Raw"},
                headers={"Ocp-Apim-Subscription-Key": self.api_key or ""},
            )
        )
        return [
            WebDocument(v["name"], v["url"], v.get("snippet", "")) for v in data.get("webPages", {}).get("value", [])
        ]


class Exa(WebSearch):
    """Exa (formerly Metaphor) search, with page text."""

    name = "exa"
    public_url = "https://api.exa.ai"
    needs_key = True

    def _search(self, query: str, limit: int) -> list[WebDocument]:
        data = self._json(
            self._http.post(
                f"{self.base_url}/search",
                json={"query": query, "numResults": limit, "contents": {"text": {"maxCharacters": 4000}}},
                headers={"x-api-key": self.api_key or ""},
            )
        )
        return [
            WebDocument(
                r.get("title") or r["url"], r["url"], " ".join(r.get("highlights") or [])[:500], r.get("text") or ""
            )
            for r in data.get("results", [])
        ]


class SearXNG(WebSearch):
    """A SearXNG instance (its JSON output format must be enabled in its settings)."""

    name = "searxng"

    def _search(self, query: str, limit: int) -> list[WebDocument]:
        resp = self._http.get(f"{self.base_url}/search", params={"q": query, "format": "json"})
        if resp.status_code == 403:
            raise WebSearchError(
                "web_engine_error", "the SearXNG instance refuses format=json: enable 'json' under search.formats"
            )
        data = self._json(resp)
        return [WebDocument(r.get("title") or r["url"], r["url"], r.get("content", "")) for r in data["results"]]


class Tavily(WebSearch):
    """Tavily search API."""

    name = "tavily"
    public_url = "https://api.tavily.com"
    needs_key = True

    def _search(self, query: str, limit: int) -> list[WebDocument]:
        data = self._json(
            self._http.post(
                f"{self.base_url}/search",
                json={"query": query, "max_results": limit, "search_depth": "basic"},
                headers={"Authorization": f"Bearer {self.api_key}"},
            )
        )
        return [
            WebDocument(r.get("title") or r["url"], r["url"], r.get("content", ""), r.get("raw_content") or "")
            for r in data["results"]
        ]


ENGINES: dict[str, type[WebSearch]] = {e.name: e for e in (DuckDuckGo, Bing, Exa, SearXNG, Tavily)}


def make_engine(name: str | None, api_key: str | None = None, base_url: str | None = None) -> WebSearch:
    """The engine called ``name``; ``WebSearchError`` naming the setting when none or an unknown one is set."""
    if not name:
        raise WebSearchError("web_unconfigured", f"no web search engine: set GANTHA_WEB_ENGINE ({', '.join(ENGINES)})")
    if name not in ENGINES:
        raise WebSearchError("web_unconfigured", f"unknown GANTHA_WEB_ENGINE {name!r}; one of {', '.join(ENGINES)}")
    return ENGINES[name](api_key=api_key, base_url=base_url)


# --- choosing what to read ----------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


def chunks(text: str, size: int = 600) -> list[str]:
    """Cut text into pieces of about ``size`` characters at sentence ends."""
    pieces: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        if current and len(current) + len(sentence) > size:
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}".strip()
    if current:
        pieces.append(current)
    return pieces


def best_chunks(
    question: str,
    docs: list[WebDocument],
    embed: Callable[[list[str]], np.ndarray] | None,
    keep: int = 5,
    size: int = 600,
) -> list[tuple[WebDocument, str]]:
    """The ``keep`` pieces of the documents closest to the question (by embedding, else by shared words)."""
    pieces = [(d, c) for d in docs for c in chunks(d.body, size)]
    if len(pieces) <= keep:
        return pieces
    if embed is not None:
        vectors = embed([question] + [c for _, c in pieces])
        vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        scores = vectors[1:] @ vectors[0]
    else:
        asked = set(question.lower().split())
        scores = np.array([len(asked & set(c.lower().split())) for _, c in pieces], dtype=float)
    order = np.argsort(-scores, kind="stable")[:keep]
    return [pieces[i] for i in sorted(order)]
