"""MCP server (official ``mcp`` SDK, stdio): the research tools of :mod:`gantha.tools` for a model."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gantha.research import Research
from gantha.store.base import StoreError
from gantha.tools import INSTRUCTIONS, Toolbox


def _reporting_errors(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """The tool, with user errors (bad coordinate, page ref, mode, unknown book …) as a readable message."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return fn(*args, **kwargs)
        except (ValueError, StoreError) as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


def build_server(location: str | Path) -> MCPServer:
    """An MCP server over the index at ``location`` (a folder or a database URL)."""
    server = MCPServer("gantha", instructions=INSTRUCTIONS, log_level="WARNING")
    for fn in Toolbox(Research.open(location)).functions():
        server.tool()(_reporting_errors(fn))
    return server
