"""What a book contributes to the links, gathered once when the book is read and kept in the store: its
paragraphs (id and reading position), the hashed word stretches of each (``parallels``), and the citations
it writes (:mod:`gantha.text.citations`), so that links across books are rebuilt without reading any book
again."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np
import orjson

from gantha.links.parallels import shingles
from gantha.model import Passage
from gantha.store.links import FactsRow
from gantha.text.citations import find_citations

VERSION = 3  # raise when what is gathered from a book changes: every book's facts are gathered again


def signature(book_signature: str) -> str:
    """What stored facts were gathered from: the book's files and this code."""
    return f"facts{VERSION}|{book_signature}"


@dataclass(slots=True)
class CitationFact:
    """A citation as found: the index of the citing paragraph, the citation as written, its abbreviation,
    what it names (``(book, number, run, layer)`` each) or why it names nothing."""

    paragraph: int
    text: str
    abbreviation: str
    targets: list[tuple[str, int, int, str | None]]
    problem: str | None = None


@dataclass(slots=True)
class BookFacts:
    book: str
    paragraphs: list[tuple[str, int]]  # (paragraph id, seq), in reading order
    hashes: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint64))
    owners: np.ndarray = field(default_factory=lambda: np.zeros(0, np.uint32))  # index into ``paragraphs``
    citations: list[CitationFact] = field(default_factory=list)


def gather(book: str, passages: list[Passage]) -> BookFacts:
    """The facts of one book from its passages (the Pali original, in reading order)."""
    hashes, owners = shingles([p.text for p in passages])
    citations = [
        CitationFact(i, c.text, c.abbreviation, [(t.book, t.number, t.run, t.layer) for t in c.targets], c.problem)
        for i, p in enumerate(passages)
        for c in find_citations(p.text)
    ]
    return BookFacts(book, [(p.para, p.seq) for p in passages], hashes, owners, citations)


def pack(corpus: str, book_signature: str, facts: BookFacts) -> FactsRow:
    return FactsRow(
        corpus,
        facts.book,
        signature(book_signature),
        zlib.compress(orjson.dumps(facts.paragraphs)),
        facts.hashes.astype("<u8").tobytes() + facts.owners.astype("<u4").tobytes(),
        zlib.compress(
            orjson.dumps([[c.paragraph, c.text, c.abbreviation, c.targets, c.problem] for c in facts.citations])
        ),
    )


def unpack(row: FactsRow) -> BookFacts:
    n = len(row.shingles) // 12
    return BookFacts(
        row.book,
        [(para, seq) for para, seq in orjson.loads(zlib.decompress(row.paragraphs))],
        np.frombuffer(row.shingles[: 8 * n], dtype="<u8").astype(np.uint64),
        np.frombuffer(row.shingles[8 * n :], dtype="<u4").astype(np.uint32),
        [
            CitationFact(p, text, abbreviation, [tuple(t) for t in targets], problem)
            for p, text, abbreviation, targets, problem in orjson.loads(zlib.decompress(row.citations))
        ],
    )
