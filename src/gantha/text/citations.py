"""Citations inside the texts (placeholder until the citation parser lands: finds none)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Target:
    book: str
    number: int
    run: int = 1
    layer: str | None = None


@dataclass(frozen=True, slots=True)
class Citation:
    text: str
    abbreviation: str
    start: int
    end: int
    targets: tuple[Target, ...]
    problem: str | None = None


def find_citations(text: str) -> list[Citation]:
    return []


def resolve(target: Target, numbering: Mapping[str, Sequence[str]]) -> str | None:
    for para in numbering.get(target.book, ()):
        if para.split("~")[0] == str(target.number):
            return para
    return None
