"""Topics as search filters and aggregations: which books and chapters a topic filter selects, and the
hits of a search counted per topic from its aggregation by chapter.

A passage's topic is its chapter's (``cst/vin02m3.mul/ch3``), else its book's (front matter, a book
without chapters). ``topic`` selects passages by that topic, ``topic_tags`` by its soft tags."""

from __future__ import annotations

from collections import defaultdict

from gantha.model import TopicRecord
from gantha.search.errors import SearchError
from gantha.store.base import Store, chapter_key
from gantha.topics.taxonomy import UNCATEGORIZED

NO_SCOPE = ("none", "none", ())  # a filter no passage passes


def known_topics(store: Store) -> list[str]:
    """The category ids of the taxonomy the index was classified with (and ``uncategorized``)."""
    recorded = store.topics_meta()
    return [*recorded.get("ids", []), UNCATEGORIZED] if recorded else []


def labels(store: Store) -> dict[str, str]:
    """Category id → label, of the taxonomy the index was classified with."""
    return {**store.topics_meta().get("labels", {}), UNCATEGORIZED: "Uncategorized"}


def _by_book(store: Store) -> dict[tuple[str, str], tuple[TopicRecord | None, list[TopicRecord]]]:
    out: dict[tuple[str, str], tuple[TopicRecord | None, list[TopicRecord]]] = {}
    grouped: dict[tuple[str, str], list[TopicRecord]] = defaultdict(list)
    for t in store.topics():
        grouped[(t.corpus, t.book)].append(t)
    for key, rows in grouped.items():
        out[key] = (next((r for r in rows if r.chapter == 0), None), [r for r in rows if r.chapter])
    return out


def scopes(store: Store, topics: list[str], tags: list[str]) -> list[tuple[str, str, tuple[int, ...]]]:
    """The books and chapters whose topic is one of ``topics`` and whose tags hold one of ``tags``
    (each condition only when given), for ``StoreQuery.scopes``."""
    topics = [t.strip() for t in topics if t.strip()]
    tags = [t.strip() for t in tags if t.strip()]
    if not topics and not tags:
        return []
    known = known_topics(store)
    if not known:
        raise SearchError("topics_unavailable", "this index has no topics yet: run `gantha classify`")
    for value in (*topics, *tags):
        if value not in known:
            raise SearchError("unknown_topic", f"unknown topic {value!r}; one of {', '.join(known)}")

    def wanted(r: TopicRecord) -> bool:
        return (not topics or r.topic in topics) and (not tags or bool(set(r.tags) & set(tags)))

    out = []
    for (corpus, book), (whole, chapters) in _by_book(store).items():
        chosen = ([0] if whole is not None and wanted(whole) else []) + [c.chapter for c in chapters if wanted(c)]
        if len(chosen) == len(chapters) + (whole is not None):
            out.append((corpus, book, ()))
        elif chosen:
            out.append((corpus, book, tuple(chosen)))
    return out or [NO_SCOPE]


def aggregations(store: Store, chapters: list[tuple[str, int]]) -> dict[str, list[tuple[str, int]]]:
    """Hits per topic and per soft tag, from the aggregation by chapter (``vin02m3.mul/ch3`` → count)."""
    by_key = store.topics_by_chapter()
    if not by_key:
        return {}
    topic: dict[str, int] = {}
    tag: dict[str, int] = {}
    for key, count in chapters:
        record = by_key.get(key) or by_key.get(chapter_key(key.rpartition("/ch")[0], 0))  # else the book's topic
        if record is None:
            continue
        topic[record.topic] = topic.get(record.topic, 0) + count
        for t in record.tags:
            tag[t] = tag.get(t, 0) + count
    order = lambda c: sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))  # noqa: E731
    return {"topic": order(topic), "topic_tags": order(tag)}
