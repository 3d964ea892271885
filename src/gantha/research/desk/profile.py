"""The verb ``profile``: where a word is dense and where rare — its occurrences per layer (root texts,
commentaries, subcommentaries, other books), per collection (Vinayapiṭaka, Dīghanikāya, …) and per book,
absolute and per 10,000 words, with each book's size; as a table, CSV, or a bar chart (PNG, SVG)."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Mapping

from pydantic import BaseModel, Field

from gantha.model import QueryInfo
from gantha.research.desk.export import Exportable, file_stem, table
from gantha.research.desk.scan import LAYERS, Scan, book_rank
from gantha.research.desk.tally import Tally
from gantha.store.base import BookRecord

PER = 10_000
LAYER_NAMES = {"mula": "root texts", "atthakatha": "commentaries", "tika": "subcommentaries", "anya": "other books"}
CSV_COLUMNS = ["level", "key", "title", "layer", "collection", "words", "occurrences", "per_10000"]


class ProfileRow(BaseModel):
    key: str = Field(description="a layer (mula …), a collection (Vinayapiṭaka …) or a book id")
    title: str
    layer: str = ""
    collection: str = ""
    words: int = Field(description="its size in words")
    occurrences: int
    per_10000: float = Field(description="occurrences per 10,000 words")


class ProfileResult(Exportable):
    query: str
    occurrences: int
    corpus_words: int
    per_10000: float
    layers: list[ProfileRow]
    collections: list[ProfileRow]
    books: list[ProfileRow] = Field(description="every book, in book order (those without the word: 0)")
    query_info: dict = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)


def collection(rec: BookRecord) -> str:
    """A book's collection: its group below the layer (``Suttapiṭaka › Dīghanikāya``, ``Vinayapiṭaka``)."""
    path = rec.info.group_path
    return " › ".join(path[1:]) or (path[0] if path else rec.info.category or "")


def _row(key: str, title: str, words: int, found: int, layer: str = "", coll: str = "") -> ProfileRow:
    rate = round(found * PER / words, 3) if words else 0.0
    return ProfileRow(
        key=key, title=title, layer=layer, collection=coll, words=words, occurrences=found, per_10000=rate
    )


def scan_occurrences(scan: Scan) -> Counter[str]:
    """A complete scan's occurrences per book."""
    return Counter(scan.paragraphs[n.para].passage.book for n in scan.nodes)


def profile(
    per_book: Mapping[str, int], info: QueryInfo, query: str, books: dict[str, BookRecord], tally: Tally
) -> ProfileResult:
    """Occurrences per book summed per layer and collection, against the tally's book sizes."""
    records = {r.info.book: r for r in books.values() if r.info.book in tally.books}
    order = sorted(records, key=lambda b: book_rank(b, records[b].info.category))
    book_rows = [
        _row(b, rec.info.title, tally.books[b], per_book.get(b, 0), rec.info.category, collection(rec))
        for b in order
        if (rec := records[b])
    ]
    layer_words: Counter[str] = Counter()
    layer_found: Counter[str] = Counter()
    coll_words: Counter[str] = Counter()
    coll_found: Counter[str] = Counter()
    coll_layer: dict[str, str] = {}
    for r in book_rows:
        layer_words[r.layer] += r.words
        layer_found[r.layer] += r.occurrences
        coll_words[r.collection] += r.words
        coll_found[r.collection] += r.occurrences
        coll_layer.setdefault(r.collection, r.layer)
    layers = [
        _row(k, LAYER_NAMES.get(k, k), layer_words[k], layer_found[k], k)
        for k in sorted(layer_words, key=lambda k: LAYERS.index(k) if k in LAYERS else len(LAYERS))
    ]
    collections = [_row(c, c, coll_words[c], coll_found[c], coll_layer[c], c) for c in coll_words]
    words = sum(tally.books[b] for b in order)
    found = sum(per_book.values())
    res = ProfileResult(
        query=query,
        occurrences=found,
        corpus_words=words,
        per_10000=round(found * PER / words, 3) if words else 0.0,
        layers=layers,
        collections=collections,
        books=book_rows,
        query_info=info.model_dump(exclude_defaults=True),
    )
    if missing := sum(n for b, n in per_book.items() if b not in records):
        res.notes.append(f"{missing:,} occurrences in books outside the canon's tally (not counted here)")
    return res


def as_csv(res: ProfileResult) -> str:
    rows = [
        [level, r.key, r.title, r.layer, r.collection, r.words, r.occurrences, r.per_10000]
        for level, rows in (("layer", res.layers), ("collection", res.collections), ("book", res.books))
        for r in rows
    ]
    return table(CSV_COLUMNS, rows, "csv")


def plot(res: ProfileResult, fmt: str) -> bytes:
    """A bar chart (PNG or SVG) of the occurrences per 10,000 words: per layer, per collection, per book
    holding the word (matplotlib, drawn off screen)."""
    from matplotlib.figure import Figure  # a figure of its own: no pyplot, no display, no global state

    books = [r for r in res.books if r.occurrences]
    colours = {k: c for k, c in zip(LAYERS, ("#1f6f8b", "#e07a1f", "#8e5ea2", "#7a7a7a"), strict=True)}
    sections = [("per layer", res.layers), ("per collection", res.collections), ("per book holding it", books)]
    heights = [max(1.2, 0.22 * len(rows) + 0.6) for _, rows in sections]
    fig = Figure(figsize=(8, sum(heights) + 0.8))
    axes = fig.subplots(len(sections), 1, gridspec_kw={"height_ratios": heights})
    for ax, (name, rows) in zip(axes, sections, strict=True):
        labels = [r.title if name != "per book holding it" else f"{r.key} {r.title}" for r in rows]
        ax.barh(range(len(rows)), [r.per_10000 for r in rows], color=[colours.get(r.layer, "#999") for r in rows])
        ax.set_yticks(range(len(rows)), labels, fontsize=7)
        ax.invert_yaxis()
        ax.set_title(f"{name}", fontsize=9, loc="left")
        ax.tick_params(axis="x", labelsize=7)
    axes[-1].set_xlabel("occurrences per 10,000 words", fontsize=8)
    fig.suptitle(f"{res.query}: {res.occurrences:,} occurrences, {res.per_10000:g} per 10,000 words", fontsize=10)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format=fmt, dpi=120)
    return out.getvalue()


def attach(res: ProfileResult, fmt: str) -> ProfileResult:
    """Attach the file a format names: csv, png or svg."""
    if fmt == "csv":
        res.attach(as_csv(res), "csv", f"profile-{file_stem(res.query)}")
    elif fmt in ("png", "svg"):
        res.attach(plot(res, fmt), fmt, f"profile-{file_stem(res.query)}")
    return res
