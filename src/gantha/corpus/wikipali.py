"""Readers for WikiPali's word analysis and Pali ending tables (CSV, plain or .gz, any path).

* word statistics: ``book_id,word,count,base,end1,end2,type,length`` — WikiPali's parse of every
  word of the canon (one file or a folder of chunks);
* ending tables: ``ending.csv`` (lemma ending → form ending, part of speech, grammar, probability),
  ``union.csv`` (enclitic sandhi: a word ending in ``c0`` also appears ending in ``c1``),
  ``derivatives.csv`` (verb stems to participle bases).
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from gantha.corpus.files import logical_name, read_text
from gantha.model import EndingRule, SandhiRule, WordAnalysis
from gantha.text.pali import canon


class TableError(ValueError):
    """A CSV file that does not have the expected columns."""


def _csv_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and not logical_name(p).lower().endswith(".md"))


def _rows(path: Path) -> Iterator[list[str]]:
    yield from csv.reader(io.StringIO(read_text(path)))


def read_word_statistics(path: Path) -> tuple[list[WordAnalysis], list[str]]:
    """Word → base pairs summed over books; return them and the files that could not be read."""
    totals: dict[tuple[str, str, str], int] = defaultdict(int)
    problems: list[str] = []
    for f in _csv_files(path):
        try:
            for row in _rows(f):
                if len(row) < 7 or not row[2].isdecimal():
                    continue  # header or short line
                word, base = canon(row[1].strip()), canon(row[3].strip())
                if word and base:
                    totals[(word, base, row[6].strip())] += int(row[2])
        except (UnicodeDecodeError, ValueError, csv.Error) as exc:
            problems.append(f"{f}: {exc}")
    rows = [WordAnalysis(w, b, c, t) for (w, b, t), c in totals.items()]
    return rows, problems


def read_grammar(path: Path) -> tuple[list[EndingRule], list[SandhiRule]]:
    """The ending and sandhi tables from a folder holding ``ending.csv`` and ``union.csv``."""
    folder = path if path.is_dir() else path.parent
    files = {logical_name(f): f for f in folder.iterdir() if f.is_file()}
    if "ending.csv" not in files:
        raise TableError(f"{folder}: no ending.csv (expected WikiPali's ending tables)")
    endings = []
    for row in _rows(files["ending.csv"]):
        if len(row) < 5 or row[0] == "base_ending":
            continue
        try:
            endings.append(EndingRule(canon(row[0]), canon(row[1]), row[2], row[3], float(row[4])))
        except ValueError as exc:
            raise TableError(f"{files['ending.csv']}: bad row {row}: {exc}") from exc
    unions = []
    if "union.csv" in files:
        for row in _rows(files["union.csv"]):
            if len(row) >= 3 and row[0] != "c0":
                unions.append(SandhiRule(canon(row[0]), canon(row[1]), row[2].strip("'")))
    return endings, unions
