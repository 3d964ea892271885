"""SuttaCentral's descriptions of its texts and divisions: the English blurbs (a human summary of a sutta, a
Vinaya rule, a chapter or a collection) and the names (Pali, English, Chinese), in reading order.

Names come from ``root/misc/site/name`` (Pali), ``translation/en/*/name`` (English) and
``translation/zh/site/name`` (Chinese); each name file lists one collection's divisions and texts in
reading order (``mn-name:2.mn-mulapariyayavagga``: the second entry of MN, a chapter), so a division's
place tells which texts it holds. Blurbs come from ``root/en/blurb/<collection>-blurbs_root-en.json``
(``mn-blurbs:mn10``), their inline markup (``<i lang='pi'>``) dropped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gantha.corpus.files import logical_name
from gantha.corpus.suttacentral import _load

_KEY = re.compile(r"^(?P<division>[^:]+)-(?:name|blurbs):(?:(?P<order>\d+)\.)?(?P<uid>.+)$")
_TAG = re.compile(r"<[^>]+>")


@dataclass
class Description:
    """What SuttaCentral says of one text or division."""

    uid: str  # mn10, mn-mulapariyayavagga, sn1, pli-tv-bu-vb-pj1, pli-tv-kd12
    division: str  # the name file that lists it: mn, sn, pli-tv-bu-vb …
    order: int  # its place in that file (reading order)
    pali: str = ""
    english: str = ""
    chinese: str = ""
    blurb: str = ""


def plain(text: str) -> str:
    """A blurb without its markup and entities, its spaces collapsed."""
    return re.sub(r"\s+", " ", html.unescape(_TAG.sub("", text))).strip()


def _entries(files: list[Path]) -> Iterator[tuple[str, int, str, str]]:
    for f in files:
        for key, value in _load(f).items():
            if m := _KEY.match(key):
                yield m.group("division"), int(m.group("order") or 0), m.group("uid"), value.strip()


def read(path: Path) -> dict[str, Description]:
    """Every described uid under a bilara-data style folder (names and blurbs), by uid."""
    path = Path(path)
    files = sorted(f for f in path.rglob("*") if f.is_file() and logical_name(f).endswith(".json"))
    out: dict[str, Description] = {}

    def entry(division: str, order: int, uid: str) -> Description:
        found = out.setdefault(uid, Description(uid, division, order))
        if order and not found.order:
            found.division, found.order = division, order
        return found

    names = [f for f in files if "name" in f.relative_to(path).parts]
    for kind, marker in (("pali", "_root-misc-site"), ("english", "_translation-en-"), ("chinese", "_translation-zh-")):
        for division, order, uid, value in _entries([f for f in names if marker in logical_name(f)]):
            d = entry(division, order, uid)
            if value and not getattr(d, kind):
                setattr(d, kind, value)
    blurbs = [f for f in files if "blurb" in f.relative_to(path).parts]
    for division, order, uid, value in _entries(blurbs):
        if value:
            entry(division, order, uid).blurb = plain(value)
    return out
