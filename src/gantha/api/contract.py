"""The original design's result fields for ``GET /api/v3/search``, added to gantha's own (which stay).

Each result also carries ``id`` (the document id, ``coordinate@channel``), a stable ``resource_id``, the
``resource_type``, a ``title``, ``content.display`` (Markdown, bold kept as ``**…**``) and
``content.text``, ``related_id`` (the sutta it belongs to, the paragraph of a sentence), ``bold``, a
``highlight`` that keeps the bold, ``metadata`` (APA, MLA, author, channel) and ``updated_at``.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from pydantic import BaseModel

from gantha.model import Hit, Passage, QueryInfo
from gantha.search import resources
from gantha.search.highlight import markdown_snippet
from gantha.store.base import BookRecord
from gantha.text.pali import canon, fold
from gantha.text.sentences import split as split_sentences

if TYPE_CHECKING:
    from gantha.research import Research

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://gantha/resources")


class Content(BaseModel):
    display: str  # Markdown: bold as **…**, note markers as [^n]
    text: str


class Metadata(BaseModel):
    APA: str = ""
    MLA: str = ""
    author: str = ""
    channel: str


class Result(Hit):
    """A search hit with the original API's fields beside gantha's."""

    id: str
    resource_id: str
    resource_type: str
    title: str
    content: Content
    related_id: list[str]
    bold: list[str]
    highlight: str
    metadata: Metadata
    updated_at: str


def results(research: Research, hits: list[Hit], info: QueryInfo) -> list[Result]:
    """The hits of a search with the original API's fields."""
    ids = [
        f"{h.coordinate.rsplit('.s', 1)[0] if h.granularity == 'sentence' else h.coordinate}@{h.channel}" for h in hits
    ]
    carried = {i: h.passage for h, i in zip(hits, ids, strict=True) if h.passage and h.passage.doc_id == i}
    passages = {**research.store.get_ids([i for i in ids if i not in carried]), **carried}  # each read once a search
    records = research.store.from_records("by_channel", _by_channel)
    analyse = fold if info.field != "exact" else canon
    terms = set(info.terms) | {analyse(f) for f in info.forms} | set((info.lemma or {}).get("forms", []))
    for inflection in info.inflections:
        terms |= set(inflection.get("forms", []))
    out = []
    for hit, doc_id in zip(hits, ids, strict=True):
        p = passages.get(doc_id)
        if p is None:
            continue
        record = records.get((p.corpus, p.book, p.channel))
        text, display = p.text, p.display
        related = [hit.sutta] if hit.sutta else []
        if hit.granularity == "sentence":  # the sentence, cut out of its paragraph
            k = int(hit.coordinate.rsplit(".s", 1)[1])
            parts = split_sentences(p.text)
            text = display = parts[k - 1] if 1 <= k <= len(parts) else p.text
            related.append(p.coordinate)
        citations = research.citations(p) if p.corpus == "cst" and p.channel == "pali" else None
        author = record.channel.author if record else ""
        out.append(
            Result(
                **hit.model_dump(),
                id=doc_id,
                resource_id=str(uuid.uuid5(NAMESPACE, doc_id)),
                resource_type=resources.resource_type(p.corpus, record.channel.type if record else "original"),
                title=_title(hit, p),
                content=Content(display=display, text=text),
                related_id=related,
                bold=p.bold,
                highlight=markdown_snippet(display, analyse, terms, info.phrases, info.prefixes),
                metadata=Metadata(
                    APA=citations.apa if citations else _apa(p, author),
                    MLA=citations.mla if citations else _mla(p, author),
                    author=author,
                    channel=p.channel,
                ),
                updated_at=record.ingested_at if record else "",
            )
        )
    return out


def _by_channel(records: list[BookRecord]) -> dict[tuple[str, str, str], BookRecord]:
    """(corpus, book, channel) → its record."""
    return {(r.info.corpus, r.info.book, r.channel.name): r for r in records}


def _title(hit: Hit, p: Passage) -> str:
    """The sutta's title, else the innermost heading, else the book's."""
    if hit.sutta:
        return " ".join(x for x in (hit.sutta, hit.sutta_title) if x)
    return p.path[-1] if p.path else p.book_title


def _apa(p: Passage, author: str) -> str:
    return f"{author or p.book_title}. (n.d.). {p.book_title} ({p.para}). {p.coordinate}"


def _mla(p: Passage, author: str) -> str:
    return f"{p.book_title}, {p.para}. {author}." if author else f"{p.book_title}, {p.para}."
