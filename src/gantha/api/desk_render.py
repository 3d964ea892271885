"""How the CLI shows the desk's verbs (concordance, collocates, profile) to a person; a result carrying a
file (``--format tsv``, ``png`` …) is written to standard output as it is, ready to redirect."""

from __future__ import annotations

import sys

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from gantha.research.desk import CollocatesResult, ConcordanceResult, Exportable, ProfileResult

out = Console()
err = Console(stderr=True)
BAR = 16  # characters of the densest row's bar in `gantha profile`


def wrote_file(res: Exportable) -> bool:
    """Write the result's file to standard output (a binary one only where it is redirected)."""
    file = res.exported()
    if file is None:
        return False
    if not file.media_type.startswith("text/") and sys.stdout.isatty():
        err.print(f"{file.filename} is binary: redirect it into a file (> {file.filename})", highlight=False)
        return True
    sys.stdout.flush()
    sys.stdout.buffer.write(file.content)
    sys.stdout.flush()
    return True


def _width() -> int:
    """Characters a line may take: the terminal's, or (output redirected) a wide page's."""
    return max(out.width, 100) if out.is_terminal else 160


def show_concordance(res: ConcordanceResult) -> None:
    if wrote_file(res):
        return
    width = _width()
    coordinate = max((len(ln.coordinate) for ln in res.lines), default=0)
    node = min(max((len(ln.node) for ln in res.lines), default=0), 30)
    side = max(20, (width - coordinate - node - 4) // 2)
    for ln in res.lines:
        left = ln.left if len(ln.left) <= side else "…" + ln.left[-side + 1 :]
        right = ln.right if len(ln.right) <= side else ln.right[: side - 1] + "…"
        line = Text(f"{ln.coordinate:<{coordinate}}  {left:>{side}} ")
        line.append(f"{ln.node:^{node}}", style="bold yellow")
        line.append(f" {right}")
        out.print(line, highlight=False, soft_wrap=True)
    total = f"{res.lines_total:,} lines" if res.lines_total is not None else "the lines"
    shown = f"{res.offset + 1}–{res.offset + len(res.lines)}" if res.lines else "none"
    forms = ", ".join(f"{f.form} {f.count:,}" for f in res.forms[:12]) + (" …" if len(res.forms) > 12 else "")
    out.print(
        f"{shown} of {total} in {res.paragraphs:,} paragraphs, sorted by {', '.join(res.sort)}"
        + (f", with {res.collocate}" if res.collocate else ""),
        highlight=False,
    )
    out.print(f"forms: {escape(forms)}", highlight=False, soft_wrap=True)
    for note in res.notes:
        err.print(escape(note), highlight=False)


def show_collocates(res: CollocatesResult) -> None:
    width = _width()
    out.print(f"{'#':>3} {'lemma':<22} {res.measure:>8} {'f(x,y)':>7} {'f(y)':>9} {'cpd':>5}  forms", style="bold")
    for i, c in enumerate(res.collocates, start=1):
        forms = ", ".join(f"{f.form} {f.count}" for f in c.forms[:4])
        counts = f"{c.score:>8.2f} {c.cooccurrences:>7,} {c.frequency:>9,} {c.in_compound or '':>5}"
        row = f"{i:>3} {c.lemma:<22} {counts}  {forms}"
        out.print(row if len(row) <= width else row[: width - 1] + "…", markup=False, highlight=False, soft_wrap=True)
    out.print(
        f"{res.query}: {res.nodes:,} occurrences, ±{res.window} words, {res.candidates:,} lemmas seen "
        f"{'' if res.candidates == len(res.collocates) else f'({len(res.collocates)} shown) '}"
        f"in {res.corpus_words:,} words; lines of one: gantha concordance … --collocate LEMMA",
        highlight=False,
    )
    for note in res.notes:
        err.print(escape(note), highlight=False)


def show_profile(res: ProfileResult) -> None:
    if wrote_file(res):
        return
    widest = max([r.per_10000 for r in (*res.layers, *res.collections)] or [1.0]) or 1.0
    for name, rows in (("layer", res.layers), ("collection", res.collections)):
        table = Table(name, "words", "found", "/10,000", "", box=box.SIMPLE_HEAD)
        for column in table.columns:
            column.no_wrap, column.overflow = True, "ellipsis"
        table.columns[0].max_width = 30
        for r in rows:
            bar = "█" * round(BAR * r.per_10000 / widest)
            table.add_row(r.title, f"{r.words:,}", f"{r.occurrences:,}", f"{r.per_10000:.2f}", f"[cyan]{bar}[/cyan]")
        out.print(table)
    table = Table("book", "title", "words", "found", "/10,000", box=box.SIMPLE_HEAD)
    for r in res.books:
        if r.occurrences:
            table.add_row(r.key, r.title, f"{r.words:,}", f"{r.occurrences:,}", f"{r.per_10000:.2f}")
    out.print(table)
    held = sum(1 for r in res.books if r.occurrences)
    out.print(
        f"{res.query}: {res.occurrences:,} occurrences in {held} of {len(res.books)} books, {res.per_10000:.2f} per "
        f"10,000 of {res.corpus_words:,} words (every book with --json; a chart with --format png > FILE.png)",
        highlight=False,
    )
    for note in res.notes:
        err.print(escape(note), highlight=False)
