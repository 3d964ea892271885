"""Reader for the four Chinese Āgamas in Lin Chong-an's paragraph-numbered edition (``agm?-lca.md``, CC0).

Each collection is a book (``agama/da``, ``agama/ma``, ``agama/sa``, ``agama/ea``), each sūtra a section titled
with its name (經名) and recorded as a named text (``ma221`` = ``MA 221``, the uids SuttaCentral uses), each
numbered paragraph a passage: ``## 箭喻經 ^m221`` opens a sūtra, ``… ^221-3`` closes its paragraph 3, giving the
coordinate ``agama/ma/221.3`` (sub-paragraphs ``^1-4a`` → ``agama/ma/1.4a``).

The Saṃyukta's anchors follow the Taishō numbers (``^s379`` is T99 no. 379, SA 379). The Ekottarika's run on
(``^u1`` … ``^u472``); scholars cite it by chapter and sūtra (``EA 12.1``), read from the chapters (品) of the
editor's plain text (:mod:`gantha.corpus.agama_marks`) and recorded as the named text's uid.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from gantha.corpus.files import SourceError, logical_name, read_text
from gantha.model import BookInfo, ChannelInfo, Passage, TextRecord

CORPUS = "agama"
UPSTREAM = "https://raw.githubusercontent.com/accelon/agm-lca/main"
CHANNEL = ChannelInfo(
    "taisho",
    "zh-Hant",
    "original",
    "Taishō translations (4th–5th c.), punctuated and paragraph-numbered by Lin Chong-an (林崇安)",
    "CC0 1.0 (as stated upstream); the Taishō text public domain",
    "human",
    "github accelon/agm-lca",
    "The four Āgamas (內觀教育版)",
)


@dataclass(frozen=True, slots=True)
class Collection:
    """One Āgama: its file letter, book id, names and Taishō number."""

    letter: str  # the anchor letter of the edition: ^d1, ^m1, ^s1, ^u1
    book: str  # da, ma, sa, ea: SuttaCentral's uid prefix and the book's id here
    chinese: str
    sanskrit: str
    taisho: int

    @property
    def abbreviation(self) -> str:
        return self.book.upper()

    @property
    def title(self) -> str:
        return f"{self.chinese} {self.sanskrit} ({self.abbreviation}, T{self.taisho})"


COLLECTIONS = {
    c.letter: c
    for c in (
        Collection("d", "da", "長阿含經", "Dīrgha-āgama", 1),
        Collection("m", "ma", "中阿含經", "Madhyama-āgama", 26),
        Collection("s", "sa", "雜阿含經", "Saṃyukta-āgama", 99),
        Collection("u", "ea", "增壹阿含經", "Ekottarika-āgama", 125),
    )
}
BY_BOOK = {c.book: c for c in COLLECTIONS.values()}

_FILE = re.compile(r"^agm([dmsu])-lca\.(md|txt)$")
_SUTRA = re.compile(
    r"^##\s+(?P<title>[^^]*?)\s*\^(?P<letter>[dmsu])(?P<number>\d+)(?P<part>[a-z]?)[^\s^]*"
    r"(?:\s*\^(?P<closes>\d+-\d+[a-z]?))?\s*$"
)
_ANCHOR = re.compile(r"\s*\^(?P<sutra>\d+)-(?P<para>\d+[a-z]?)\s*$")
_BRACKETED = re.compile(r"\[([^\]/]{1,4})/([^\]/]{1,4})\]")  # [少/兔]: a character composed of two


@dataclass
class Sutra:
    """A sūtra as read: its number in the edition, title and paragraphs (para, text)."""

    number: int
    title: str
    paragraphs: list[tuple[str, str]]


@dataclass
class AgamaBook:
    """A collection as read: its sūtras, and what could not be read (item, reason)."""

    collection: Collection
    sutras: list[Sutra]
    skipped: list[dict[str, str]]


def collection_of(path: Path) -> Collection | None:
    m = _FILE.match(logical_name(path))
    return COLLECTIONS[m.group(1)] if m else None


def files(path: Path) -> list[Path]:
    """The edition's Markdown files (``agm?-lca.md``, plain or .gz) in a folder, or the file itself."""
    if path.is_file():
        return [path] if collection_of(path) and logical_name(path).endswith(".md") else []
    return sorted(p for p in path.glob("agm?-lca.md*") if collection_of(p) and logical_name(p).endswith(".md"))


def read_book(path: Path) -> AgamaBook:
    """Parse one collection, tolerating the edition's quirks, each reported in ``skipped``.

    A heading with a letter (``^d30b``, the chapters of DA 30; ``^m212c``) or a repeated number continues its
    sūtra as a part whose paragraphs are ``30b.1`` …; an anchor of the previous sūtra after a heading (the
    closing line "歡喜奉行" written before the heading) closes that sūtra's last paragraph.
    """
    collection = collection_of(path)
    if collection is None:
        raise SourceError(f"{path.name}: not an Āgama file of the edition (agmd/agmm/agms/agmu-lca.md)")
    book = AgamaBook(collection, [], [])
    by_number: dict[int, Sutra] = {}
    current: Sutra | None = None
    part = ""
    pending: list[str] = []  # lines read since the last anchor
    carried: list[str] = []  # the previous sūtra's lines left before a heading
    previous: Sutra | None = None

    def note(item: str, reason: str) -> None:
        book.skipped.append({"item": item, "reason": reason})

    def add(sutra: Sutra, para: str, text: str) -> None:
        """A paragraph; a number the edition repeats (SA 178) kept as ``178.1~2``, as the CST writes repeats."""
        if not text:
            return
        taken = {p for p, _ in sutra.paragraphs}
        unique, k = para, 1
        while unique in taken:
            k += 1
            unique = f"{para}~{k}"
        sutra.paragraphs.append((unique, _composed(text)))

    for n, line in enumerate(read_text(path).splitlines(), start=1):
        if line.startswith("## "):
            m = _SUTRA.match(line)
            if m is None or m.group("letter") != collection.letter:
                note(f"{path.name}:{n}", f"unreadable sūtra heading {line[:40]!r}")
                current, pending = None, []
                continue
            number = int(m.group("number"))
            if m.group("closes") and current is not None and pending:
                add(current, f"{current.number}{part}.{m.group('closes').split('-', 1)[1]}", "".join(pending))
                pending = []
            previous, carried, pending = current, pending, []
            if number in by_number:
                current = by_number[number]
                part = m.group("part") or _next_part(current)
            else:
                current = by_number[number] = Sutra(number, m.group("title").strip(), [])
                book.sutras.append(current)
                part = m.group("part")
            continue
        if line.startswith("# ") or current is None:
            continue
        m = _ANCHOR.search(line)
        if m is None:
            if line.strip():
                pending.append(line.strip())
            continue
        text = "".join([*pending, line[: m.start()].strip()])
        pending = []
        sutra = int(m.group("sutra"))
        if sutra != current.number and previous is not None and sutra == previous.number and carried:
            add(previous, f"{sutra}.{m.group('para')}", "".join(carried))
            add(current, f"{current.number}{part}.0", line[: m.start()].strip())
        elif sutra != current.number:
            note(f"{path.name}:{n}", f"anchor ^{sutra}-{m.group('para')} inside sūtra {current.number}: read as its")
            add(current, f"{current.number}{part}.{m.group('para')}", text)
        else:
            add(current, f"{current.number}{part}.{m.group('para')}", text)
        carried = []
    for sutra in book.sutras:
        if not sutra.paragraphs:
            note(f"{collection.abbreviation} {sutra.number}", "no numbered paragraph")
    book.sutras = [s for s in book.sutras if s.paragraphs]
    return book


def _next_part(sutra: Sutra) -> str:
    parts = {re.sub(r"^\d+", "", p.split(".")[0]) for p, _ in sutra.paragraphs}
    return next(c for c in "bcdefghijklmnopqrstuvwxyz" if c not in parts)


def sutra_number(para: str) -> int:
    """``221.3`` / ``30b.1`` → 221 / 30."""
    return int(re.match(r"\d+", para).group())  # type: ignore[union-attr]


def _composed(text: str) -> str:
    """``[少/兔]`` (a rare character written as its parts) kept as the parts, without the brackets' noise."""
    return _BRACKETED.sub(lambda m: m.group(1) + m.group(2), text)


def book_info(collection: Collection) -> BookInfo:
    return BookInfo(
        CORPUS,
        collection.book,
        collection.title,
        "",
        tags=["agama", "chinese"],
        group_path=["Āgamas (阿含)"],
        aliases=[collection.chinese, collection.abbreviation, f"T{collection.taisho}"],
    )


def passages(book: AgamaBook) -> list[Passage]:
    """Every paragraph of every sūtra, in reading order; the sūtra's title is its chapter."""
    out = []
    info = book_info(book.collection)
    for chapter, sutra in enumerate(book.sutras, start=1):  # chapter 0 is what precedes the first heading
        heading = f"{sutra.number} {sutra.title}"
        for para, text in sutra.paragraphs:
            out.append(
                Passage(
                    CORPUS,
                    info.book,
                    para,
                    len(out),
                    text,
                    text,
                    channel=CHANNEL.name,
                    language=CHANNEL.language,
                    book_title=info.title,
                    path=[info.title, heading],
                    chapter=chapter,
                    chapter_title=heading,
                    category="agama",
                    tags=info.tags,
                )
            )
    return out


def text_records(book: AgamaBook, found: list[Passage], names: dict[int, str]) -> list[TextRecord]:
    """A named text per sūtra: uid ``ma221`` (EA: ``ea12.1`` where the chapter is known), label ``MA 221``."""
    first: dict[int, Passage] = {}
    last: dict[int, Passage] = {}
    for p in found:
        number = sutra_number(p.para)
        first.setdefault(number, p)
        last[number] = p
    c = book.collection
    records = []
    for sutra in book.sutras:
        if sutra.number not in first:
            continue
        number = names.get(sutra.number, str(sutra.number))
        records.append(
            TextRecord(
                uid=f"{c.book}{number}",
                label=f"{c.abbreviation} {number}",
                corpus=CORPUS,
                book=c.book,
                first_para=first[sutra.number].para,
                last_para=last[sutra.number].para,
                first_seq=first[sutra.number].seq,
                last_seq=last[sutra.number].seq,
                title=sutra.title,
                zh_title=sutra.title,
            )
        )
    return records
