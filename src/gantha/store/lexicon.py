"""The lexicon beside an index: word analysis, ending tables and dictionaries, in SQL.

Small and read-mostly, needed by every backend alike: the embedded store keeps it in
``lexicon.sqlite`` in the index folder, the PostgreSQL store in its database.
"""

from __future__ import annotations

import re
import sqlite3
from functools import cached_property, lru_cache
from pathlib import Path
from typing import NamedTuple

import orjson

from gantha.model import DictEntry, EndingRule, SandhiRule, WordAnalysis
from gantha.store.sql import Database
from gantha.text.chinese import has_chinese, to_simplified
from gantha.text.inflect import EXTRA_SANDHI
from gantha.text.pali import canon, fold

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
        for cached in ("endings", "sandhi", "_chinese_meanings", "_english_meanings", "_derived", "lemmatizer"):
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

    def analysed_pairs(self) -> list[tuple[str, str]]:
        """Every (word, base) of WikiPali's analyses."""
        return self._query("SELECT DISTINCT word, base FROM analysis")

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

    @cached_property
    def lemmatizer(self) -> Lemmatizer:
        """The lemma of a written form (``lemmatizer.lemma(form)``): see ``Lemmatizer``."""
        return Lemmatizer(self)

    def lemma(self, form: str) -> str:
        """The lemma gantha reads a written form as (``kāyo`` kāya, ``katvā`` karoti, ``pana`` pana)."""
        return self.lemmatizer.lemma(form)

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


# --- the lemma of a written form -------------------------------------------------------------------------------

STEM_POS = frozenset({".n:base.", ".adj:base.", ".ti:base.", ".ti.base.", ".num:base.", ".pron:base.", ".v:base."})
INDECLINABLE_POS = frozenset({".ind.", ".adv.", ".ind.conj.", ".ind.interj", ".pre."})
GENDERS = (".m.", ".f.", ".nt.")
# a dictionary entry for an inflected form (an absolutive, an aorist, a case form), not a citation form
FORM_GRAMMAR = re.compile(
    r"abs|aor|inf|fut|opt|imp|cond|pret|\bsg\b|\bpl\b|nom|acc|ins|dat|abl|gen|loc|voc|【|\.3p\.\$\.pl"
)
PALI_LETTERS = re.compile(r"^[a-zāīūṃṅñṭḍṇḷ]+$")
UNDOTTED = str.maketrans("ṇṅṭḍḷ", "nntdl")  # the letters whose dot WikiPali's bases lose
BACKED = 0.1  # WikiPali's analyses of other words back a stem this much (their occurrences over the form's)
SWAPPED = {"a": "ā", "ā": "a"}
RIVAL = 3.0  # a stem backed this many times more than WikiPali's base, as probable a reading, is the lemma
SURE = 0.9  # a reading by an ending this probable (a→o m. sg. nom.) can outweigh WikiPali's pronoun (kāyo: kāya)


class Entries(NamedTuple):
    """What the dictionaries say of one headword."""

    stem: bool = False  # a noun's, an adjective's, a participle's stem (kāya, santa)
    indeclinable: bool = False  # pana, kho, yathā
    verb: bool = False  # a verb's citation form (uppajjati)
    genders: frozenset[str] = frozenset()  # the stem's genders (.m., .nt.)
    parents: tuple[str, ...] = ()  # the lemmas an inflected form's entries name (katvā: karoti; so: ta)


class Lemmatizer:
    """The lemma of a written form, one per form: WikiPali's analysis checked against the dictionaries and the
    ending tables. Pure over the lexicon's tables (no vocabulary, no context), cached per form.

    WikiPali's most frequent base is the lemma, in the dictionaries' spelling where it lost a dot (``ganhāti``
    gaṇhāti), unless the tables and the dictionaries show it wrong:

    - a form that is itself a dictionary stem, whose other forms WikiPali gives it, is its own lemma (``kāya``);
    - a verb's citation form is not the locative of its own participle (``uppajjati``, not uppajjanta);
    - an indeclinable headword stays itself unless a noun's probable ending declines a dictionary stem to it
      (``pana``, not a verb panati; ``kho``, not the neuter kha's plural; but ``dukkhaṃ`` dukkha);
    - a base the dictionaries do not know, or that no ending derives the form from, gives way to a dictionary stem
      that a noun's probable ending derives it from and WikiPali's analyses of other words back (``māse`` māsa,
      ``mānaṃ`` māna, not a pronoun ma; ``kāyo`` kāya, not the pronoun ka's feminine plural);
    - of the same stem in two declensions (``bāla``, ``bālā``), the one whose own forms are three times as
      frequent (frequency tie-break).

    A form WikiPali gives no base is read through an enclitic joined to it (``tampi`` taṃ + pi: ta), the parent
    its dictionary entry names, its own headword, the verb of a participle (``parivasanto`` parivasati), else the
    most probable ending to a dictionary stem. ``explain`` names the rule that chose."""

    def __init__(self, lexicon: Lexicon):
        self.lexicon = lexicon
        self.lemma = lru_cache(maxsize=65_536)(self._lemma)
        self._readings = lru_cache(maxsize=1024)(self._readings_uncached)

    @cached_property
    def _entries(self) -> dict[str, Entries]:
        found: dict[str, dict] = {}
        for word, pos, grammar, parent in self.lexicon._query("SELECT word, pos, grammar, parent FROM dict"):
            e = found.setdefault(word, {"stem": False, "ind": False, "verb": False, "genders": set(), "parents": {}})
            form = bool(FORM_GRAMMAR.search(grammar)) and ".3p.$.sg.$.pres." not in grammar
            if form or pos in (".v:ind.", ".v.ind.", ".n."):
                if parent and PALI_LETTERS.match(parent) and parent != word:
                    e["parents"][parent] = None
            elif pos in STEM_POS:
                e["stem"] = True
                e["genders"].update(g for g in GENDERS if g in grammar)
            elif pos in INDECLINABLE_POS:
                e["ind"] = True
            elif pos == ".v." and word.endswith("ti"):
                e["verb"] = True
        return {
            w: Entries(e["stem"], e["ind"], e["verb"], frozenset(e["genders"]), tuple(e["parents"]))
            for w, e in found.items()
        }

    @cached_property
    def _bases(self) -> frozenset[str]:
        return frozenset(r[0] for r in self.lexicon._query("SELECT DISTINCT base FROM analysis"))

    @cached_property
    def _by_dots(self) -> dict[str, str]:
        """A dictionary stem's or verb's spelling without the dots of its letters (ṇ ṭ ḍ ḷ ṅ) → that spelling,
        where one word alone is spelled so."""
        out: dict[str, str | None] = {}
        for word, e in self._entries.items():
            if (e.stem or e.verb) and word != (key := word.translate(UNDOTTED)):
                out[key] = None if key in out and out[key] != word else word
        return {k: v for k, v in out.items() if v}

    @cached_property
    def _rules(self) -> dict[str, list]:
        """The ending rules by the form ending they produce."""
        out: dict[str, list] = {}
        for r in self.lexicon.endings:
            out.setdefault(r.form_ending, []).append(r)
        return out

    @cached_property
    def _known(self) -> frozenset[str]:
        return frozenset(self._entries) | self._bases

    def known(self, word: str) -> bool:
        """A lemma the lexicon knows: a dictionary headword or one of WikiPali's bases."""
        return word in self._known

    @cached_property
    def _endings(self) -> dict[str, tuple[tuple[str, str, str, float], ...]]:
        """Form ending → (lemma ending, part of speech, gender, probability), the most probable of each."""
        best: dict[tuple[str, str, str, str], float] = {}
        for r in self.lexicon.endings:
            gender = next((g for g in GENDERS if r.grammar.startswith(g)), "") if r.pos == ".n." else ""
            key = (r.form_ending, r.base_ending, r.pos, gender)
            best[key] = max(best.get(key, 0.0), r.probability)
        out: dict[str, list[tuple[str, str, str, float]]] = {}
        for (form_ending, base_ending, pos, gender), p in best.items():
            out.setdefault(form_ending, []).append((base_ending, pos, gender, p))
        return {k: tuple(v) for k, v in out.items()}

    def readings(self, form: str, kind: str = "") -> dict[str, float]:
        """Lemmas the ending tables derive ``form`` from (known ones, of a gender their dictionaries give them),
        each with its most probable ending; ``kind``: only endings of that part of speech (``.n.``: a noun's)."""
        if kind not in ("", ".n."):
            raise ValueError(f"readings of every part of speech or of a noun's endings (.n.), not {kind!r}")
        return self._readings(form)[1 if kind else 0]

    def _readings_uncached(self, form: str) -> tuple[dict[str, float], dict[str, float]]:
        """``readings`` of every part of speech and of a noun's endings."""
        every: dict[str, float] = {}
        nouns: dict[str, float] = {}
        bare = [(form, 1.0)] + [
            (form[: len(form) - len(s.joined)] + s.ending, 0.9)
            for s in self.lexicon.sandhi
            if form.endswith(s.joined) and len(form) > len(s.joined)
        ]
        known, entries = self._known, self._entries
        for stem_form, weight in bare:
            for k in range(1, len(stem_form)):
                for base_ending, pos, gender, p in self._endings.get(stem_form[k:], ()):
                    lemma = stem_form[:k] + base_ending
                    if lemma == form or lemma not in known:
                        continue
                    if gender and lemma in entries and entries[lemma].genders and gender not in entries[lemma].genders:
                        continue
                    p *= weight
                    if p > every.get(lemma, 0.0):
                        every[lemma] = p
                    if pos == ".n." and p > nouns.get(lemma, 0.0):
                        nouns[lemma] = p
        return every, nouns

    def _respelled(self, base: str) -> str:
        """WikiPali's base in the dictionaries' spelling where it lost a letter's dot (``upasa`nkamati``
        upasaṅkamati, ``ganhāti`` gaṇhāti, ``thapeti`` ṭhapeti)."""
        base = base.replace("`n", "ṅ")
        if base in self._entries:
            return base
        spelled = self._by_dots.get(base.translate(UNDOTTED), base)
        return spelled if all(a in (b, b.translate(UNDOTTED)) for a, b in zip(base, spelled, strict=True)) else base

    @cached_property
    def _totals(self) -> dict[str, int]:
        """Each of WikiPali's bases → the occurrences of the words it analyses as its forms."""
        return dict(self.lexicon._query("SELECT base, SUM(count) FROM analysis GROUP BY base"))

    def backing(self, lemma: str, analysed_as: str, count: int) -> float:
        """How far WikiPali's analyses of other words back ``lemma`` as a stem: their occurrences over a form's
        (``count``; the form's own left out where WikiPali analyses it as ``lemma``: ``analysed_as``)."""
        own = count if analysed_as == lemma else 0
        return (self._totals.get(lemma, 0) - own) / max(count, 1)

    def _sure(self, form: str, but: str = "") -> str | None:
        """The dictionary stem a noun's probable ending derives ``form`` from, the longest first; never one longer
        than the form (a declension that drops -nt-: manta, not mā)."""
        readings = self.readings(form, ".n.")
        sure = [
            lemma
            for lemma, p in readings.items()
            if p >= SURE and lemma != but and len(lemma) <= len(form) and self._entries.get(lemma, Entries()).stem
        ]
        return max(sure, key=lambda lemma: (readings[lemma], len(lemma)), default=None)

    def _lemma(self, form: str) -> str:
        return self.explain(form)[0]

    def explain(self, form: str) -> tuple[str, str]:
        """The lemma of ``form`` and the rule that chose it."""
        form = canon(form)
        entry = self._entries.get(form, Entries())
        analysed = [(b, n) for b, n, _ in self.lexicon.bases_of(form) if b]
        count = sum(n for _, n in analysed)
        first = analysed[0][0] if analysed else ""
        base = self._respelled(first) if first else ""
        if base == form:
            return base, "wikipali"
        if base and entry.stem and self._backed(form, base, first, count):
            return form, "headword"  # kāya: the body, whose forms WikiPali gives kāya, not the pronoun ka's kāya
        if base and base in entry.parents:
            return base, "wikipali"
        if not base:
            bare = self._bare(form)
            if bare:
                return self.lemma(bare), "enclitic"  # tampi: taṃ + pi, the lemma of taṃ
            if entry.parents:
                return entry.parents[0], "parent"
            if entry.stem or entry.verb or entry.indeclinable:
                return form, "headword"
            verb = self._verb(form)
            if verb:
                return verb, "participle"  # parivasanto: parivasanta, a participle of parivasati
            readings = self.readings(form)
            sure = [x for x, p in readings.items() if p >= SURE and (self._entries.get(x) or Entries()).stem]
            best = max(sure, key=lambda x: (readings[x], len(x)), default=None) if len(form) > 2 else None
            return (best, "ending") if best else (form, "none")
        if form.endswith("ti") and base.endswith(("nta", "māna")) and entry.verb:
            return form, "verb"  # a verb, not a form of its own participle (uppajjati, not uppajjanta)
        if not PALI_LETTERS.match(base):
            return base, "wikipali"  # WikiPali's own notation (ay$i: the pronoun ayaṃ, idaṃ, ima-)
        known = self._entries.get(base)
        if known is None and base.endswith("nt"):  # WikiPali's -ant stems, the dictionaries' -anta, -antu
            known = self._entries.get(base + "a") or self._entries.get(base + "u")
        nominal = self.readings(form, ".n.").get(base, 0.0)
        declined = nominal >= 0.5 and not (known and (known.verb or (known.indeclinable and not known.stem)))
        if entry.indeclinable and not declined:
            return form, "indeclinable"  # pana, not a verb panati; kho, not the neuter kha; vā, not va
        alt = self._sure(form, base)
        if known is None and alt and self.backing(alt, first, count) >= BACKED:
            return alt, "stem"  # a base the dictionaries do not know (māse: not a pronoun ma, the month māsa)
        if alt and base not in self.readings(form) and self._backed(alt, base, first, count):
            return alt, "stem"  # kāyo: a form of kāya, not of the pronoun ka (whose kā- has kāyo)
        rival = self._rival(form, base, nominal)
        if rival:
            return rival, "frequency"  # bālaṃ: the fool's (bāla), ten times the girl's (bālā)
        return base, "wikipali"

    def _rival(self, form: str, base: str, probability: float) -> str | None:
        """The same stem in the other declension (a masculine or neuter -a, a feminine -ā: bāla, bālā), when a noun's
        ending derives ``form`` from it as probably as from ``base``, it is a dictionary stem, and its own forms
        (those ``base`` has not) occur ``RIVAL`` times as often in the canon as ``base``'s own: the frequency
        tie-break of two declensions."""
        if probability < SURE:
            return None
        other = base[:-1] + SWAPPED.get(base[-1:], "")  # the same stem in the other declension: bāla, bālā
        if other == base or self.readings(form, ".n.").get(other, 0.0) < probability:
            return None
        rivals = [other] if (self._entries.get(other) or Entries()).stem else []
        if not rivals:
            return None
        mine = self._declension(base)
        best, most = None, 0
        for lemma in rivals:
            theirs = self._declension(lemma)
            own, others = self._occurrences(theirs - mine), self._occurrences(mine - theirs)
            if own >= RIVAL * max(others, 1) and own > most:
                best, most = lemma, own
        return best

    def _declension(self, stem: str) -> frozenset[str]:
        """The forms a noun's endings give ``stem`` (of a gender its dictionaries give it)."""
        genders = (self._entries.get(stem) or Entries()).genders
        return frozenset(
            stem[: len(stem) - len(r.base_ending)] + r.form_ending
            for r in self._nominal
            if stem.endswith(r.base_ending) and (not genders or any(r.grammar.startswith(g) for g in genders))
        )

    @cached_property
    def _nominal(self) -> list:
        return [r for r in self.lexicon.endings if r.pos == ".n." and r.base_ending]

    def _occurrences(self, words: frozenset[str]) -> int:
        """How often WikiPali counted these words in the canon."""
        total = 0
        for part in _parts(sorted(words)):
            rows = self.lexicon._query(
                f"SELECT SUM(count) FROM analysis WHERE word IN ({','.join('?' * len(part))})", tuple(part)
            )
            total += rows[0][0] or 0 if rows else 0
        return total

    def _verb(self, form: str) -> str | None:
        """The verb whose regular participle or gerundive (-anta, -māna, -tabba, -anīya) declines to ``form``."""
        for k in range(1, len(form)):
            for rule in self._rules.get(form[k:], ()):
                if rule.pos not in (".n.", ".ti.") or rule.probability < SURE:
                    continue
                stem = form[:k] + rule.base_ending
                for d in self._derivations:
                    if stem.endswith(d.form_ending) and len(stem) > len(d.form_ending):
                        verb = stem[: len(stem) - len(d.form_ending)] + d.base_ending
                        if (self._entries.get(verb) or Entries()).verb:
                            return verb
        return None

    @cached_property
    def _derivations(self) -> list:
        """A verb's regular participles and gerundives (not -ta, -na, -eyya: homographs of other words)."""
        return [
            r for r in self.lexicon.endings
            if r.grammar in (".prp.", ".fpp.") and r.form_ending in ("anta", "enta", "māna", "tabba", "itabba", "anīya")
        ]

    def _bare(self, form: str) -> str | None:
        """The form without an enclitic joined to it (``sopi`` so, ``ceva`` ca, ``hotīti`` hoti), when WikiPali
        analyses the bare form: the most frequent of such readings."""
        found: dict[str, int] = {}
        for s in self.lexicon.sandhi:
            if form.endswith(s.joined) and len(form) > len(s.joined):
                bare = form[: len(form) - len(s.joined)] + s.ending
                if bare not in found and (n := sum(c for b, c, _ in self.lexicon.bases_of(bare) if b)):
                    found[bare] = n
        return max(found, key=found.__getitem__, default=None)

    def _backed(self, alt: str, base: str, analysed_as: str, count: int) -> bool:
        """Whether WikiPali's analyses of other words back ``alt`` as a stem: forms as frequent as this one,
        a tenth as frequent as those of ``base``."""
        backing = self.backing(alt, analysed_as, count)
        return backing >= 1 and backing >= self.backing(base, analysed_as, count) / 10
