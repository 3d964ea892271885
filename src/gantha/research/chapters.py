"""The verbs ``chapter`` and ``versions``: a chapter, a sutta, a section or a paragraph range, size first; and
which channels have text at a coordinate and which do not."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, Field

from gantha.links.agama import other_canon
from gantha.model import (
    ParallelRef,
    Passage,
)
from gantha.search.service import SearchError
from gantha.text.chinese import to_simplified
from gantha.text.pali import SCRIPTS, from_roman

CHINESE_SCRIPTS = ("Hant", "Hans")  # the Āgamas as written (traditional), or simplified

MAX_CHAPTER_PARAGRAPHS = 5000
PARAGRAPH_RANGE = re.compile(r"^([^/]+/[^/]+)/(\d+)-(\d+)$")  # cst/vin02m3.mul/150-160
MAX_RANGE = 500  # paragraphs a range may span


class ChapterPassage(BaseModel):
    coordinate: str
    para: str
    kind: str
    text: str
    display: str
    page_starts: list[str] = Field(default_factory=list)  # edition pages beginning in this paragraph


class ChapterResult(BaseModel):
    coordinate: str
    book: str
    book_title: str
    chapter: str
    channel: str
    paragraphs: int
    characters: int
    approx_tokens: int
    confirmed: bool
    passages: list[ChapterPassage] | None = None
    message: str | None = None
    summary: str | None = None  # SuttaCentral's blurb of the sutta or chapter, where it has one
    title_zh: str | None = None  # its Chinese name, where SuttaCentral gives one
    parallels: list[ParallelRef] | None = None  # a sutta's parallels in the other canon (Pali ↔ Āgama)


class ChannelStatus(BaseModel):
    channel: str
    language: str
    type: str
    author: str
    licence: str
    provenance: str
    status: str  # available | part_of | missing
    anchor: str | None = None


class VersionsResult(BaseModel):
    coordinate: str
    channels: list[ChannelStatus]


def _is_pali_text(passages: list[Passage]) -> bool:
    """Whether a chapter's passages are Pali (transliterable), not a translation."""
    return bool(passages) and passages[0].language == "pali"


def _section_of(passages: list[Passage], p: Passage) -> list[Passage]:
    """The contiguous passages around ``p`` that stand under the same headings."""
    at = next((i for i, x in enumerate(passages) if x.seq == p.seq), None)
    if at is None:
        return [p]
    start = at
    while start > 0 and passages[start - 1].path == p.path:
        start -= 1
    end = at
    while end + 1 < len(passages) and passages[end + 1].path == p.path:
        end += 1
    return passages[start : end + 1]


class ChapterVerbs:
    """Needs ``store``, ``resolve``, ``named``, ``_part_of``, ``_locate``, ``node_description``."""

    def _pali(self, coordinate: str) -> Passage:
        """The passage at a coordinate (or a sutta reference): the Pali original, else the first channel with it."""
        c = self.resolve(coordinate)
        for channel in ["pali", *(ch.name for ch in self.store.all_channels() if ch.name != "pali")]:
            if p := self.store.get([c], channel).get(c):
                return p
        raise SearchError("not_found", f"no such coordinate: {c}")

    def chapter(
        self,
        coordinate: str,
        confirm: bool = False,
        channel: str = "pali",
        script: str = "Roman",
        section: bool = False,
    ) -> ChapterResult:
        """The chapter around a coordinate: its size, and with ``confirm`` its text (Pali in ``script``).
        A sutta reference gives that sutta; a paragraph range (``cst/vin02m3.mul/150-160``) those paragraphs;
        ``section`` only the innermost heading's section around the coordinate."""
        if script not in SCRIPTS and script not in CHINESE_SCRIPTS:
            raise SearchError(
                "invalid_parameter",
                f"unknown script {script!r}; one of {', '.join(SCRIPTS)} (Pali), "
                f"{', '.join(CHINESE_SCRIPTS)} (Chinese)",
            )
        described, others = None, []
        if span := self._paragraph_range(coordinate, channel):
            p, passages = span[0], span
            channel = p.channel
            title = f"{p.book_title} {p.para}–{passages[-1].para}"
        else:
            p = self._pali(coordinate)
            channel = channel if p.channel == "pali" else p.channel
            if named := self.named(coordinate):  # a sutta reference: that sutta, not the chapter holding it
                passages = self.store.book_passages(p.corpus, p.book, channel, (named.first_seq, named.last_seq))
                title = f"{named.label} {named.title or named.pali_title}".strip()
                described = (named.blurb, named.zh_title)
            else:
                passages = self.store.chapter(p.corpus, p.book, p.chapter, channel)
                title = p.chapter_title or (p.path[-1] if p.path else "")
                described = self._chapter_description(p)
            if holder := named or self.store.text_at(p.corpus, p.book, p.seq):  # the sutta read here
                others = other_canon(self.store, holder)
            if section:  # the run of passages under the same headings as the coordinate's
                passages = _section_of(passages, p)
                title = " › ".join(p.path) or title
        chars = sum(len(x.text) for x in passages)
        result = ChapterResult(
            coordinate=p.coordinate,
            book=p.book,
            book_title=p.book_title,
            chapter=title,
            channel=channel,
            paragraphs=len(passages),
            characters=chars,
            approx_tokens=chars // 4,
            confirmed=confirm,
            summary=(described[0] or None) if described and not section else None,
            title_zh=(described[1] or None) if described and not section else None,
            parallels=others or None,
        )
        if not confirm:
            result.message = (
                f"{len(passages)} paragraphs, ~{chars // 4:,} tokens: ask again with confirm to get the text"
            )
        elif len(passages) > MAX_CHAPTER_PARAGRAPHS:
            result.confirmed = False
            result.message = f"chapter too large ({len(passages)} paragraphs); use get on chosen coordinates"
        else:
            convert = (lambda t: from_roman(t, script)) if _is_pali_text(passages) and script in SCRIPTS[1:] else str
            if script == "Hans":  # Chinese as simplified characters (the Āgamas are written traditional)
                convert = to_simplified
            result.passages = [
                ChapterPassage(
                    coordinate=x.coordinate,
                    para=x.para,
                    kind=x.kind,
                    text=convert(x.text),
                    display=convert(x.display),
                    page_starts=x.page_starts,
                )
                for x in passages
            ]
        return result

    def _chapter_description(self, p: Passage) -> tuple[str, str] | None:
        """The blurb and Chinese name SuttaCentral gives the chapter holding a passage, where it gives them."""
        if p.chapter < 1 or not self.store.descriptions():
            return None
        try:
            corpus, book, node = self._locate(f"{p.corpus}/{p.book}/ch{p.chapter}")
        except SearchError:
            return None
        found = self.node_description(corpus, book, node)
        return (found.blurb, found.chinese) if found else None

    def _paragraph_range(self, coordinate: str, channel: str) -> list[Passage] | None:
        """The passages of ``corpus/book/A-B`` (paragraphs A to B with their unnumbered followers), or None
        when the coordinate is not a range (a paragraph numbered ``429-430`` in the text is a paragraph)."""
        m = PARAGRAPH_RANGE.match(coordinate.strip())
        if not m or self.store.get([coordinate.strip()], channel):
            return None
        base, first, last = m.group(1), int(m.group(2)), int(m.group(3))
        if last < first or last - first > MAX_RANGE:
            raise SearchError("invalid_parameter", f"a paragraph range runs forward, {MAX_RANGE} paragraphs at most")
        start, end = self._pali(f"{base}/{first}"), self._pali(f"{base}/{last}")
        following = self.store.book_passages(end.corpus, end.book, end.channel, (end.seq, end.seq + MAX_RANGE))
        tail = [x for x in following if x.para == end.para or x.para.startswith(f"{end.para}.")]
        last_seq = max([end.seq, *(x.seq for x in tail)])
        return self.store.book_passages(start.corpus, start.book, start.channel, (start.seq, last_seq))

    def versions(self, coordinate: str) -> VersionsResult:
        """Which channels have text at a coordinate, and explicitly which do not."""
        p = self._pali(coordinate)
        known: dict[str, Any] = {}
        for rec in self.store.all_channels():
            known.setdefault(rec.name, rec)
        statuses = []
        relevant = {r.channel.name for r in self.store.channels(p.corpus, p.book)} | {p.channel}
        if p.corpus != "cst":  # a Bible's channels are its translations, not the Pali ones
            known = {name: info for name, info in known.items() if name in relevant}
        for name, info in known.items():
            here = name == p.channel or p.coordinate in self.store.get([p.coordinate], name)
            anchor = None if here else self._part_of(p.coordinate, name)
            status = "available" if here else "part_of" if anchor else "missing"
            statuses.append(
                ChannelStatus(
                    channel=name,
                    language=info.language,
                    type=info.type,
                    author=info.author,
                    licence=info.licence,
                    provenance=info.provenance,
                    status=status,
                    anchor=anchor,
                )
            )
        statuses.sort(key=lambda s: (s.channel != "pali", s.status != "available", s.channel))
        return VersionsResult(coordinate=p.coordinate, channels=statuses)
