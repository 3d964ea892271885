"""Topics: a taxonomy of categories (:mod:`.taxonomy`) and the classification of every document and
chapter into it (:mod:`.classify`), stored in the index and used as search filters and aggregations."""

from __future__ import annotations

from gantha.topics.classify import META_KEY, ClassifySummary, classify_index, refresh, stale
from gantha.topics.taxonomy import (
    UNCATEGORIZED,
    Taxonomy,
    TaxonomyError,
    TopicCategory,
    configured_taxonomy,
    load_taxonomy,
)

__all__ = [
    "META_KEY",
    "UNCATEGORIZED",
    "ClassifySummary",
    "Taxonomy",
    "TaxonomyError",
    "TopicCategory",
    "classify_index",
    "configured_taxonomy",
    "load_taxonomy",
    "refresh",
    "stale",
]
