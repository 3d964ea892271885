"""Citations inside the texts: ``(mahāva. 86)``, ``(ma. ni. 1.22)``, ``(jā. 1.15.146; 2.20.129)`` as coordinates.

The commentaries (and some root texts) cite other texts in parentheses, by an abbreviated work name and
a locator. ``find_citations`` finds every such string in a paragraph's text and turns it into
``Target``s — a CST book, a paragraph number in that book's own numbering, the numbering run, and
the layer (the paragraph itself, or the commentary or subcommentary on it); ``resolve`` maps a target
to a paragraph id of the book. What each abbreviation means (its book or books, by volume, section
or numbering run) is the table ``gantha/data/citations.tsv``; its header documents the format.

Numbering runs. Some books restart their paragraph numbers (the Jātaka at every nipāta, the
Apadāna at every vagga, the Buddhavaṃsa at every chapter …). A book's numbered paragraphs, in
reading order, fall into runs: the first run starts at the first numbered paragraph, and a new
run starts wherever a paragraph's (first) number is lower than that of the numbered paragraph
before it. ``Target.run`` counts these runs from 1; a number repeated within one run (a CST
slip such as the Jātaka's second ``21`` in the Paṇṇāsanipāta) stays in that run, and the first
paragraph carrying it is the one cited.

Pure: no I/O beyond reading the table once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from gantha.text.pali import fold

TABLE = Path(__file__).resolve().parents[1] / "data" / "citations.tsv"
LAYERS = ("atthakatha", "tika")
MAX_RANGE = 1000
"""Ranges wider than this are not expanded (reported as a problem instead)."""


@dataclass(frozen=True, slots=True)
class Target:
    """A cited place: ``number`` in the paragraph numbering of ``book`` (its ``run``-th run), on ``layer``.

    ``layer`` None: that paragraph itself; ``"atthakatha"``/``"tika"``: the commentary or subcommentary
    on that root paragraph (``book`` is then the root text).
    """

    book: str
    number: int
    run: int = 1
    layer: str | None = None


@dataclass(frozen=True, slots=True)
class Citation:
    """One citation string as written (``text`` = ``paragraph[start:end]``) and what it points to."""

    text: str
    abbreviation: str
    start: int
    end: int
    targets: tuple[Target, ...]
    problem: str | None = None


# ---------------------------------------------------------------------------------------------- table


@dataclass(frozen=True, slots=True)
class Entry:
    """Where one key of a work leads: a book, a fixed run or an offset added to the run field, and
    the paragraph numbers it holds (an entry for part of a volume)."""

    book: str
    run: int | None = None  # fixed run
    offset: int = 0  # added to the run field of the locator
    numbers: tuple[int, int] = (0, 1 << 30)


@dataclass(frozen=True, slots=True)
class Work:
    """A row of the table: an abbreviation, its work, layer, numbering schemes and books by key."""

    abbreviation: str
    title: str
    layer: str | None
    schemes: tuple[tuple[str, ...], ...]  # field lists: vol, run, para, _ (ignored)
    entries: Mapping[str, tuple[Entry, ...]]  # "1", "2.17", a section name, "3+name", or "*"
    external: bool = False
    aliases: tuple[str, ...] = field(default=())


_ENTRY = re.compile(r"^(?P<book>[^@:]+)(?:@(?P<run>[+-]?\d+))?(?::(?P<lo>\d+)-(?P<hi>\d+))?$")


def _entry(spec: str) -> Entry:
    m = _ENTRY.match(spec)
    if not m:
        raise ValueError(f"citations table: bad entry {spec!r}")
    run, numbers = m.group("run"), (0, 1 << 30)
    if m.group("lo"):
        numbers = (int(m.group("lo")), int(m.group("hi")))
    if run is None:
        return Entry(m.group("book"), numbers=numbers)
    if run[0] in "+-":
        return Entry(m.group("book"), offset=int(run), numbers=numbers)
    return Entry(m.group("book"), run=int(run), numbers=numbers)


def _work(cells: list[str]) -> Work:
    abbreviation, title, layer, scheme, books = cells[:5]
    aliases = tuple(a.strip() for a in cells[5].split(",") if a.strip()) if len(cells) > 5 else ()
    entries: dict[str, tuple[Entry, ...]] = {}
    for item in books.split():
        if item == "-":
            continue
        key, sep, spec = item.rpartition("=")
        entries[key if sep else "*"] = (*entries.get(key if sep else "*", ()), _entry(spec))
    if layer not in ("-", *LAYERS):
        raise ValueError(f"citations table: {abbreviation}: unknown layer {layer!r}")
    external = scheme == "external"
    schemes = () if external else tuple(tuple(alt.split(".")) for alt in scheme.split("|"))
    return Work(abbreviation, title, None if layer == "-" else layer, schemes, entries, external, aliases)


def parse_table(text: str) -> dict[str, Work]:
    """The works of a table in the ``citations.tsv`` format, by normalised abbreviation and alias."""
    works: dict[str, Work] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        work = _work(line.split("\t"))
        for name in (work.abbreviation, *work.aliases):
            works[_key(name.split())] = work
    return works


@cache
def table() -> dict[str, Work]:
    """The packaged abbreviation table, read once."""
    return parse_table(TABLE.read_text(encoding="utf-8"))


def _key(words: Sequence[str]) -> str:
    """Lookup key of an abbreviation: folded, dots and case ignored (``Dī.ni.`` = ``dī. ni.``)."""
    parts = (w for word in words for w in word.split("."))
    return " ".join(fold(p) for p in parts if p)


def normalise(words: Sequence[str]) -> str:
    """An abbreviation as written, normalised: lower case, one space after each dot (``dī.ni.`` → ``dī. ni.``)."""
    text = " ".join(words).lower()
    text = re.sub(r"\.+", ".", text)
    return re.sub(r"\.\s*(?=\S)", ". ", text).strip()


# --------------------------------------------------------------------------------------------- parsing

_GROUP = re.compile(r"\(([^()]*)\)")
_SPLIT = re.compile(r"[;,]")
# a new citation starts after a number without separator: "1.1 ma. ni. aṭṭha. 1.1"
_RESTART = re.compile(r"(?<=\d)[\s.]+(?=[^\W\d_]{1,8}\.\s)")
_WORD = re.compile(r"[^\W\d_]+(\.*)")
_LOC_TOKEN = re.compile(r"\d+(?:\s*[-–]\s*\d+)*|[^\W\d_]+|\S")
_PAGE_WORDS = ("piṭṭh",)
_ABBREVIATED = 8
"""An abbreviated word has at most this many letters (``aṭṭha.``, ``mūlaṭī.``); a longer dotted word is a
section's name (``anusayayamaka.``)."""


@dataclass(slots=True)
class _Words:
    """A word before the locator: its text, whether a dot follows it, and its offsets."""

    text: str
    dotted: bool
    start: int
    end: int


@dataclass(slots=True)
class _Locator:
    """The numbers of a citation (each a range lo-hi), the section words and where the numbers lie."""

    numbers: list[tuple[int, int]]
    section: list[str]
    start: int
    end: int
    problem: str | None = None
    trailing: list[str] = field(default_factory=list)  # words after the numbers: "ādayo", a section's name


@dataclass(slots=True)
class _Parsed:
    """One segment of a parenthesised group: abbreviation words, their work (when known), the locator."""

    work: Work | None
    abbreviation: str
    section: list[str]
    locator: _Locator | None
    start: int
    end: int


def _segments(group: str, offset: int) -> Iterator[tuple[str, int]]:
    """The group split at ``;`` and ``,`` (and where a new abbreviation follows a number), with offsets."""
    pos = 0
    for m in [*_SPLIT.finditer(group), None]:
        end = m.start() if m else len(group)
        piece, base = group[pos:end], offset + pos
        sub = 0
        for r in _RESTART.finditer(piece):
            yield piece[sub : r.start()], base + sub
            sub = r.end()
        yield piece[sub:], base + sub
        pos = m.end() if m else len(group)


def _words(segment: str, start: int) -> tuple[list[_Words], int]:
    """The words before the first digit of a segment, and the index of that digit (-1: none)."""
    digit = next((i for i, ch in enumerate(segment) if ch.isdecimal()), -1)
    head = segment if digit < 0 else segment[:digit]
    words = [
        _Words(m.group(0).rstrip("."), bool(m.group(1)), start + m.start(), start + m.end())
        for m in _WORD.finditer(head)
    ]
    return words, digit


def _locator(text: str, start: int) -> _Locator:
    """Numbers, section words and trailing words of a locator such as ``2.cittayamaka.81`` or ``84-86 ādayo``.

    A name joined by a dot to the last number (``1.paṭhamamahāsaṅgītikathā``) is a section named instead
    of a paragraph number.
    """
    numbers: list[tuple[int, int]] = []
    section: list[str] = []
    trailing: list[str] = []
    end, problem, previous, named = start, None, "", False
    for m in _LOC_TOKEN.finditer(text):
        token = m.group(0)
        if token[0].isdecimal():
            bounds = [int(n) for n in re.split(r"\s*[-–]\s*", token)]
            if len(bounds) > 2:
                problem = f"malformed number {token!r}"
            numbers.append(_range(bounds[0], bounds[-1]))
            section += trailing
            trailing, named = [], False
            end = start + m.end()
        elif token[0].isalpha():
            if not trailing and previous == "." and numbers:
                named, end = True, start + m.end()
            trailing.append(token)
        previous = token
    if named:
        problem = "named section, no number"
    elif any(w.lower().startswith(_PAGE_WORDS) for w in trailing):
        problem = "a page number, not a paragraph"
    return _Locator(numbers, section, start, end, problem, trailing)


def _range(lo: int, hi: int) -> tuple[int, int]:
    """``583-4`` means 583-584: an end shorter than the start replaces the start's last digits."""
    if hi < lo and len(str(hi)) < len(str(lo)):
        hi = int(str(lo)[: len(str(lo)) - len(str(hi))] + str(hi))
    return lo, hi


def _find_work(words: list[_Words], works: Mapping[str, Work], numbered: bool) -> tuple[int, int, Work | None] | None:
    """The first, longest run of words naming a known work; a name written without any dot only alone
    before the numbers (``cariyā 3.65``, ``pāṇini 3.2.5``).

    A known name within a longer abbreviation (``dha. pa.`` in ``dha. pa. aṭṭha.``: followed by another
    abbreviated word that is none of its sections; ``pari.`` in ``nāma. pari.``: after one) is part of an
    unknown name: the work is then None.
    """
    for i in range(len(words)):
        for j in range(len(words), i, -1):
            work = works.get(_key([w.text for w in words[i:j]]))
            dotted = any(w.dotted for w in words[i:j])
            if work and (dotted or (numbered and i == 0 and j == len(words))):
                start, end = i, j
                while start > 0 and _abbreviated(words[start - 1]):
                    start -= 1
                while end < len(words) and _abbreviated(words[end]) and not _is_section(work, words[end].text):
                    end += 1
                return start, end, work if (start, end) == (i, j) else None
    return None


def _abbreviated(word: _Words) -> bool:
    """Whether a word is written as an abbreviation: dotted and short."""
    return word.dotted and len(word.text) <= _ABBREVIATED


def _is_section(work: Work, word: str) -> bool:
    """Whether a word names one of the work's sections (a key of the table that is not a number)."""
    folded = fold(word)
    return any(folded.startswith(fold(k)) for k in _names(work))


def _names(work: Work) -> list[str]:
    """The section names among a work's keys (``tikamātikā``, ``3+saṅghādisesa`` → ``saṅghādisesa``)."""
    return [k.rpartition("+")[2] for k in work.entries if not k.rpartition("+")[2][0].isdecimal() and k != "*"]


def _unknown(words: list[_Words]) -> tuple[int, int] | None:
    """The abbreviated words that look like a work's name (``nāma. pari.``), as a slice; None: prose."""
    last = max((k for k, w in enumerate(words) if _abbreviated(w)), default=-1)
    if last < 0:
        return None
    first = last
    while first > 0 and _abbreviated(words[first - 1]):
        first -= 1
    return first, last + 1


def _parse(segment: str, start: int, works: Mapping[str, Work]) -> _Parsed | None:
    """A segment as (abbreviation, section, locator); None when it names no work and has no number."""
    words, digit = _words(segment, start)
    locator = _locator(segment[digit:], start + digit) if digit >= 0 else None
    found = _find_work(words, works, locator is not None)
    if found:
        i, j, work = found
        section = [w.text for w in words[j:]] + (locator.section if locator else [])
        name = normalise([words[k].text + ("." if words[k].dotted else "") for k in range(i, j)])
        return _Parsed(work, name, section, locator, words[i].start, locator.end if locator else words[-1].end)
    span = _unknown(words)
    if span and locator:
        i, j = span
        name = normalise([w.text + "." for w in words[i:j]])
        return _Parsed(None, name, [w.text for w in words[j:]] + locator.section, locator, words[i].start, locator.end)
    if locator and locator.numbers:  # a bare number, or section words and a number: maybe a continuation
        first = words[0].start if words else locator.start
        return _Parsed(None, "", [w.text for w in words] + locator.section, locator, first, locator.end)
    return None


def find_citations(text: str, works: Mapping[str, Work] | None = None) -> list[Citation]:
    """Every citation string in a paragraph's text, in order, resolved to targets where the table allows."""
    works = table() if works is None else works
    found: list[Citation] = []
    for group in _GROUP.finditer(text):
        found += _group_citations(text, group.group(1), group.start(1), works)
    return found


def _group_citations(text: str, group: str, offset: int, works: Mapping[str, Work]) -> list[Citation]:
    """The citations of one parenthesised group; bare numbers continue the citation before them."""
    citations: list[Citation] = []
    previous: _Parsed | None = None
    for segment, start in _segments(group, offset):
        parsed = _parse(segment, start, works)
        if parsed is None:
            continue
        if not parsed.abbreviation:
            if previous is None or previous.locator is None:
                continue  # "(1.)", "(2)": numbers that cite nothing
            parsed = _continue(previous, parsed)
        citations.append(_citation(text, parsed))
        previous = parsed
    return citations


def _continue(previous: _Parsed, parsed: _Parsed) -> _Parsed:
    """A continuation (``2.20.129`` after ``jā. 1.15.146``): the previous work, leading numbers, section."""
    assert previous.locator is not None and parsed.locator is not None
    numbers, before = parsed.locator.numbers, previous.locator.numbers
    if len(numbers) < len(before):
        numbers = before[: len(before) - len(numbers)] + numbers
    section = parsed.section or previous.section
    locator = _Locator(
        numbers, [], parsed.locator.start, parsed.locator.end, parsed.locator.problem, parsed.locator.trailing
    )
    return _Parsed(previous.work, previous.abbreviation, section, locator, parsed.start, parsed.end)


def _citation(text: str, parsed: _Parsed) -> Citation:
    """A ``Citation`` of a parsed segment: its targets, or the problem that keeps it unresolved."""
    work, locator = parsed.work, parsed.locator
    abbreviation = work.abbreviation if work else parsed.abbreviation
    targets: tuple[Target, ...] = ()
    if work is None:
        problem: str | None = "unknown abbreviation"
    elif work.external:
        problem = f"{work.title}: a work outside the CST canon"
    elif locator is None or not locator.numbers:
        problem = "named section, no number" if parsed.section else "no number"
    elif locator.problem:
        problem = locator.problem
    else:
        targets, problem = _targets(work, locator.numbers, parsed.section, locator.trailing)
    return Citation(text[parsed.start : parsed.end], abbreviation, parsed.start, parsed.end, targets, problem)


# ------------------------------------------------------------------------------------------ targets


def _targets(
    work: Work, numbers: list[tuple[int, int]], section: list[str], trailing: list[str]
) -> tuple[tuple[Target, ...], str | None]:
    """Targets of a work's locator by its scheme (a section may be named after the numbers); or why none."""
    fields = next((s for s in work.schemes if len(s) == len(numbers)), None)
    if fields is None:
        if section and len(numbers) < max(len(s) for s in work.schemes):
            return (), "named section, no number"
        forms = " or ".join(".".join(s) for s in work.schemes)
        return (), f"{len(numbers)} numbers where {work.abbreviation} is cited as {forms}"
    values = dict(zip(fields, numbers, strict=True))
    if any(lo != hi for f, (lo, hi) in zip(fields, numbers, strict=True) if f != "para"):
        return (), "a range over volumes or runs"
    volume = ".".join(str(lo) for f, (lo, _) in zip(fields, numbers, strict=True) if f == "vol")
    run_field = values["run"][0] if "run" in values else None
    lo, hi = values["para"]
    entry, problem = _lookup(work, volume, run_field, section + trailing, lo)
    if entry is None:
        return (), problem
    run = entry.run if entry.run is not None else (run_field or 1) + entry.offset
    if hi - lo >= MAX_RANGE or run < 1:
        return (), "range too wide" if run >= 1 else "run before the book's first"
    return tuple(Target(entry.book, n, run, work.layer) for n in range(lo, hi + 1)), None


def _lookup(
    work: Work, volume: str, run: int | None, section: list[str], number: int
) -> tuple[Entry | None, str | None]:
    """The entry for the locator: by section name (with its volume), by volume and run, by volume, by default."""
    named = _named_keys(work, volume, section)
    numeric = [k for k in work.entries if k[0].isdecimal() and "+" not in k]
    keys = list(named)
    if run is not None:
        keys += [k for k in numeric if _numbers_match(k, f"{volume}.{run}" if volume else str(run))]
    keys += [k for k in numeric if volume and _numbers_match(k, volume)] + ["*"]
    for key in keys:
        for entry in work.entries.get(key, ()):
            if entry.numbers[0] <= number <= entry.numbers[1]:
                if entry.book == "?":
                    return None, f"volume {volume} holds several books and no section is named"
                return entry, None
    if volume and not any(_numbers_match(k.split(".")[0], volume.split(".")[0]) for k in numeric):
        volumes = {k.split(".")[0] for k in numeric}
        return None, f"volume {volume} of a {len(volumes)}-volume work"
    if section and not named and any(not k[0].isdecimal() for k in work.entries if k != "*"):
        return None, "named section unknown"
    return None, "number outside the volume" if volume else "number outside the work"


def _named_keys(work: Work, volume: str, section: list[str]) -> list[str]:
    """The section keys (``mahāvagg``, ``3+saṅghādisesa``) the cited words begin with, most specific first."""
    cited = [fold(w) for w in section]
    keys = []
    for key in work.entries:
        vol, _, name = key.rpartition("+")
        if name[0].isdecimal() or name == "*" or (vol and vol != volume):
            continue
        if any(c.startswith(fold(name)) for c in cited):
            keys.append(key)
    return sorted(keys, key=lambda k: ("+" in k, len(k)), reverse=True)


def _numbers_match(key: str, value: str) -> bool:
    """Whether a numeric key (``2``, ``2.17``, ``1-16``) matches dotted numbers, part by part."""
    parts, values = key.split("."), value.split(".")
    if len(parts) != len(values):
        return False
    for part, v in zip(parts, values, strict=True):
        lo, _, hi = part.partition("-")
        if not (lo.isdecimal() and v.isdecimal() and int(lo) <= int(v) <= int(hi or lo)):
            return False
    return True


# ---------------------------------------------------------------------------------------- resolution


def para_bounds(para: str) -> tuple[int, int]:
    """The numbers a paragraph id covers: ``75`` → (75, 75), ``84-87`` → (84, 87), ``12~2`` → (12, 12)."""
    numbers = para.split("~")[0].split("-")
    return int(numbers[0]), int(numbers[-1])


def runs(ids: Sequence[str]) -> list[dict[int, str]]:
    """A book's numbered paragraph ids split into numbering runs, each as number → first id covering it."""
    out: list[dict[int, str]] = []
    previous = None
    for para in ids:
        lo, hi = para_bounds(para)
        if previous is None or lo < previous:
            out.append({})
        previous = lo
        for n in range(lo, min(hi, lo + MAX_RANGE) + 1):
            out[-1].setdefault(n, para)
    return out


_RUNS: dict[int, tuple[Sequence[str], list[dict[int, str]]]] = {}


def _book_runs(ids: Sequence[str]) -> list[dict[int, str]]:
    """``runs`` of a sequence, remembered by identity (a numbering mapping is read many times, not changed)."""
    cached = _RUNS.get(id(ids))
    if cached is None or cached[0] is not ids:
        if len(_RUNS) > 1024:
            _RUNS.clear()
        cached = _RUNS[id(ids)] = (ids, runs(ids))
    return cached[1]


def resolve(target: Target, numbering: Mapping[str, Sequence[str]]) -> str | None:
    """The paragraph id of ``target`` in its book (``"86"``, ``"84-87"``, ``"146~15"``), or None.

    ``numbering``: book id → that book's numbered paragraph ids in reading order (ids without a ``.``).
    For a layered target the id is that of the root paragraph the commentary comments on.
    """
    ids = numbering.get(target.book)
    if not ids:
        return None
    book_runs = _book_runs(ids)
    if not 1 <= target.run <= len(book_runs):
        return None
    return book_runs[target.run - 1].get(target.number)
