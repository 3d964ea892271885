"""The taxonomy: categories (id, label, description, examples) read from YAML, with a content digest.

``GANTHA_TAXONOMY`` names a file to use instead of the default one shipped for the canon
(``gantha/data/taxonomy.yaml``); the digest of its content decides whether stored topics are current.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

DEFAULT = Path(__file__).resolve().parents[1] / "data" / "taxonomy.yaml"
UNCATEGORIZED = "uncategorized"
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


class TaxonomyError(ValueError):
    """A taxonomy file that cannot be used (missing, not YAML, a category without an id …)."""


@dataclass(frozen=True, slots=True)
class TopicCategory:
    id: str
    label: str
    description: str
    examples: tuple[str, ...] = ()

    def texts(self) -> list[str]:
        """What is embedded for this category: its label with its description, and each example."""
        return [f"{self.label}: {self.description}", *self.examples]


@dataclass(frozen=True, slots=True)
class Taxonomy:
    categories: tuple[TopicCategory, ...]
    threshold: float = 0.4  # confidence below which a node is uncategorized
    temperature: float = 0.03  # of the softmax over cosine similarities
    digest: str = ""  # of the file's content
    source: str = ""
    ids: tuple[str, ...] = field(default=())

    def label(self, topic: str) -> str:
        return next((c.label for c in self.categories if c.id == topic), topic.replace("-", " ").capitalize())


def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """The taxonomy in ``path`` (default: the one shipped for the canon)."""
    path = Path(path) if path else DEFAULT
    try:
        raw = path.read_bytes()
        data = yaml.safe_load(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise TaxonomyError(f"cannot read the taxonomy {path} (GANTHA_TAXONOMY): {exc}") from exc
    items = data.get("categories") if isinstance(data, dict) else None
    if not items or not isinstance(items, list):
        raise TaxonomyError(f"taxonomy {path}: no list of categories")
    categories = []
    for item in items:
        cid = str((item or {}).get("id", "")).strip()
        if not _ID.match(cid) or cid == UNCATEGORIZED:
            raise TaxonomyError(f"taxonomy {path}: category id {cid!r} is not lower case letters, digits and hyphens")
        if not str(item.get("description", "")).strip():
            raise TaxonomyError(f"taxonomy {path}: category {cid!r} has no description")
        examples = tuple(str(e).strip() for e in item.get("examples") or () if str(e).strip())
        categories.append(TopicCategory(cid, str(item.get("label") or cid), str(item["description"]).strip(), examples))
    ids = tuple(c.id for c in categories)
    if len(set(ids)) != len(ids):
        raise TaxonomyError(f"taxonomy {path}: a category id is repeated")
    return Taxonomy(
        tuple(categories),
        float(data.get("threshold", 0.4)),
        float(data.get("temperature", 0.03)),
        hashlib.sha256(raw).hexdigest()[:16],
        str(path),
        ids,
    )


def configured_taxonomy() -> Taxonomy:
    """The taxonomy ``GANTHA_TAXONOMY`` names, else the default one."""
    from gantha.config import settings

    return load_taxonomy(settings().taxonomy)
