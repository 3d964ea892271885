"""Reader for verse-aligned Bibles: ``<Book number name englishName><Chapter number><Line number>``.

One passage per verse per translation, coordinate ``bible/<book>/<chapter>:<verse>`` (book ids such
as ``romans``, ``1corinthians``), the channel naming the translation (``kjv``, ``cuv``). The same
coordinate in each channel is the same verse, so ``versions`` and ``get --channel`` work as for the
Pali. Verse references (``Rom 3:24``, ``1 Cor 13:4``, ``罗马书 3:24``) parse to a coordinate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from gantha.corpus.files import SourceError, logical_name, read_xml_text
from gantha.model import BookInfo, ChannelInfo, Passage

CORPUS = "bible"
CHANNELS = {
    "kjv": ChannelInfo(
        "kjv", "en", "translation", "King James Version (1769)", "public domain", "human", "mobo ShenJingJava/data/kjv"
    ),
    "cuv": ChannelInfo(
        "cuv",
        "zh-Hans",
        "translation",
        "Chinese Union Version (和合本, simplified)",
        "public domain",
        "human",
        "mobo ShenJingJava/data/hhb",
    ),
}
_FILE_CHANNEL = {"kjv": "kjv", "hhb": "cuv", "cuv": "cuv"}
_ABBREVIATIONS = {  # where a prefix of the English name is not what people write
    "mt": "matthew",
    "mk": "mark",
    "lk": "luke",
    "jn": "john",
    "ps": "psalms",
    "psa": "psalms",
    "jdg": "judges",
    "phil": "philippians",
    "php": "philippians",
    "phlm": "philemon",
    "phm": "philemon",
    "song": "songofsongs",
    "sos": "songofsongs",
    "eccl": "ecclesiastes",
    "qoh": "ecclesiastes",
    "jas": "james",
    "rev": "revelation",
    "ezk": "ezekiel",
    "jg": "judges",
    "dt": "deuteronomy",
    "nb": "numbers",
}
_REFERENCE = re.compile(r"^\s*(?P<book>(?:[1-3]\s*)?[^\d\s:][^\d:]*?)\s*(?P<chapter>\d+)(?::(?P<verse>\d+))?\s*$")


def book_id(english_name: str) -> str:
    """``Corinthians1`` → ``1corinthians``; ``Song of Songs`` → ``songofsongs``: the title, run together."""
    return book_title(english_name).lower().replace(" ", "")


def book_title(english_name: str) -> str:
    """``Corinthians1`` → ``1 Corinthians``, as the book is cited; other names as written."""
    m = re.match(r"^(\D+?)\s*([1-3])$", english_name.strip())
    return f"{m.group(2)} {m.group(1)}" if m else english_name.strip()


@dataclass(frozen=True, slots=True)
class VerseRef:
    book: str
    chapter: int
    verse: int | None = None

    @property
    def coordinate(self) -> str | None:
        return f"{CORPUS}/{self.book}/{self.chapter}:{self.verse}" if self.verse else None


def parse_reference(text: str, chinese_names: dict[str, str], books: list[str]) -> VerseRef:
    """``Rom 3:24``, ``1 Cor 13:4``, ``罗马书 3:24`` → book id, chapter, verse; ValueError if not a reference."""
    m = _REFERENCE.match(text)
    if not m:
        raise ValueError(f"not a verse reference: {text!r} (e.g. 'Rom 3:24', '1 Cor 13:4', '罗马书 3:24')")
    raw = m.group("book").strip().rstrip(".")
    key = raw.lower().replace(" ", "").replace(".", "")
    book = chinese_names.get(raw) or _ABBREVIATIONS.get(key) or (key if key in books else None)
    if book is None:
        candidates = [b for b in books if b.startswith(key)]
        if len(candidates) != 1:
            raise ValueError(f"unknown or ambiguous book {raw!r} in {text!r}")
        book = candidates[0]
    verse = m.group("verse")
    return VerseRef(book, int(m.group("chapter")), int(verse) if verse else None)


@dataclass
class BibleFile:
    path: Path
    channel: ChannelInfo


def files(path: Path) -> list[BibleFile]:
    """Every Bible book file under a folder; the channel comes from the file name (kjv…, hhb…)."""
    found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if logical_name(p).endswith(".xml"))
    out = []
    for f in found:
        prefix = re.match(r"^[a-z]+", logical_name(f))
        channel = _FILE_CHANNEL.get(prefix.group() if prefix else "")
        if channel:
            out.append(BibleFile(f, CHANNELS[channel]))
    return out


def read_file(bf: BibleFile) -> tuple[BookInfo, str, Iterator[Passage]]:
    """The book's info, its Chinese name, and its verses; SourceError if the file is not such a book."""
    try:
        root = etree.fromstring(read_xml_text(bf.path))
    except etree.XMLSyntaxError as exc:
        raise SourceError(f"{bf.path}: {exc}") from exc
    if root.tag != "Book" or not root.get("englishName"):
        raise SourceError(f"{bf.path}: not a <Book englishName=…> file")
    book = book_id(root.get("englishName", ""))
    number = int(root.get("number", "0") or 0)
    info = BookInfo(CORPUS, book, book_title(root.get("englishName", book)), "", ["nt" if number >= 40 else "ot"])

    def verses() -> Iterator[Passage]:
        seq = 0
        for chapter in root.iter("Chapter"):
            c = int(chapter.get("number", "0"))
            for line in chapter.iter("Line"):
                text = " ".join("".join(line.itertext()).split())
                if not text:
                    continue
                seq += 1
                yield Passage(
                    corpus=CORPUS,
                    book=book,
                    para=f"{c}:{line.get('number')}",
                    seq=seq,
                    text=text,
                    display=text,
                    channel=bf.channel.name,
                    language=bf.channel.language,
                    granularity="verse",
                    book_title=info.title,
                    path=[info.title, f"{info.title} {c}"],
                    chapter=c,
                    tags=info.tags,
                )

    return info, root.get("name", ""), verses()
