"""Reader for the Burmese translation of the canon (HTML, one file per book, Burmese digits).

Each ``<span class="paragraph">၇၅</span>`` opens the translation of CST paragraph 75 of the
matching book; the unnumbered ``<p>`` that follow belong to it until the next number. So the
translation is aligned at numbered paragraphs: ``cst/vin02m3.mul/75`` in channel ``my`` holds
everything the translator put under 75 (in the Pali, 75 and its continuation 75.1, 75.2 …).
A number that recurs in a file gets ``n~k`` as in the CST reader. Files without paragraph
numbers (the commentaries' translations here) cannot be aligned and are reported, not guessed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import lxml.html
from lxml import etree

from gantha.corpus.files import SourceError, logical_name, read_text
from gantha.model import ChannelInfo, Passage

CHANNEL = ChannelInfo(
    name="my",
    language="my",
    type="translation",
    author="Burmese translation of the Tipiṭaka (Myanmar Ministry of Religious Affairs edition)",
    licence="none stated",
    provenance="human",
    source="Tipitaka-Myanmar app (pndaza), assets/Books",
)
# file stem → CST book id. Established from each file's title and checked by paragraph numbers.
BOOKS = {
    "01_vinaya_01": "vin01m.mul",
    "01_vinaya_02": "vin02m1.mul",
    "01_vinaya_03": "vin02m2.mul",
    "01_vinaya_04": "vin02m3.mul",
    "01_vinaya_05": "vin02m4.mul",
    "02_digha_01": "s0101m.mul",
    "02_digha_02": "s0102m.mul",
    "02_digha_03": "s0103m.mul",
    "03_majjhima_01": "s0201m.mul",
    "03_majjhima_02": "s0202m.mul",
    "03_majjhima_03": "s0203m.mul",
    "04_sanyutta_01": "s0301m.mul",
    "04_sanyutta_02": "s0302m.mul",
    "04_sanyutta_03": "s0303m.mul",
    "04_sanyutta_04": "s0304m.mul",
    "04_sanyutta_05": "s0305m.mul",
    "05_anguttara_01": "s0401m.mul",
    "05_anguttara_02": "s0402m1.mul",
    "05_anguttara_03": "s0402m2.mul",
    "05_anguttara_04": "s0402m3.mul",
    "05_anguttara_05": "s0403m1.mul",
    "05_anguttara_06": "s0403m2.mul",
    "05_anguttara_07": "s0403m3.mul",
    "05_anguttara_08": "s0404m1.mul",
    "05_anguttara_09": "s0404m2.mul",
    "05_anguttara_10": "s0404m3.mul",
    "05_anguttara_11": "s0404m4.mul",
    "06_khuddaka_02": "s0502m.mul",
    "06_khuddaka_03": "s0503m.mul",
    "06_khuddaka_04": "s0504m.mul",
    "06_khuddaka_05": "s0505m.mul",
    "06_khuddaka_06": "s0506m.mul",
    "06_khuddaka_07": "s0507m.mul",
    "06_khuddaka_08": "s0510m1.mul",
    "06_khuddaka_09": "s0510m2.mul",
    "06_khuddaka_10": "s0511m.mul",
    "06_khuddaka_11": "s0512m.mul",
    "06_khuddaka_12": "s0517m.mul",
    "06_khuddaka_13": "s0518m.nrf",
    "07_abhidhamma_01": "abh01m.mul",
    "07_abhidhamma_03": "abh03m2.mul",
}
_DIGITS = str.maketrans("၀၁၂၃၄၅၆၇၈၉", "0123456789")
_SPLIT = re.compile(r"^\s*[။.]\s*")


class UnalignedError(ValueError):
    """A file that cannot be aligned to CST paragraphs (unknown book, no paragraph numbers)."""


def files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.iterdir() if logical_name(p).endswith(".html"))


def stem(path: Path) -> str:
    return logical_name(path).removesuffix(".html")


def read_file(path: Path, book: str | None = None) -> Iterator[Passage]:
    """The aligned paragraphs of one translated book (``book`` overrides the built-in mapping)."""
    book = book or BOOKS.get(stem(path))
    if book is None:
        raise UnalignedError(f"{path}: no CST book is known for {stem(path)!r}")
    try:
        root = lxml.html.document_fromstring(re.sub(r"^\s*<\?xml[^>]*\?>", "", read_text(path)))
    except (etree.ParserError, SourceError) as exc:
        raise UnalignedError(f"{path}: {exc}") from exc
    if root is None:
        raise UnalignedError(f"{path}: not an HTML document")
    current: Passage | None = None
    seen: Counter[str] = Counter()
    seq = 0
    for el in root.iter("p"):
        number = el.find("span[@class='paragraph']")
        text = " ".join("".join(t for t in _texts(el)).split())
        if number is not None:
            if current:
                yield current
            n = (number.text or "").translate(_DIGITS).strip()
            seen[n] += 1
            para = n if seen[n] == 1 else f"{n}~{seen[n]}"
            seq += 1
            current = Passage(
                corpus="cst",
                book=book,
                para=para,
                seq=seq,
                text=_SPLIT.sub("", text),
                display=_SPLIT.sub("", text),
                channel=CHANNEL.name,
                language=CHANNEL.language,
                primary=False,  # aligned to the Pali original
            )
        elif current is not None and text and el.get("class") != "footnote":
            current.text += "\n" + text
            current.display += "\n\n" + text
    if current:
        yield current
    if seq == 0:
        raise UnalignedError(f"{path}: no paragraph numbers, cannot align to CST paragraphs")


def _texts(el: etree._Element) -> Iterator[str]:
    """The text of a paragraph without its number span."""
    if el.text:
        yield el.text
    for child in el:
        if not (isinstance(child.tag, str) and child.get("class") == "paragraph"):
            yield from _texts(child)
        if child.tail:
            yield child.tail
