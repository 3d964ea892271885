"""The ``gantha`` command. Every command has ``--json``; errors print one line and exit non-zero.

Exit codes: 0 done; 1 unexpected failure; 2 bad input (unknown book, unparseable page ref …);
3 ingest finished but skipped some files or books (listed in the summary).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from gantha.config import settings
from gantha.corpus.cst import BookError
from gantha.corpus.download import DownloadError, download_cst
from gantha.ingest import IngestSummary, ingest_cst
from gantha.model import CoordinateError, SearchMode, SearchRequest
from gantha.search.service import Searcher, SearchError
from gantha.store.embedded import EmbeddedStore, StoreError
from gantha.text.refs import PageRefError

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__.splitlines()[0] if __doc__ else "")
out = Console()
err = Console(stderr=True)

SOURCES = ("cst", "all")
IndexOpt = Annotated[
    Path | None, typer.Option("--index", help="index directory (default: GANTHA_INDEX or a per-user dir)")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]
BAD_INPUT = (SearchError, PageRefError, CoordinateError, BookError, FileNotFoundError, ValueError)


def _index(index: Path | None) -> Path:
    return index or settings().index


def _fail(message: str, code: int) -> None:
    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def cli_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Turn the errors a user can cause into one readable line and a non-zero exit code."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StoreError as exc:
            _fail(str(exc), 2)
        except DownloadError as exc:
            _fail(f"download failed: {exc}", 1)
        except BAD_INPUT as exc:
            _fail(str(exc), 2)

    return wrapper


def _print_json(data: Any) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


# --- ingest ---------------------------------------------------------------------------------------


def _run_ingest(store: EmbeddedStore, path: Path, force: bool, show_progress: bool) -> IngestSummary:
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("books · {task.fields[passages]:,} paragraphs · {task.fields[rate]:,.0f}/s"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err, disable=not show_progress, transient=False) as bar:
        task = bar.add_task("cst", total=None, passages=0, rate=0.0)
        state = {"passages": 0}

        def progress(book: str, passages: int, total: int) -> None:
            state["passages"] += passages
            elapsed = bar.tasks[0].elapsed or 1e-9
            bar.update(
                task,
                total=total,
                advance=1,
                description=f"cst {book:<14}",
                passages=state["passages"],
                rate=state["passages"] / elapsed,
            )

        return ingest_cst(store, path, force=force, progress=progress)


def _report(summary: IngestSummary, as_json: bool) -> None:
    if as_json:
        _print_json(summary.__dict__)
    else:
        out.print(
            f"[green]ingested[/green] {summary.books} books ({summary.unchanged} unchanged), "
            f"{summary.passages:,} paragraphs, {summary.page_refs:,} page refs, "
            f"{summary.bold_terms:,} bold terms in {summary.seconds:.1f} s",
            highlight=False,
        )
        for s in summary.skipped:
            err.print(f"[yellow]skipped[/yellow] {escape(s['item'])}: {escape(s['reason'])}", highlight=False)
    if summary.skipped:
        raise typer.Exit(3)


@app.command()
@cli_errors
def ingest(
    source: Annotated[str, typer.Argument(help=f"one of: {', '.join(SOURCES)}")],
    path: Annotated[Path, typer.Argument(help="file or folder (plain or .gz)")],
    index: IndexOpt = None,
    force: Annotated[bool, typer.Option(help="re-ingest books whose files are unchanged")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Index a source into the index directory (resumable: unchanged books are skipped)."""
    if source not in SOURCES:
        _fail(f"unknown source {source!r}; this version reads: {', '.join(SOURCES)}", 2)
    if not path.exists():
        _fail(f"no such file or folder: {path}", 2)
    if source == "all":
        found = path / "cst"
        if not found.is_dir():
            _fail(f"{path} has no cst/ folder (the sources this version reads: cst)", 2)
        path = found
    store = EmbeddedStore(_index(index))
    try:
        summary = _run_ingest(store, path, force, show_progress=not as_json)
    finally:
        store.close()
    _report(summary, as_json)


# --- search ---------------------------------------------------------------------------------------


_MARK = re.compile(r"<mark>(.*?)</mark>")


def _rich_snippet(snippet: str) -> str:
    import html

    return _MARK.sub(
        lambda m: f"[bold yellow]{escape(html.unescape(m.group(1)))}[/bold yellow]",
        escape(html.unescape(_MARK.sub(lambda m: f"<mark>{m.group(1)}</mark>", snippet))),
    )


@app.command()
@cli_errors
def search(
    query: Annotated[str, typer.Argument(help='words, "a phrase", -excluded, prefix*')] = "",
    mode: Annotated[SearchMode, typer.Option(help="fuzzy: diacritic-free; exact: as typed")] = SearchMode.FUZZY,
    page_ref: Annotated[str | None, typer.Option("--page-ref", help="P2.0031, P2.31, PTS Vin II 31, M0.82")] = None,
    book: Annotated[list[str] | None, typer.Option(help="book id(s), comma-separated or repeated")] = None,
    category: Annotated[list[str] | None, typer.Option(help="mula, atthakatha, tika, anya")] = None,
    tags: Annotated[list[str] | None, typer.Option(help="vinaya, sutta, abhidhamma, digha, …")] = None,
    limit: Annotated[int, typer.Option(min=1, max=100)] = 10,
    offset: Annotated[int, typer.Option(min=0, max=10_000)] = 0,
    scheme: Annotated[str, typer.Option(help="input scheme of ASCII queries: auto, iast, velthuis, hk")] = "auto",
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search passages; every hit carries its coordinate."""
    req = SearchRequest(
        q=query,
        mode=mode,
        page_ref=page_ref,
        books=book or [],
        categories=category or [],
        tags=tags or [],
        limit=limit,
        offset=offset,
        scheme=scheme,
    )
    res = Searcher(EmbeddedStore(_index(index), create=False)).search(req)
    if as_json:
        _print_json(res.model_dump())
        return
    info = res.query_info
    parts = info.terms + ['"' + " ".join(p) + '"' for p in info.phrases] + [p + "*" for p in info.prefixes]
    if info.page_ref:
        parts.append(f"page {info.page_ref['key']}")
    out.print(
        f"[bold]{res.total:,}[/bold] hits for [cyan]{escape(' '.join(parts))}[/cyan] "
        f"({info.mode.value}, field {info.field}) in {res.took_ms:.1f} ms",
        highlight=False,
    )
    if not res.hits:
        return
    table = Table(show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("coordinate", no_wrap=True)
    table.add_column("where")
    table.add_column("snippet")
    for h in res.hits:
        where = f"{h.book_title} › {h.path[-1]}" if h.path else h.book_title
        mark = " [bold]★[/bold]" if h.bold_match else ""
        table.add_row(str(h.rank), h.coordinate + mark, escape(where), _rich_snippet(h.snippet))
    out.print(table)
    cats = ", ".join(f"{b.key} {b.count}" for b in res.aggregations.get("category", []))
    books = ", ".join(f"{b.key} {b.count}" for b in res.aggregations.get("book", [])[:6])
    out.print(f"categories: {cats}\nbooks: {books}", highlight=False)


# --- serving --------------------------------------------------------------------------------------


def _serve(index: Path, host: str, port: int, workers: int) -> None:
    import uvicorn

    os.environ["GANTHA_INDEX"] = str(index)
    err.print(f"serving {index} on http://{host}:{port} (API docs at /docs)", highlight=False)
    uvicorn.run("gantha.api.server:app", host=host, port=port, workers=workers, log_level="warning")


@app.command()
@cli_errors
def serve(
    host: Annotated[str | None, typer.Option()] = None,
    port: Annotated[int | None, typer.Option()] = None,
    workers: Annotated[int | None, typer.Option(help="server processes")] = None,
    index: IndexOpt = None,
) -> None:
    """Serve the HTTP API (OpenAPI at /openapi.json)."""
    s = settings()
    EmbeddedStore(_index(index), create=False).close()  # fail now, not on the first request
    _serve(_index(index), host or s.host, port or s.port, workers or s.workers)


@app.command()
@cli_errors
def up(
    corpus: Annotated[Path | None, typer.Option(help="CST folder (default: GANTHA_CST_PATH, else download)")] = None,
    host: Annotated[str | None, typer.Option()] = None,
    port: Annotated[int | None, typer.Option()] = None,
    workers: Annotated[int | None, typer.Option()] = None,
    index: IndexOpt = None,
) -> None:
    """Index the CST corpus if needed (local copy, else download), then serve it."""
    s = settings()
    path = corpus or s.cst_path
    if not path.is_dir():
        err.print(f"no CST folder at {path}; downloading {s.cst_url}", highlight=False)
        with Progress(console=err) as bar:
            task = bar.add_task("download", total=None)
            path = download_cst(
                s.cst_url, s.downloads, lambda done, total: bar.update(task, completed=done, total=total)
            )
    store = EmbeddedStore(_index(index))
    try:
        summary = _run_ingest(store, path, force=False, show_progress=True)
    finally:
        store.close()
    with contextlib.suppress(typer.Exit):  # skipped items are reported; serve what was indexed
        _report(summary, as_json=False)
    _serve(_index(index), host or s.host, port or s.port, workers or s.workers)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
