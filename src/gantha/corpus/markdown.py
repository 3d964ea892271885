"""Reader for Markdown and plain-text books: heading-aware chunks with their heading path.

Each chunk is the text under one heading, cut at block boundaries into pieces of at most
``MAX_CHARS``. Coordinate: ``md/<file>/<heading-path>#<n>`` — the file's path below the folder,
the slugs of its headings, and the chunk's number under that heading. YAML front matter becomes
book metadata (``title``, ``tags``, ``language``); ``**bold**`` terms are kept in their own field.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import yaml
from markdown_it import MarkdownIt

from gantha.corpus.files import logical_name, read_text
from gantha.model import BookInfo, ChannelInfo, Passage
from gantha.text.chinese import has_chinese, to_simplified

CORPUS = "md"
CHANNEL = ChannelInfo("md", "", "original", "", "", "unknown", "user documents")
MAX_CHARS = 1200
SUFFIXES = (".md", ".markdown", ".txt")
_FRONT = re.compile(r"^---\s*\n(.*?)\n---\s*\n", re.DOTALL)


def slug(text: str) -> str:
    """A heading as a path segment: lower case, words joined by ``-`` (any script kept)."""
    return re.sub(r"[^\w]+", "-", text.lower(), flags=re.UNICODE).strip("-") or "section"


def files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and logical_name(p).lower().endswith(SUFFIXES))


def book_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root) if root.is_dir() else Path(path.name)
    return str(rel.with_name(logical_name(rel)))


def read_file(path: Path, root: Path) -> tuple[BookInfo, list[Passage]]:
    """The book's info (front matter) and its chunks in reading order."""
    text = read_text(path)
    meta: dict = {}
    if m := _FRONT.match(text):
        try:
            loaded = yaml.safe_load(m.group(1))
            meta = loaded if isinstance(loaded, dict) else {}
        except yaml.YAMLError:
            meta = {}
        text = text[m.end() :]
    book = book_of(path, root)
    tags = meta.get("tags") or []
    info = BookInfo(
        CORPUS,
        book,
        str(meta.get("title") or Path(book).stem),
        str(meta.get("category") or ""),
        [str(t) for t in (tags if isinstance(tags, list) else [tags])],
    )
    language = str(meta.get("language") or _language(text))
    if logical_name(path).lower().endswith(".txt"):
        blocks = [("", 0, [p.strip()]) for p in re.split(r"\n\s*\n", text) if p.strip()]
    else:
        blocks = list(_blocks(text))
    passages: list[Passage] = []
    counters: dict[tuple[str, ...], int] = {}
    current: tuple[tuple[str, ...], list[str], list[str]] | None = None

    def flush() -> None:
        if current and current[1]:
            path_, parts, bold = current
            counters[path_] = counters.get(path_, 0) + 1
            heading = "/".join(slug(h) for h in path_) or "_"
            body = "\n\n".join(parts)
            plain = re.sub(r"\*\*(.+?)\*\*", r"\1", body)
            passages.append(
                Passage(
                    corpus=CORPUS,
                    book=book,
                    para=f"{heading}#{counters[path_]}",
                    seq=len(passages) + 1,
                    text=plain,
                    display=body,
                    channel=CHANNEL.name,
                    language=language,
                    book_title=info.title,
                    path=list(path_),
                    chapter=0,
                    bold=bold,
                    category=info.category,
                    tags=info.tags,
                )
            )

    headings: list[str] = []
    for kind, level, content in blocks:
        if kind == "heading":
            flush()
            headings = [*headings[: level - 1], content[0]]
            current = None
            continue
        key = tuple(headings)
        for piece in _pieces(content[0]):
            if current is None or current[0] != key or sum(map(len, current[1])) + len(piece) > MAX_CHARS:
                flush()
                current = (key, [], [])
            current[1].append(piece)
            current[2].extend(re.findall(r"\*\*(.+?)\*\*", piece))
    flush()
    return info, passages


def _pieces(block: str) -> list[str]:
    """A block as it is, or a longer one than :data:`MAX_CHARS` cut at sentence ends, then at spaces,
    then anywhere: no passage of a file outgrows it, however the file is written."""
    if len(block) <= MAX_CHARS:
        return [block]
    out, current = [], ""
    for part in re.split(r"(?<=[.?!。！？])\s+|\s+", block):
        while len(part) > MAX_CHARS:
            if current:
                out.append(current)
                current = ""
            out.append(part[:MAX_CHARS])
            part = part[MAX_CHARS:]
        if current and len(current) + 1 + len(part) > MAX_CHARS:
            out.append(current)
            current = ""
        current = f"{current} {part}" if current else part
    return [*out, current] if current else out


def _blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """("heading", level, [text]) or ("text", 0, [source of one block]) in document order."""
    md = MarkdownIt("commonmark")
    tokens = md.parse(text)
    lines = text.splitlines()
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open":
            yield "heading", int(tok.tag[1]), [tokens[i + 1].content.strip()]
        elif (
            tok.level == 0
            and tok.map
            and tok.type
            in (
                "paragraph_open",
                "bullet_list_open",
                "ordered_list_open",
                "blockquote_open",
                "fence",
                "code_block",
                "table_open",
            )
        ):
            block = "\n".join(lines[tok.map[0] : tok.map[1]]).strip()
            if block:
                yield "text", 0, [block]


def _language(text: str) -> str:
    """BCP-47 of an undeclared document: zh-Hans or zh-Hant for Chinese (by its characters), else en."""
    if not has_chinese(text):
        return "en"
    return "zh-Hans" if to_simplified(text) == text else "zh-Hant"
