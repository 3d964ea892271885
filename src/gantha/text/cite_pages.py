"""Edition pages and paragraphs as a scholar cites them: ``S V 420–421``, ``Sp 1159–1160``, ``Ud 1``, ``Dhp 183``.

A passage is cited by the page it **begins** on, and by a range when it runs over (``S V 420–421``); a
range of passages from the first page of the first to the last page of the last. The PTS edition is
cited with the abbreviation and the Roman volume numeral of each work (the conventions of the Critical
Pāli Dictionary and the Dictionary of Pāli): a single-volume work, or one paginated through its volumes
(the Samantapāsādikā, the Sumaṅgalavilāsinī, the Apadāna …: ``Sp 1159``), by page alone; the Dhammapada
by verse. The CST numbers the verses of the
Suttanipāta, the Thera- and Therīgāthā otherwise than the PTS (1,155, 1,288 and 524 verses against
1,149, 1,279 and 522), so those are cited by PTS page, marked ``p.`` as scholars do for their prose.

Page keys are the indexed form ``P5.0420`` (edition letter, volume, page). Internal paragraph ids
(``75~2``, ``75.3``) never appear: ``paragraph_label`` gives the number a reader sees in the book.
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

Style = Literal["volume", "page", "verse", "page-marked"]

EDITION_NAMES = {"P": "PTS", "V": "VRI", "M": "MM", "T": "Thai", "O": "Other"}
CITED_EDITIONS = ("P", "V")
"""The editions a citation names: the PTS (the scholars' reference) and the VRI print edition."""


@dataclass(frozen=True, slots=True)
class PtsWork:
    """How a CST book is cited in the PTS edition: its abbreviation and whether by volume, page or verse."""

    abbreviation: str
    style: Style


# CST book ids (file stems) → PTS abbreviation and style, first match wins
_WORKS: tuple[tuple[str, str, Style], ...] = (
    (r"vin0[12]m", "Vin", "volume"),
    (r"vin0[12]a", "Sp", "page"),  # paginated through its seven volumes
    (r"vin04t", "Kkh", "page"),  # its PTS pages are those of the Kaṅkhāvitaraṇī it holds
    (r"s01\d\dm", "D", "volume"),
    (r"s01\d\da", "Sv", "page"),  # paginated through its three volumes
    (r"s01\d\dt", "Sv-pṭ", "volume"),
    (r"s02\d\dm", "M", "volume"),
    (r"s02\d\da", "Ps", "volume"),
    (r"s03\d\dm", "S", "volume"),
    (r"s03\d\da", "Spk", "volume"),
    (r"s04\d\dm", "A", "volume"),
    (r"s04\d\da", "Mp", "volume"),
    (r"s0501m", "Khp", "page"),
    (r"s0501a", "Pj I", "page"),
    (r"s0502m", "Dhp", "verse"),
    (r"s0502a", "Dhp-a", "volume"),
    (r"s0503m", "Ud", "page"),
    (r"s0503a", "Ud-a", "page"),
    (r"s0504m", "It", "page"),
    (r"s0504a", "It-a", "volume"),
    (r"s0505m", "Sn", "page-marked"),
    (r"s0505a", "Pj II", "page"),  # paginated through its volumes
    (r"s0506m", "Vv", "page"),
    (r"s0506a", "Vv-a", "page"),
    (r"s0507m", "Pv", "page"),
    (r"s0507a", "Pv-a", "page"),
    (r"s0508m", "Th", "page-marked"),
    (r"s0508a", "Th-a", "volume"),
    (r"s0509m", "Thī", "page-marked"),
    (r"s0509a", "Thī-a", "page"),
    (r"s0510m", "Ap", "page"),  # paginated through its two parts
    (r"s0510a", "Ap-a", "page"),
    (r"s0511m", "Bv", "page"),
    (r"s0511a", "Bv-a", "page"),
    (r"s0512m", "Cp", "page"),
    (r"s0512a", "Cp-a", "page"),
    (r"s051[34]", "Ja", "volume"),
    (r"s0515m", "Nidd I", "page"),  # paginated through its two parts
    (r"s0515a", "Nidd-a", "page"),  # Saddhammapajjotikā I–II, paginated through both
    (r"s0516m", "Nidd II", "page"),
    (r"s0516a", "Nidd-a III", "page"),  # Saddhammapajjotikā III (the CST marks no volume)
    (r"s0517m", "Paṭis", "volume"),
    (r"s0517a", "Paṭis-a", "page"),  # paginated through its three volumes
    (r"s0518m", "Mil", "page"),
    (r"s0519m", "Nett", "page"),
    (r"s0520m", "Peṭ", "page"),
    (r"abh01m", "Dhs", "page"),
    (r"abh01a", "As", "page"),
    (r"abh02m", "Vibh", "page"),
    (r"abh02a", "Vibh-a", "page"),
    (r"abh03m1\.", "Dhātuk", "page"),
    (r"abh03m2\.", "Pp", "page"),
    (r"abh03m3\.", "Kv", "page"),
    (r"abh03m[456]\.", "Yam", "volume"),
    (r"abh03m(?:[789]|1[01])\.", "Paṭṭh", "volume"),
    (r"abh03a", "Pañc-a", "page"),
    (r"abh06t", "Abhidh-av", "page"),  # its PTS pages are those of the Abhidhammāvatāra
    (r"e010[12]n", "Vism", "page"),
)


@cache
def pts_work(book: str) -> PtsWork | None:
    """The PTS abbreviation and citing style of a CST book (``s0305m.mul`` → ``S``, by volume), or None
    (remembered: every hit's citation asks it)."""
    for pattern, abbreviation, style in _WORKS:
        if re.match(pattern, book):
            return PtsWork(abbreviation, style)
    return None


@dataclass(frozen=True, slots=True, order=True)
class Page:
    """One page of one edition: ``P5.0420`` → volume 5, page 420."""

    volume: int
    page: int

    @classmethod
    def parse(cls, key: str) -> Page:
        """A page key (``P5.0420``) without its edition letter; ValueError when malformed."""
        m = re.fullmatch(r"[A-Z](\d+)\.(\d+)", key)
        if not m:
            raise ValueError(f"not a page key: {key!r} (expected e.g. P5.0420)")
        return cls(int(m.group(1)), int(m.group(2)))


def roman(n: int) -> str:
    """``5`` → ``V`` (volumes 1–39)."""
    out = ""
    for value, letters in ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + letters, n - value
    return out


def page_span(page_lists: Sequence[Sequence[str]], edition: str) -> tuple[Page, Page] | None:
    """The first and last page of ``edition`` that passages (their ``page_refs``, in reading order) lie on.

    A passage's ``page_refs`` hold the page it begins on and every page that begins inside it, so the
    first page is the lowest of them and the last the highest.
    """
    pages = [Page.parse(k) for refs in page_lists for k in refs if k[:1] == edition]
    return (min(pages), max(pages)) if pages else None


def _dash(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}–{last}"


def _volume_range(first: Page, last: Page, numeral: bool) -> str:
    """``V 420–421``; across volumes ``IV 400 – V 2``; without numerals ``420–421``."""
    if not numeral or not first.volume:
        return _dash(first.page, last.page) if first.volume == last.volume else f"{first.page} – {last.page}"
    if first.volume == last.volume:
        return f"{roman(first.volume)} {_dash(first.page, last.page)}"
    return f"{roman(first.volume)} {first.page} – {roman(last.volume)} {last.page}"


def cite_pts(book: str, span: tuple[Page, Page]) -> str:
    """The PTS reference of a page span in a CST book: ``S V 420–421``, ``Ud 1–2``, ``Sn p. 25``.

    A book outside the table is cited as ``PTS`` with its volume numeral (if any) and page.
    """
    first, last = span
    work = pts_work(book)
    if work is None:
        return f"PTS {_volume_range(first, last, numeral=True)}"
    pages = _volume_range(first, last, numeral=work.style == "volume")
    marked = ("pp. " if "–" in pages else "p. ") if work.style in ("page-marked", "verse") else ""
    return f"{work.abbreviation} {marked}{pages}"


def cite_other(edition: str, span: tuple[Page, Page]) -> str:
    """Another edition's pages: ``VRI 3.484–485``; a volume 0 (the CST's mark of a one-volume book) left out."""
    first, last = span
    name = EDITION_NAMES.get(edition, edition)
    if first.volume != last.volume:
        return f"{name} {first.volume}.{first.page} – {last.volume}.{last.page}"
    where = f"{first.volume}.{_dash(first.page, last.page)}" if first.volume else _dash(first.page, last.page)
    return f"{name} {where}"


def paragraph_number(para: str) -> str | None:
    """The paragraph number a reader sees: ``75~2`` → ``75`` (the CST's second paragraph 75), ``75.3`` → ``75``
    (the third unnumbered paragraph after it), ``84-87`` → ``84-87``; ``0.2`` (before any number) → None."""
    number = para.split(".")[0].split("~")[0]
    return None if number in ("", "0") else number.replace("-", "–")


def paragraph_label(paras: Sequence[str]) -> str:
    """``CST para 75``, ``CST paras 75–110`` for passages in reading order; "" when none is numbered."""
    numbers = [n for p in paras if (n := paragraph_number(p))]
    if not numbers:
        return ""
    first, last = numbers[0].split("–")[0], numbers[-1].split("–")[-1]
    return f"CST para {first}" if first == last else f"CST paras {first}–{last}"


def verse_span(paras: Sequence[str]) -> tuple[int, int] | None:
    """The verse numbers of a verse work's passages (the CST's paragraph numbers there are the verses)."""
    numbers = [int(x) for n in (paragraph_number(p) for p in paras) if n for x in n.split("–")]
    return (min(numbers), max(numbers)) if numbers else None


def edition_pages(book: str, paras: Sequence[str], page_lists: Sequence[Sequence[str]]) -> dict[str, str]:
    """Every edition's reference of passages (their ids and ``page_refs`` in reading order), by edition name:
    ``{"PTS": "S V 420–421", "VRI": "VRI 3.484–485", …}``; the Dhammapada by verse (``Dhp 183``)."""
    out: dict[str, str] = {}
    work = pts_work(book)
    verses = verse_span(paras) if work and work.style == "verse" else None
    for edition, name in EDITION_NAMES.items():
        span = page_span(page_lists, edition)
        if edition == "P" and work and verses:
            out[name] = f"{work.abbreviation} {_dash(*verses)}"
        elif edition == "P" and span:
            out[name] = cite_pts(book, span)
        elif span:
            out[name] = cite_other(edition, span)
    return out


def cited_pages(pages: dict[str, str]) -> str:
    """The pages a citation names: ``PTS S V 420–421; VRI 3.484–485``."""
    parts = []
    for edition in CITED_EDITIONS:
        name = EDITION_NAMES[edition]
        if ref := pages.get(name):
            parts.append(ref if ref.startswith(f"{name} ") else f"{name} {ref}")
    return "; ".join(parts)
