"""Rebuild the links between paragraphs from the link facts of every CST book: commentary layers, resolved
citations and repeated passages, with the coverage of each in a summary and in report files.

Each book's facts are gathered when it is read (or, for a book read before links existed, from its stored
passages), so a change to one book costs its own reading plus this rebuild (seconds), not a reading of the
canon. An index whose books are unchanged since its links were built is left alone.
"""

from __future__ import annotations

import hashlib
import time
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from gantha.links import layers, parallels
from gantha.links.facts import BookFacts, gather, pack, signature, unpack
from gantha.store.base import Store
from gantha.store.links import LinkRow
from gantha.text.citations import Target, resolve

CORPUS = "cst"
VERSION = 3  # raise when links are computed differently: every index rebuilds them
KINDS = ("comments", "cites", "parallel")  # what a rebuild replaces (curated parallels are loaded apart)


@dataclass
class LinkSummary:
    books: int = 0
    seconds: float = 0.0
    layers: dict[str, dict] = field(default_factory=dict)  # layer → numbered paragraphs, linked, share
    unpaired: list[dict] = field(default_factory=list)  # {"book", "reason"}: commentaries without a root
    citations: dict = field(default_factory=dict)  # found, resolved, share
    parallels: int = 0
    report: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def _coordinate(book: str, para: str) -> str:
    return f"{CORPUS}/{book}/{para}"


def refresh(store: Store, *, force: bool = False, reports: Path | None = None) -> LinkSummary | None:
    """Rebuild the links if any CST book changed since they were built (``force``: in any case); None when
    nothing was to do."""
    started = time.perf_counter()
    records = {key.split("/", 1)[1]: r for key, r in store.books(CORPUS).items()}
    signatures = "|".join(f"{b}:{signature(r.signature)}" for b, r in sorted(records.items()))
    stamp = hashlib.sha1(f"{VERSION}|{signatures}".encode()).hexdigest()
    if not force and store.get_meta("links") == stamp:
        return None
    facts = _facts(store, records)
    titles = {b: r.info.title for b, r in records.items()}
    summary = LinkSummary(books=len(facts))
    comment_rows, coverage = _layers(facts, titles, summary)
    cite_rows, cited = _citations(facts, comment_rows, summary)
    parallel_rows = _parallels(facts)
    summary.parallels = len(parallel_rows)
    store.replace_links(KINDS, [*comment_rows, *cite_rows, *parallel_rows])
    store.set_meta("links", stamp)
    if reports is not None:
        summary.report = str(_write_reports(reports, coverage, cited, summary))
    summary.seconds = round(time.perf_counter() - started, 2)
    return summary


def _facts(store: Store, records: dict) -> dict[str, BookFacts]:
    """Every indexed book's facts: as stored, or gathered again from its passages when missing or stale."""
    stored = store.link_facts(CORPUS)
    out: dict[str, BookFacts] = {}
    missing = []
    for book, record in sorted(records.items()):
        row = stored.get(book)
        if row is not None and row.signature == signature(record.signature):
            out[book] = unpack(row)
        else:
            out[book] = gather(book, store.book_passages(CORPUS, book))
            missing.append(pack(CORPUS, record.signature, out[book]))
    store.set_link_facts(missing)
    return out


# --- layers ----------------------------------------------------------------------------------------


def _layers(facts: dict[str, BookFacts], titles: dict[str, str], summary: LinkSummary):
    """Every commentary paragraph linked to the paragraphs it explains (its parent layer's and the root text's)."""
    numbered = {b: layers.numbered(b, f.paragraphs) for b, f in facts.items()}
    pairs = layers.pairings(titles)
    roots = layers.roots_of(pairs)
    rows: list[LinkRow] = []
    coverage: dict[str, dict] = {}
    for pairing in pairs:
        child = [n for b in pairing.child for n in numbered[b]]
        parents = [pairing.parent]
        if (bottom := roots.get(pairing.child[0])) and bottom != pairing.parent:
            parents.append(bottom)  # a ṭīkā also to the root text the aṭṭhakathā explains
        for k, parent_books in enumerate(parents):
            matches = layers.align(child, [n for b in parent_books for n in numbered[b]])
            rows += [_comment_row(m, pairing.role) for m in matches]
            if k == 0:
                linked = Counter(m.child.book for m in matches)
                for b in pairing.child:
                    coverage[b] = {
                        "book": b,
                        "title": titles[b],
                        "layer": pairing.role,
                        "explains": ",".join(pairing.parent),
                        "numbered": len(numbered[b]),
                        "linked": linked[b],
                    }
    for book, title in sorted(titles.items()):
        layer = layers.role(book, title)
        if book not in coverage and (layer in ("atthakatha", "tika") or book in layers.UNPAIRED):
            reason = layers.UNPAIRED.get(book, "no root text among the indexed books")
            summary.unpaired.append({"book": book, "reason": reason})
            coverage[book] = {
                "book": book,
                "title": title,
                "layer": layer or "tika",
                "explains": "",
                "numbered": len(numbered[book]),
                "linked": 0,
            }
    for layer in ("atthakatha", "tika"):
        books = [c for c in coverage.values() if c["layer"] == layer]
        total, linked = sum(c["numbered"] for c in books), sum(c["linked"] for c in books)
        summary.layers[layer] = {"numbered": total, "linked": linked, "share": round(linked / max(total, 1), 4)}
    return rows, coverage


def _comment_row(m: layers.Match, role: str) -> LinkRow:
    how = f"paragraph number {m.child.para.split('~')[0]}"
    return LinkRow(
        "comments",
        _coordinate(m.child.book, m.child.para),
        _coordinate(m.parent.book, m.parent.para),
        m.child.book,
        m.child.seq,
        m.parent.book,
        m.parent.seq,
        0.5 if m.nearest else 1.0,
        f"{how}, the nearest root paragraph so numbered" if m.nearest else how,
        role,
    )


class Commentaries:
    """The commentary paragraphs on a root paragraph, by layer: those numbered for it, else the section the
    paragraph falls in (the last commented paragraph before it)."""

    def __init__(self, rows: list[LinkRow]):
        self.direct: dict[tuple[str, str], list[str]] = defaultdict(list)
        sections: dict[tuple[str, str], list[tuple[int, str]]] = defaultdict(list)
        for r in rows:
            self.direct[(r.dst, r.layer)].append(r.src)
            sections[(r.dst_book, r.layer)].append((r.dst_seq, r.dst))
        self.sections = {key: sorted(set(v)) for key, v in sections.items()}

    def on(self, root: str, book: str, seq: int, layer: str) -> list[str]:
        if found := self.direct.get((root, layer)):
            return found
        section = self.sections.get((book, layer), [])
        k = bisect_right(section, (seq, "\U0010ffff"))
        return self.direct[(section[k - 1][1], layer)] if k else []


# --- citations -------------------------------------------------------------------------------------


def _citations(facts: dict[str, BookFacts], comment_rows: list[LinkRow], summary: LinkSummary):
    """Each citation resolved to the paragraphs it names (a commentary citation: the commentary on them)."""
    numbering = {b: [p for p, _ in f.paragraphs if layers.is_numbered(p)] for b, f in facts.items()}
    seqs = {(b, p): s for b, f in facts.items() for p, s in f.paragraphs}
    commentaries = Commentaries(comment_rows)
    rows: dict[tuple[str, str], LinkRow] = {}
    cited: dict[str, Counter] = {"found": Counter(), "resolved": Counter(), "unresolved": Counter()}
    for book, f in facts.items():
        for c in f.citations:
            cited["found"][c.abbreviation] += 1
            para, seq = f.paragraphs[c.paragraph]
            src = _coordinate(book, para)
            targets = []
            for target_book, number, run, layer in c.targets:
                found = resolve(Target(target_book, number, run, layer), numbering)
                if found is None:
                    continue
                root = _coordinate(target_book, found)
                if layer is None:
                    targets.append(root)
                else:
                    targets += commentaries.on(root, target_book, seqs[(target_book, found)], layer)
            if not targets:
                why = c.problem or ("the paragraph cited is not in the book" if c.targets else "not understood")
                cited["unresolved"][(c.abbreviation, why)] += 1
                continue
            cited["resolved"][c.abbreviation] += 1
            for dst in targets:
                dst_book, dst_para = dst.split("/")[1:]
                layer = next((t[3] for t in c.targets), None) or ""
                rows.setdefault(
                    (src, dst),
                    LinkRow(
                        "cites", src, dst, book, seq, dst_book, seqs.get((dst_book, dst_para), 0), 1.0, c.text, layer
                    ),
                )
    found, resolved = sum(cited["found"].values()), sum(cited["resolved"].values())
    summary.citations = {"found": found, "resolved": resolved, "share": round(resolved / max(found, 1), 4)}
    return list(rows.values()), cited


# --- parallels --------------------------------------------------------------------------------------


def _parallels(facts: dict[str, BookFacts]) -> list[LinkRow]:
    """Pairs of paragraphs that repeat a stretch of text, over the whole corpus (one row a pair)."""
    books = sorted(facts)
    offsets = np.cumsum([0, *(len(facts[b].paragraphs) for b in books)])
    if not books or not offsets[-1]:
        return []
    hashes = np.concatenate([facts[b].hashes for b in books])
    owners = np.concatenate([facts[b].owners.astype(np.int64) + offsets[i] for i, b in enumerate(books)])
    first, second, shared = parallels.pairs(hashes, owners)
    at = [(_coordinate(b, para), b, seq) for b in books for para, seq in facts[b].paragraphs]
    return [
        # the weight: the shared stretches, each weighed by its rarity
        LinkRow("parallel", at[a][0], at[b][0], at[a][1], at[a][2], at[b][1], at[b][2], round(n, 2))
        for a, b, n in zip(first.tolist(), second.tolist(), shared.tolist(), strict=True)
    ]


# --- reports ----------------------------------------------------------------------------------------


def _write_reports(folder: Path, coverage: dict[str, dict], cited: dict[str, Counter], summary: LinkSummary) -> Path:
    """``links-layers.tsv`` (each commentary book: what it explains, numbered and linked paragraphs; the books
    not paired and why) and ``links-citations.tsv`` (per abbreviation: found, resolved; the unresolved forms)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = ["book\ttitle\tlayer\texplains\tnumbered\tlinked\tshare"]
    for c in sorted(coverage.values(), key=lambda c: c["book"]):
        share = c["linked"] / c["numbered"] if c["numbered"] else 0
        lines.append(
            f"{c['book']}\t{c['title']}\t{c['layer']}\t{c['explains']}\t{c['numbered']}\t{c['linked']}\t{share:.3f}"
        )
    lines += ["", "not paired\treason"] + [f"{u['book']}\t{u['reason']}" for u in summary.unpaired]
    (folder / "links-layers.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    lines = ["abbreviation\tfound\tresolved\tshare"]
    for abbreviation, n in cited["found"].most_common():
        lines.append(
            f"{abbreviation}\t{n}\t{cited['resolved'][abbreviation]}\t{cited['resolved'][abbreviation] / n:.3f}"
        )
    lines += ["", "unresolved\tcount\treason"]
    lines += [f"{abbreviation}\t{n}\t{why}" for (abbreviation, why), n in cited["unresolved"].most_common()]
    (folder / "links-citations.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "links-layers.tsv"
