"""Reader for SuttaCentral's segmented texts (bilara JSON: root Pali, translations, edition references).

Segments (``pli-tv-kd12:1.1.1``) are grouped into paragraphs by the ``msdivN`` marks of the
reference file: ``msdiv75`` opens Mahāsaṅgīti paragraph 75, which is CST paragraph 75, and the
segments after it continue that paragraph until the next mark. Which CST book a text belongs to is
found through the page references: the first paragraph whose segment also names a PTS page
(``pts-vp-pli2.31``) is looked up among the indexed CST paragraphs with that number and that page.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gantha.corpus.files import logical_name, read_text
from gantha.model import ChannelInfo, Passage

ROOT_CHANNEL = ChannelInfo(
    name="pli-ms",
    language="pali",
    type="original",
    author="Mahāsaṅgīti Tipiṭaka (SuttaCentral)",
    licence="CC0",
    provenance="human",
    source="suttacentral/bilara-data root/pli/ms",
)
_MSDIV = re.compile(r"\bmsdiv(\d+)\b")
_PTS = re.compile(r"\bpts-vp-pli(\d+)\.(\d+)\b")
_KIND = re.compile(r"^(?P<text>[^_]+)_(?P<kind>root|translation|reference)(?:-(?P<rest>.+))?\.json$")


def translation_channel(language: str, author: str) -> ChannelInfo:
    return ChannelInfo(
        name=language,
        language=language,
        type="translation",
        author=f"{author} (SuttaCentral)",
        licence="CC0",
        provenance="human",
        source=f"suttacentral/bilara-data translation/{language}/{author}",
    )


@dataclass
class SegmentedText:
    """One text (``pli-tv-kd12``): its reference marks and each channel's segments."""

    text_id: str
    references: dict[str, str] = field(default_factory=dict)
    channels: dict[str, tuple[ChannelInfo, dict[str, str]]] = field(default_factory=dict)

    def paragraphs(self) -> list[tuple[int, tuple[int, int] | None, list[str]]]:
        """(msdiv number, first PTS (volume, page) named in it or None, its segment ids) in order."""
        segment_ids = sorted(
            {s for _, segs in self.channels.values() for s in segs} | set(self.references), key=_segment_key
        )
        out: list[tuple[int, tuple[int, int] | None, list[str]]] = []
        for sid in segment_ids:
            ref = self.references.get(sid, "")
            if m := _MSDIV.search(ref):
                out.append((int(m.group(1)), None, []))
            if not out:
                continue  # titles before the first paragraph
            if out[-1][1] is None and (p := _PTS.search(ref)):
                out[-1] = (out[-1][0], (int(p.group(1)), int(p.group(2))), out[-1][2])
            out[-1][2].append(sid)
        return out


def _segment_key(sid: str) -> tuple:
    _, _, tail = sid.partition(":")
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r"[.\-]", tail))


def discover(path: Path) -> list[SegmentedText]:
    """Every text under a bilara-data style folder."""
    texts: dict[str, SegmentedText] = {}
    for f in sorted(p for p in Path(path).rglob("*") if p.is_file() and logical_name(p).endswith(".json")):
        m = _KIND.match(logical_name(f))
        if not m:
            continue
        text = texts.setdefault(m.group("text"), SegmentedText(m.group("text")))
        data = json.loads(read_text(f))
        if m.group("kind") == "reference":
            text.references = data
        elif m.group("kind") == "root":
            text.channels[ROOT_CHANNEL.name] = (ROOT_CHANNEL, data)
        else:
            language, _, author = m.group("rest").partition("-")
            channel = translation_channel(language, author)
            text.channels[channel.name] = (channel, data)
    return [texts[k] for k in sorted(texts)]


BookFinder = Callable[[int, int, int], str | None]  # (paragraph, PTS volume, PTS page) → CST book


def read_text_channels(text: SegmentedText, find_book: BookFinder) -> tuple[str, list[Passage]]:
    """Align a text to CST paragraphs; return the book and one passage per paragraph and channel."""
    paragraphs = text.paragraphs()
    book = next((b for n, pts, _ in paragraphs if pts and (b := find_book(n, *pts))), None)
    if book is None:
        raise ValueError(f"{text.text_id}: no indexed CST paragraph matches its paragraph numbers and PTS pages")
    passages = []
    for seq, (n, _, segment_ids) in enumerate(paragraphs, start=1):
        for channel, segments in text.channels.values():
            parts = [segments[s].strip() for s in segment_ids if segments.get(s, "").strip()]
            if parts:
                body = " ".join(parts)
                passages.append(
                    Passage(
                        corpus="cst",
                        book=book,
                        para=str(n),
                        seq=seq,
                        text=body,
                        display=body,
                        channel=channel.name,
                        language=channel.language,
                        primary=False,  # aligned to the CST original
                    )
                )
    return book, passages
