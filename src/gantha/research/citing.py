"""The verb ``cite``: a passage, a range or a named text cited as a scholar writes it, in reference-list
styles and as BibTeX, RIS or CSL-JSON; and the citations ``get`` gives each paragraph.

The scholar's form names the text's reference (``SN 56.11``), its book and chapter, the CST paragraph
numbers as printed and the pages of the PTS and VRI editions the passage begins and ends on
(:mod:`gantha.text.cite_pages`); the styles and exports are written from one CSL item
(:mod:`gantha.text.cite_export`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from gantha.model import Passage, TextRecord
from gantha.search.errors import SearchError
from gantha.text.cite_export import FORMATS, CiteError, Source, export, styled
from gantha.text.cite_pages import cited_pages, edition_pages, paragraph_label

if TYPE_CHECKING:
    from gantha.research import Research

STYLE_NAMES = {
    "mla": "modern-language-association",
    "chicago": "chicago-author-date",
    "harvard": "harvard-cite-them-right",
}
"""Short names accepted for the CSL styles most asked for."""
DEFAULT_STYLES = ("apa", "mla")
LANGUAGES = {"pali": "pi", "en": "en", "english": "en", "zh": "zh", "chinese": "zh", "my": "my"}
"""A passage's language as the ISO 639-1 code bibliographies take."""


class CiteResult(BaseModel):
    coordinate: str  # what is cited: a paragraph, or first-last of a range or a named text
    reference: str | None = None  # the text's reference where it has one: SN 56.11
    citation: str  # as a scholar writes it, with the pages the passage begins and ends on
    pages: dict[str, str] = Field(default_factory=dict)  # every edition's pages: {"PTS": "S V 420–421", …}
    styles: dict[str, str] = Field(default_factory=dict)  # reference-list entries by CSL style
    format: str | None = None
    export: str | None = None  # the entry in that format (BibTeX, RIS or CSL-JSON text)


def _collection(path: Sequence[str], book_title: str) -> str:
    """The collection heading a book stands in (``Saṃyuttanikāyo`` → ``Saṃyuttanikāya``), or ""."""
    head = path[0] if path else ""
    return "" if head == book_title else re.sub(r"(nikāy|piṭak)[oe]$", r"\1a", head)


def _chapter(title: str) -> str:
    """``2. Pārivāsikakkhandhakaṃ`` → ``Pārivāsikakkhandhaka`` (number and nominative ending dropped)."""
    name = re.sub(r"^[\d\-–.()\s]+", "", title).strip()
    return name[:-1] if name.endswith("ṃ") else name


def source_of(passages: Sequence[Passage], named: TextRecord | None = None, whole: bool = False) -> Source:
    """The ``Source`` of passages of one book in reading order; ``named``: the text they belong to or are.

    ``whole``: the passages are the named text itself (its pages from its first to its last paragraph).
    """
    first, last = passages[0], passages[-1]
    coordinate = first.coordinate if len(passages) == 1 else f"{first.coordinate}-{last.para}"
    if whole and named:
        coordinate = f"{first.corpus}/{first.book}/{named.first_para}-{named.last_para}"
    title = (named.pali_title if named else "") or _chapter(first.chapter_title) or first.book_title
    edition: dict[str, str] = {}  # the CST's by default; another corpus names no edition it does not know
    if first.corpus != "cst":
        edition = {"edition": "", "publisher": "", "place": "", "language": LANGUAGES.get(first.language, "")}
    return Source(
        coordinate=coordinate,
        title=title,
        book_title=first.book_title,
        collection=_collection(first.path, first.book_title),
        reference=named.label if named else "",
        paragraphs=paragraph_label([p.para for p in passages])
        if first.corpus == "cst"
        else first.para + (f"–{last.para}" if last is not first else ""),
        pages=edition_pages(first.book, [p.para for p in passages], [p.page_refs for p in passages])
        if first.corpus == "cst"
        else {},
        **edition,
    )


def scholar_citation(source: Source, passage: Passage, named: TextRecord | None) -> str:
    """``SN 56.11 Setting the Wheel …: Mahāvaggapāḷi, Saccasaṃyutta, CST para 1081 (PTS S V 420–421; VRI …)``."""
    label = f"{named.label}{f' {named.title}' if named.title else ''}: " if named else ""
    chapter = _chapter(passage.chapter_title) if passage.chapter_title else ""
    where = ", ".join(x for x in (passage.book_title, chapter, source.paragraphs) if x)
    pages = cited_pages(source.pages)
    return f"{label}{where}" + (f" ({pages})" if pages else "")


@lru_cache(maxsize=4096)
def _entry(bare: tuple[str, ...], style: str) -> str:
    title, book_title, collection, edition, publisher, place, language = bare
    source = Source(book_title, title, book_title, collection, edition=edition, publisher=publisher, place=place)
    return styled(replace(source, language=language), STYLE_NAMES.get(style, style))


def reference_entry(source: Source, style: str) -> str:
    """A reference-list entry in a CSL style (``apa``, ``mla``, any CSL style id), remembered for the sources
    that differ only in their locators (the styles print none): the paragraphs of one chapter share it."""
    s = source
    return _entry((s.title, s.book_title, s.collection, s.edition, s.publisher, s.place, s.language), style)


def cite(research: Research, coordinate: str, fmt: str | None = None, styles: Sequence[str] = ()) -> CiteResult:
    """A paragraph, a range (``cst/vin02m3.mul/75-110``) or a named text (``SN 56.11``, the whole text) cited:
    the scholar's form, reference-list entries in ``styles`` (default APA and MLA) and the export ``fmt``."""
    if fmt is not None and fmt not in FORMATS:
        raise SearchError("invalid_parameter", f"unknown export format {fmt!r}; known: {', '.join(FORMATS)}")
    passages, label = research._linked_span(coordinate)
    first, last = passages[0], passages[-1]
    named = research.named(coordinate) if label else research.store.text_at(first.corpus, first.book, first.seq)
    if named and not label and last.seq > named.last_seq:
        named = None  # a range running past the text the first paragraph belongs to
    source = source_of(passages, named, whole=bool(label))
    if not label and len(passages) > 1:  # a range: as written, the form that resolves to it
        source = replace(source, coordinate=coordinate.strip())
    try:
        entries = {s: reference_entry(source, s) for s in (styles or DEFAULT_STYLES)}
        written = export([source], fmt) if fmt else None
    except CiteError as exc:
        raise SearchError("invalid_parameter", str(exc)) from None
    return CiteResult(
        coordinate=source.coordinate,
        reference=source.reference or None,
        citation=scholar_citation(source, first, named),
        pages=source.pages,
        styles=entries,
        format=fmt,
        export=written,
    )


def passage_citations(p: Passage, named: TextRecord | None) -> dict[str, str]:
    """The citations ``get`` gives a paragraph: the scholar's form, and its APA and MLA reference entries."""
    source = source_of([p], named)
    return {
        "default": scholar_citation(source, p, named),
        "apa": reference_entry(source, "apa"),
        "mla": reference_entry(source, "mla"),
    }
