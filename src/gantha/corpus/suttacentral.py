"""Reader for SuttaCentral's segmented texts (bilara JSON: root Pali, translations, references, names).

A text (``mn10``, ``an1.1-10``, ``pli-tv-kd12``) is a set of files sharing a uid: the Mahāsaṅgīti
root (``…_root-pli-ms.json``), its translations (``…_translation-en-sujato.json``) and, for the
Khandhakas, a reference file whose ``msdivN`` marks open CST paragraph ``N``. Every file is one
JSON object, segment id → string, in reading order; the same segment id names the same sentence
in every file of the text.

Texts are grouped in collections, each read against the CST books that hold it (DN → ``s01…m``,
…, the Vinaya → ``vin01m``/``vin02m…``); the aligner (``gantha.text.align``) places each segment
in its CST paragraph. Translators, titles and licences come from ``_publication-v2.json``, the
names of texts from the ``name`` files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from gantha.corpus.files import SourceError, logical_name, read_text
from gantha.model import ChannelInfo, Passage, TextRecord
from gantha.text.align import ParagraphStream, align

ROOT_CHANNEL = ChannelInfo(
    name="pli-ms",
    language="pali",
    type="original",
    author="Mahāsaṅgīti Tipiṭaka (SuttaCentral)",
    licence="CC0",
    provenance="human",
    source="SuttaCentral bilara-data root/pli/ms",
)
# the CST books that hold each collection (regular expressions over book ids); the Vinaya by book, so
# that its formulas, repeated word for word in several books, are looked for in the right one
COLLECTIONS: dict[str, str] = {
    "dn": r"^s01\d\dm",
    "mn": r"^s02\d\dm",
    "sn": r"^s03\d\dm",
    "an": r"^s04\d\dm",
    # the Khuddaka books one by one: each text is looked for in its own book (the "Namo tassa" and the
    # verses that open several books would otherwise draw a text into another)
    "kn-kp": r"^s0501m",
    "kn-dhp": r"^s0502m",
    "kn-ud": r"^s0503m",
    "kn-iti": r"^s0504m",
    "kn-snp": r"^s0505m",
    "kn-vv": r"^s0506m",
    "kn-pv": r"^s0507m",
    "kn-thag": r"^s0508m",
    "kn-thig": r"^s0509m",
    "kn-ap": r"^s0510m",  # the Therāpadāna and the Therīapadāna share its two volumes
    "kn-bv": r"^s0511m",
    "kn-cp": r"^s0512m",
    "kn-ja": r"^s051[34]m",
    "kn-mnd": r"^s0515m",
    "kn-cnd": r"^s0516m",
    "kn-ps": r"^s0517m",
    "kn-mil": r"^s0518m",
    "kn-ne": r"^s0519m",
    "kn-pe": r"^s0520m",
    "vinaya-parajika": r"^vin01m",  # the bhikkhus' pārājika … nissaggiya rules
    "vinaya-pacittiya": r"^vin02m1",  # their pācittiya … adhikaraṇasamatha rules, the bhikkhunīs' vibhaṅga
    "vinaya-mahavagga": r"^vin02m2",  # Khandhakas 1–10
    "vinaya-cullavagga": r"^vin02m3",  # Khandhakas 11–22
    "vinaya-parivara": r"^vin02m4",
}
KN_BOOKS = {"tha-ap": "ap", "thi-ap": "ap"}  # SuttaCentral's Khuddaka folders held by one collection
# texts whose Pali stands inside another CST text: the Pātimokkha rules are in the Vibhaṅga
NOT_SEPARATE = re.compile(r"^pli-tv-b[ui]-pm$")
_KIND = re.compile(r"^(?P<text>[^_]+)_(?P<kind>root|translation|reference)(?:-(?P<rest>.+))?\.json$")
_MSDIV = re.compile(r"\bmsdiv(\d+)\b")


@dataclass
class Text:
    """One SuttaCentral text and its files."""

    uid: str
    collection: str
    root: Path | None = None
    reference: Path | None = None
    translations: list[tuple[ChannelInfo, Path]] = field(default_factory=list)

    @cached_property
    def segments(self) -> dict[str, str]:
        """Root Pali by segment id, in reading order."""
        return _load(self.root) if self.root else {}

    def translation(self, path: Path) -> dict[str, str]:
        return _load(path)

    @cached_property
    def paragraph_marks(self) -> dict[str, int]:
        """Segment id → the CST paragraph number its reference opens (``msdivN``), where given."""
        if not self.reference:
            return {}
        return {sid: int(m.group(1)) for sid, ref in _load(self.reference).items() if (m := _MSDIV.search(ref))}


def _load(path: Path) -> dict[str, str]:
    try:
        data = json.loads(read_text(path))
    except ValueError as exc:
        raise SourceError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise SourceError(f"{path}: expected an object of segment id → text")
    return {str(k): v if isinstance(v, str) else "" for k, v in data.items()}


def natural_key(uid: str) -> list:
    """``sn2.10`` after ``sn2.9``: numbers compared as numbers."""
    return [int(x) if x.isdecimal() else x for x in re.split(r"(\d+)", uid)]


def _vinaya_book(uid: str) -> str:
    """The Vinaya collection (CST book) of a text: ``pli-tv-kd12`` → vinaya-cullavagga."""
    if m := re.match(r"^pli-tv-kd(\d+)", uid):
        return "vinaya-mahavagga" if int(m.group(1)) <= 10 else "vinaya-cullavagga"
    if uid.startswith("pli-tv-pvr"):
        return "vinaya-parivara"
    if re.match(r"^pli-tv-bu-vb-(pj|ss|ay|np)", uid):
        return "vinaya-parajika"
    return "vinaya-pacittiya"


def _collection(rel: Path, uid: str) -> str | None:
    parts = rel.parts
    if "vinaya" in parts:
        return _vinaya_book(uid)
    if "sutta" in parts:
        i = parts.index("sutta")
        name = parts[i + 1] if i + 1 < len(parts) else ""
        if name == "kn" and i + 2 < len(parts):
            name = f"kn-{KN_BOOKS.get(parts[i + 2], parts[i + 2])}"
        return name if name in COLLECTIONS else None
    return None


def publications(path: Path) -> list[dict]:
    """The publication records (translator, title, licence), or [] when the file is absent."""
    found = [p for p in (path / "_publication-v2.json.gz", path / "_publication-v2.json") if p.exists()]
    if not found:
        return []
    data = json.loads(read_text(found[0]))
    return data if isinstance(data, list) else list(data.values())


def translation_channel(language: str, author: str, file: Path, pubs: list[dict]) -> ChannelInfo:
    """The channel of a translation file, with its publication's translator, title and licence."""
    where = file.as_posix()
    pub = max(
        (p for p in pubs if p.get("source_url", "").split("/tree/published/")[-1] + "/" in where + "/"),
        key=lambda p: len(p.get("source_url", "")),
        default={},
    )
    return ChannelInfo(
        name=language,
        language=language,
        type="translation",
        author=pub.get("creator_name") or author,
        licence=pub.get("license_abbreviation") or "CC0",
        provenance="human",
        source=f"SuttaCentral bilara-data translation/{language}/{author}",
        title=pub.get("translation_title", ""),
    )


def discover(path: Path) -> list[Text]:
    """Every text under a bilara-data style folder, by collection, each collection in reading order."""
    path = Path(path)
    pubs = publications(path)
    texts: dict[str, Text] = {}
    for f in sorted(p for p in path.rglob("*") if p.is_file() and logical_name(p).endswith(".json")):
        m = _KIND.match(logical_name(f))
        rel = f.relative_to(path)
        if not m or "name" in rel.parts or "blurb" in rel.parts:
            continue
        collection = _collection(rel, m.group("text"))
        if collection is None:
            continue
        text = texts.setdefault(m.group("text"), Text(m.group("text"), collection))
        if m.group("kind") == "root":
            text.root = f
        elif m.group("kind") == "reference":
            text.reference = f
        else:
            language, _, author = m.group("rest").partition("-")
            text.translations.append((translation_channel(language, author, rel, pubs), f))
    order = list(COLLECTIONS)
    return sorted(texts.values(), key=lambda t: (order.index(t.collection), natural_key(t.uid)))


def names(path: Path) -> dict[str, tuple[str, str]]:
    """uid → (Pali name, English name) from the ``name`` files (either may be empty)."""
    out: dict[str, list[str]] = {}
    for f in Path(path).rglob("*name*"):
        name = logical_name(f)
        if not f.is_file() or not name.endswith(".json"):
            continue
        english = "_translation-en-" in name
        if not english and "_root-misc-site" not in name:
            continue
        for key, value in _load(f).items():
            uid = key.partition(":")[2].partition(".")[2]  # "mn-name:12.mn10" → mn10
            entry = out.setdefault(uid, ["", ""])
            entry[1 if english else 0] = entry[1 if english else 0] or value.strip()
    return {uid: (v[0], v[1]) for uid, v in out.items()}


TITLE_ONLY = "On Display: Title of Section Only"
"""The body SuttaCentral gives a section it holds the title of only (``sn48.137-146``): no text of its own."""


def is_title(segment_id: str) -> bool:
    """Whether a segment is a heading: ``mn10:0.2`` (titles), ``dhp183:0`` (a verse's story)."""
    section = segment_id.partition(":")[2]
    return section == "0" or section.startswith("0.")


def segment_uid(segment_id: str) -> str:
    """``an1.3:1.2`` → ``an1.3``: the text a segment belongs to (a range file holds several)."""
    return segment_id.partition(":")[0]


# --- references --------------------------------------------------------------------------------

_LABELS = {
    "dn": "DN",
    "mn": "MN",
    "sn": "SN",
    "an": "AN",
    "kp": "Kp",
    "dhp": "Dhp",
    "ud": "Ud",
    "iti": "Iti",
    "snp": "Snp",
    "vv": "Vv",
    "pv": "Pv",
    "thag": "Thag",
    "thig": "Thig",
    "tha-ap": "Tha Ap",
    "thi-ap": "Thi Ap",
    "bv": "Bv",
    "cp": "Cp",
    "ja": "Ja",
    "mnd": "Mnd",
    "cnd": "Cnd",
    "ps": "Ps",
    "ne": "Ne",
    "pe": "Pe",
    "mil": "Mil",
}
_UID = re.compile(r"^(?P<prefix>[a-z]+(?:-[a-z]+)*?)(?P<number>\d.*)?$")


def label(uid: str) -> str:
    """The reference scholars write: ``mn10`` → ``MN 10``, ``pli-tv-kd12`` → ``Kd 12``."""
    if uid.startswith("pli-tv-"):
        rest = uid[len("pli-tv-") :]
        m = re.match(r"^(bu|bi)-vb-([a-z]+)(\d.*)$", rest)
        if m:
            return f"{'Bu' if m.group(1) == 'bu' else 'Bi'} {m.group(2).capitalize()} {m.group(3)}"
        m = re.match(r"^([a-z]+)(\d.*)$", rest)
        return f"{m.group(1).capitalize()} {m.group(2)}" if m else uid
    m = _UID.match(uid)
    if not m or not m.group("number"):
        return uid
    return f"{_LABELS.get(m.group('prefix'), m.group('prefix').capitalize())} {m.group('number')}"


# --- alignment to CST paragraphs ---------------------------------------------------------------


@dataclass
class Coverage:
    """How many segments of a collection found their CST paragraph."""

    texts: int = 0
    segments: int = 0  # root segments
    placed: int = 0
    translated: int = 0  # segments with a translation
    translated_placed: int = 0
    reference_checked: int = 0  # placed where a reference (msdivN) also names the paragraph
    reference_agrees: int = 0

    @property
    def share(self) -> float:
        """Share of the translated segments placed (1.0 when nothing is translated)."""
        return self.translated_placed / self.translated if self.translated else 1.0


@dataclass
class CollectionAlignment:
    passages: list[Passage]  # one per CST paragraph and channel, in reading order
    channels: dict[tuple[str, str], ChannelInfo]  # (book, channel name) → channel
    texts: list[TextRecord]
    coverage: Coverage
    left_out: list[tuple[str, str]]  # (segment id, why)


def align_collection(
    paragraphs: list[Passage], texts: list[Text], titles: dict[str, tuple[str, str]] | None = None
) -> CollectionAlignment:
    """Place every segment of these texts (one collection, in reading order) in the CST paragraphs given
    (the collection's books, each in reading order), and build one passage per paragraph and channel."""
    titles = titles or {}
    stream = ParagraphStream.of([(i, p.text) for i, p in enumerate(paragraphs)])
    collected: dict[tuple[int, str], list[str]] = {}
    channels: dict[tuple[str, str], ChannelInfo] = {}
    spans: dict[str, tuple[list[int], list[int]]] = {}  # segment uid → paragraphs of its body, of its titles
    headings: dict[str, dict[str, str]] = {}  # segment uid → {"pali"|language: last title segment}
    coverage, left_out = Coverage(), []
    cursor: int | None = None
    floor: int | None = None  # where the previous text begins
    for text in texts:
        segments = text.segments
        ids = list(segments)
        if not ids:
            continue
        coverage.texts += 1
        body = next((k for k, sid in enumerate(ids) if not is_title(sid)), 0)
        placement = align(stream, [segments[i] for i in ids], cursor, body, floor)
        cursor = placement.end
        if placed := [p for p in placement.paragraphs if p is not None]:
            floor = stream.first_word[min(placed)]
        where = dict(zip(ids, placement.paragraphs, strict=True))
        _check_references(text, ids, where, paragraphs, coverage)
        translations = [(channel, text.translation(f)) for channel, f in text.translations]
        for sid in ids:
            para = where[sid]
            translated = any(t.get(sid, "").strip() for _, t in translations)
            coverage.segments += 1
            coverage.translated += translated
            if is_title(sid):  # titles: the last one names the text
                for key, source in (("pali", segments), *((c.language, t) for c, t in translations)):
                    if source.get(sid, "").strip():
                        headings.setdefault(segment_uid(sid), {})[key] = source[sid].strip()
            if para is None:
                left_out.append((sid, "no CST paragraph holds its words"))
                continue
            coverage.placed += 1
            coverage.translated_placed += translated
            title = is_title(sid)
            spans.setdefault(segment_uid(sid), ([], []))[title].append(para)
            book = paragraphs[para].book
            for channel, source in ((ROOT_CHANNEL, segments), *translations):
                if value := source.get(sid, "").strip():
                    collected.setdefault((para, channel.name), []).append(value)
                    channels.setdefault((book, channel.name), channel)
    passages = [
        _aligned_passage(paragraphs[para], channels[(paragraphs[para].book, name)], " ".join(parts))
        for (para, name), parts in sorted(collected.items())
    ]
    records = [
        _text_record(uid, body or heads, paragraphs, titles, headings.get(uid, {}))
        for uid, (body, heads) in spans.items()
    ]
    return CollectionAlignment(passages, channels, records, coverage, left_out)


def _check_references(
    text: Text, ids: list[str], where: dict[str, int | None], paragraphs: list[Passage], coverage: Coverage
) -> None:
    """Count how often the paragraph the words chose is the one the text's msdiv marks name.

    Where the two differ, the Mahāsaṅgīti numbering departs from CST's; the words decide.
    """
    marks = text.paragraph_marks
    number = None
    for sid in ids:
        number = marks.get(sid, number)
        if number is None or where[sid] is None:
            continue
        coverage.reference_checked += 1
        anchor = paragraphs[where[sid]].para.split(".")[0].split("~")[0]  # type: ignore[index]
        coverage.reference_agrees += anchor == str(number) or anchor.startswith(f"{number}-")


def _aligned_passage(original: Passage, channel: ChannelInfo, text: str) -> Passage:
    """A translation (or the SuttaCentral Pali) at the coordinate of a CST paragraph."""
    return replace(
        original,
        text=text,
        display=text,
        channel=channel.name,
        language=channel.language,
        primary=False,  # aligned to the CST original: searched when asked for
        granularity="paragraph",
        bold=[],
        notes=[],
        page_starts=[],
    )


def _bare_number(p: Passage) -> bool:
    """Whether a paragraph is a CST number and nothing else (the ``hangnum`` before a verse: ``1.``)."""
    return bool(re.fullmatch(r"\d+(?:-\d+)?(?:~\d+)?", p.para)) and not re.search(r"[^\W\d_]", p.text)


_VERSE_GOES_ON = ("gatha2", "gatha3", "gathalast")  # a verse's lines after its first (gatha1)


def _continues(line: Passage, following: Passage) -> bool:
    """Whether ``following`` is the next line of the verse ``line`` belongs to (in the same book)."""
    return (
        line.book == following.book
        and line.kind.startswith("gatha")
        and line.kind != "gathalast"
        and following.kind in _VERSE_GOES_ON
    )


def _clean_title(title: str) -> str:
    return re.sub(r"^[\d.\s]+", "", title).strip()


def _text_record(
    uid: str, paras: list[int], paragraphs: list[Passage], titles: dict, headings: dict[str, str]
) -> TextRecord:
    lead, end = min(paras), max(paras)
    while lead > 0 and _continues(paragraphs[lead - 1], paragraphs[lead]):
        lead -= 1  # a text begins with a verse's first line (the CST's Anejaṃmūladassāviṃ hides it from the words)
    while lead > 0 and _bare_number(paragraphs[lead - 1]) and paragraphs[lead - 1].book == paragraphs[lead].book:
        lead -= 1  # the paragraph that holds only the text's number ("1.", a verse's) opens it
    while end + 1 < len(paragraphs) and _continues(paragraphs[end], paragraphs[end + 1]):
        end += 1  # … and ends with its last line
    first, last = paragraphs[lead], paragraphs[end]
    pali, english = titles.get(uid, ("", ""))
    return TextRecord(
        uid=uid,
        label=label(uid),
        corpus=first.corpus,
        book=first.book,
        first_para=first.para,
        last_para=last.para if last.book == first.book else first.para,
        first_seq=first.seq,
        last_seq=last.seq if last.book == first.book else first.seq,
        title=_clean_title(english or headings.get("en", "")),  # the collection's name for it, else its heading
        pali_title=_clean_title(pali or headings.get("pali", "")),
    )
