"""OpenAI-compatible chat completions: streaming, tool calls, timeouts and retries.

Works with any server speaking ``POST {base}/chat/completions``: OpenAI, Ollama (``/v1``), vLLM,
llama.cpp's server, and the local provider of :mod:`gantha.rag.local`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from gantha.rag.errors import LLMError

__all__ = ["ChatClient", "Completion", "LLMError", "client_from_settings"]

RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it

    def parsed(self) -> dict[str, Any]:
        """The arguments as a dict; ``ValueError`` when the model wrote no valid JSON object."""
        try:
            args = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"arguments of {self.name} are not JSON: {exc}") from exc
        if not isinstance(args, dict):
            raise ValueError(f"arguments of {self.name} must be a JSON object")
        return args


@dataclass
class Completion:
    """One finished assistant turn: text, tool calls, usage."""

    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    logprobs: list[float] | None = None  # of each token written, where asked for and the endpoint returns them

    def message(self) -> dict[str, Any]:
        """The turn as a message to send back with the tool results."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        return msg


class ChatClient:
    """A client for one model at one OpenAI-compatible endpoint."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        retries: int = 2,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=self.base_url,
            headers=headers,
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
            transport=transport,
        )
        self.retries = retries

    def _body(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, **options: Any) -> dict:
        body: dict[str, Any] = {"model": self.model, "messages": messages, **options}
        if tools:
            body["tools"] = tools
        return body

    def _open(self, body: dict[str, Any]) -> httpx.Response:
        """POST with retries on connection failures and retryable statuses; the response is streamed."""
        last: Exception | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(8.0, 0.5 * 2 ** (attempt - 1)))
            try:
                req = self._http.build_request("POST", "/chat/completions", json=body)
                resp = self._http.send(req, stream=True)
            except httpx.TimeoutException as exc:
                last = LLMError("llm_timeout", f"the model at {self.base_url} did not answer in time ({exc})")
                continue
            except httpx.TransportError as exc:
                last = LLMError(
                    "llm_unreachable", f"cannot reach the model at {self.base_url} (GANTHA_LLM_BASE_URL): {exc}"
                )
                continue
            if resp.status_code < 400:
                return resp
            detail = resp.read().decode("utf-8", "replace")[:300]
            resp.close()
            last = LLMError("llm_error", f"the model at {self.base_url} answered {resp.status_code}: {detail}")
            if resp.status_code not in RETRY_STATUS:
                break
        assert last is not None
        raise last

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **options: Any):
        """One assistant turn, not streamed."""
        resp = self._open(self._body(messages, tools, stream=False, **options))
        try:
            data = json.loads(resp.read())
        except json.JSONDecodeError as exc:
            raise LLMError("llm_error", f"the model at {self.base_url} answered no JSON: {exc}") from exc
        finally:
            resp.close()
        choice = (data.get("choices") or [{}])[0]
        msg = choice.get("message") or {}
        calls = [
            ToolCall(c.get("id") or f"call_{i}", c["function"]["name"], c["function"].get("arguments") or "{}")
            for i, c in enumerate(msg.get("tool_calls") or [])
        ]
        logprobs = [t["logprob"] for t in (choice.get("logprobs") or {}).get("content") or [] if "logprob" in t]
        return Completion(
            msg.get("content") or "", calls, choice.get("finish_reason"), data.get("usage") or {}, logprobs or None
        )

    def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, **options: Any
    ) -> Iterator[str | Completion]:
        """Yield each piece of text as it arrives, then the whole :class:`Completion` (with tool calls)."""
        resp = self._open(self._body(messages, tools, stream=True, **options))
        done = Completion()
        calls: dict[int, dict[str, str]] = {}
        try:
            for line in resp.iter_lines():
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    break
                chunk = json.loads(payload)
                if chunk.get("error"):
                    raise LLMError("llm_error", f"the model failed mid-answer: {chunk['error']}")
                if chunk.get("usage"):
                    done.usage = chunk["usage"]
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        done.content += delta["content"]
                        yield delta["content"]
                    for part in delta.get("tool_calls") or []:
                        call = calls.setdefault(part.get("index", 0), {"id": "", "name": "", "arguments": ""})
                        call["id"] = part.get("id") or call["id"]
                        fn = part.get("function") or {}
                        call["name"] += fn.get("name") or ""
                        call["arguments"] += fn.get("arguments") or ""
                    done.finish_reason = choice.get("finish_reason") or done.finish_reason
        except httpx.HTTPError as exc:
            raise LLMError("llm_unreachable", f"the connection to {self.base_url} broke mid-answer: {exc}") from exc
        except json.JSONDecodeError as exc:
            raise LLMError("llm_error", f"the model at {self.base_url} streamed invalid JSON: {exc}") from exc
        finally:
            resp.close()
        done.tool_calls = [
            ToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"] or "{}") for i, c in sorted(calls.items())
        ]
        yield done

    def close(self) -> None:
        self._http.close()


_local_servers: dict[str, Any] = {}


def client_from_settings(s: Any) -> ChatClient | None:
    """The configured client (``None`` when ``GANTHA_LLM_BASE_URL`` is unset); ``local`` starts the bundled model."""
    if not s.llm_base_url:
        return None
    if s.llm_base_url == "local":
        from gantha.rag.local import LocalServer

        key = str(s.llm_model_path)
        if key not in _local_servers:
            _local_servers[key] = LocalServer(s.llm_model_path, s.llm_context)
        server = _local_servers[key]
        return ChatClient(server.base_url, server.model, timeout=s.llm_timeout, retries=s.llm_retries)
    if not s.llm_model:
        raise LLMError("llm_unconfigured", "GANTHA_LLM_BASE_URL is set but GANTHA_LLM_MODEL is not: name the model")
    return ChatClient(s.llm_base_url, s.llm_model, s.llm_api_key, s.llm_timeout, s.llm_retries)
