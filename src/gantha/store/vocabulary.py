"""The vocabulary of the Pali original: every written form with its paragraph and bold counts, folded and
reversed, for forms, compounds, suggestions and did-you-mean. Kept in SQL beside the documents."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from gantha.store.sql import Database
from gantha.text.align import common_start
from gantha.text.pali import fold

TOP_PREFIX_LEN = 3  # suggestions for prefixes this short are precomputed
TOP_PER_PREFIX = 20
LAST = "\U0010ffff"  # above every character: ``>= p AND < p + LAST`` is a prefix range
CHANNEL = "pali"  # the channel whose words the vocabulary holds: writes to other channels leave it as it is
VOCAB_INDEXES = {"vocab_fold": "vocab (fold)", "vocab_form": "vocab (form)", "vocab_rev": "vocab (rev)"}
STALE = "vocabulary_stale"  # meta key: Pali documents were committed after the vocabulary was tabulated
FORM_LEMMAS = "form_lemmas"  # meta key: the lexicon and the vocabulary stamp ``vocab_lemmas`` was computed for
NO_LEMMA = ""  # vocab_lemmas' lemma of a form that belongs to none (computed, so not computed again)


class Vocabulary:
    """The vocabulary tables over ``db``; a backend says how to read its terms (``_pali_terms``)."""

    db: Database

    def _pali_terms(self) -> tuple[list[tuple[str, int]], dict[str, int]]:
        """Every written form of the Pali original with its paragraphs, most first; bold paragraphs per form."""
        raise NotImplementedError

    def rebuild_vocabulary(self) -> int:
        """Tabulate every Pali word form (folded, as written, reversed, paragraphs, bold paragraphs) in one
        transaction: readers see the old vocabulary until the new one is complete, and a crash leaves the old."""
        terms, bold = self._pali_terms()
        forms = [(form, n) for form, n in terms if n > 0]
        folded = fold("\n".join(form for form, _ in forms)).split("\n") if forms else []  # one pass, not 955,000
        rows = [(f, form, form[::-1], n, min(n, bold.get(form, 0))) for f, (form, n) in zip(folded, forms, strict=True)]
        top: dict[str, list[tuple[Any, ...]]] = {}
        for folded, form, _, n, _ in rows:  # already most frequent first
            for k in range(1, min(TOP_PREFIX_LEN, len(folded)) + 1):
                bucket = top.setdefault(folded[:k], [])
                if len(bucket) < TOP_PER_PREFIX:
                    bucket.append((folded[:k], len(bucket), folded, form, n))
        with self.db.transaction():
            self._stamp_vocabulary()
            bulk = self.db.dialect == "sqlite"  # PostgreSQL keeps its indexes: readers would wait for new ones
            for name in VOCAB_INDEXES if bulk else ():  # built after the rows: 2.5x faster than kept up to date
                self.db.execute(f"DROP INDEX IF EXISTS {name}")
            self.db.execute("DELETE FROM vocab")
            self.db.execute("DELETE FROM vocab_top")
            self.db.execute("DELETE FROM vocab_changes")  # counted in the rows just read
            self.db.insert("vocab", rows, 5)
            self.db.insert("vocab_top", (r for b in top.values() for r in b), 5)
            for name, columns in VOCAB_INDEXES.items() if bulk else ():
                self.db.execute(f"CREATE INDEX {name} ON {columns}")
        return len(rows)

    def update_vocabulary(self) -> int:
        """Apply ``vocab_changes``, the net change of written forms' paragraphs and bold paragraphs that writes
        recorded with their rows (a backend whose writer records them), in one transaction that takes them: only
        the changed forms' rows are written again and the suggestions of their prefixes ranked again. The stamp
        (what readers' word caches hang on) moves only if a count changed: a book written again as it was
        leaves every cache. Returns the number of forms changed."""
        with self.db.transaction():
            taken = self.db.query("DELETE FROM vocab_changes RETURNING form, paragraphs, bold")
            changes = {form: (dn, dbold) for form, dn, dbold in taken if (dn, dbold) != (0, 0)}
            if not changes:
                self.db.execute("DELETE FROM meta WHERE key=?", (STALE,))  # up to date, its stamp as it was
                return 0
            forms = list(changes)
            old = self.word_counts(forms)
            for i in range(0, len(forms), 500):
                chunk = forms[i : i + 500]
                self.db.execute(f"DELETE FROM vocab WHERE form IN ({','.join('?' * len(chunk))})", chunk)
            folded = dict(zip(forms, fold("\n".join(forms)).split("\n"), strict=True))
            rows = []
            for form, (dn, dbold) in changes.items():
                n, bold = old.get(form, (0, 0))
                if n + dn > 0:
                    rows.append((folded[form], form, form[::-1], n + dn, max(0, min(n + dn, bold + dbold))))
            self.db.insert("vocab", rows, 5)
            self._rank_prefixes(
                sorted({f[:k] for f in folded.values() for k in range(1, min(TOP_PREFIX_LEN, len(f)) + 1)})
            )
            self._stamp_vocabulary()
        return len(changes)

    def _rank_prefixes(self, prefixes: list[str]) -> None:
        """Rank the suggestions of these prefixes again from the vocabulary (as :meth:`rebuild_vocabulary` ranks
        them: most paragraphs first, then the form)."""
        for prefix in prefixes:
            last = self.db.query(
                "SELECT paragraphs FROM vocab WHERE fold >= ? AND fold < ? ORDER BY paragraphs DESC LIMIT 1 OFFSET ?",
                (prefix, prefix + LAST, TOP_PER_PREFIX - 1),
            )
            rows = self.db.query(
                "SELECT fold, form, paragraphs FROM vocab WHERE fold >= ? AND fold < ? AND paragraphs >= ?",
                (prefix, prefix + LAST, last[0][0] if last else 1),
            )
            best = sorted(rows, key=lambda r: (-r[2], r[1]))[:TOP_PER_PREFIX]
            self.db.execute("DELETE FROM vocab_top WHERE prefix=?", (prefix,))
            self.db.insert("vocab_top", ((prefix, rank, *row) for rank, row in enumerate(best)), 5)

    def _stamp_vocabulary(self) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES ('vocabulary', ?) "
            "ON CONFLICT (key) DO UPDATE SET value=excluded.value",
            (str(time.time_ns()),),
        )
        self.db.execute("DELETE FROM meta WHERE key=?", (STALE,))

    def mark_vocabulary_stale(self) -> None:
        """Record, before Pali documents are committed, that the vocabulary must be tabulated again: a process
        killed between that commit and the tabulation leaves the mark, and the next ``finish`` tabulates."""
        self.db.execute("INSERT INTO meta (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING", (STALE,))

    def vocabulary_due(self) -> bool:
        """Whether the vocabulary is missing or older than the Pali documents committed."""
        return bool(self.db.query("SELECT 1 FROM meta WHERE key=?", (STALE,))) or not self.has_vocabulary()

    def vocabulary_stamp(self) -> str:
        rows = self.db.query("SELECT value FROM meta WHERE key='vocabulary'")
        return rows[0][0] if rows else ""

    def has_vocabulary(self) -> bool:
        return bool(self.db.query("SELECT 1 FROM vocab LIMIT 1"))

    def vocabulary(self, prefix: str, limit: int = 10) -> list[tuple[str, str, int]]:
        """Words whose folded form starts with ``prefix``: (folded, form, paragraphs), most frequent first."""
        prefix = fold(prefix)
        if len(prefix) <= TOP_PREFIX_LEN:
            rows = self.db.query(
                "SELECT fold, form, paragraphs FROM vocab_top WHERE prefix=? ORDER BY rank LIMIT ?", (prefix, limit)
            )
        else:
            rows = self.db.query(
                "SELECT fold, form, paragraphs FROM vocab WHERE fold >= ? AND fold < ? "
                "ORDER BY paragraphs DESC, form LIMIT ?",
                (prefix, prefix + LAST, limit),
            )
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def frequent_words(self, limit: int) -> list[str]:
        """The ``limit`` folded words that stand in most paragraphs, most first."""
        rows = self.db.query(  # a word's forms as written fold alike: twice as many forms give enough words
            "SELECT fold FROM vocab ORDER BY paragraphs DESC, fold LIMIT ?", (2 * limit,)
        )
        return list(dict.fromkeys(r[0] for r in rows))[:limit]

    # --- each written form's lemmas -------------------------------------------------------------

    def form_lemmas_state(self) -> str:
        """What ``vocab_lemmas`` was computed for (``lexicon key`` newline ``vocabulary stamp``), '' if never."""
        rows = self.db.query("SELECT value FROM meta WHERE key=?", (FORM_LEMMAS,))
        return rows[0][0] if rows else ""

    def forms_without_lemmas(self, everything: bool = False) -> list[str]:
        """The vocabulary's written forms whose lemmas were not computed (``everything``: all of them)."""
        if everything:
            return [r[0] for r in self.db.query("SELECT form FROM vocab")]
        return [
            r[0]
            for r in self.db.query(
                "SELECT form FROM vocab v WHERE NOT EXISTS (SELECT 1 FROM vocab_lemmas l WHERE l.form = v.form)"
            )
        ]

    def put_form_lemmas(self, lemmas: dict[str, Iterable[str]], state: str, *, replace: bool = False) -> None:
        """Record these forms' lemmas (a form with none recorded as computed) and what they were computed for,
        in one transaction (``replace``: instead of every form's recorded before, as after a lexicon change)."""
        rows = [(form, lemma) for form, found in lemmas.items() for lemma in (sorted(found) or [NO_LEMMA])]
        with self.db.transaction():
            if replace:
                self.db.execute("DELETE FROM vocab_lemmas")
            self.db.insert("vocab_lemmas", rows, 2)
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value=excluded.value",
                (FORM_LEMMAS, state),
            )

    def lemma_forms(self, lemma: str) -> list[tuple[str, int, int]]:
        """A lemma's attested written forms by ``vocab_lemmas``: (form, paragraphs, bold paragraphs)."""
        rows = self.db.query(
            "SELECT form, paragraphs, bold FROM vocab WHERE form IN (SELECT form FROM vocab_lemmas WHERE lemma=?)",
            (lemma,),
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def word_counts(self, forms: list[str]) -> dict[str, tuple[int, int]]:
        """Paragraphs and bold paragraphs of the Pali holding each written form (attested ones only)."""
        out: dict[str, tuple[int, int]] = {}
        for i in range(0, len(forms), 500):
            chunk = forms[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for form, n, bold in self.db.query(
                f"SELECT form, paragraphs, bold FROM vocab WHERE form IN ({marks})", chunk
            ):
                out[form] = (n, bold)
        return out

    def words_around(self, part: str, *, ending: bool, limit: int = 2000) -> list[tuple[str, int, int]]:
        """Attested written forms that end (``ending``) or begin with ``part`` and are longer:
        (form, paragraphs, bold paragraphs), most frequent first."""
        column, key = ("rev", part[::-1]) if ending else ("form", part)
        rows = self.db.query(
            f"SELECT form, paragraphs, bold FROM vocab WHERE {column} > ? AND {column} < ? "
            "ORDER BY paragraphs DESC LIMIT ?",
            (key, key + LAST, limit),
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]

    def nearest_words(self, folded: str, limit: int = 5, max_edits: int = 2) -> list[tuple[str, int]]:
        """Attested written forms within ``max_edits`` edits of a folded word that begins alike, closest
        first: (form, paragraphs). Diacritics are ignored (folded words compared)."""
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein

        if not folded:
            return []
        rows = self.db.query(
            "SELECT fold, form, paragraphs FROM vocab WHERE fold >= ? AND fold < ? AND length(fold) BETWEEN ? AND ?",
            (folded[0], folded[0] + LAST, len(folded) - max_edits, len(folded) + max_edits),
        )
        found = process.extract(
            folded, [r[0] for r in rows], scorer=Levenshtein.distance, score_cutoff=max_edits, limit=None
        )
        ranked = sorted(  # fewest edits, then the longest start in common (typos fall late), then frequency
            (distance, -common_start(folded, rows[i][0]), -rows[i][2], rows[i][1])
            for _, distance, i in found
            if rows[i][0] != folded
        )
        out: dict[str, int] = {}
        for _, _, paragraphs, form in ranked:
            if len(out) < limit:
                out.setdefault(form, -paragraphs)
        return list(out.items())

    def forms_by_fold(self, folded: str) -> list[tuple[str, int, int]]:
        """Every written form that folds to ``folded``: (form, paragraphs, bold paragraphs)."""
        rows = self.db.query(
            "SELECT form, paragraphs, bold FROM vocab WHERE fold=? ORDER BY paragraphs DESC", (folded,)
        )
        return [tuple(r) for r in rows]  # type: ignore[misc]
