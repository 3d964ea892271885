"""The editor's Pali parallels and numbering in the plain-text edition (``raw/agm?-lca.txt``).

Lin Chong-an marks each sūtra's Pali parallel in the Nikāyas' own numbering:
- the Madhyama's table of contents: ``（一）善法經【A7.64】``, ``【M24】``, ``【A9.13；A4.174】``,
  ``【--】`` (none);
- the Dīrgha's: ``（一）大本經（D14）``;
- the Saṃyukta's entries: ``經文（內一）【S12-14,51】無常經``, the numbers suttas of the saṃyutta
  that the chapter (相應) names, ``S＊9`` one of the chapter's second saṃyutta
  (``（含＊無記說相應）``), ``S增三.89`` or ``【中部，34】`` another Nikāya; each entry is
  followed by its Taishō number ``（大三七九）``.
The Ekottarika's chapters (``十念品第二``) and sūtras (``（一）``) give the ``EA 2.1`` numbering
scholars use.

:func:`read_marks` returns every mark as written with the SuttaCentral uids it names (empty when not
understood); resolving those to indexed texts is the ingest's business.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gantha.corpus.files import read_text

_DIGITS = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "○": 0}
_UNITS = {"十": 10, "百": 100, "千": 1000}


def chinese_number(text: str) -> int | None:
    """``三七九`` → 379 (digit by digit, as the edition writes), ``二十一`` → 21, ``百`` → 100; else None."""
    text = text.strip()
    if not text or any(c not in _DIGITS and c not in _UNITS for c in text):
        return None
    if not any(c in _UNITS for c in text):
        return int("".join(str(_DIGITS[c]) for c in text))
    total, digit = 0, None
    for c in text:
        if c in _DIGITS:
            digit = _DIGITS[c]
        else:
            total += (1 if digit is None else digit) * _UNITS[c]
            digit = None
    return total + (digit or 0)


# SN saṃyutta of each Saṃyukta chapter (相應) the editor's bare S-numbers refer to; None: no Pali saṃyutta
SAMYUTTA = {
    "蘊": 22, "處": 35, "緣起": 12, "食": 12, "諦": 56, "界": 14, "受": 36, "念處": 47, "正斷": 49,
    "如意足": 51, "根": 48, "力": 50, "覺支": 46, "聖道分": 45, "道支": 45, "安那般那念": 54, "入出息念": 54,
    "不壞淨": 55, "證淨": 55, "預流": 55, "舍利弗": 28, "閻浮車": 38, "沙門出家": 39, "目揵連": 40,
    "勒叉那": 19, "阿那律": 52, "質多羅": 41, "羅陀": 23, "見": 24, "大迦葉": 16, "聚落主": 42,
    "無始": 15, "婆蹉出家": 33, "無記說": 44, "比丘": 21, "魔": 4, "帝釋": 11, "剎利": 3, "拘薩羅": 3,
    "婆羅門": 7, "梵天": 6, "比丘尼": 5, "婆耆舍": 8, "諸天": 1, "天子": 2, "夜叉": 10, "林": 9, "森": 9,
    "譬喻": 20, "入界陰": 25, "入": 25, "學": None, "大迦旃延": None, "阿難": None, "斷知": None, "天": None,
    "修證": None, "馬": None, "摩訶男": None, "外道出家": None, "雜": None, "病": None, "業報": None,
    "阿育王": None,
}
NAMED_SAMYUTTA = {"利得": 17, "現觀": 13, "無為": 43, "預流": 55}
NIKAYA = {"中部": "mn", "長部": "dn", "相應": "sn"}
ANGUTTARA = re.compile(r"^增([一二三四五六七八九十]+)")
_CHAPTER = re.compile(r"^(?P<names>[^\s（(【]+?)相應(?:（含＊(?P<second>[^）]+?)相應）)?\s*$")
_SOUTH = re.compile(r"（＊南傳編在(?P<name>[^）]+?)相應）")


@dataclass
class Mark:
    """One sūtra's parallel mark: the sūtra (``ma1``), the mark as written, the uids it names."""

    sutra: str
    written: str
    uids: list[str] = field(default_factory=list)


@dataclass
class EditionMarks:
    """What the plain text says: the parallel marks and the Ekottarika's chapter.sūtra names by running number."""

    marks: list[Mark] = field(default_factory=list)
    ea_names: dict[int, str] = field(default_factory=dict)


def _numbers(spec: str) -> list[int]:
    """``12-14,51`` → [12, 13, 14, 51]."""
    out: list[int] = []
    for part in re.split(r"[,，、]", spec):
        lo, _, hi = part.strip().partition("-")
        if lo.isdecimal() and (not hi or hi.isdecimal()):
            out += range(int(lo), int(hi or lo) + 1)
    return out


def nikaya_uids(mark: str) -> list[str]:
    """A Madhyama/Dīrgha mark: ``A7.64`` → an7.64, ``A10.207,208`` → an10.207, an10.208, ``M24`` → mn24,
    ``D16/17`` → dn16, dn17, ``S12.1-2``, ``cf.M5``; parts separated by ``；``."""
    out = []
    for part in re.split(r"[；;]", mark):
        m = re.match(r"^\s*(?:cf\.)?\s*([DMSA])\s*(\d+)(?:\.([\d,\-]+))?\s*((?:/\d+)*)\s*$", part)
        if not m:
            continue
        prefix = {"D": "dn", "M": "mn", "S": "sn", "A": "an"}[m.group(1)]
        if m.group(3):
            out += [f"{prefix}{m.group(2)}.{n}" for n in _numbers(m.group(3))]
        else:
            out += [f"{prefix}{n}" for n in [int(m.group(2)), *map(int, re.findall(r"\d+", m.group(4)))]]
    return out


def samyukta_uids(mark: str, first: int | None, second: int | None) -> list[str]:
    """A Saṃyukta mark read with its chapter's saṃyutta (``first``) and its ``＊`` one (``second``)."""
    out = []
    for part in re.split(r"[；;]", mark):
        part = part.strip()
        if part.startswith("S") and not re.match(r"^S[＊*\d]", part):
            part = part[1:]  # S增三.89, S利得,3: a named collection follows
        if m := ANGUTTARA.match(part):
            n = chinese_number(m.group(1))
            out += [f"an{n}.{x}" for x in _numbers(re.sub(r"^[，,.\s]+", "", part[m.end() :]))]
            continue
        if m := re.match(r"^(中部|長部)[，,.]\s*([\d,\-]+)$", part):
            out += [f"{NIKAYA[m.group(1)]}{x}" for x in _numbers(m.group(2))]
            continue
        if m := re.match(r"^(利得|現觀|無為|預流)[，,.]?\s*([\d,\-]+)$", part):
            out += [f"sn{NAMED_SAMYUTTA[m.group(1)]}.{x}" for x in _numbers(m.group(2))]
            continue
        if m := re.match(r"^小部\.如是語\.(\d+)$", part):
            out.append(f"iti{m.group(1)}")
            continue
        if part.startswith("S"):
            part = part[1:]
        for piece in re.split(r"[,，](?=[＊*])", part):
            starred = piece[:1] in "＊*"
            samyutta = second if starred else first
            numbers = piece.lstrip("＊*")
            if samyutta is None or not re.fullmatch(r"[\d,\-]+", numbers):
                continue
            out += [f"sn{samyutta}.{x}" for x in _numbers(numbers)]
    return out


def _chapter_samyuttas(names: str, second: str | None) -> tuple[int | None, int | None] | None:
    """The saṃyuttas of a chapter heading (``舍利弗相應/閻浮車``); None when it is not a known chapter."""
    options = [SAMYUTTA[n] for n in names.split("/") if n in SAMYUTTA]
    if not options:
        return None
    first = next((o for o in options if o is not None), None)
    return first, SAMYUTTA.get(second or "")


def read_madhyama(text: str) -> list[Mark]:
    seen: dict[int, Mark] = {}
    for m in re.finditer(r"^（([〇○一二三四五六七八九十百]+)）[^【\n]*【([^】]*)】", text, re.M):
        n = chinese_number(m.group(1))
        if n is not None and n not in seen:
            mark = m.group(2).strip()
            seen[n] = Mark(f"ma{n}", mark, [] if mark == "--" else nikaya_uids(mark))
    return list(seen.values())


def read_dirgha(text: str) -> list[Mark]:
    seen: dict[int, Mark] = {}
    for m in re.finditer(r"^（([〇○一二三四五六七八九十]+)）[^（\n]*（(D[\d/]+)）", text, re.M):
        n = chinese_number(m.group(1))
        if n is not None and n not in seen:
            seen[n] = Mark(f"da{n}", m.group(2), nikaya_uids(m.group(2)))
    return list(seen.values())


def read_samyukta(text: str) -> list[Mark]:
    """Each ``經文`` entry's mark, under the chapter heading in force, named by the Taishō number after it."""
    marks = []
    chapter: tuple[int | None, int | None] = (None, None)
    pending: tuple[str, tuple[int | None, int | None]] | None = None
    started = False
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("經文（內"):
            started = True
            m = re.search(r"【([^】]*)】", s)
            pending = (m.group(1) if m else "", chapter)
            continue
        if not started and not s.startswith("蘊相應"):
            continue
        if (m := _CHAPTER.match(s)) and (found := _chapter_samyuttas(m.group("names"), m.group("second"))):
            chapter, started = found, True
            continue
        if m := _SOUTH.search(s):
            chapter = (chapter[0], SAMYUTTA.get(m.group("name")))
            continue
        if pending and (m := re.search(r"（大([〇○一二三四五六七八九十百千]+)(?:[～~、][^）]*)?）", s)):
            number = chinese_number(m.group(1))
            mark, (first, second) = pending
            pending = None
            if number is not None and mark:
                marks.append(Mark(f"sa{number}", mark, samyukta_uids(mark, first, second)))
    return marks


def read_ekottarika(text: str) -> dict[int, str]:
    """Running sūtra number (the edition's ``^uN``) → ``chapter.sūtra`` (``12.1``), counting the sūtras (``（一）``)
    of each chapter (``一入道品第十二``) from the first chapter after the preface."""
    names: dict[int, str] = {}
    chapter, running, within = 0, 0, 0
    for line in text.splitlines():
        s = line.strip()
        if m := re.match(r"^\S*品第([一二三四五六七八九十百]+)\s*$", s):
            chapter, within = chinese_number(m.group(1)) or chapter, 0
            continue
        if chapter >= 2 and re.match(r"^（[〇○一二三四五六七八九十]+）\s*$", s):
            running, within = running + 1, within + 1
            names[running] = f"{chapter}.{within}"
    return names


def read_marks(folder: Path) -> EditionMarks:
    """Every mark of the raw files found in ``folder`` (``raw/`` or the folder itself; plain or .gz)."""
    out = EditionMarks()
    readers = {"agmm": read_madhyama, "agmd": read_dirgha, "agms": read_samyukta}
    for base in (folder / "raw", folder):
        for stem, reader in readers.items():
            for f in sorted(base.glob(f"{stem}-lca.txt*")):
                out.marks += reader(read_text(f))
        for f in sorted(base.glob("agmu-lca.txt*")):
            out.ea_names = read_ekottarika(read_text(f))
    return out
