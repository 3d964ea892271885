"""Reader for WikiPali's dictionary CSVs: ``id,word,type,grammar,parent,meaning,note,factors,…,dict_name,lang``.

``meaning`` separates senses with ``$``. Dictionaries: ``concise`` and ``uhan_en`` (English),
``shuihan`` (traditional Chinese), ``bhmf`` (Chinese), ``sinhala``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

from gantha.corpus.files import logical_name, read_text
from gantha.model import DictEntry
from gantha.text.pali import canon

LANGUAGES = {"en": "en", "tc": "zh-Hant", "zh-cn": "zh-Hans", "zh": "zh", "si": "si"}


TITLES = {  # the dictionaries of WikiPali's dicttext folder
    "concise": "Concise Pali-English Dictionary (Buddhadatta)",
    "uhan_en": "Pali-English Dictionary (U Hau Sein)",
    "shuihan": "巴汉词典 (水汉)",
    "bhmf": "巴汉词典 (明法)",
    "sinhala": "Pali-Sinhala Dictionary",
}


def _entries(path: Path) -> Iterator[DictEntry]:
    for row in csv.reader(io.StringIO(read_text(path))):
        if len(row) < 8 or not row[0].strip().isdecimal():
            continue
        word = canon(row[1].strip())
        meanings = [m.strip() for m in row[5].split("$") if m.strip()]
        if not word or not (meanings or row[6].strip()):
            continue
        yield DictEntry(
            word,
            row[-2].strip(),
            LANGUAGES.get(row[-1].strip(), row[-1].strip()),
            row[2].strip(),
            row[3].strip(),
            canon(row[4].strip()),
            meanings,
            row[6].strip(),
            row[7].strip(),
        )


def read_dictionaries(path: Path) -> tuple[list[DictEntry], list[str]]:
    """Every entry of the CSV dictionaries in a folder (or one file); return them and unreadable files."""
    files = [path] if path.is_file() else sorted(p for p in path.iterdir() if ".csv" in logical_name(p))
    entries: list[DictEntry] = []
    problems: list[str] = []
    for f in files:
        try:
            entries.extend(_entries(f))
        except (ValueError, csv.Error) as exc:
            problems.append(f"{f}: {exc}")
    return entries, problems
