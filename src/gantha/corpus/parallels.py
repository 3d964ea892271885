"""Reader for SuttaCentral's curated parallels (``relationship/parallels.json`` of its ``sc-data`` repository, CC0).

The file is a list of groups, each one relation over text ids: ``{"parallels": ["mn10", "~dn22", "ma98",
"sa-2.180#3"]}``. Every member of a group is a parallel of every other; ``~`` marks a text that only resembles
the others; ``#…`` names a section of the text. Other relations (``mentions``, ``retells``) are read alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson

from gantha.corpus.files import SourceError, read_bytes

UPSTREAM = "https://raw.githubusercontent.com/suttacentral/sc-data/main/relationship/parallels.json"
RELATIONS = {"parallels": "parallel", "mentions": "mention", "retells": "retelling"}


@dataclass(frozen=True, slots=True)
class Relation:
    """``target`` (a text id, ``#section`` kept) is a ``kind`` of the text ``uid``."""

    uid: str
    target: str
    kind: str  # parallel, resembling parallel, mention, retelling


def uid_of(member: str) -> str:
    """``~dn22#3.1`` → ``dn22``."""
    return member.lstrip("~").split("#")[0].strip()


def read_groups(path: Path) -> list[tuple[str, list[str]]]:
    """The groups of a parallels file (plain or .gz), each (relation, members); raise SourceError if malformed."""
    try:
        data = orjson.loads(read_bytes(path))
    except orjson.JSONDecodeError as exc:
        raise SourceError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, list):
        raise SourceError(f"{path}: not a list of relation groups (SuttaCentral's parallels.json)")
    groups = []
    for entry in data:
        for key, members in entry.items() if isinstance(entry, dict) else ():
            if key in RELATIONS and isinstance(members, list):
                groups.append((key, [m for m in members if isinstance(m, str) and uid_of(m)]))
    return groups


def relations(groups: list[tuple[str, list[str]]], known: dict[str, str]) -> list[Relation]:
    """Every relation from a text of the index: ``known`` maps a SuttaCentral id to the id the index records it
    under (an id inside a range file: the range)."""
    out: dict[tuple[str, str], Relation] = {}
    for key, members in groups:
        for member in members:
            uid = known.get(uid_of(member))
            if uid is None:
                continue
            for other in members:
                if other == member or uid_of(other) == uid_of(member):
                    continue
                kind = RELATIONS[key]
                if kind == "parallel" and (member.startswith("~") or other.startswith("~")):
                    kind = "resembling parallel"
                out.setdefault((uid, other.lstrip("~")), Relation(uid, other.lstrip("~"), kind))
    return list(out.values())
