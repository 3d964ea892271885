"""The original API's vocabulary as gantha's corpora and channels: resource types, categories, languages.

``resource_type`` names a kind of document (``origin_text``, ``translation``, ``nissaya``, ``dictionary``,
``term``, ``article``) or a corpus (``cst``, ``pali``, ``tipitaka``, ``bible``, ``md``, ``markdown``,
``dict``); ``category`` takes the design's ``pali`` / ``commentary`` / ``subcommentary`` beside CST's
``mula`` / ``atthakatha`` / ``tika`` / ``anya``.
"""

from __future__ import annotations

from collections.abc import Iterable

from gantha.store.base import BookRecord

CORPORA = {"cst": "cst", "pali": "cst", "tipitaka": "cst", "bible": "bible", "md": "md", "markdown": "md"}
CORPORA |= {"dict": "dict", "dictionaries": "dict"}
KINDS = ("origin_text", "translation", "nissaya", "dictionary", "term", "article")
CATEGORIES = {"pali": "mula", "commentary": "atthakatha", "subcommentary": "tika"}


def resource_type(corpus: str, channel_type: str) -> str:
    """The design's resource type of a passage of this corpus, in a channel of this type."""
    if corpus == "dict":
        return "dictionary"
    if corpus == "md":
        return "article"
    return channel_type if channel_type in ("translation", "nissaya") else "origin_text"


def known() -> list[str]:
    return sorted({*KINDS, *CORPORA})


def channels_of(names: Iterable[str], records: Iterable[BookRecord]) -> tuple[set[str], set[str] | None]:
    """The (corpora, channels) the resource types ``names`` select among the recorded books (unknown names
    raise ``KeyError``); a kind with no document here selects nothing. Corpus names alone select corpora
    (their originals, as any search of a corpus does): channels None."""
    wanted = set(names)
    if unknown := wanted - set(known()):
        raise KeyError(sorted(unknown)[0])
    kinds = {"dictionary" if n == "term" else n for n in wanted if n in KINDS}  # a headword is the term
    named = {CORPORA[n] for n in wanted if n in CORPORA}
    if not kinds:
        return named, None
    corpora, channels = set(), set()
    for r in records:
        if resource_type(r.info.corpus, r.channel.type) in kinds or r.info.corpus in named:
            corpora.add(r.info.corpus)
            channels.add(r.channel.name)
    return corpora, channels


def category(name: str) -> str:
    """A category as the index records it (the design's names mapped onto CST's)."""
    return CATEGORIES.get(name, name)
