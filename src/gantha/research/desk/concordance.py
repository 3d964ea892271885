"""The verb ``concordance``: every occurrence one line, the matched form centred between its context, sorted
by the words after or before it (or in book order), with the counts of each form; paged, or whole as a file."""

from __future__ import annotations

import re
from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from gantha.research.desk.export import Exportable, file_stem, table
from gantha.research.desk.scan import Node, Scan

SortKey = Literal["book", "form", "right1", "right2", "right3", "left1", "left2", "left3"]
SORT_KEYS: tuple[str, ...] = ("book", "form", "right1", "right2", "right3", "left1", "left2", "left3")
PALI_ORDER = "aāiīuūeoṃkgṅcjñṭḍṇtdnpbmyrlvshḷ"  # the Pali alphabet, aspirates (kh) after their stops by their h
_RANKS = {ord(c): chr(0xE000 + i) for i, c in enumerate(PALI_ORDER)}
_LAST = "\U0010ffff"  # a missing word (the paragraph ends): after every word
EXPORT_COLUMNS = ["coordinate", "book", "paragraph", "word", "left", "node", "right", "form"]


def pali_key(word: str) -> str:
    """A canonical word's sort key in Pali alphabetical order (a ā i ī … k kh g gh … s h ḷ)."""
    return word.translate(_RANKS)


def sort_keys(sort: list[str]) -> list[str]:
    """The sort asked for, with its cascade: ``right1`` sorts by right1, then right2, then right3 (likewise
    left1, right2 …); book order breaks the remaining ties."""
    keys = list(sort) or ["book"]
    if len(keys) == 1 and (m := re.fullmatch(r"(right|left)(\d)", keys[0])):
        keys = [f"{m.group(1)}{k}" for k in range(int(m.group(2)), 4)]
    return list(dict.fromkeys([*keys, "book"]))


class ConcordanceLine(BaseModel):
    coordinate: str
    word: int = Field(description="the node's first word's number in the paragraph (1: its first word)")
    left: str
    node: str = Field(description="the matched form as written (a phrase: all its words)")
    right: str
    form: str = Field(description="the matched form, canonical (lower case)")


class FormCount(BaseModel):
    form: str
    count: int


class BookParagraphs(BaseModel):
    book: str
    paragraphs: int


class ConcordanceResult(Exportable):
    query: str
    lines_total: int | None = Field(
        description="occurrences in all (null: a first page in book order, read from the first books only)"
    )
    paragraphs: int = Field(description="paragraphs holding the query")
    offset: int
    limit: int
    sort: list[str]
    context: int
    lines: list[ConcordanceLine]
    forms: list[FormCount] = Field(description="occurrences of each matched form, most first (of the lines counted)")
    books: list[BookParagraphs] = Field(default_factory=list, description="paragraphs per book, in book order")
    collocate: str | None = None
    query_info: dict = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


def line(scan: Scan, node: Node, context: int) -> ConcordanceLine:
    para = scan.paragraphs[node.para]
    spans = para.spans(node.end + context)
    text, n = para.passage.text, len(para.words)
    begin, end = spans[node.start][0], spans[node.end - 1][1]
    left = text[spans[max(0, node.start - context)][0] : begin] if node.start else ""
    right = text[end : spans[min(n, node.end + context) - 1][1]] if node.end < n else ""
    return ConcordanceLine.model_construct(  # every value of its type: built without validation (82,627 for dhamma)
        coordinate=para.passage.coordinate,
        word=node.start + 1,
        left=" ".join(left.split()),
        node=text[begin:end],
        right=" ".join(right.split()),
        form=" ".join(para.words[node.start : node.end]),
    )


def ordered(scan: Scan, nodes: list[int], sort: list[str]) -> list[int]:
    """Indexes of ``nodes`` (into ``scan.nodes``) sorted by ``sort`` (see :func:`sort_keys`)."""
    keys = sort_keys(sort)
    keys = keys[: keys.index("book")]  # book order is total: what follows it never counts
    if not keys:
        return nodes
    offsets = [(k[:-1] == "right", int(k[-1])) for k in keys if k not in ("book", "form")]
    by_form = "form" in keys
    cache: dict[str, str] = {}
    paragraphs, every = scan.paragraphs, scan.nodes

    def word(w: str) -> str:
        if (k := cache.get(w)) is None:
            k = cache[w] = pali_key(w)
        return k

    def key(i: int) -> tuple:
        n = every[i]
        words = paragraphs[n.para].words
        out = []
        for right, k in offsets:
            j = n.end - 1 + k if right else n.start - k
            out.append(word(words[j]) if 0 <= j < len(words) else _LAST)
        if by_form:
            out.insert(keys.index("form"), word(" ".join(words[n.start : n.end])))
        out.append(i)  # book order breaks the ties
        return tuple(out)

    return sorted(nodes, key=key)


def _words(scan: Scan, node: Node) -> list[str]:
    return scan.paragraphs[node.para].words[node.start : node.end]


def form_counts(scan: Scan, nodes: list[int]) -> list[FormCount]:
    counts = Counter(" ".join(_words(scan, scan.nodes[i])) for i in nodes)
    return [FormCount(form=f, count=n) for f, n in sorted(counts.items(), key=lambda t: (-t[1], pali_key(t[0])))]


def export(scan: Scan, nodes: list[int], context: int, fmt: str) -> str:
    """Every line (in the order given) as TSV or CSV, with its coordinate."""
    rows = []
    for i in nodes:
        ln = line(scan, scan.nodes[i], context)
        book, _, para = ln.coordinate.rpartition("/")
        rows.append([ln.coordinate, book.partition("/")[2], para, ln.word, ln.left, ln.node, ln.right, ln.form])
    return table(EXPORT_COLUMNS, rows, fmt)


def concordance(
    scan: Scan,
    query: str,
    *,
    nodes: list[int] | None = None,
    sort: list[str],
    context: int,
    limit: int,
    offset: int,
    fmt: str = "json",
    collocate: str | None = None,
) -> ConcordanceResult:
    """The page of lines (or, ``fmt`` tsv/csv, the whole concordance attached as a file)."""
    chosen = list(range(len(scan.nodes))) if nodes is None else nodes
    order = ordered(scan, chosen, sort)
    res = ConcordanceResult(
        query=query,
        lines_total=len(order) if scan.complete else None,
        paragraphs=scan.total_paragraphs,
        offset=offset,
        limit=limit,
        sort=sort_keys(sort),
        context=context,
        lines=[line(scan, scan.nodes[i], context) for i in order[offset : offset + limit]],
        forms=form_counts(scan, chosen),
        books=[BookParagraphs(book=b, paragraphs=n) for b, n in scan.books],
        collocate=collocate,
        query_info=scan.info.model_dump(exclude_defaults=True),
    )
    if not scan.complete:
        res.notes.append(
            f"a page in book order, read from the first books only (the forms counted there): another sort or "
            f"a file (tsv, csv) reads all {scan.total_paragraphs:,} paragraphs"
        )
    if fmt in ("tsv", "csv"):
        res.attach(export(scan, order, context, fmt), fmt, f"concordance-{file_stem(query)}")
    return res
