"""Reader for the Chaṭṭha Saṅgāyana Tipiṭaka (CST4) XML.

Two layouts are read alike: one file per book (``vin02m3.mul.xml``), or a book split into chapter
files listed by ``BOOK.toc.xml`` (``vin02m3.mul0.xml``, ``vin02m3.mul1.xml`` …). Each file may be
plain or gzip-compressed, UTF-8 or UTF-16. A global ``tipitaka_toc*.xml`` tree, when present, gives
book titles and their place in the canon.

Coordinates (``cst/<book>/<para>``), identical in both layouts because every count runs per book:

* a paragraph with a CST number ``n`` gets ``n`` (``75``, or a range such as ``1-6``);
* a number already used earlier in the same book (numbering restarts in some books, e.g. the
  Apadāna or the Mahāvaṃsa) gets ``n~k`` for its k-th occurrence (``12~2``);
* a paragraph without a number (verse, heading) gets ``<last anchor>.<i>``: the i-th unnumbered
  paragraph after the last numbered one (``75.3``), ``0.<i>`` before the first.
"""

from __future__ import annotations

import contextlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

from gantha.corpus.files import SourceError, logical_name, read_xml_text
from gantha.model import BookInfo, Category, Passage, full_range
from gantha.text.pali import fold
from gantha.text.refs import page_key

CORPUS = "cst"
HEADING_LEVELS = ("nikaya", "book", "chapter", "title", "subhead", "subsubhead")
EDITION_ORDER = "MVPTO"
UNMARKED_CHAPTER_PAGES = 10
"""A chapter in which one edition turns this many pages and another none is not in that other edition: its
last page is not carried into it (the Apadāna's Yasavagga, 15 VRI pages, which the PTS edition lacks; a
PTS page never holds ten VRI pages, the longest abridged peyyāla holding sixteen within a chapter marked)."""

_BOOK_STEM = re.compile(r"^(vin|abh|s|e)(\d+)([mant])(\d*)\.(mul|att|tik|nrf)$")
_CHAPTER_FILE = re.compile(r"^(.+\.(?:mul|att|tik|nrf))(\d+)\.xml$")
_CATEGORY_BY_LETTER = {"m": Category.MULA, "a": Category.ATTHAKATHA, "t": Category.TIKA, "n": Category.ANYA}
_PITAKA = {"vin": "vinaya", "s": "sutta", "abh": "abhidhamma", "e": "anya"}
_VINAYA_BOOK = re.compile(r"^vin(\d\d)[mat](\d?)\.")
_VINAYA_PARTS = {"1": "vibhanga", "2": "khandhaka", "3": "khandhaka", "4": "parivara"}  # vin02m1 … vin02m4
_NIKAYA = {"01": "digha", "02": "majjhima", "03": "samyutta", "04": "anguttara", "05": "khuddaka"}


class BookError(ValueError):
    """A book that cannot be read (malformed or missing file); the message names the file."""


@dataclass(slots=True)
class CstBook:
    """A book found on disk: its id, its files in reading order, and what is known of it."""

    book: str
    files: list[Path]
    info: BookInfo
    problems: list[str] = field(default_factory=list)  # e.g. a chapter file listed but missing

    def signature(self) -> str:
        """Changes when any of the book's files changes (size and modification time) or the reader does."""
        parts = [f"reader {READER_VERSION}"]
        for f in self.files:
            st = f.stat()
            parts.append(f"{f.name}:{st.st_size}:{st.st_mtime_ns}")
        return "|".join(parts)


def book_info(book: str, title: str = "", group_path: list[str] | None = None) -> BookInfo:
    """Category and tags of a CST book from its file name (``vin02m3.mul`` → mūla, vinaya)."""
    m = _BOOK_STEM.match(book)
    category, tags = Category.ANYA.value, []
    if m:
        prefix, digits, letter = m.group(1), m.group(2), m.group(3)
        category = _CATEGORY_BY_LETTER[letter].value
        tags.append(_PITAKA[prefix])
        if prefix == "s" and digits[:2] in _NIKAYA:
            tags.append(_NIKAYA[digits[:2]])
        if division := _vinaya_division(book):
            tags.append(division)
        tags.append(category)
    if work := _work(title):
        tags.append(work)
    return BookInfo(CORPUS, book, title or book, category, list(dict.fromkeys(tags)), group_path or [])


def _vinaya_division(book: str) -> str | None:
    """The Vinaya's division a root text or its commentary belongs to: vibhanga, khandhaka or parivara."""
    if not (m := _VINAYA_BOOK.match(book)):
        return None
    return "vibhanga" if m.group(1) == "01" else _VINAYA_PARTS.get(m.group(2)) if m.group(1) == "02" else None


def _work(title: str) -> str:
    """The work a book title names, as a tag: ``Cūḷavagga-aṭṭhakathā`` → ``culavagga`` (root text,
    commentary and subcommentary share it); numbered volumes (``Paṭṭhānapāḷi-4``) share it too."""
    name = fold(title).lower().split("(")[0].strip()
    name = re.sub(r"[-\s]*\d+$", "", name)
    name = re.sub(r"[-\s]*(abhinava|mula|anu|purana|maha)?\s*-?(atthakatha|tika|pali|vannana)$", "", name)
    name = re.sub(r"kanda$", "", name)  # Pārājikakaṇḍa-aṭṭhakathā comments on the Pārājika
    return re.sub(r"[^a-z]", "", name)


# --- discovery -------------------------------------------------------------------------------------


def _xml_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and logical_name(p).endswith(".xml"))


def _parse_tree(path: Path) -> etree._Element:
    try:
        return etree.fromstring(read_xml_text(path))
    except (etree.XMLSyntaxError, SourceError) as exc:
        raise BookError(f"{path}: {exc}") from exc


def _global_toc(files: list[Path]) -> dict[str, tuple[str, list[str]]]:
    """Book id → (title, group path) from ``tipitaka_toc*.xml`` trees, following their ``src`` links."""
    by_name = {logical_name(f): f for f in files}
    titles: dict[str, tuple[str, list[str]]] = {}

    def visit(node: etree._Element, trail: list[str], depth: int) -> None:
        for child in node:
            if child.tag != "tree":
                continue
            text = (child.get("text") or "").strip()
            src = Path(child.get("src") or "").name
            if src.endswith(".toc.xml"):
                titles[src[: -len(".toc.xml")]] = (text, trail)
            elif src in by_name and depth < 4:
                try:
                    visit(_parse_tree(by_name[src]), [*trail, text], depth + 1)
                except BookError:
                    continue
            else:
                visit(child, [*trail, text] if text else trail, depth)

    root_name = "tipitaka_toc.xml"
    if root_name in by_name:
        with contextlib.suppress(BookError):
            visit(_parse_tree(by_name[root_name]), [], 0)
    return titles


def discover(path: Path) -> tuple[list[CstBook], list[str]]:
    """Find the CST books under a folder (or the book of one file); return them and the problems seen.

    A problem is a file that is neither a book, a chapter of a listed book, nor a table of contents.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {path}")
    files = _xml_files(path)
    if path.is_file():  # one toc or chapter file given: read its whole book from the siblings
        name = logical_name(path)
        m = _CHAPTER_FILE.match(name)
        book = m.group(1) if m else name.removesuffix(".toc.xml") if name.endswith(".toc.xml") else None
        if book:
            files = [
                f for f in _xml_files(path.parent) if re.match(re.escape(book) + r"(\d+|\.toc)?\.xml$", logical_name(f))
            ]
    titles = _global_toc(_xml_files(path.parent if path.is_file() else path))
    by_name = {logical_name(f): f for f in files}
    used: set[str] = set()
    books: dict[str, CstBook] = {}
    problems: list[str] = []

    for name, f in by_name.items():
        if not name.endswith(".toc.xml") or name.startswith("tipitaka_toc"):
            continue
        book = name[: -len(".toc.xml")]
        used.add(name)
        try:
            toc = _parse_tree(f)
        except BookError as exc:
            problems.append(str(exc))
            continue
        chapter_files, missing = [], []
        for node in toc.iter("tree"):
            action = Path(node.get("action") or "").name
            if not action:
                continue
            if action in by_name:
                chapter_files.append(by_name[action])
                used.add(action)
            else:
                missing.append(action)
        title, trail = titles.get(book, ("", []))
        books[book] = CstBook(
            book,
            chapter_files,
            book_info(book, title, trail),
            [f"{book}: chapter file {m} listed in its table of contents is missing" for m in missing],
        )

    orphans: dict[str, list[tuple[int, Path]]] = {}
    for name, f in by_name.items():
        if name in used or name.startswith("tipitaka_toc"):
            continue
        if m := _CHAPTER_FILE.match(name):
            orphans.setdefault(m.group(1), []).append((int(m.group(2)), f))
        else:
            book = name[: -len(".xml")]
            title, trail = titles.get(book, ("", []))
            books[book] = CstBook(book, [f], book_info(book, title, trail))
    for book, numbered in orphans.items():  # chapter files without a table of contents
        title, trail = titles.get(book, ("", []))
        books[book] = CstBook(book, [f for _, f in sorted(numbered)], book_info(book, title, trail))
    return [books[k] for k in sorted(books)], problems


# --- paragraphs ------------------------------------------------------------------------------------


READER_VERSION = 3  # raise when what the reader makes of a file changes: books are read again


def _in_word(ch: str) -> bool:
    return ch.isalnum() or bool(unicodedata.combining(ch))


class _Inline:
    """Accumulates one paragraph's plain text, Markdown, bold spans, notes and page breaks."""

    __slots__ = ("bold_spans", "display", "notes", "pbs", "plain", "started")

    def __init__(self) -> None:
        self.plain: list[str] = []
        self.display: list[str] = []
        self.bold_spans: list[tuple[int, int]] = []  # character ranges of "".join(plain) set in bold
        self.notes: list[str] = []
        self.pbs: list[tuple[str, bool]] = []  # (page key, text seen before it)
        self.started = False

    def emit(self, text: str | None) -> None:
        if text:
            self.plain.append(text)
            self.display.append(text)
            if not self.started and not text.isspace():
                self.started = True

    @property
    def bold(self) -> list[str]:
        """The bold spans as marked, and as whole words where a span stops inside a word (``**pārivāsikā**ti``:
        ``pārivāsikā`` and ``pārivāsikāti``), so the bold word is found by its form and by the written word."""
        plain = "".join(self.plain)
        out = []
        for start, end in self.bold_spans:
            out.append(" ".join(plain[start:end].split()))
            whole_start, whole_end = start, end
            while whole_start > 0 and _in_word(plain[whole_start - 1]):
                whole_start -= 1
            while whole_end < len(plain) and _in_word(plain[whole_end]):
                whole_end += 1
            if (whole_start, whole_end) != (start, end):
                out.append(" ".join(plain[whole_start:whole_end].split()))
        return out

    def _page_break(self, pb: etree._Element) -> None:
        ed, n = pb.get("ed"), pb.get("n")
        if ed and n:
            with contextlib.suppress(ValueError):  # a page break with an unreadable number marks no page
                self.pbs.append((page_key(ed, n), self.started))

    def walk(self, el: etree._Element, in_bold: bool = False) -> None:
        self.emit(el.text)
        for child in el:
            tag = child.tag
            if tag == "hi":
                rend = child.get("rend")
                if rend in ("paranum", "dot"):
                    pass  # the paragraph number lives in the coordinate
                elif rend == "bold" and not in_bold:
                    start_plain, start_disp = len(self.plain), len(self.display)
                    self.walk(child, in_bold=True)
                    span = "".join(self.plain[start_plain:])
                    inner = "".join(self.display[start_disp:])
                    del self.display[start_disp:]
                    if span.strip():
                        start = sum(len(t) for t in self.plain[:start_plain])
                        self.bold_spans.append((start, start + len(span)))
                        lead = inner[: len(inner) - len(inner.lstrip())]
                        trail = inner[len(inner.rstrip()) :]
                        self.display.append(f"{lead}**{inner.strip()}**{trail}")
                    else:
                        self.display.append(inner)
                else:
                    self.walk(child, in_bold)
            elif tag == "pb":
                self._page_break(child)
            elif tag == "note":
                note = " ".join("".join(child.itertext()).split())
                for pb in child.iter("pb"):  # a page may turn inside a variant reading
                    self._page_break(pb)
                if note:
                    self.notes.append(note)
                    self.display.append(f"[^{len(self.notes)}]")
            self.emit(child.tail)


def _plain(el: etree._Element) -> str:
    inline = _Inline()
    inline.walk(el)
    return " ".join("".join(inline.plain).split())


def _book_title(roots: list[etree._Element]) -> str:
    for root in roots:
        for p in root.iter("p"):
            if p.get("rend") == "book":
                return _plain(p)
    return ""


def parse_book(book: CstBook) -> list[etree._Element]:
    """Parse every file of a book; raise BookError naming the first file that fails."""
    if not book.files:
        raise BookError(f"{book.book}: no readable files")
    if book.problems:
        raise BookError(book.problems[0])
    roots = []
    for f in book.files:
        root = _parse_tree(f)
        if root.find(".//body") is None and root.tag != "TEI.2":
            raise BookError(f"{f}: not a CST text (root element <{root.tag}>)")
        roots.append(root)
    return roots


def _unpaged_chapters(roots: list[etree._Element]) -> dict[int, set[str]]:
    """Per chapter (counted as ``read_book`` counts them), the editions that turn no page in it while
    another turns ``UNMARKED_CHAPTER_PAGES`` or more: their page is unknown there, not the last one seen."""
    turns: dict[int, Counter[str]] = {}
    chapter = 0
    for root in roots:
        for p in root.iter("p"):
            if p.get("rend") == "chapter":
                chapter += 1
            for pb in p.iter("pb"):
                if ed := pb.get("ed"):
                    turns.setdefault(chapter, Counter())[ed] += 1
    editions = {ed for counts in turns.values() for ed in counts}
    return {
        ch: {ed for ed in editions if not counts[ed]}
        for ch, counts in turns.items()
        if ch and max(counts.values()) >= UNMARKED_CHAPTER_PAGES
    }


def read_book(book: CstBook, roots: list[etree._Element] | None = None) -> Iterator[Passage]:
    """Yield the book's passages in reading order (parse first with ``parse_book`` to fail early)."""
    roots = roots if roots is not None else parse_book(book)
    info = book.info
    if info.title == info.book:
        info.title = _book_title(roots) or info.book
    headings: dict[str, str] = {}
    pages: dict[str, str] = {}
    unpaged = _unpaged_chapters(roots)
    seen_numbers: Counter[str] = Counter()
    anchor, sub, chapter, seq = "0", 0, 0, 0

    for root in roots:
        for p in root.iter("p"):
            inline = _Inline()
            inline.walk(p)
            text = " ".join("".join(inline.plain).split())
            rend = p.get("rend") or ""
            n = full_range((p.get("n") or "").strip())
            if n:
                seen_numbers[n] += 1
                k = seen_numbers[n]
                anchor, sub = (n if k == 1 else f"{n}~{k}"), 0
                para = anchor
            else:
                sub += 1
                para = f"{anchor}.{sub}"

            if rend in HEADING_LEVELS:
                level = HEADING_LEVELS.index(rend)
                for deeper in HEADING_LEVELS[level:]:
                    headings.pop(deeper, None)
                if text:
                    headings[rend] = text
                if rend == "chapter":
                    chapter += 1
                    for edition in unpaged.get(chapter, ()):
                        pages.pop(edition, None)

            at_start = {key[0] for key, seen in inline.pbs if not seen}
            refs = [pages[ed] for ed in EDITION_ORDER if ed in pages and ed not in at_start]
            starts = [key for key, _ in inline.pbs]
            for key in starts:
                pages[key[0]] = key
                if key not in refs:
                    refs.append(key)
            refs.sort(key=lambda k: (EDITION_ORDER.index(k[0]) if k[0] in EDITION_ORDER else 9, k))

            seq += 1
            yield Passage(
                corpus=CORPUS,
                book=info.book,
                para=para,
                seq=seq,
                text=text,
                display=" ".join("".join(inline.display).split()),
                book_title=info.title,
                path=[headings[level] for level in HEADING_LEVELS if level in headings],
                chapter=chapter,
                kind=rend,
                chapter_title=headings.get("chapter", ""),
                bold=inline.bold,
                notes=inline.notes,
                page_refs=refs,
                page_starts=starts,
                category=info.category,
                tags=list(info.tags),
            )
