"""The descriptions table: what the source says of its texts and divisions (SuttaCentral's blurbs and its
Pali, English and Chinese names), by uid, kept in SQL beside the named texts.

Created on the first write, so an index that was never given descriptions is opened (and read) as it is."""

from __future__ import annotations

from gantha.corpus.blurbs import Description
from gantha.store.sql import Database

DESCRIPTIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS descriptions (uid TEXT PRIMARY KEY, division TEXT, ord INTEGER, pali TEXT,
    english TEXT, chinese TEXT, blurb TEXT)
"""


class DescriptionTable:
    """Descriptions over ``db``, cached in memory until the next write."""

    db: Database
    _descriptions_cache: dict[str, Description] | None = None

    _texts_cache: dict | None

    def _forget_descriptions(self) -> None:
        self._descriptions_cache = None

    def set_descriptions(self, rows: list[Description]) -> None:
        """Replace every description with these, in one transaction."""
        if not self.db.has_table("descriptions"):
            self.db.script(DESCRIPTIONS_SCHEMA)
        with self.db.transaction():
            self.db.execute("DELETE FROM descriptions")
            self.db.insert(
                "descriptions",
                [(d.uid, d.division, d.order, d.pali, d.english, d.chinese, d.blurb) for d in rows],
                7,
                "(uid) DO NOTHING",
            )
        self._forget_descriptions()
        self._texts_cache = None  # the named texts carry their Chinese names and blurbs

    def descriptions(self) -> dict[str, Description]:
        """Every description by uid, in reading order within each division (none if never loaded)."""
        if self._descriptions_cache is None:
            rows = (
                self.db.query(
                    "SELECT uid, division, ord, pali, english, chinese, blurb FROM descriptions ORDER BY division, ord"
                )
                if self.db.has_table("descriptions")
                else []
            )
            self._descriptions_cache = {r[0]: Description(*r) for r in rows}
        return self._descriptions_cache
