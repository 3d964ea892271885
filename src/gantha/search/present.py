"""Present: hits as callers see them — the named text holding each, translations beside, aggregations
with titles (chapters with their headings, languages and resource types), compact fields for agents."""

from __future__ import annotations

from collections import Counter
from typing import Any

from gantha.links.agama import other_canon
from gantha.model import Aside, Bucket, Hit, Passage, QueryInfo
from gantha.search import resources
from gantha.search.errors import SearchError
from gantha.search.highlight import snippet
from gantha.search.plan import DEFAULT_CORPUS
from gantha.store.base import BookRecord, Store
from gantha.text.pali import fold
from gantha.topics import scope

CHAPTER_BUCKETS = 30  # chapters listed in the aggregation by chapter (the densest)
ORIGINALS = {"cst": "pali", "agama": "taisho"}  # corpus → its original channel: translations stand for it
HIT_FIELDS = tuple(Hit.model_fields)
QUERY_INFO_FIELDS = tuple(QueryInfo.model_fields)
QUERY_INFO_KEPT = ("original", "mode")  # the query_info every compact result keeps


def original_of(doc_id: str) -> str:
    """The document a hit shows for a matched one: an aligned translation's original (…/106@en → …/106@pali)."""
    coordinate, _, channel = doc_id.rpartition("@")
    original = ORIGINALS.get(coordinate.partition("/")[0])
    return f"{coordinate}@{original}" if original and channel != original else doc_id


def compact(data: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """A dumped search result cut to ``fields``: agent-sized.

    Each hit (``hits``/``results``/``weak``) keeps the hit fields named; ``query_info`` keeps the query
    and its mode, and the query_info fields named (``forms``, ``inflections`` …).
    """
    if not fields:
        return data
    if unknown := [f for f in fields if f not in HIT_FIELDS and f not in QUERY_INFO_FIELDS]:
        raise SearchError(
            "invalid_parameter",
            f"unknown hit field {unknown[0]!r}; one of {', '.join(HIT_FIELDS)}; "
            f"or of query_info: {', '.join(QUERY_INFO_FIELDS)}",
        )
    keep = set(fields)
    for holder in (data, data.get("data") or {}):
        for key in ("hits", "results", "weak"):
            if isinstance(holder.get(key), list):
                holder[key] = [{k: v for k, v in hit.items() if k in keep} for hit in holder[key]]
    if isinstance(info := data.get("query_info"), dict):
        data["query_info"] = {k: v for k, v in info.items() if k in keep or k in QUERY_INFO_KEPT}
    return data


COORDINATE_PARTS = ("corpus", "book", "paragraph")  # a hit's coordinate holds them
HIT_LISTS = ("hits", "weak", "bold_passages", "items")  # items: get's
IMPLIED_LAYERS = {"commentary": "atthakatha", "subcommentary": "tika"}  # a link's kind that says its layer


def unrepeated(data: dict[str, Any]) -> dict[str, Any]:
    """A dumped reply without the fields its items repeat (in place): a hit's corpus, book and paragraph
    (its coordinate holds them) and its language where that is its channel's name; a link's ``of`` where
    it is the coordinate asked about, and its layer where its kind says it."""
    for key in HIT_LISTS:
        for hit in data.get(key) or []:
            if isinstance(hit, dict) and "coordinate" in hit:
                for part in COORDINATE_PARTS:
                    hit.pop(part, None)
                if hit.get("language") == hit.get("channel"):
                    hit.pop("language", None)
    for kind, links in data.items():
        for item in links.get("items", []) if isinstance(links, dict) else []:
            if isinstance(item, dict) and item.get("of") == data.get("coordinate"):
                item.pop("of")
            if isinstance(item, dict) and kind in IMPLIED_LAYERS and item.get("layer") == IMPLIED_LAYERS[kind]:
                item.pop("layer")
    return data


PARALLEL_OPENING = 240  # characters of a parallel's first paragraph shown beside an Āgama hit


def _opening(text: str) -> str:
    return text[:PARALLEL_OPENING] + ("…" if len(text) > PARALLEL_OPENING else "")


class Presenter:
    """Hits and aggregations over one store."""

    def __init__(self, store: Store):
        self.store = store

    def hit(self, p: Passage, rank: int, text: str, score: float, **extra) -> Hit:
        """A hit, with the named text (sutta, rule) that holds it."""
        hit = Hit.of(p, rank, text, score, **extra)
        if (named := self.store.text_at(p.corpus, p.book, p.seq)) is not None:
            hit.sutta, hit.sutta_title = named.label, named.title or None
            hit.sutta_title_pali, hit.sutta_title_zh = named.pali_title or None, named.zh_title or None
            hit.sutta_summary = named.blurb or None
            hit.parallels = other_canon(self.store, named) or None
        return hit

    def attach_translations(self, hits: list[Hit], terms: set[str]) -> None:
        """Attach the translations of each original hit's paragraph (English, Burmese …), snippets marked."""
        channels = {
            (h.corpus, h.book): [
                r.channel.name for r in self.store.channels(h.corpus, h.book) if r.channel.type == "translation"
            ]
            for h in hits
            if h.channel == ORIGINALS.get(h.corpus)
        }
        wanted = [f"{h.coordinate}@{ch}" for h in hits for ch in channels.get((h.corpus, h.book), ())]
        found = self.store.get_ids(wanted)
        for h in hits:
            for ch in channels.get((h.corpus, h.book), ()):
                if t := found.get(f"{h.coordinate}@{ch}"):
                    h.translations.append(
                        Aside(channel=t.channel, language=t.language, snippet=snippet(t.text, fold, terms)[0])
                    )
        self.attach_parallel_texts([h for h in hits if h.corpus == "agama"])

    def attach_parallel_texts(self, hits: list[Hit]) -> None:
        """Give an Āgama hit's Pali parallels their opening, in the Pali and in English: the answer a Chinese
        question finds in the Chinese canon, read in the Pali one."""
        wanted = [f"{p.coordinate}@{ch}" for h in hits for p in h.parallels or [] for ch in ("pali", "en")]
        found = self.store.get_ids(wanted)
        for h in hits:
            for p in h.parallels or []:
                pali, english = found.get(f"{p.coordinate}@pali"), found.get(f"{p.coordinate}@en")
                p.pali = _opening(pali.text) if pali else None
                p.english = _opening(english.text) if english else None

    def buckets(self, aggregations: dict[str, list[tuple[str, int]]]) -> dict[str, list[Bucket]]:
        if "chapter" in aggregations:  # hits per topic and soft tag, from their chapters' (or books') topics
            aggregations = {**aggregations, **scope.aggregations(self.store, aggregations["chapter"])}
        titles, corpora, kinds = self.store.from_records("buckets", _names)
        out = {
            name: [
                Bucket(key=k, count=c, title=titles.get(k) if name == "book" else None)
                for k, c in buckets[: CHAPTER_BUCKETS if name == "chapter" else None]
            ]
            for name, buckets in aggregations.items()
        }
        if "topic" in out:
            names = scope.labels(self.store)
            for bucket in [*out["topic"], *out["topic_tags"]]:
                bucket.title = names.get(bucket.key)
        for bucket in out.get("chapter", []):  # "vin02m3.mul/ch3" → "Cūḷavaggapāḷi › 3. Samuccayakkhandhakaṃ"
            book, _, number = bucket.key.rpartition("/ch")
            heading = self.store.chapter_title(corpora.get(book, DEFAULT_CORPUS), book, int(number))
            bucket.title = " › ".join(t for t in (titles.get(book), heading) if t)
        if "channel" in out:  # the original API's aggregations: by language and by resource type
            for i, name in enumerate(("language", "resource_type")):
                counts: Counter[str] = Counter()
                for bucket in out["channel"]:
                    counts[kinds.get(bucket.key, ("", ""))[i] or "unknown"] += bucket.count
                out[name] = [Bucket(key=k, count=c, title=None) for k, c in counts.most_common()]
        return out


def _names(records: list[BookRecord]) -> tuple[dict[str, str], dict[str, str], dict[str, tuple[str, str]]]:
    """Book → title, book → corpus (the first channel recorded), channel → (language, resource type)."""
    firsts: dict[tuple[str, str], BookRecord] = {}
    for r in records:
        firsts.setdefault((r.info.corpus, r.info.book), r)
    titles = {r.info.book: r.info.title for r in firsts.values()}
    corpora = {r.info.book: r.info.corpus for r in firsts.values()}
    kinds = {
        r.channel.name: (r.channel.language, resources.resource_type(r.info.corpus, r.channel.type)) for r in records
    }
    return titles, corpora, kinds
