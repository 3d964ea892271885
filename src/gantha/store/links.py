"""The links tables: what each book contributes to the links (``link_facts``, written when the book is read)
and the links between paragraphs (``links``), rebuilt together by :mod:`gantha.links.build`.

A link row: ``kind`` (``comments``: a commentary paragraph to the paragraph it explains; ``cites``: a citing
paragraph to the cited one; ``parallel``: two paragraphs sharing a stretch of text, stored once; ``curated``:
two named texts SuttaCentral lists as parallels), ``src`` and ``dst`` coordinates (for ``curated``, text uids),
their books and reading positions, a ``weight`` (a parallel's shared stretch) and a ``note`` (the citation as
written, how a commentary paragraph was placed, the kind of curated relation), and ``layer``: for ``comments``
the layer of the commentary paragraph, for ``cites`` the layer cited.

Created on the first write, so an index that never had links is opened (and read) as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from gantha.store.sql import Database

_LINKS_TABLE = """CREATE TABLE IF NOT EXISTS {name} (kind TEXT, src TEXT, dst TEXT, src_book TEXT, src_seq INTEGER,
    dst_book TEXT, dst_seq INTEGER, weight REAL, note TEXT, layer TEXT)"""
_LINKS_INDEXES = """
CREATE INDEX IF NOT EXISTS links_src ON links (src, kind);
CREATE INDEX IF NOT EXISTS links_dst ON links (dst, kind);
CREATE INDEX IF NOT EXISTS links_dst_book ON links (kind, dst_book, dst_seq)
"""
LINKS_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS link_facts (key TEXT PRIMARY KEY, corpus TEXT, book TEXT, signature TEXT,
    paragraphs BLOB, shingles BLOB, citations BLOB);
{_LINKS_TABLE.format(name="links")};
{_LINKS_INDEXES}"""
_COLUMNS = "kind, src, dst, src_book, src_seq, dst_book, dst_seq, weight, note, layer"


class LinkRow(NamedTuple):
    """A row of the links table (see the module docstring)."""

    kind: str
    src: str
    dst: str
    src_book: str = ""
    src_seq: int = 0
    dst_book: str = ""
    dst_seq: int = 0
    weight: float = 1.0
    note: str = ""
    layer: str = ""


@dataclass(frozen=True, slots=True)
class FactsRow:
    """What a book contributes to the links, packed (see :mod:`gantha.links.facts`)."""

    corpus: str
    book: str
    signature: str
    paragraphs: bytes
    shingles: bytes
    citations: bytes


class LinkTable:
    """Link facts and links over ``db``."""

    db: Database

    def _link_tables(self) -> bool:
        return self.db.has_table("links")

    def set_link_facts(self, rows: Iterable[FactsRow]) -> None:
        """Store (replace) the link facts of these books."""
        rows = [(f"{r.corpus}/{r.book}", *(getattr(r, f) for f in FactsRow.__slots__)) for r in rows]
        if not rows:
            return
        self.db.script(LINKS_SCHEMA)
        with self.db.transaction():
            self.db.execute(f"DELETE FROM link_facts WHERE key IN ({','.join('?' * len(rows))})", [r[0] for r in rows])
            self.db.insert("link_facts", rows, 7)

    def link_facts(self, corpus: str) -> dict[str, FactsRow]:
        """The stored link facts of a corpus's books, by book."""
        if not self._link_tables():
            return {}
        rows = self.db.query(
            "SELECT corpus, book, signature, paragraphs, shingles, citations FROM link_facts WHERE corpus=?", (corpus,)
        )
        return {r[1]: FactsRow(r[0], r[1], r[2], bytes(r[3]), bytes(r[4]), bytes(r[5])) for r in rows}

    def drop_link_facts(self, corpus: str, book: str) -> None:
        if self._link_tables():
            self.db.execute("DELETE FROM link_facts WHERE key=?", (f"{corpus}/{book}",))

    def replace_links(self, kinds: Iterable[str], rows: Iterable[LinkRow]) -> None:
        """Replace every link of these kinds with ``rows``, at once: into a new table, indexed after its rows
        are in (faster than keeping the indexes up to date), which takes the old one's place."""
        self.db.script(LINKS_SCHEMA)
        kinds = list(kinds)
        with self.db.transaction():
            self.db.execute("DROP TABLE IF EXISTS links_next")
            self.db.execute(_LINKS_TABLE.format(name="links_next"))
            marks = ",".join("?" * len(kinds))
            self.db.execute(f"INSERT INTO links_next SELECT * FROM links WHERE kind NOT IN ({marks})", kinds)
            self.db.insert("links_next", rows, 10)
            self.db.execute("DROP TABLE links")
            self.db.execute("ALTER TABLE links_next RENAME TO links")
            for statement in filter(None, (s.strip() for s in _LINKS_INDEXES.split(";"))):
                self.db.execute(statement)

    def _links(self, where: str, args: tuple) -> list[LinkRow]:
        if not self._link_tables():
            return []
        return [LinkRow(*r) for r in self.db.query(f"SELECT {_COLUMNS} FROM links WHERE {where}", args)]

    def links_from(self, srcs: Sequence[str], kind: str) -> list[LinkRow]:
        """Links of one kind leaving these paragraphs (or text uids), strongest first, then in reading order."""
        rows = self._many("src", srcs, kind)
        return sorted(rows, key=lambda r: (-r.weight, r.dst_book, r.dst_seq, r.dst))

    def links_to(self, dsts: Sequence[str], kind: str) -> list[LinkRow]:
        """Links of one kind arriving at these paragraphs (or text uids), strongest first, then in reading order."""
        rows = self._many("dst", dsts, kind)
        return sorted(rows, key=lambda r: (-r.weight, r.src_book, r.src_seq, r.src))

    def _many(self, column: str, keys: Sequence[str], kind: str) -> list[LinkRow]:
        keys = list(dict.fromkeys(keys))
        rows: list[LinkRow] = []
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            rows += self._links(f"{column} IN ({','.join('?' * len(part))}) AND kind=?", (*part, kind))
        return rows

    def links_before(self, kind: str, dst_book: str, seq: int, layer: str) -> list[LinkRow]:
        """The links of one kind and layer arriving at the last linked paragraph of ``dst_book`` at or before
        ``seq`` (the commentary section a paragraph falls in)."""
        last = self._links(
            "kind=? AND dst_book=? AND dst_seq<=? AND layer=? ORDER BY dst_seq DESC LIMIT 1",
            (kind, dst_book, seq, layer),
        )
        return self._links("kind=? AND dst=? AND layer=?", (kind, last[0].dst, layer)) if last else []

    def links_after(self, kind: str, dst_book: str, seq: int, layer: str) -> LinkRow | None:
        """The first link of one kind and layer arriving in ``dst_book`` after ``seq``."""
        rows = self._links(
            "kind=? AND dst_book=? AND dst_seq>? AND layer=? ORDER BY dst_seq LIMIT 1", (kind, dst_book, seq, layer)
        )
        return rows[0] if rows else None

    def link_counts(self) -> dict[str, int]:
        """How many links of each kind the index holds."""
        if not self._link_tables():
            return {}
        return dict(self.db.query("SELECT kind, count(*) FROM links GROUP BY kind"))
