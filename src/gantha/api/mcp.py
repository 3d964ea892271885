"""MCP server (official ``mcp`` SDK, stdio): the research tools of :mod:`gantha.tools` for a model.

Sized for an agent: every call has a reply budget (``max_bytes``, :data:`~gantha.budget.AGENT_BYTES`
unless the call names one) and answers compact JSON, what was cut to fit named in ``omitted``; the
tool list carries lean schemas (no titles, no null alternatives), so that listing the tools stays small.
"""

from __future__ import annotations

import inspect
import json
import re
import typing
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp_types import CallToolResult, TextContent

from gantha.budget import AGENT_BYTES, fit
from gantha.research import Research
from gantha.store.base import StoreError
from gantha.tools import INSTRUCTIONS, Toolbox


def _agent_tool(fn: Callable[..., dict[str, Any]]) -> Callable[..., CallToolResult]:
    """The tool with the agent's default budget, its reply as compact JSON (text and structured alike),
    and user errors (bad coordinate, page ref, mode, unknown book …) as a readable message."""

    @wraps(fn)
    def tool(**kwargs: Any) -> CallToolResult:
        try:
            data = fn(**kwargs)
        except (ValueError, StoreError) as exc:
            raise ToolError(str(exc)) from exc
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
        return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)

    signature, hints = inspect.signature(fn), typing.get_type_hints(fn, include_extras=True)  # resolved here
    parameters = [
        p.replace(annotation=hints.get(name, p.annotation), default=AGENT_BYTES if name == "max_bytes" else p.default)
        for name, p in signature.parameters.items()
    ]
    tool.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
    return tool


LEFT_OUT = ("title", "minLength", "maxLength", "minItems", "maxItems")  # lengths: the server checks them
EMPTY_DEFAULTS = (None, False, 0, 0.0, "", [])  # what an argument left out means anyway


def _empty(value: Any) -> bool:
    return any(value == e and type(value) is type(e) for e in EMPTY_DEFAULTS)


def _trivial(key: str, value: Any) -> bool:
    """A lower bound of 0 or 1 on a count: what a count is anyway."""
    return key == "minimum" and value in (0, 1) and type(value) is int


def lean_schema(schema: Any) -> Any:
    """A JSON schema without titles, length bounds, ``null`` alternatives and empty defaults: the SDK
    validates each call with the full model, so an argument left out still takes its default."""
    if isinstance(schema, list):
        return [lean_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":  # names, not keywords
            out[key] = {name: lean_schema(prop) for name, prop in value.items()}
        elif key not in LEFT_OUT and not (key == "default" and _empty(value)) and not _trivial(key, value):
            out[key] = lean_schema(value)
    if isinstance(choices := out.get("anyOf"), list):
        kept = [c for c in choices if c != {"type": "null"}]
        if len(kept) == 1:
            del out["anyOf"]
            out = {**kept[0], **out}
    return out


BUDGET_SCHEMA = {"type": "integer"}  # its bounds and default are stated once, in the instructions


def summary(doc: str) -> str:
    """A tool description's first sentence, on one line: what the tool list says of it."""
    first = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    return re.split(r"(?<=\.)\s(?=[A-Z(])", first)[0]


def agent_tools(research: Research) -> list[Tool]:
    """The MCP tools over ``research``: each listed by its summary and the shape of its arguments (types,
    bounds, defaults), with the agent's budget; ``help`` answers a tool's whole description and what each
    argument means, so that the tool list stays small."""
    tools, manual = [], {}
    for fn in Toolbox(research).functions():
        tool = Tool.from_function(_agent_tool(fn), structured_output=False)
        schema = lean_schema(tool.parameters)
        manual[tool.name] = {
            "description": inspect.cleandoc(tool.description),
            "arguments": {name: prop.get("description", "") for name, prop in schema["properties"].items()},
        }
        for prop in schema["properties"].values():
            prop.pop("description", None)
        schema["properties"]["max_bytes"] = BUDGET_SCHEMA
        tool.parameters, tool.description = schema, summary(tool.description)
        tools.append(tool)

    def describe(tool: str, max_bytes: int | None = None) -> dict[str, Any]:
        """A tool's whole description and what each of its arguments means."""
        if tool not in manual:
            raise ValueError(f"no tool {tool!r}; tools: {', '.join(manual)}")
        return fit({"tool": tool, **manual[tool]}, max_bytes)

    help_tool = Tool.from_function(_agent_tool(describe), name="help", structured_output=False)
    help_tool.parameters = {**lean_schema(help_tool.parameters), "properties": {"tool": {"type": "string"}}}
    help_tool.parameters["properties"]["max_bytes"] = BUDGET_SCHEMA
    return [*tools, help_tool]


def build_server(location: str | Path) -> MCPServer:
    """An MCP server over the index at ``location`` (a folder or a database URL)."""
    return MCPServer(
        "gantha", instructions=INSTRUCTIONS, log_level="WARNING", tools=agent_tools(Research.open(location))
    )
