"""Reading source files: plain or gzip-compressed, UTF-8 or UTF-16, with or without a BOM."""

from __future__ import annotations

import gzip
import io
import re
from pathlib import Path

MAX_DECOMPRESSED = 256 * 2**20  # bytes a compressed source may grow to (the largest CST book is ~10 MiB)

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.IGNORECASE)
_DECLARED = re.compile(rb"""^<\?xml[^>]*encoding=["']([A-Za-z0-9_-]+)["']""")


class SourceError(ValueError):
    """A source file that cannot be read as text."""


def logical_name(path: Path) -> str:
    """The file name without a trailing ``.gz``: ``vin02m3.mul0.xml.gz`` → ``vin02m3.mul0.xml``."""
    return path.name[:-3] if path.name.endswith(".gz") else path.name


def read_bytes(path: Path) -> bytes:
    """The file's bytes, gunzipped when it is gzip-compressed (by magic number, not by name)."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
                out = f.read(MAX_DECOMPRESSED + 1)  # never more: a small bomb cannot exhaust memory
        except (OSError, EOFError) as exc:
            raise SourceError(f"{path}: corrupt gzip data ({exc})") from exc
        if len(out) > MAX_DECOMPRESSED:
            raise SourceError(f"{path}: decompresses to more than {MAX_DECOMPRESSED // 2**20} MiB; refused")
        return out
    return data


def decode(data: bytes, name: str = "<bytes>") -> str:
    """Decode bytes by BOM, by the NUL pattern of BOM-less UTF-16, by XML declaration, else UTF-8."""
    if data.startswith(b"\xef\xbb\xbf"):
        encoding = "utf-8-sig"
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    elif len(data) >= 2 and data[0] != 0 and data[1] == 0:
        encoding = "utf-16-le"
    elif len(data) >= 2 and data[0] == 0 and data[1] != 0:
        encoding = "utf-16-be"
    elif m := _DECLARED.match(data):
        encoding = m.group(1).decode().lower()
        encoding = "utf-8" if encoding.startswith("utf-16") else encoding  # declared but not UTF-16 bytes
    else:
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceError(f"{name}: not valid {encoding} text ({exc})") from exc


def read_text(path: Path) -> str:
    """The file as text, whatever its compression and encoding."""
    return decode(read_bytes(path), str(path))


def read_xml_text(path: Path) -> str:
    """XML as text with its declaration removed (so lxml parses the decoded string as is)."""
    return _XML_DECL.sub("", read_text(path), count=1)
