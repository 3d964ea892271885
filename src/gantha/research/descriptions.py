"""SuttaCentral's descriptions (blurbs, Chinese names) matched to the nodes of a book's outline.

A node that is a named text (a sutta, a Vinaya rule, a khandhaka: ``node.sutta``) takes that text's
description. A book or chapter node (a vagga, a saṃyutta, a category of rules) takes the description of the
division of its collection whose Pali name its heading bears (``1. Mūlapariyāyavaggo`` ↔
``Mūlapariyāyavagga``, ``Pārājikakaṇḍaṃ`` ↔ ``Pārājika``), matched in reading order, so that a name repeated
in a collection (every saṃyutta has a ``Paṭhamavagga``) goes to the node in the same place.
"""

from __future__ import annotations

import re

from gantha.corpus.blurbs import Description
from gantha.corpus.suttacentral import COLLECTIONS
from gantha.text.pali import fold

LOOKAHEAD = 400  # divisions searched past the last one matched for a node's name
_SUFFIXES = ("pali", "kanda", "kandaka")  # words a CST heading adds to a division's name


def name_key(title: str) -> str:
    """A heading or a division's name reduced to its stem: ``1. Devatāsaṃyuttaṃ`` and ``Devatāsaṁyutta`` →
    ``devatasamyutt``; ``Sīlakkhandhavaggapāḷi`` → ``silakkhandhavagg``; ``Pārājikakaṇḍaṃ`` → ``parajik``."""
    key = re.sub(r"[^a-z]+", "", fold(title.lower()))
    for _ in range(2):
        key = re.sub(r"m$", "", key)
        for suffix in _SUFFIXES:
            if key.endswith(suffix) and len(key) > len(suffix) + 3:
                key = key[: -len(suffix)]
        key = re.sub(r"[aeiou]+$", "", key)
    return key


def divisions_of(book: str) -> tuple[str, ...]:
    """The name-file divisions that describe a CST book's collection (``s0201m.mul`` → ``("mn",)``)."""
    collection = next((c for c, pattern in COLLECTIONS.items() if re.match(pattern, book)), None)
    if collection is None:
        return ()
    if collection.startswith("vinaya"):
        return ("pli-tv-",)
    if collection.startswith("kn"):
        return ("kp", "dhp", "ud", "iti", "snp", "vv", "pv", "thag", "thig", "ja", "tha-ap", "thi-ap", "bv", "cp")
    return (collection,)


def match(
    nodes: list[tuple[object, str, str | None]], described: dict[str, Description], texts: dict[str, str], book: str
) -> dict[object, Description]:
    """Descriptions of a book's nodes, in reading order: ``nodes`` are (key, heading, named text's label or None);
    ``texts`` maps a named text's label to its uid."""
    prefixes = divisions_of(book)
    named = set(texts.values())
    candidates = [
        d
        for d in described.values()
        if d.uid not in named and (d.blurb or d.chinese) and d.division.startswith(prefixes) and prefixes
    ]
    keys = [name_key(d.pali) if d.pali else "" for d in candidates]
    out: dict[object, Description] = {}
    at = 0
    for key, heading, label in nodes:
        if label is not None:
            if (uid := texts.get(label)) and (d := described.get(uid)) and (d.blurb or d.chinese):
                out[key] = d
            continue
        wanted = name_key(heading)
        if len(wanted) < 4:
            continue
        found = next((i for i in range(at, min(len(keys), at + LOOKAHEAD)) if keys[i] == wanted), None)
        if found is None and at:  # a book whose divisions come earlier in the file than the last match
            found = next((i for i in range(0, at) if keys[i] == wanted), None)
        if found is not None:
            out[key] = candidates[found]
            at = found + 1
    return out
