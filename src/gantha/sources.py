"""Every source gantha ingests, declared once: where it lies in a data folder, how it is ingested, the
corpus it writes, the vectors its ingest refreshes and the uploads it accepts.

Ingest, the CLI (``gantha ingest all`` reads a folder by these folders), the admin API (uploads by
suffix) and the task runner read this registry; adding a corpus is one entry here and its reader.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gantha.ingest import (
    ingest_agama,
    ingest_bible,
    ingest_cst,
    ingest_markdown,
    ingest_myanmar,
    ingest_parallels,
    ingest_suttacentral,
)
from gantha.model import comma_list


@dataclass(frozen=True)
class Source:
    """One ingestible source."""

    name: str
    folder: str = ""  # where it lies in a folder laid out like the project's data ("" = given by path only)
    ingester: Callable[..., Any] | None = None  # a store ingester; None: a table of the lexicon
    corpus: str = ""  # the corpus (coordinate prefix) it writes
    vectors: str = ""  # the vector corpus an ingest of it refreshes (when in GANTHA_VECTOR_CORPORA)
    uploads: tuple[str, ...] = ()  # file suffixes an upload of it may carry (also .gz of these)

    @property
    def lexicon(self) -> bool:
        return self.ingester is None


SOURCES: dict[str, Source] = {
    s.name: s
    for s in (
        Source("cst", "cst", ingest_cst, corpus="cst", uploads=(".xml",)),
        Source("wordstats", "wikipali/word_statistics"),
        Source("grammar", "wikipali/grammar"),
        Source("dict", "wikipali/dict"),
        Source("myanmar", "myanmar", ingest_myanmar, corpus="cst"),
        Source("suttacentral", "suttacentral", ingest_suttacentral, corpus="cst", vectors="cst"),
        Source("parallels", "suttacentral/relationship", ingest_parallels, corpus="cst"),
        Source("agama", "agama", ingest_agama, corpus="agama", vectors="agama"),
        Source("bible", "bible", ingest_bible, corpus="bible", vectors="bible"),
        Source("markdown", "", ingest_markdown, corpus="md", vectors="md", uploads=(".md", ".markdown", ".txt")),
    )
}
LEXICON_SOURCES = tuple(name for name, s in SOURCES.items() if s.lexicon)
DATA_LAYOUT = {name: s.folder for name, s in SOURCES.items() if s.folder}
UPLOAD_SOURCES = {suffix: name for name, s in SOURCES.items() for suffix in s.uploads}


def vectors_after(source: str, configured: str) -> list[str]:
    """The configured vector targets (``GANTHA_VECTOR_CORPORA``) that an ingest of ``source`` refreshes."""
    corpus = SOURCES[source].vectors if source in SOURCES else ""
    return [t for t in comma_list(configured) if corpus and t.partition(":")[0] == corpus]
