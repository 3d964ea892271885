"""Edition page references: parse what scholars and WikiPali write into one normal form.

The CST XML marks page breaks of five print editions with ``<pb ed="P" n="2.0031"/>``: ``M`` Myanmar
(Chaṭṭha Saṅgāyana), ``V`` VRI, ``P`` Pali Text Society, ``T`` Thai, ``O`` other. Its normal text form
here is ``P2.0031`` (edition letter, volume, four-digit page). ``P2.31`` (WikiPali) and
``PTS Vin II 31`` (a scholar's footnote) parse to the same edition, volume and page; the footnote
form also names the collection, which narrows the books searched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gantha.text.pali import fold

EDITIONS = {"M": "Myanmar (CST)", "V": "VRI", "P": "PTS", "T": "Thai", "O": "other"}
_EDITION_WORDS = {
    "pts": "P",
    "p": "P",
    "vri": "V",
    "v": "V",
    "mm": "M",
    "myanmar": "M",
    "cst": "M",
    "m": "M",
    "thai": "T",
    "t": "T",
    "other": "O",
    "o": "O",
}

# PTS abbreviation -> regular expression over CST book ids (file stems)
PTS_BOOKS: dict[str, str] = {
    "vin": r"vin0[12]m",
    "d": r"s01\d\dm",
    "dn": r"s01\d\dm",
    "m": r"s02\d\dm",
    "mn": r"s02\d\dm",
    "s": r"s03\d\dm",
    "sn": r"s03\d\dm",
    "a": r"s04\d\dm",
    "an": r"s04\d\dm",
    "khp": r"s0501m",
    "dhp": r"s0502m",
    "ud": r"s0503m",
    "it": r"s0504m",
    "snp": r"s0505m",
    "vv": r"s0506m",
    "pv": r"s0507m",
    "th": r"s0508m",
    "thag": r"s0508m",
    "thi": r"s0509m",
    "thig": r"s0509m",
    "ap": r"s0510m",
    "bv": r"s0511m",
    "cp": r"s0512m",
    "ja": r"s051[34]m",
    "nidd i": r"s0515m",
    "mnd": r"s0515m",
    "nidd ii": r"s0516m",
    "cnd": r"s0516m",
    "patis": r"s0517m",
    "mil": r"s0518m",
    "nett": r"s0519m",
    "pet": r"s0520m",
    "dhs": r"abh01m",
    "vibh": r"abh02m",
    "dhatuk": r"abh03m1\.",
    "pp": r"abh03m2\.",
    "pugg": r"abh03m2\.",
    "kv": r"abh03m3\.",
    "yam": r"abh03m[456]\.",
    "patth": r"abh03m(?:[789]|1[01])\.",
    "sp": r"vin0[12]a",
    "sv": r"s01\d\da",
    "ps": r"s02\d\da",
    "spk": r"s03\d\da",
    "mp": r"s04\d\da",
    "dhp-a": r"s0502a",
    "as": r"abh01a",
    "vibh-a": r"abh02a",
    "vism": r"e010[12]n",
}

ACCEPTED_FORMS = (
    "P2.0031 or P2.31 (edition letter M/V/P/T/O, volume, page), "
    "'PTS 2.31' / 'VRI 0.77' / 'Myanmar 0.82' (edition name, volume.page), "
    "'PTS Vin II 31' / 'Vin II 31' / 'D II 31' / 'Sp I 12' (PTS abbreviation, Roman or Arabic volume, page)"
)

_LETTER_FORM = re.compile(r"^([MVPTO])\s?(\d{1,2})\s?\.\s?(\d{1,4})$", re.IGNORECASE)
_NAMED_FORM = re.compile(r"^(pts|vri|mm|myanmar|cst|thai|other)\s+(\d{1,2})\s?\.\s?(\d{1,4})$", re.IGNORECASE)
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50}


class PageRefError(ValueError):
    """A page reference that cannot be parsed; the message lists the accepted forms."""

    def __init__(self, text: str):
        super().__init__(f"cannot parse page reference {text!r}; accepted forms: {ACCEPTED_FORMS}")


@dataclass(frozen=True, slots=True)
class PageRef:
    """One page of one edition, optionally restricted to the books a PTS abbreviation names."""

    edition: str
    volume: int
    page: int
    books: str | None = None  # regular expression over book ids
    label: str | None = None  # the abbreviation as written, e.g. "Vin"

    @property
    def key(self) -> str:
        """Normal form as indexed: ``P2.0031``."""
        return f"{self.edition}{self.volume}.{self.page:04d}"

    @property
    def short(self) -> str:
        """WikiPali's form: ``P2.31``."""
        return f"{self.edition}{self.volume}.{self.page}"

    def __str__(self) -> str:
        return self.key


def page_key(edition: str, n: str) -> str:
    """Normalise a ``<pb ed= n=>`` pair (``P``, ``2.0031``) to ``P2.0031``; raise ValueError if odd."""
    volume, _, page = n.partition(".")
    return f"{edition.upper()}{int(volume)}.{int(page):04d}"


def _roman_or_int(text: str) -> int | None:
    if text.isdecimal():
        return int(text)
    values = [_ROMAN.get(c) for c in text.lower()]
    if not values or None in values:
        return None
    total = 0
    for i, v in enumerate(values):
        total += -v if i + 1 < len(values) and v < values[i + 1] else v  # type: ignore[operator]
    return total


def _cited_works() -> None:
    """Every abbreviation a citation prints (:mod:`gantha.text.cite_pages`: ``Sv-pṭ``, ``Pj I``, ``Nidd-a III``)
    is read back: added to :data:`PTS_BOOKS` where that table does not name it already."""
    from gantha.text.cite_pages import _WORKS  # the citations' table of PTS abbreviations (one source for both)

    for pattern, abbreviation, _style in _WORKS:
        PTS_BOOKS.setdefault(fold(abbreviation).lower(), pattern)


_cited_works()
PTS_BOOKS_CASED = {"Sn": r"s0505m"}  # as written: the Suttanipāta (PTS "Sn"), not the Saṃyutta ("SN", "S")
_PAGE_RANGE = re.compile(r"(\d)\s*[–-]\s*(?:[IVXL]+\s+)?\d+\s*$")  # 420–421, IV 400 – V 2: the first page


def parse_page_ref(text: str) -> PageRef:
    """Parse any accepted form of page reference (a range of pages: its first); raise PageRefError otherwise."""
    raw = _PAGE_RANGE.sub(r"\1", " ".join(text.strip().split()))
    if m := _LETTER_FORM.match(raw):
        return PageRef(m.group(1).upper(), int(m.group(2)), int(m.group(3)))
    if m := _NAMED_FORM.match(raw):
        return PageRef(_EDITION_WORDS[m.group(1).lower()], int(m.group(2)), int(m.group(3)))
    words = raw.split()
    if words and words[0].lower() == "pts":
        words = words[1:]
    tokens = [t for t in fold(" ".join(words)).replace(".", " ").replace(",", " ").split() if t not in ("p", "pp")]
    # the abbreviation may be two words ("nidd ii"); the last two tokens are volume and page,
    # or only the page for one-volume books
    for abbr_len in (2, 1):
        abbr = " ".join(tokens[:abbr_len])
        rest = tokens[abbr_len:]
        books = PTS_BOOKS_CASED.get(" ".join(words[:abbr_len])) or PTS_BOOKS.get(abbr)
        if books is None or not rest or not rest[-1].isdecimal() or len(rest) > 2:
            continue
        volume = _roman_or_int(rest[0]) if len(rest) == 2 else 0
        if volume is None:
            continue
        return PageRef("P", volume, int(rest[-1]), books=books, label=" ".join(words[:abbr_len]))
    raise PageRefError(text)


# --- citing ------------------------------------------------------------------------------------------

_PTS_LABELS = ((r"vin0[12]m", "Vin"), (r"s01\d\dm", "D"), (r"s02\d\dm", "M"), (r"s03\d\dm", "S"), (r"s04\d\dm", "A"))


def roman(n: int) -> str:
    """``2`` → ``II`` (volumes 1–39)."""
    out = ""
    for value, letters in ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + letters, n - value
    return out or "0"


# --- references to named texts (suttas, Vinaya rules) --------------------------------------------

# what scholars write before the number (folded, lower case) → the uid prefix of the texts it numbers; a
# corpus of its own adds its lines here (the texts' records say which corpus holds them)
TEXT_PREFIXES: dict[str, str] = {
    **{k: "dn" for k in ("dn", "d", "digha")},
    **{k: "mn" for k in ("mn", "m", "majjhima")},
    **{k: "sn" for k in ("sn", "s", "samyutta")},
    **{k: "an" for k in ("an", "a", "anguttara")},
    **{k: "kp" for k in ("kp", "khp")},
    "dhp": "dhp",
    "ud": "ud",
    **{k: "iti" for k in ("iti", "it")},
    **{k: "snp" for k in ("snp", "sn p", "sutta nipata", "sutta-nipata")},
    "vv": "vv",
    "pv": "pv",
    **{k: "thag" for k in ("thag", "th", "tha")},
    **{k: "thig" for k in ("thig", "thi")},
    "tha ap": "tha-ap",
    "thi ap": "thi-ap",
    "bv": "bv",
    "cp": "cp",
    "ja": "ja",
    "mnd": "mnd",
    "cnd": "cnd",
    "ps": "ps",
    "ne": "ne",
    "pe": "pe",
    "mil": "mil",
    "kd": "pli-tv-kd",
    "pvr": "pli-tv-pvr",
    **{
        f"{who} {rule}": f"pli-tv-{who}-vb-{rule}"
        for who in ("bu", "bi")
        for rule in ("pj", "ss", "ay", "np", "pc", "pd", "sk", "as")
    },
    # the Chinese Āgamas (corpus agama): MA 200, SA 379, DA 2, EA 12.1, as SuttaCentral's uids
    **{k: k for k in ("da", "ma", "sa", "ea")},
}
# the Āgamas by Taishō number: T 26 no. 200, T26.200, T99 n. 379 → ma200, sa379
TAISHO = {1: "da", 26: "ma", 99: "sa", 125: "ea"}
_TAISHO_REF = re.compile(r"^\s*t\.?\s*(?P<collection>\d+)\s*(?:,|\.|no\.?|n\.?|#)\s*(?P<number>\d+(?:\.\d+)?)\s*$")
# scholars' forms that count by the CST paragraph number (the commentaries' abbreviation of the same work in
# ``gantha/data/citations.tsv``, whose numbering they follow). The Dhammasaṅgaṇī is cited by its sections, which
# the CST numbers; the other books without SuttaCentral numbers are cited by PTS page (``Vibh 25``, ``Vism 50``,
# ``Mil 25``: :data:`PTS_BOOKS`) and by the commentaries' forms (``vibha. 25``: the CST paragraph)
CST_NUMBERED: dict[str, str] = {
    "dhs": "dha. sa.",
}
_TEXT_REF = re.compile(r"^\s*(?P<prefix>[a-z]+(?:[ -][a-z]+)?)\.?\s*(?P<number>\d+(?:\.\d+)*(?:-\d+)?)\s*$")


def parse_text_ref(text: str) -> str | None:
    """``MN 22`` / ``mn22`` / ``SN 56.11`` / ``Snp 1.8`` / ``Dhp 183`` / ``Kd 12`` → SuttaCentral uid, else None."""
    if (t := _TAISHO_REF.match(fold(text))) and int(t.group("collection")) in TAISHO:
        return TAISHO[int(t.group("collection"))] + t.group("number")
    m = _TEXT_REF.match(fold(text))
    if not m:
        return None
    prefix = TEXT_PREFIXES.get(m.group("prefix").replace("-", " "))
    return f"{prefix}{m.group('number')}" if prefix else None


def _number_range(part: str) -> tuple[int, int] | None:
    lo, _, hi = part.partition("-")
    if not lo.isdecimal() or (hi and not hi.isdecimal()):
        return None
    return int(lo), int(hi or lo)


def covering_uid(uid: str, candidates: list[str]) -> str | None:
    """The uid among ``candidates`` that names ``uid`` or a range holding it (``sn48.140`` → ``sn48.137-146``)."""
    if uid in candidates:
        return uid
    m = re.match(r"^(.*?)(\d+)$", uid)
    if not m:
        return None
    head, number = m.group(1), int(m.group(2))
    for c in candidates:
        if c.startswith(head) and (r := _number_range(c[len(head) :])) and r[0] <= number <= r[1]:
            return c
    return None
