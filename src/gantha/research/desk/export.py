"""A result that can also be a file: a concordance as TSV or CSV, a profile as CSV, PNG or SVG.

The HTTP route answers the file itself (``format=tsv``: ``text/tab-separated-values`` with a file name), the
CLI prints it (or writes it with ``--output``); JSON stays the default answer on every surface."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass

from pydantic import BaseModel, PrivateAttr

from gantha.text.pali import fold

MEDIA = {
    "tsv": "text/tab-separated-values; charset=utf-8",
    "csv": "text/csv; charset=utf-8",
    "png": "image/png",
    "svg": "image/svg+xml",
}


@dataclass(frozen=True, slots=True)
class Export:
    content: bytes
    media_type: str
    filename: str


class Exportable(BaseModel):
    """A result model that may carry a file (set by its verb when a ``format`` other than json is asked)."""

    _export: Export | None = PrivateAttr(None)

    def exported(self) -> Export | None:
        return self._export

    def attach(self, content: bytes | str, fmt: str, stem: str) -> None:
        data = content.encode() if isinstance(content, str) else content
        self._export = Export(data, MEDIA[fmt], f"{stem}.{fmt}")


def table(header: list[str], rows: list[list[object]], fmt: str) -> str:
    """Rows as TSV (tabs and line breaks inside a value become spaces) or CSV (quoted as needed)."""
    if fmt == "tsv":
        clean = [[str(v).replace("\t", " ").replace("\n", " ") for v in row] for row in [header, *rows]]
        return "".join("\t".join(row) + "\n" for row in clean)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def file_stem(text: str) -> str:
    """A file name's stem from a query: ASCII letters and digits, runs of anything else as one ``-`` (an HTTP
    header carries it)."""
    stem = re.sub(r"[^a-z0-9]+", "-", fold(text)).strip("-")
    return stem[:60] or "export"
