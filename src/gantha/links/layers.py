"""The layers of the canon: which CST book comments on which, and which commentary paragraph explains
which root paragraph.

A CST commentary (aṭṭhakathā) numbers its paragraphs with the numbers of the root paragraphs it explains
(``vin02a3.att`` paragraph 75 comments on ``vin02m3.mul`` paragraph 75), and a subcommentary (ṭīkā) keeps
the same numbers. Books go together by their file names (``vin02m3.mul``, ``vin02a3.att``, ``vin02t.tik``
share the group ``vin02``), plus a table for the books whose names do not say it (``EXPLICIT``). A
commentary's numbered paragraphs are aligned to its root's by number, in reading order: the heaviest
increasing chain of equal numbers, so restarted numberings (the Jātaka's nipātas, a commentary spanning
four Vinaya books) land in the right run; a number left over (a commentary that quotes verses 1–7 and
then explains them) goes to the nearest root paragraph with that number. A few root paragraphs carry a
number written twice by a slip the commentary does not follow (``SLIPS``): it counts on from there.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Role = Literal["mula", "atthakatha", "tika"]
LAYERS: tuple[Role, ...] = ("mula", "atthakatha", "tika")
NEAREST_WINDOW = 100  # a left-over number goes to a root paragraph at most this many numbered paragraphs away

_STEM = re.compile(r"^(vin|abh|s|e)(\d+)([mant])(\d*)\.(mul|att|tik|nrf)$")
_NUMBER = re.compile(r"^(\d+)(?:-(\d+))?(?:~\d+)?$")
_SAMANTAPASADIKA = ("vin01a.att", "vin02a1.att", "vin02a2.att", "vin02a3.att", "vin02a4.att")

# books whose file names do not say what they comment on: book → (the books it explains, its layer)
EXPLICIT: dict[str, tuple[tuple[str, ...], Role]] = {
    "s0104t.nrf": (("s0101a.att",), "tika"),  # Sīlakkhandhavagga-abhinavaṭīkā
    "s0105t.nrf": (("s0101a.att",), "tika"),
    "s0501t.nrf": (("s0519a.att",), "tika"),  # Nettivibhāvinī, on the Netti
    "abh04t.nrf": (("abh01t.tik",), "tika"),  # Dhammasaṅgaṇī-anuṭīkā, on the mūlaṭīkā
    "abh05t.nrf": (("abh03t.tik",), "tika"),  # Pañcapakaraṇa-anuṭīkā
    "abh08t.nrf": (("abh06t.nrf",), "tika"),  # Abhidhammāvatāra-purāṇaṭīkā
    "vin06t.nrf": (_SAMANTAPASADIKA, "tika"),  # Vajirabuddhi-ṭīkā
    "vin07t.nrf": (_SAMANTAPASADIKA, "tika"),  # Vimativinodanī-ṭīkā
    "vin12t.nrf": (_SAMANTAPASADIKA[1:], "tika"),  # Pācityādiyojanā
    "vin08t.nrf": (("vin05t.nrf",), "tika"),  # Vinayālaṅkāra-ṭīkā, on the Vinayasaṅgaha
    "vin11t.nrf": (("vin10t.nrf",), "tika"),  # Vinayavinicchaya-ṭīkā
    "e0103n.att": (("e0101n.mul",), "tika"),  # Visuddhimagga-mahāṭīkā, volume by volume
    "e0104n.att": (("e0102n.mul",), "tika"),
    "e0401n.nrf": (("e0301n.nrf",), "tika"),  # Anudīpanī, on the Paramatthadīpanī
    "e0810n.nrf": (("e0809n.nrf",), "tika"),  # Abhidhānappadīpikāṭīkā
    "e0812n.nrf": (("e0811n.nrf",), "tika"),  # Subodhālaṅkāraṭīkā
}
# root paragraphs whose number repeats the one before by a slip: their commentary counts on, one ahead. Only
# where the texts show it: elsewhere a repeated number (Thag 1204~2, Paṭis 10~5, Sp 102~2) is followed.
SLIPS: frozenset[tuple[str, str]] = frozenset({("s0505m.mul", "274~2")})  # Suttanipāta: two verses 274
# commentaries that cannot be paired by their numbers, and why
UNPAIRED: dict[str, str] = {
    "e0301n.nrf": "its paragraph numbers do not follow the Abhidhammatthasaṅgaha (abh07t.nrf) it explains",
    "vin09t.nrf": "the Kaṅkhāvitaraṇī it explains is not among the CST books",
}


@dataclass(frozen=True, slots=True)
class Numbered:
    """A numbered paragraph: its book, paragraph id (``75``, ``3-5``, ``12~2``), reading order and numbers."""

    book: str
    para: str
    seq: int
    first: int
    last: int


def is_numbered(para: str) -> bool:
    """Whether a paragraph id is a CST number (``75``, ``3-5``, ``12~2``), not an unnumbered follower (``75.3``)."""
    return bool(_NUMBER.match(para))


def numbered(book: str, paragraphs: Sequence[tuple[str, int]]) -> list[Numbered]:
    """The numbered paragraphs among a book's (paragraph id, seq) pairs, in reading order."""
    out = []
    for para, seq in paragraphs:
        if m := _NUMBER.match(para):
            first = int(m.group(1))
            out.append(Numbered(book, para, seq, first, max(first, int(m.group(2) or first))))
    return out


@dataclass(frozen=True, slots=True)
class Pairing:
    """Commentary books read as one text (``child``) and the books they explain, read as one (``parent``)."""

    child: tuple[str, ...]
    parent: tuple[str, ...]
    role: Role  # the layer of the child books

    def __str__(self) -> str:
        return f"{','.join(self.child)} → {','.join(self.parent)}"


def _parts(book: str) -> tuple[str, str, int, str] | None:
    """``vin02m3.mul`` → (group ``vin02``, letter ``m``, volume 3, suffix ``mul``)."""
    m = _STEM.match(book)
    return (m.group(1) + m.group(2), m.group(3), int(m.group(4) or 0), m.group(5)) if m else None


def role(book: str, title: str = "") -> Role | None:
    """The layer a book belongs to by its name (and title: the Visuddhimagga-mahāṭīkā is named ``.att``)."""
    if book in EXPLICIT:
        return EXPLICIT[book][1]
    parts = _parts(book)
    if parts is None:
        return None
    letter, suffix = parts[1], parts[3]
    if letter == "n":
        layer: Role | None = {"mul": "mula", "att": "atthakatha", "tik": "tika"}.get(suffix)
    else:
        layer = None if suffix == "nrf" else {"m": "mula", "a": "atthakatha", "t": "tika"}[letter]
    return "tika" if layer == "atthakatha" and "ṭīkā" in title else layer


def pairings(titles: dict[str, str]) -> list[Pairing]:
    """Every pairing of commentary books with the books they explain, among these books (id → title)."""
    groups: dict[str, dict[Role, list[str]]] = defaultdict(lambda: defaultdict(list))
    for book in sorted(titles, key=lambda b: ((_parts(b) or ("", "", 0, ""))[::2], b)):
        parts, layer = _parts(book), role(book, titles[book])
        if parts and layer and book not in EXPLICIT:
            groups[parts[0]][layer].append(book)
    out: list[Pairing] = []
    for layers in groups.values():
        roots, comments, subs = layers["mula"], layers["atthakatha"], layers["tika"]
        for child, parent, layer in ((comments, roots, "atthakatha"), (subs, comments or roots, "tika")):
            if not child or not parent:
                continue
            if len(child) == len(parent) > 1:  # volume by volume (vin02a1.att explains vin02m1.mul …)
                out += [Pairing((c,), (p,), layer) for c, p in zip(child, parent, strict=True)]
            else:
                out.append(Pairing(tuple(child), tuple(parent), layer))
    for book, (parents, layer) in EXPLICIT.items():
        if book in titles and all(p in titles for p in parents):
            out.append(Pairing((book,), parents, layer))
    return out


def roots_of(pairs: list[Pairing]) -> dict[str, tuple[str, ...]]:
    """Each commentary book → the root-text books at the bottom of its chain (a ṭīkā → the mūla books)."""
    parents = {c: p.parent for p in pairs for c in p.child}
    out: dict[str, tuple[str, ...]] = {}
    for book in parents:
        level, seen = parents[book], {book}
        while all(b in parents for b in level) and not seen & set(level):
            seen |= set(level)
            level = tuple(dict.fromkeys(r for b in level for r in parents[b]))
        out[book] = level
    return out


@dataclass(frozen=True, slots=True)
class Match:
    """A commentary paragraph and the root paragraph it explains; ``nearest``: placed by the second pass."""

    child: Numbered
    parent: Numbered
    nearest: bool = False


def align(child: Sequence[Numbered], parent: Sequence[Numbered]) -> list[Match]:
    """Match commentary paragraphs to root paragraphs by number (see the module docstring)."""
    by_number: dict[int, list[int]] = defaultdict(list)
    for j, (first, last) in enumerate(_counted(parent)):
        for n in range(first, min(last, first + 50) + 1):
            by_number[n].append(j)

    def candidates(c: Numbered) -> list[int]:
        return sorted({j for n in range(c.first, min(c.last, c.first + 50) + 1) for j in by_number.get(n, ())})

    chain = _heaviest_chain([candidates(c) for c in child], len(parent))
    matches = {i: Match(child[i], parent[j]) for i, j in chain.items()}
    placed = sorted(chain.items())
    for i, c in enumerate(child):  # left-over numbers: the nearest root paragraph with that number
        if i in matches or not placed:
            continue
        k = max(0, min(len(placed) - 1, _bisect_left(placed, i) - 1))
        reference = placed[k][1]
        near = [j for j in candidates(c) if abs(j - reference) <= NEAREST_WINDOW]
        if near:
            matches[i] = Match(c, parent[min(near, key=lambda j: abs(j - reference))], nearest=True)
    return [matches[i] for i in sorted(matches)]


def _counted(parent: Sequence[Numbered]) -> list[tuple[int, int]]:
    """The numbers a commentary counts the root's paragraphs by: after a slip (``SLIPS``) it counts on, one
    ahead of the root until the numbering starts again."""
    out, shift = [], 0
    for j, p in enumerate(parent):
        if j and p.first < parent[j - 1].first:
            shift = 0  # a new numbering run
        elif (p.book, p.para) in SLIPS:
            shift += 1
        out.append((p.first + shift, p.last + shift))
    return out


def _bisect_left(placed: list[tuple[int, int]], i: int) -> int:
    lo, hi = 0, len(placed)
    while lo < hi:
        mid = (lo + hi) // 2
        if placed[mid][0] < i:
            lo = mid + 1
        else:
            hi = mid
    return lo


def _heaviest_chain(candidates: list[list[int]], width: int) -> dict[int, int]:
    """The longest chain of (i, j) pairs increasing in both, j among ``candidates[i]``: child i → parent j.

    A Fenwick tree over j keeps the best chain ending below each j; pairs of one i are visited from the
    highest j down, so no chain takes two of them.
    """
    tree = [(0, -1)] * (width + 1)  # (chain length, pair index)
    pairs: list[tuple[int, int, int]] = []  # (i, j, previous pair index)

    def best_below(j: int) -> tuple[int, int]:
        best = (0, -1)
        while j > 0:
            if tree[j][0] > best[0]:
                best = tree[j]
            j -= j & -j
        return best

    def raise_at(j: int, value: tuple[int, int]) -> None:
        j += 1
        while j <= width:
            if value[0] > tree[j][0]:
                tree[j] = value
            j += j & -j

    for i, js in enumerate(candidates):
        for j in reversed(js):
            length, previous = best_below(j)
            pairs.append((i, j, previous))
            raise_at(j, (length + 1, len(pairs) - 1))
    out: dict[int, int] = {}
    k = best_below(width)[1]
    while k >= 0:
        i, j, k = pairs[k]
        out[i] = j
    return out
