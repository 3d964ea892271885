"""How the CLI shows each verb's result to a person (``--json`` prints the model instead)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gantha.api.desk_render import show_collocates, show_concordance, show_profile
from gantha.model import SearchResponse
from gantha.research import (
    ChapterResult,
    DistResult,
    FormsResult,
    GetResult,
    LinksResult,
    OutlineResult,
    SuggestResult,
    VersionsResult,
    WordResult,
)
from gantha.research.citing import CiteResult
from gantha.text.chinese import has_chinese

COMPOUNDS_SHOWN = 30  # compounds listed by `gantha forms` (all of them with --json)
FORMS_SHOWN = 8  # forms of each derivative listed by `gantha forms`
_MARK = re.compile(r"<mark>(.*?)</mark>")

out = Console()
err = Console(stderr=True)


def rich_snippet(snippet: str) -> str:
    """A snippet's ``<mark>`` highlights as rich markup, everything else escaped."""
    return _MARK.sub(
        lambda m: f"[bold yellow]{escape(html.unescape(m.group(1)))}[/bold yellow]",
        escape(html.unescape(_MARK.sub(lambda m: f"<mark>{m.group(1)}</mark>", snippet))),
    )


def show_search(res: SearchResponse) -> None:
    info = res.query_info
    # a Chinese phrase is its characters side by side (比丘尼), as typed; a Pali one its words
    phrases = ['"' + ("" if all(map(has_chinese, p)) else " ").join(p) + '"' for p in info.phrases]
    parts = info.terms + phrases + [p + "*" for p in info.prefixes]
    parts += [f"{n['words'][0]} NEAR/{n['distance']} {n['words'][1]}" for n in info.near]
    if info.forms:
        parts.append("forms " + ",".join(info.forms))
    if info.lemma:
        parts.append(
            f"lemma {info.lemma['lemma']} ({len(info.lemma['forms'])} forms, "
            f"{len(info.lemma.get('derivatives', []))} derivatives, {info.lemma.get('compound_count', 0)} compounds)"
        )
    if info.page_ref:
        parts.append(f"page {info.page_ref['key']}")
    if not parts and info.original:  # a reference (--ref '罗马书 3:24'): as written, and where it led
        parts.append(info.original + (f" → {info.normalized}" if info.normalized not in ("", info.original) else ""))
    out.print(
        f"[bold]{res.total:,}[/bold] hits for [cyan]{escape(' '.join(parts))}[/cyan] "
        f"({info.mode.value}{f', field {info.field}' if info.field else ''}) in {res.took_ms:.1f} ms",
        highlight=False,
    )
    for inf in info.inflections:
        also = f"; also {', '.join(inf['others'])}" if inf["others"] else ""
        out.print(f"{inf['word']} → every form of {inf['lemma']} ({len(inf['forms'])} forms{also})", highlight=False)
    for spelled in info.iti:
        out.print(
            f"{spelled['typed']} → also {', '.join(spelled['spellings'][1:])} (quoted before iti)", highlight=False
        )
    for near in info.near:
        sizes = " and ".join(f"{w} ({len(f)} forms)" for w, f in zip(near["words"], near["forms"], strict=True))
        out.print(f"NEAR/{near['distance']}: {sizes}, at most {near['distance']} words apart", highlight=False)
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
    if res.nodes:
        show_nodes(res)
        return
    if info.hierarchy and info.hierarchy.get("path"):
        steps = " → ".join(f"{s['level']} {s['node']} ({s['confidence']:.2f})" for s in info.hierarchy["path"])
        out.print(f"auto: {escape(steps)}; answered {escape(str(info.hierarchy['answered']))}", highlight=False)
    if not res.hits:
        return
    if isinstance(res.hits[0], dict):  # compact hits (fields): the fields asked for
        return show_fields(res.hits)
    table = Table(show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("coordinate", no_wrap=True)
    table.add_column("where")
    table.add_column("snippet")
    for h in res.hits:
        where = f"{h.book_title} › {h.path[-1]}" if h.path else h.book_title
        for other in h.parallels or []:  # its parallel in the other canon: MA 221 ≈ MN 63
            where += f"\n≈ {other.reference} {other.coordinate}"
        mark = " [bold]★[/bold]" if h.bold_match else (f" {h.similarity:.2f}" if h.similarity is not None else "")
        channel = "" if h.channel == "pali" else escape(f" [{h.channel}]")
        table.add_row(str(h.rank), h.coordinate + channel + mark, escape(where), rich_snippet(h.snippet))
    out.print(table)
    for name, key, most in (("categories", "category", None), ("books", "book", 6), ("topics", "topic", None)):
        if counts := ", ".join(f"{b.key} {b.count}" for b in res.aggregations.get(key, [])[:most]):
            out.print(f"{name}: {counts}", highlight=False)  # none for a ranked-candidates search (hybrid)


def show_nodes(res: SearchResponse) -> None:
    table = Table(show_lines=True)
    table.add_column("#", justify="right")
    table.add_column("node", no_wrap=True)
    table.add_column("title")
    table.add_column("evidence")
    table.add_column("summary")
    for n in res.nodes:
        evidence = f"{n.confidence:.2f}; {n.hits} hits" + (f" of {n.matches:,}" if n.matches else "")
        title = f"{n.title} ({n.book_title})" if n.level != "book" else n.title
        table.add_row(str(n.rank), n.coordinate, escape(title), evidence, escape((n.summary or "")[:200]))
    out.print(table)


def show_fields(hits: list[dict]) -> None:
    """Hits cut to some fields, one column each."""
    table = Table(*hits[0], show_lines=True)
    for h in hits:
        table.add_row(*(rich_snippet(v) if k == "snippet" else escape(str(v)) for k, v in h.items()))
    out.print(table)


def show_forms(res: FormsResult) -> None:
    lemmas = ", ".join(f"{c.lemma} ({c.score:.2f}; {'+'.join(c.sources)})" for c in res.lemmas[:5])
    out.print(f"lemma [bold]{res.lemma}[/bold]; candidates: {escape(lemmas) or '-'}", highlight=False)
    if res.message:
        err.print(f"[yellow]{escape(res.message)}[/yellow]", highlight=False)
    table = Table("form", "paragraphs", "bold", "grammar", "proposed by")
    for f in res.forms:
        table.add_row(f.form, str(f.paragraphs), str(f.bold_paragraphs), "; ".join(f.grammar[:3]), ", ".join(f.sources))
    out.print(table)
    out.print(f"{len(res.forms)} attested forms in {res.total_paragraphs:,} paragraphs", highlight=False)
    if res.derivatives:
        table = Table("derivative", "suffix", "paragraphs", "bold", "forms", "why")
        for d in res.derivatives:
            forms = ", ".join(f.form for f in d.forms[:FORMS_SHOWN]) + (" …" if len(d.forms) > FORMS_SHOWN else "")
            table.add_row(d.lemma, f"-{d.suffix}", str(d.paragraphs), str(d.bold_paragraphs), forms, escape(d.evidence))
        out.print(table)
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
    if res.derivatives:
        out.print(
            f"the whole family (forms, derivatives, compounds) in {res.family_paragraphs:,} paragraphs",
            highlight=False,
        )
    if res.unattested:
        out.print("unattested: " + ", ".join(res.unattested), highlight=False)
    elif res.unattested_count:
        out.print(f"{res.unattested_count} proposed forms never occur (--unattested lists them)", highlight=False)


def show_word(res: WordResult) -> None:
    for m in res.morphology[:6]:
        out.print(f"[bold]{res.word}[/bold] = {m.lemma}, {m.pos} {m.grammar} ({m.source})", highlight=False)
    for e in res.entries:
        out.print(
            f"[cyan]{e.word}[/cyan] [{e.dictionary}, {e.language}] {e.grammar} {escape('; '.join(e.meanings))}",
            highlight=False,
        )
    if res.message:
        err.print(f"[yellow]{escape(res.message)}[/yellow]", highlight=False)


def show_dist(res: DistResult) -> None:
    table = Table("book", "title", "category", "tags", "paragraphs")
    for b in res.books:
        table.add_row(b.book, b.title, b.category, ",".join(b.tags), str(b.count))
    out.print(table)
    cats = ", ".join(f"{k} {v}" for k, v in res.by_category.items())
    out.print(f"{res.total:,} paragraphs in {len(res.books)} books ({cats})", highlight=False)


def show_get(res: GetResult) -> None:
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


def show_chapter(res: ChapterResult) -> None:
    out.print(
        f"{res.book_title} › {res.chapter}: {res.paragraphs} paragraphs, {res.characters:,} characters, "
        f"~{res.approx_tokens:,} tokens",
        highlight=False,
    )
    for p in res.passages or []:
        out.print(f"[dim]{p.coordinate}[/dim] {escape(p.display)}", highlight=False)
    if res.message and not res.passages:
        err.print(escape(res.message), highlight=False)


def show_outline(res: OutlineResult) -> None:
    n = res.node
    where = " › ".join(p.title for p in res.parents)
    out.print(f"[dim]{escape(where)}[/dim]" if where else "", highlight=False, end="\n" if where else "")
    size = f"{n.paragraphs:,} paragraphs" + (f", {n.characters:,} characters" if n.characters else "")
    sutta = f" [cyan]{n.sutta}[/cyan]" if n.sutta else ""
    out.print(f"[bold]{escape(n.title)}[/bold]{sutta} {n.coordinate}: {size}", highlight=False)
    if n.topic:
        tags = f" (tags: {', '.join(n.topic_tags)})" if n.topic_tags else ""
        out.print(f"  topic: {n.topic} {n.topic_confidence:.2f}{tags}", highlight=False)
    if n.summary:
        out.print(f"  {escape(n.summary)}", highlight=False, soft_wrap=True)
    if res.children:
        table = Table("node", "title", "paragraphs", "topic", "summary")
        for c in res.children:
            title = c.title + (f" ({c.sutta})" if c.sutta else "")
            topic = f"{c.topic} {c.topic_confidence:.2f}" if c.topic else ""
            summary = escape((c.summary or "")[:160])
            table.add_row(c.coordinate, escape(title), f"{c.paragraphs:,}", topic, summary)
        out.print(table)


def show_versions(res: VersionsResult) -> None:
    table = Table("channel", "language", "type", "provenance", "status", "author")
    for c in res.channels:
        status = c.status + (f" → {c.anchor}" if c.anchor else "")
        table.add_row(c.channel, c.language, c.type, c.provenance, status, c.author)
    out.print(table)


def show_suggest(res: SuggestResult) -> None:
    for s in res.suggestions:
        out.print(f"{s.text}\t{s.count or ''}\t{s.note or ''}".rstrip(), highlight=False)


def show_links(res: LinksResult) -> None:
    ref = f" ({res.reference}, {res.paragraphs} paragraphs)" if res.reference or res.paragraphs > 1 else ""
    out.print(f"[bold]{res.coordinate}[/bold]{escape(ref)}", highlight=False)
    for kind in ("root", "commentary", "subcommentary", "cites", "cited_by", "parallels", "variants"):
        found = getattr(res, kind)
        if found is None:
            continue
        shown = f"{found.offset + 1}–{found.offset + len(found.items)} of " if found.items else ""
        out.print(f"[cyan]{kind.replace('_', ' ')}[/cyan]: {shown}{found.total:,}", highlight=False)
        for item in found.items:
            where = item.coordinate or item.url or item.reference or ""
            label = f" [{item.reference}]" if item.reference and item.coordinate else ""
            out.print(
                f"  [bold]{escape(where)}[/bold]{escape(label)} [dim]{escape(item.reason)}[/dim]", highlight=False
            )
            if item.shared:
                out.print(f"    shared: {escape(item.shared[:200])}", highlight=False, soft_wrap=True)
            elif item.text:
                out.print(f"    {escape(item.text)}", highlight=False, soft_wrap=True)
    for note in res.notes:
        err.print(escape(note), highlight=False)


def show_cite(res: CiteResult) -> None:
    if res.export is not None:  # the export alone, ready to redirect into a file
        out.print(res.export.rstrip("\n"), markup=False, highlight=False, soft_wrap=True)
        return
    out.print(res.citation, markup=False, highlight=False, soft_wrap=True)
    for style, entry in res.styles.items():
        out.print(f"[cyan]{escape(style)}[/cyan]: {escape(entry)}", highlight=False, soft_wrap=True)


# each verb of :mod:`gantha.verbs` by name
SHOW: dict[str, Callable[[Any], None]] = {
    "forms": show_forms,
    "word": show_word,
    "dist": show_dist,
    "get": show_get,
    "chapter": show_chapter,
    "outline": show_outline,
    "versions": show_versions,
    "links": show_links,
    "suggest": show_suggest,
    "similar": show_search,
    "concordance": show_concordance,
    "collocates": show_collocates,
    "profile": show_profile,
    "cite": show_cite,
}
