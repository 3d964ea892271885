"""Web search adapters against a local HTTP server answering in each engine's documented format,
including missing keys, engine errors and unreachable engines; and web sources in chat."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from gantha.rag.agent import Agent, ChatRequest
from gantha.rag.web import ENGINES, WebDocument, WebSearchError, best_chunks, chunks, make_engine
from gantha.research import Research

PAGE = "Parivāsa is a probation imposed on a bhikkhu who concealed a saṅghādisesa offence. " * 3

# each engine's documented response, keyed by request path
RESPONSES: dict[str, dict[str, Any]] = {
    "/": {  # DuckDuckGo Instant Answer API
        "Heading": "Parivāsa",
        "AbstractText": PAGE,
        "AbstractURL": "https://en.wikipedia.org/wiki/Parivasa",
        "Results": [],
        "RelatedTopics": [
            {"Text": "Saṅghādisesa - a class of offences", "FirstURL": "https://duckduckgo.com/Sanghadisesa"},
            {
                "Name": "Vinaya",
                "Topics": [{"Text": "Mānatta - a penance", "FirstURL": "https://duckduckgo.com/Manatta"}],
            },
        ],
    },
    "/v7.0/search": {  # Bing Web Search v7
        "_type": "SearchResponse",
        "webPages": {"value": [{"name": "Parivasa", "url": "https://example.org/parivasa", "snippet": PAGE}]},
    },
    "/search:exa": {  # Exa
        "results": [{"title": "Parivasa", "url": "https://example.org/exa", "text": PAGE, "highlights": ["probation"]}]
    },
    "/search:searxng": {  # SearXNG, format=json
        "query": "parivasa",
        "results": [{"title": "Parivasa", "url": "https://example.org/searx", "content": PAGE, "engine": "wikipedia"}],
    },
    "/search:tavily": {  # Tavily
        "query": "parivasa",
        "results": [{"title": "Parivasa", "url": "https://example.org/tavily", "content": PAGE, "score": 0.9}],
    },
}


class FakeEngines:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.fail: int | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, key: str, body: dict[str, Any]) -> None:
                url = urlparse(self.path)
                fake.requests.append(
                    {"path": url.path, "query": parse_qs(url.query), "body": body, "headers": dict(self.headers)}
                )
                status, data = (fake.fail, {"error": "boom"}) if fake.fail else (200, RESPONSES[key])
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:
                path = urlparse(self.path).path
                self._answer("/search:searxng" if path == "/search" else path, {})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                self._answer("/search:exa" if "numResults" in body else "/search:tavily", body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()


@pytest.fixture()
def engines():
    fake = FakeEngines()
    yield fake
    fake.close()


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_adapter_reads_documented_format(engines, name):
    docs = make_engine(name, api_key="secret", base_url=engines.url).search("parivasa", limit=3)
    assert docs and all(d.url.startswith("https://") and d.title for d in docs)
    assert "probation" in docs[0].body
    sent = engines.requests[0]
    if name == "bing":
        assert sent["headers"]["Ocp-Apim-Subscription-Key"] == "secret" and sent["query"]["q"] == ["parivasa"]
    elif name == "exa":
        assert sent["headers"]["x-api-key"] == "secret" and sent["body"]["numResults"] == 3
    elif name == "tavily":
        assert sent["headers"]["Authorization"] == "Bearer secret" and sent["body"]["max_results"] == 3
    elif name == "searxng":
        assert sent["query"]["format"] == ["json"]
    else:
        assert sent["query"]["format"] == ["json"] and {d.url for d in docs} >= {"https://duckduckgo.com/Manatta"}


BAD_URLS = ["javascript:alert(1)", " \tJava\nScript:x", "data:text/html,<script>x</script>", "/wiki/x", "//x.org/y"]


def _with_urls(urls: list[str]) -> dict[str, dict[str, Any]]:
    """Each engine's documented response, holding one result per URL."""
    items = [{"title": f"Page {i}", "url": u, "content": PAGE, "text": PAGE} for i, u in enumerate(urls)]
    bing = [{"name": i["title"], "url": i["url"], "snippet": PAGE} for i in items]
    return {
        "/": {"RelatedTopics": [{"Text": f"Page {i} - {PAGE}", "FirstURL": u} for i, u in enumerate(urls)]},
        "/v7.0/search": {"webPages": {"value": bing}},
        "/search:exa": {"results": items},
        "/search:searxng": {"results": items},
        "/search:tavily": {"results": items},
    }


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_results_without_a_web_link_are_dropped(engines, name, monkeypatch):
    for key, body in _with_urls([*BAD_URLS, "https://example.org/kept", "HTTP://example.org/too"]).items():
        monkeypatch.setitem(RESPONSES, key, body)
    docs = make_engine(name, api_key="k", base_url=engines.url).search("parivasa", limit=10)
    assert [d.url for d in docs] == ["https://example.org/kept", "HTTP://example.org/too"]


@pytest.mark.parametrize("name", ["bing", "exa", "tavily"])
def test_missing_key_names_the_setting(name):
    with pytest.raises(WebSearchError, match="GANTHA_WEB_API_KEY") as exc:
        make_engine(name)
    assert exc.value.code == "web_key_missing"


def test_unconfigured_and_unknown_engines():
    with pytest.raises(WebSearchError, match="GANTHA_WEB_ENGINE"):
        make_engine(None)
    with pytest.raises(WebSearchError, match="one of duckduckgo"):
        make_engine("altavista")
    with pytest.raises(WebSearchError, match="GANTHA_WEB_URL"):
        make_engine("searxng")


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_engine_errors_are_reported_not_raised_raw(engines, name):
    engines.fail = 500
    with pytest.raises(WebSearchError, match=f"{name} answered 500") as exc:
        make_engine(name, api_key="k", base_url=engines.url).search("q")
    assert exc.value.code == "web_engine_error"
    with pytest.raises(WebSearchError, match="cannot reach") as exc:
        make_engine(name, api_key="k", base_url="http://127.0.0.1:9").search("q")
    assert exc.value.code == "web_unreachable"


def test_searxng_without_json_format_says_how_to_enable_it(engines):
    engines.fail = 403
    with pytest.raises(WebSearchError, match="search.formats"):
        make_engine("searxng", base_url=engines.url).search("q")


def test_chunks_and_selection_by_meaning():
    text = "The cat sat on the mat. " * 30 + "Parivāsa is probation for a monk. " + "Rain fell all day. " * 30
    pieces = chunks(text, 200)
    assert all(len(p) <= 240 for p in pieces) and "".join(pieces).replace(" ", "") == text.replace(" ", "")
    doc = WebDocument("t", "https://x", "", text)
    best = best_chunks("what is the probation of a monk", [doc], None, keep=1, size=200)
    assert "probation" in best[0][1]


def test_chat_with_web_sources(small_index, engines):
    research = Research.open(small_index)
    agent = Agent(research, web=lambda name=None: make_engine("searxng", base_url=engines.url))
    ans = agent.answer(
        ChatRequest(messages=[{"role": "user", "content": "What is parivāsa?"}], sources="both", llm=False)
    )
    kinds = {s.kind for s in ans.sources}
    assert kinds == {"corpus", "web"} and ans.query_info.web_engine == "searxng"
    web = [s for s in ans.sources if s.kind == "web"]
    assert web[0].url == "https://example.org/searx" and "probation" in web[0].text
    only_web = agent.answer(ChatRequest(messages=[{"role": "user", "content": "parivasa"}], sources="web", llm=False))
    assert {s.kind for s in only_web.sources} == {"web"}
