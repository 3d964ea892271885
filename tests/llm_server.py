"""A local OpenAI-compatible chat server for tests: real HTTP, streaming (SSE) and tool calls.

Each request takes the next scripted reply: ``{"content": text}``, ``{"tool_calls": [{"name",
"arguments"}]}`` or ``{"status": code}``. With no script left it answers from the first source it
was given: "<first words> [1]." Every request body is recorded.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ScriptedLLM:
    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body | {"_auth": self.headers.get("Authorization")})
                reply = server.script.pop(0) if server.script else server.default(body)
                if "status" in reply:
                    self.send_response(reply["status"])
                    self.end_headers()
                    self.wfile.write(b'{"error": {"message": "scripted failure"}}')
                    return
                if body.get("stream"):
                    self._stream(reply)
                else:
                    self._json(reply)

            def _json(self, reply: dict[str, Any]) -> None:
                msg: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
                if reply.get("tool_calls"):
                    msg["tool_calls"] = [
                        {
                            "id": f"c{i}",
                            "type": "function",
                            "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                        }
                        for i, c in enumerate(reply["tool_calls"])
                    ]
                data = json.dumps({"choices": [{"index": 0, "message": msg, "finish_reason": "stop"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, reply: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()

                def send(delta: dict[str, Any], finish: str | None = None) -> None:
                    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()

                for word in re.findall(r"\S+\s*", reply.get("content") or ""):
                    send({"content": word})
                for i, call in enumerate(reply.get("tool_calls") or []):
                    args = json.dumps(call["arguments"])
                    send(
                        {
                            "tool_calls": [
                                {"index": i, "id": f"c{i}", "function": {"name": call["name"], "arguments": ""}}
                            ]
                        }
                    )
                    for half in (args[: len(args) // 2], args[len(args) // 2 :]):  # arguments arrive in pieces
                        send({"tool_calls": [{"index": i, "function": {"arguments": half}}]})
                send({}, "tool_calls" if reply.get("tool_calls") else "stop")
                self.wfile.write(b"data: [DONE]\n\n")

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    @staticmethod
    def default(body: dict[str, Any]) -> dict[str, Any]:
        last = body["messages"][-1]["content"] or ""
        m = re.search(r"\[1\][^\n]*\n(\S+(?: \S+){0,5})", last)
        words = m.group(1).lstrip("…") if m else "No sources"
        return {"content": f'The first source says "{words.split()[0]}" and more [1].'}

    def close(self) -> None:
        self._httpd.shutdown()
