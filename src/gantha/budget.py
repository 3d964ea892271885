"""Replies sized for an agent: a budget in bytes, and a note of what a reply cut to fit it left out.

:func:`fit` cuts the largest list of a JSON reply from its end (hits, items, a kind of links …), again
and again, then the longest texts, until the reply fits; its ``omitted`` note names each cut (where,
how many kept of how many) so that the caller can ask for the rest (an offset, fewer fields, a larger
budget). :func:`lean` leaves out the empty fields of nested records.
"""

from __future__ import annotations

import copy
import json
from typing import Any

MIN_BYTES = 1_000
MAX_BYTES = 10_000_000
AGENT_BYTES = 8_000  # the MCP tools' budget when a call names none
NOTE_BYTES = 500  # room kept for the note
MIN_CHARS = 200  # a text is never cut shorter than this
HINT = (
    "cut to fit max_bytes: ask for the rest with offset or limit (a chapter: a paragraph range), fewer fields, "
    "or a larger max_bytes"
)


def size(data: Any) -> int:
    """Bytes of ``data`` as compact UTF-8 JSON: what a reply costs."""
    return len(json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str).encode())


def lean(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the empty values (None, "", [], {}) of its nested records; top-level keys stay."""
    return {k: _lean(v) for k, v in data.items()}


def _lean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _lean(v) for k, v in value.items() if v is not None and v != "" and v != [] and v != {}}
    if isinstance(value, list):
        return [_lean(v) for v in value]
    return value


def _lists(node: Any, path: str = "") -> list[tuple[str, list[Any]]]:
    """Every list in ``node`` with its path (``hits``, ``items.0.tokens``), outermost first."""
    found: list[tuple[str, list[Any]]] = []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    if isinstance(node, list):
        found.append((path, node))
    for key, child in children:
        found += _lists(child, f"{path}.{key}" if path else str(key))
    return found


def _texts(node: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """Every string in ``node``: (path, holder, key)."""
    found: list[tuple[str, Any, Any]] = []
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        where = f"{path}.{key}" if path else str(key)
        if isinstance(child, str):
            found.append((where, node, key))
        else:
            found += _texts(child, where)
    return found


def _exists(data: Any, path: str) -> bool:
    node = data
    for part in path.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdecimal() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def fit(data: dict[str, Any], max_bytes: int | None) -> dict[str, Any]:
    """``data`` within ``max_bytes`` (None: as it is), with ``omitted`` saying what was cut to fit.

    The largest list loses items from its end (at least one stays) until the reply fits or every list
    holds one item; then the longest text is cut at a word (never below :data:`MIN_CHARS`).
    """
    full = size(data)
    if max_bytes is None or full <= max_bytes:
        return data
    out = copy.deepcopy(data)
    target = max_bytes - NOTE_BYTES
    cuts: dict[str, dict[str, Any]] = {}
    while (excess := size(out) - target) > 0:
        lists = [(path, items) for path, items in _lists(out) if len(items) > 1]
        if not lists:
            break
        path, items = max(lists, key=lambda found: size(found[1]))
        keep, freed = len(items) - 1, size(items[-1]) + 1
        while keep > 1 and freed < excess:
            keep -= 1
            freed += size(items[keep]) + 1
        cuts.setdefault(path, {"at": path, "of": len(items)})["kept"] = keep
        del items[keep:]
    while (excess := size(out) - target) > 0:
        # a text of MIN_CHARS + 1 would come back as long as it was (MIN_CHARS and the "…"): left as it is
        texts = [(path, holder, key) for path, holder, key in _texts(out) if len(holder[key]) > MIN_CHARS + 1]
        if not texts:
            break
        path, holder, key = max(texts, key=lambda found: len(found[1][found[2]]))
        text = holder[key]
        cut = text[: max(MIN_CHARS, len(text) - excess - 1)]
        cut = (cut.rsplit(" ", 1)[0] if " " in cut[MIN_CHARS // 2 :] else cut) + "…"
        cuts.setdefault(path, {"at": path, "of_chars": len(text)})["kept_chars"] = len(cut) - 1
        holder[key] = cut
    out["omitted"] = {
        "max_bytes": max_bytes,
        "bytes": full,  # the whole reply's
        "cuts": [c for path, c in cuts.items() if _exists(out, path)],
        "hint": HINT,
    }
    if size(out) > max_bytes:  # every list down to one item, every text to MIN_CHARS: the bytes it still takes
        out["omitted"]["over_budget"] = size(out)
        out["omitted"]["over_budget"] = size(out)  # (counting its own digits)
    return out
