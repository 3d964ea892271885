"""The lexicon beside an index: word analysis, ending tables and dictionaries, in SQL.

Small and read-mostly, needed by every backend alike: the embedded store keeps it in
``lexicon.sqlite`` in the index folder, the PostgreSQL store in its database.
"""

from __future__ import annotations

import re
import sqlite3
from functools import cached_property
from pathlib import Path

import orjson

from gantha.model import DictEntry, EndingRule, SandhiRule, WordAnalysis
from gantha.store.sql import Database
from gantha.text.chinese import has_chinese, to_simplified
from gantha.text.inflect import EXTRA_SANDHI
from gantha.text.pali import fold

HAN_ONLY = re.compile(r"^[\u3400-\u4dbf\u4e00-\u9fff]+$")
_SCHEMA = """
CREATE TABLE IF NOT EXISTS analysis (word TEXT, base TEXT, count INTEGER, type TEXT);
CREATE INDEX IF NOT EXISTS analysis_word ON analysis (word);
CREATE INDEX IF NOT EXISTS analysis_base ON analysis (base);
CREATE TABLE IF NOT EXISTS endings (base_ending TEXT, form_ending TEXT, pos TEXT, grammar TEXT,
                                    probability REAL, source TEXT);
CREATE TABLE IF NOT EXISTS sandhi (ending TEXT, joined TEXT, enclitic TEXT, source TEXT);
CREATE TABLE IF NOT EXISTS dict (word TEXT, fold TEXT, dictionary TEXT, language TEXT, pos TEXT, grammar TEXT,
                                 parent TEXT, meanings TEXT, note TEXT, factors TEXT);
CREATE INDEX IF NOT EXISTS dict_word ON dict (word);
CREATE INDEX IF NOT EXISTS dict_fold ON dict (fold);
CREATE TABLE IF NOT EXISTS sources (name TEXT PRIMARY KEY, path TEXT, rows INTEGER, signature TEXT)
"""


class Lexicon:
    """Read and load the lexicon tables of one index."""

    def __init__(self, db: Database):
        self.db = db
        self.problem: str | None = None  # why the lexicon stopped answering while it was open (damaged)
        db.script(_SCHEMA)

    def _query(self, sql: str, args: tuple = ()) -> list[tuple]:
        """The rows of a query; none when the file turns out damaged while it is open (the problem is kept and
        reported: searches answer without inflections and meanings rather than fail)."""
        try:
            return self.db.query(sql, args)
        except sqlite3.DatabaseError as exc:
            self.problem = f"the lexicon cannot be read ({exc}): ingest wordstats, grammar and dict again"
            return []

    def sources(self) -> dict[str, tuple[int, str]]:
        """Loaded sources: name → (rows, signature of the files they came from)."""
        return {name: (rows, sig) for name, rows, sig in self._query("SELECT name, rows, signature FROM sources")}

    # --- loading ---------------------------------------------------------------------------------

    def _replace(self, table: str, name: str, path: Path, rows: list[tuple], width: int, signature: str = "") -> int:
        with self.db.transaction():
            self.db.execute(f"DELETE FROM {table}")
            self.db.insert(table, rows, width)
            self.db.execute(
                "INSERT INTO sources VALUES (?,?,?,?) ON CONFLICT (name) DO UPDATE SET path=excluded.path, "
                "rows=excluded.rows, signature=excluded.signature",
                (name, str(path), len(rows), signature),
            )
        for cached in ("endings", "sandhi", "_chinese_meanings", "_english_meanings", "_derived"):
            self.__dict__.pop(cached, None)
        return len(rows)

    def load_word_analysis(self, rows: list[WordAnalysis], path: Path, signature: str = "") -> int:
        return self._replace(
            "analysis", "wordstats", path, [(r.word, r.base, r.count, r.type) for r in rows], 4, signature
        )

    def load_grammar(self, endings: list[EndingRule], sandhi: list[SandhiRule], path: Path, signature: str = "") -> int:
        n = self._replace(
            "endings",
            "grammar",
            path,
            [(r.base_ending, r.form_ending, r.pos, r.grammar, r.probability, r.source) for r in endings],
            6,
            signature,
        )
        self._replace("sandhi", "sandhi", path, [(s.ending, s.joined, s.enclitic, s.source) for s in sandhi], 4)
        return n

    def load_dictionaries(self, entries: list[DictEntry], path: Path, signature: str = "") -> int:
        rows = [
            (
                e.word,
                fold(e.word),
                e.dictionary,
                e.language,
                e.pos,
                e.grammar,
                e.parent,
                orjson.dumps(e.meanings).decode(),
                e.note,
                e.factors,
            )
            for e in entries
        ]
        return self._replace("dict", "dict", path, rows, 10, signature)

    # --- reading ---------------------------------------------------------------------------------

    @cached_property
    def endings(self) -> list[EndingRule]:
        return [EndingRule(*r) for r in self._query("SELECT * FROM endings")]

    @cached_property
    def sandhi(self) -> list[SandhiRule]:
        return [SandhiRule(*r) for r in self._query("SELECT * FROM sandhi")] + list(EXTRA_SANDHI)

    def bases_of(self, word: str) -> list[tuple[str, int, str]]:
        """WikiPali's analyses of a word: (base, occurrences, type), most frequent first."""
        return self._query(
            "SELECT base, SUM(count), MAX(type) FROM analysis WHERE word=? GROUP BY base ORDER BY SUM(count) DESC",
            (word,),
        )

    def first_bases(self, words: list[str]) -> dict[str, str]:
        """The most frequent base of each analysed word of ``words`` (``bases_of(w)[0][0]`` for many at once)."""
        best: dict[str, tuple[str, int]] = {}
        for part in _parts(words):
            rows = self._query(
                f"SELECT word, base, SUM(count) FROM analysis WHERE word IN ({','.join('?' * len(part))}) "
                "GROUP BY word, base",
                tuple(part),
            )
            for word, base, n in rows:
                if word not in best or n > best[word][1]:
                    best[word] = (base, n)
        return {word: base for word, (base, _) in best.items()}

    def entries_of(self, words: list[str]) -> dict[str, list[DictEntry]]:
        """``entries(w)`` of each of ``words`` that has some, in one query per 500 words."""
        out: dict[str, list[DictEntry]] = {}
        for part in _parts(words):
            rows = self._query(
                "SELECT word, dictionary, language, pos, grammar, parent, meanings, note, factors "
                f"FROM dict WHERE word IN ({','.join('?' * len(part))})",
                tuple(part),
            )
            for w, d, lang, pos, g, parent, m, note, fac in rows:
                out.setdefault(w, []).append(DictEntry(w, d, lang, pos, g, parent, orjson.loads(m), note, fac))
        return out

    def forms_of(self, base: str) -> list[tuple[str, int]]:
        """Words WikiPali analysed as forms of ``base``: (word, occurrences)."""
        return self._query(
            "SELECT word, SUM(count) FROM analysis WHERE base=? GROUP BY word ORDER BY SUM(count) DESC", (base,)
        )

    def headwords(self) -> frozenset[str]:
        """Every dictionary headword and analysed base (one set in memory: compounds test many)."""
        rows = self._query("SELECT DISTINCT base FROM analysis UNION SELECT DISTINCT word FROM dict")
        return frozenset(r[0] for r in rows)

    def derived_words(self, parent: str) -> list[tuple[str, str]]:
        """Words the dictionaries derive from ``parent`` (participles, causatives …): (word, grammar)."""
        return list(self._derived.get(parent, ()))

    @cached_property
    def _derived(self) -> dict[str, tuple[tuple[str, str], ...]]:
        """Parent → its derived words, read once (the dictionaries have no index on the parent: a query per
        lemma scanned them all, a tenth of a second)."""
        out: dict[str, dict[tuple[str, str], None]] = {}
        for word, grammar, parent in self._query("SELECT word, grammar, parent FROM dict WHERE parent <> ''"):
            out.setdefault(parent, {})[(word, grammar)] = None
        return {parent: tuple(rows) for parent, rows in out.items()}

    def is_lemma(self, word: str) -> bool:
        return bool(
            self._query("SELECT 1 FROM analysis WHERE base=? LIMIT 1", (word,))
            or self._query("SELECT 1 FROM dict WHERE word=? LIMIT 1", (word,))
        )

    def entries(self, word: str, *, folded: bool = False) -> list[DictEntry]:
        column = "fold" if folded else "word"
        rows = self._query(
            f"SELECT word, dictionary, language, pos, grammar, parent, meanings, note, factors "
            f"FROM dict WHERE {column}=?",
            (fold(word) if folded else word,),
        )
        return [
            DictEntry(w, d, lang, pos, g, parent, orjson.loads(m), note, fac)
            for w, d, lang, pos, g, parent, m, note, fac in rows
        ]

    @cached_property
    def _chinese_meanings(self) -> list[tuple[str, str, str]]:
        """(headword, meaning in simplified characters, dictionary) for every Chinese sense."""
        rows = self._query("SELECT word, meanings, dictionary FROM dict WHERE language LIKE 'zh%'")
        return [(word, to_simplified(m.strip()), d) for word, meanings, d in rows for m in orjson.loads(meanings)]

    @cached_property
    def _by_chinese_meaning(self) -> dict[str, list[tuple[str, str]]]:
        """Chinese sense (simplified) → [(headword, dictionary)], for exact bridges."""
        out: dict[str, list[tuple[str, str]]] = {}
        for word, meaning, d in self._chinese_meanings:
            out.setdefault(meaning, []).append((word, d))
        return out

    @cached_property
    def _english_meanings(self) -> dict[str, list[tuple[str, str]]]:
        """Lower-cased English sense → [(headword, dictionary)], for exact bridges."""
        out: dict[str, list[tuple[str, str]]] = {}
        for word, meanings, d in self._query("SELECT word, meanings, dictionary FROM dict WHERE language='en'"):
            for m in orjson.loads(meanings):
                out.setdefault(m.strip().strip(".;").lower(), []).append((word, d))
        return out

    def bridge(self, text: str, synonyms: dict[str, str] | None = None) -> list[tuple[str, str]]:
        """Pali lemmas a Chinese or English term names exactly: [(lemma, source)], synonym list first."""
        key = to_simplified(text.strip()).lower()
        found: list[tuple[str, str]] = []
        if synonyms and key in synonyms:
            found.append((synonyms[key], "synonyms"))
        if has_chinese(key):
            found += self._by_chinese_meaning.get(key, [])
        else:
            found += self._english_meanings.get(key, [])
        seen: set[str] = set()
        return [(w, s) for w, s in found if not (w in seen or seen.add(w))][:3]

    def chinese_terms(self, longest: int = 4) -> list[str]:
        """Short Chinese renderings in the dictionaries (夜叉, 别住 …): the segmenter's Buddhist terms."""
        return sorted({m for _, m, _ in self._chinese_meanings if 1 < len(m) <= longest and HAN_ONLY.match(m)})

    def chinese_meaning(self, headword: str) -> str | None:
        """The shortest Chinese rendering the dictionaries give a headword (simplified), if any."""
        found = [m for word, m, _ in self._chinese_meanings if word == headword and HAN_ONLY.match(m)]
        return min(found, key=len, default=None)

    def headwords_by_meaning(self, text: str, limit: int = 10) -> list[tuple[str, str]]:
        """Pali headwords whose Chinese meaning contains ``text``: (word, that meaning), closest first."""
        text = to_simplified(text)
        ranked: dict[str, tuple[tuple, str]] = {}
        for word, m, _ in self._chinese_meanings:
            if text in m:
                key = (m.strip() != text, len(m), m.index(text))
                if word not in ranked or key < ranked[word][0]:
                    ranked[word] = (key, m)
        best = sorted(ranked.items(), key=lambda kv: kv[1][0])
        return [(word, meaning) for word, (_, meaning) in best[:limit]]

    def close(self) -> None:
        self.db.close()


def _parts(words: list[str], size: int = 500) -> list[list[str]]:
    unique = list(dict.fromkeys(words))
    return [unique[i : i + size] for i in range(0, len(unique), size)]
