"""A StoreQuery as SQL over ``docs``: full-text conditions on the ``tsvector`` columns, filters on the others,
the count grouped by unit, and the page ranked by BM25.

Matching: each clause is a ``tsquery`` on its field's column — any of its words (``'a' | 'b'``), a phrase
(``'a' <-> 'b'``), a prefix (``'pari':*``), a suffix or infix as the words of the field's vocabulary that end
with or hold it (found through the trigram index of ``lexemes``), near as ``(a1|a2) <k> (b1|b2)`` for k up
to the distance plus one, both ways. The short clauses on one column and its exclusions are joined into one
``tsquery`` (``&``, ``& !``), so one GIN scan answers them; a long list of words (a lemma's forms) is cut into
several ``tsquery`` of :data:`CHUNK` words, ORed (a bitmap OR of cheap scans).

Ranking (what the page is ordered by): rank-first matches first, then BM25 as tantivy computes it (k1 1.2,
b 0.75, idf ``ln(1 + (N − df + 0.5)/(df + 0.5))`` from the document frequencies of ``lexemes``, the field
length as tantivy's field norm, the average over the index), with term frequencies read from the tsvector's
positions (up to 256 a word). Clauses score as in the embedded store: a word by its BM25, the forms of one
word without their rarity, a phrase by the BM25 of its occurrences with the sum of its words' idfs, near
(whose words rank by their own clauses), a prefix, wildcard or unranked set 1. For words in more than 700
documents the page is ranked among the matches where such a word is among the passage's heaviest (``_top``;
in more than 8,000 or 30,000, only those marked heavier still) or that rank first, when they fill it, else
among a wider tier, else among all matches: first by the BM25 of their heaviest words alone, then the best
:data:`POOL` of them by BM25 over their whole vectors. Phrases are scored once, for the passages that hold
them. (A frequent search's first pages are read from its ranking over every match, kept ahead by the
store: :meth:`Plan.ranking`.) A clause's words are written in one order (sorted), so that the spellings of one
family make one statement and share what is prepared for it (:mod:`gantha.store.postgres.store`). Ties: by
insertion order.

With BM25 indexes (pg_textsearch, :mod:`~gantha.store.postgres.schema`), a page ranked by the words of one
field (BM25 with their own idfs, plus constants: the common search) is read from that field's index instead:
its top-k in score order, filtered by the match, with no tiers and nothing prepared (:meth:`Plan.bm25`);
other pages (phrases, forms without their rarity, prefixes scored by their matches, several fields) as above.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gantha.store.base import Clause, StoreQuery
from gantha.store.postgres.rows import BM25_B, BM25_K1, lexeme
from gantha.store.postgres.schema import BY_NAME, FIELDS

RANK_FIRST_SCORE = 1000.0
CHUNK = 8  # words of one tsquery (a longer list is several, ORed)
# documents holding the ranked words above which the page is ranked from passages where they weigh this much
TIERS = ((30_000, "!2"), (8_000, "!1"), (700, ""))
POOL = 100  # the passages of those ranked by their _top vectors that are then ranked by their whole vectors
SCORED = ("must", "should", "alternatives", "scoring")


@dataclass(slots=True)
class Stats:
    """BM25's collection statistics: the number of documents, the average length of each field."""

    docs: int
    avg: dict[str, float] = field(default_factory=dict)

    def idf(self, df: int) -> float:
        return math.log(1 + (self.docs - df + 0.5) / (df + 0.5))


def lit(value: str) -> str:
    """An SQL string literal."""
    return "'" + value.replace("'", "''") + "'"


def lits(values: list[str]) -> str:
    """An SQL text array literal."""
    return f"ARRAY[{', '.join(map(lit, values))}]::text[]" if values else "'{}'::text[]"


COLUMNS = {c for f in FIELDS for c in f.vectors}


def column(name: str) -> str:
    """An analysed field's vector column (or a long field's ``_top``)."""
    if name not in COLUMNS:
        raise ValueError(f"no analysed field {name!r}")
    return name


def scored_words(q: StoreQuery) -> set[tuple[str, str]]:
    """(field, word) pairs whose document frequency the ranking of ``q`` needs."""
    out: set[tuple[str, str]] = set()
    for c in (*q.must, *q.should, *(c for g in q.alternatives for c in g), *q.scoring):
        if c.kind != "near" and (
            c.kind in ("forms", "phrase")
            or len(c.tokens) == 1
            or (c.kind == "term" and c.field in BY_NAME and BY_NAME[c.field].text)
        ):
            out.update((c.field, t) for t in c.tokens)
    return out


class Plan:
    """The SQL of one StoreQuery. ``df``: document frequencies of :func:`scored_words`; ``expand(field, kind,
    part)``: the words of a field's vocabulary that end with (``suffix``) or hold (``infix``) ``part``."""

    def __init__(
        self,
        q: StoreQuery,
        stats: Stats,
        df: dict[tuple[str, str], int],
        expand: Callable[[str, str, str], list[str]],
    ):
        self.q, self.stats, self.df, self.expand = q, stats, df, expand
        self.weights: dict[str, dict[str, float]] = {}  # column → word → BM25 weight (idf, or 1 for forms)
        self.phrases: list[tuple[str, str, float]] = []  # phrases: (column, tsquery, summed idf)
        self.consts: list[str] = []  # score expressions of unranked clauses
        self._heaviest: dict[str, str] = {}  # mark → the condition of _tops
        self._rankings: dict[int, str] = {}  # limit → the ranking statement (asked for its key twice a search)
        self.times: dict[str, dict[str, int]] = {}  # column → word → the clauses ranking it by its idf
        self.plain = True  # every score is the BM25 of words by their idfs, plus constants (see :meth:`bm25`)
        self.match = self._match()
        self.worded = bool(q.must or q.should or any(q.alternatives))  # the match has words (GIN finds them)
        for c in q.must:
            self._score(c, always=True)
        for c in (*q.should, *(c for g in q.alternatives for c in g), *q.scoring):
            self._score(c, always=False)
        self.first = " OR ".join(f"({self._condition(c)})" for c in q.rank_first) or "FALSE"
        self.first_row = self._row_condition(q.rank_first)

    # --- matching -------------------------------------------------------------------------------------

    def tsqueries(self, c: Clause, mark: str = "") -> list[str]:
        """The clause as tsquery texts it matches any of (none: it matches nothing). A long list of words is cut
        into lists of :data:`CHUNK`: GIN checks each candidate against the whole query, so one query of 300
        words costs 300 times a word's check, while 40 of 8 each cost 8 (and the planner sees their sizes)."""
        if c.kind == "near":
            a, b = (" | ".join(map(lexeme, g)) for g in [*c.groups, [], []][:2])
            if not (a and b):
                return []
            return [
                " | ".join(f"({x}) <{k}> ({y})" for k in range(1, max(c.distance, 0) + 2) for x, y in ((a, b), (b, a)))
            ]
        if c.kind == "phrase":
            return [" <-> ".join(map(lexeme, c.tokens))] if c.tokens else []
        if c.kind == "prefix":
            words = [f"{lexeme(t)}:*" for t in sorted(c.tokens)]
        elif c.kind in ("suffix", "infix"):
            words = list(map(lexeme, dict.fromkeys(w for t in c.tokens for w in self.expand(c.field, c.kind, t))))
        else:  # in one order, whichever of them was typed: a family's spellings make the same statements
            words = [lexeme(t + mark) for t in sorted(c.tokens)]
        return [" | ".join(words[i : i + CHUNK]) for i in range(0, len(words), CHUNK)]

    def _condition(self, c: Clause, also: str = "", mark: str = "") -> str:
        """SQL that row ``d`` matches the clause, as an index condition: each :data:`CHUNK` its own GIN scan
        (``also``: and this tsquery on the same column; ``mark``: its words marked so, ``word!1``)."""
        parts = self.tsqueries(c, mark)
        if not parts:
            return "FALSE"
        col = column(c.field)
        return "(" + " OR ".join(f"d.{col} @@ {lit(f'({p}){also}')}::tsquery" for p in parts) + ")"

    def _every(self, clauses: list[Clause], excluded: list[Clause] = ()) -> list[str]:  # type: ignore[assignment]
        """Conditions that all of ``clauses`` match and none of ``excluded``: the short clauses of a column and
        its exclusions joined into one tsquery, added to each part of its first long clause if it has one."""
        short: dict[str, list[str]] = {}
        long: dict[str, list[Clause]] = {}
        for c in clauses:
            parts = self.tsqueries(c)
            if not parts:
                return ["FALSE"]
            if len(parts) == 1:
                short.setdefault(column(c.field), []).append(f"({parts[0]})")
            else:
                long.setdefault(column(c.field), []).append(c)
        nots: dict[str, list[str]] = {}
        for c in excluded:
            nots.setdefault(column(c.field), []).extend(f"({p})" for p in self.tsqueries(c))
        out = []
        for col in dict.fromkeys([*short, *long]):
            joined = " & ".join(short.get(col, []) + [f"!{n}" for n in nots.pop(col, [])])
            first, *rest = long.get(col) or [None]
            if first is None:
                out.append(f"d.{col} @@ {lit(joined)}::tsquery")
            else:
                out.append(self._condition(first, f" & {joined}" if joined else ""))
            out += [self._condition(c) for c in rest]
        out += [f"NOT (d.{col} @@ {lit(' | '.join(ns))}::tsquery)" for col, ns in nots.items()]
        return out

    def _row_condition(self, clauses: list[Clause], row: str = "d") -> str:
        """A condition any of ``clauses`` matches, as row ``row``'s value (not an index's): one tsquery a column,
        so each vector is read (detoasted) once, not once for each :data:`CHUNK` of a long list of words."""
        parts: dict[str, list[str]] = {}
        for c in clauses:
            parts.setdefault(column(c.field), []).extend(f"({p})" for p in self.tsqueries(c))
        conditions = [f"{row}.{col} @@ {lit(' | '.join(ps))}::tsquery" for col, ps in parts.items() if ps]
        return " OR ".join(conditions) or "FALSE"

    def _any(self, clauses: list[Clause]) -> str:
        """A condition any of ``clauses`` matches."""
        return " OR ".join(self._condition(c) for c in clauses) or "FALSE"

    def _match(self) -> str:
        q = self.q
        conditions = self._every(q.must, q.must_not)
        if q.should:
            conditions.append(f"({self._any(q.should)})")
        if groups := [g for g in q.alternatives if g]:
            conditions.append("(" + " OR ".join(f"({' AND '.join(self._every(g))})" for g in groups) + ")")
        return " AND ".join(conditions + self._filters()) or "TRUE"

    def _filters(self) -> list[str]:
        q, out = self.q, []
        for name, values in q.filters.items():
            if not values:
                continue
            if name in ("corpus", "book", "category", "channel", "granularity"):
                out.append(f"d.{name} = ANY({lits(list(values))})")
            elif name == "primary":
                out.append(f"d.is_primary IN ({', '.join('TRUE' if v == 'yes' else 'FALSE' for v in values)})")
            elif name in ("language", "tags"):
                out.append(f"d.{name} && {lits(list(values))}")
            else:
                raise ValueError(f"no filter field {name!r}")
        if q.ids:
            out.append(f"d.doc_id = ANY({lits(list(q.ids))})")
        if q.book_pattern:
            out.append(f"d.book ~ {lit('^(?:' + q.book_pattern + ')')}")
        if q.tag_groups:
            out.append("(" + " OR ".join(f"d.tags @> {lits(list(g))}" for g in q.tag_groups) + ")")
        if q.scopes:
            scopes = " OR ".join(
                f"(d.corpus = {lit(corpus)} AND d.book = {lit(book)}"
                + (f" AND d.chapter IN ({', '.join(str(int(n)) for n in chapters)}))" if chapters else ")")
                for corpus, book, chapters in q.scopes
            )
            out.append(f"({scopes})")
        return out

    # --- ranking --------------------------------------------------------------------------------------

    def _idf(self, name: str, word: str) -> float:
        return self.stats.idf(self.df.get((name, word), 0))

    def _weigh(self, name: str, word: str, weight: float) -> None:
        words = self.weights.setdefault(column(name), {})
        words[word] = words.get(word, 0.0) + weight

    def _bm25(self, tf: str, name: str) -> str:
        """BM25's term-frequency part of ``tf`` (an SQL expression) in field ``name`` of row ``c``."""
        avg = max(self.stats.avg.get(name, 0.0), 1e-9)
        norm = f"{BM25_K1} * ({1 - BM25_B} + {BM25_B} * c.{name}_len / {avg!r})"
        return f"(({tf}) * {BM25_K1 + 1} / (({tf}) + {norm}))"

    def _score(self, c: Clause, *, always: bool) -> None:
        """Record how clause ``c`` adds to the score (``always``: it matches every candidate)."""
        name = column(c.field)
        if c.kind == "forms":  # each form's BM25 without its rarity
            for t in c.tokens:
                if self.df.get((name, t)):
                    self._weigh(name, t, 1.0)
                    self.plain = False
        elif c.kind == "phrase" and len(c.tokens) > 1:
            self.phrases.append((name, self.tsqueries(c)[0], sum(self._idf(name, t) for t in c.tokens)))
        elif c.kind == "near":  # unranked, as in the embedded store: the words' own clauses rank
            self.consts.append("1.0" if always else f"({self._row_condition([c], row='c')})::int")
        elif c.kind in ("prefix", "suffix", "infix"):  # 1 for each of its parts that matches
            if always and len(c.tokens) == 1:
                self.consts.append("1.0")
            else:
                parts = [Clause(name, [t], c.kind) for t in c.tokens]
                self.consts += [f"({self._row_condition([p], row='c')})::int" for p in parts]
        elif len(c.tokens) == 1 or (c.kind == "term" and BY_NAME[name].text):  # ranked by BM25
            for t in c.tokens:
                self._weigh(name, t, self._idf(name, t))
                times = self.times.setdefault(name, {})
                times[t] = times.get(t, 0) + 1
        elif c.tokens:  # an unranked set
            self.consts.append("1.0" if always else f"({self._row_condition([c], row='c')})::int")

    def tiers(self) -> list[str]:
        """The marks of the ``_top`` words to rank from, narrowest first (none: rank every match): the more
        documents hold the ranked words, the heavier the words a page starts from."""
        if not any(BY_NAME[name].tiered for name in self.weights):
            return []
        held = self.held()
        return [mark for least, mark in TIERS if held > least]

    def held(self) -> int:
        """The documents holding the ranked words, counted once for each word (a bound of the matches)."""
        return sum(self.df.get((name, t), 0) for name, words in self.weights.items() for t in words)

    def _tops(self, mark: str) -> str:
        """The condition that a ranked word is among the passage's heaviest (so marked); written once a plan (a
        frequent family's is long, and a search asks for it for the prepared counts and for its page)."""
        if mark not in self._heaviest:
            self._heaviest[mark] = " OR ".join(
                self._condition(Clause(f"{name}_top", list(words)), mark=mark)
                for name, words in self.weights.items()
                if BY_NAME[name].tiered and words
            )
        return self._heaviest[mark]

    def _tier(self, mark: str | None, first_only: bool) -> str:
        """The candidates' condition: a ranked word among the passage's heaviest (so marked), or ranked first;
        ``first_only``: ranked first (they fill the page), and if ``mark`` is not None among the heaviest."""
        tops = self._tops(mark or "")
        if first_only:
            return f"({self.first})" + (f" AND ({tops})" if mark is not None and tops else "")
        return " OR ".join([tops, *([f"({self.first})"] if self.q.rank_first else [])])

    def candidates(self, tier: str, *, first_only: bool) -> str:
        """The number of candidates a page ranks from in ``tier`` (see :meth:`page`)."""
        return f"SELECT count(*) FROM docs d WHERE {self.match} AND ({self._tier(tier, first_only)})"

    def first_count(self) -> str:
        """The number of matches ranked first."""
        return f"SELECT count(*) FROM docs d WHERE {self.match} AND ({self.first})"

    def first_units(self) -> str:
        """Rows (unit, documents) of the matches ranked first."""
        return f"SELECT d.unit, count(*) FROM docs d WHERE {self.match} AND ({self.first}) GROUP BY d.unit"

    def _base(self) -> str:
        q = self.q
        if q.must or q.should or any(q.alternatives):
            return "0.0"
        return "0.0" if q.filters or q.ids or q.book_pattern or q.tag_groups or q.scopes else "1.0"

    # --- BM25 indexes (pg_textsearch) ------------------------------------------------------------------

    def bm25(self) -> str | None:
        """The field whose BM25 index ranks this plan's page, if one can: words of that one field ranked by
        their idfs (a word of two clauses twice, as the index scores a word repeated in its query), no phrase,
        no form without its rarity, constants only (a clause every match meets), in score order."""
        ranked = [name for name, words in self.weights.items() if words]
        if (
            self.q.order == "reading"
            or len(ranked) != 1
            or not BY_NAME[ranked[0]].ranked
            or not self.plain
            or self.phrases
            or any(c != "1.0" for c in self.consts)
        ):
            return None
        return ranked[0]

    def bm25_fixed(self) -> float:
        """The constant part of every match's score (the base and the clauses every match meets)."""
        return float(self._base()) + len(self.consts)

    def _bm25_score(self, name: str) -> str:
        """The (negative) BM25 of a row's ``name_words`` for the ranked words, by the field's index."""
        words = " ".join(t for t, n in sorted(self.times[name].items()) for _ in range(n))
        return f"(d.{name}_words <@> to_bm25query({lit(words)}, {lit(f'docs_{name}_bm25')}))"

    def bm25_first(self, limit: int) -> str:
        """Rows (id, score, passage) of the best ``limit`` matches ranked first, scored one by one by the field's
        BM25 statistics (about 0.4 ms each: for a few of them; down the index, a frequent word's scan would pass
        every match to find a rare rank-first one)."""
        return self.bm25_top(limit, f" AND ({self.first})")

    def bm25_top(self, limit: int, also: str = "") -> str:
        """Rows (id, score, passage) of the best ``limit`` matches by the field's BM25 index (its top-k, filtered
        by the match and ``also``: the scan goes on until ``limit`` rows pass; a match that holds none of the
        ranked words, score 0, is not among them: :meth:`bm25_zero`)."""
        name = self.bm25()
        assert name is not None
        score = self._bm25_score(name)
        where = f"{self.match}{also}"
        return f"SELECT d.id, -{score}, d.passage FROM docs d WHERE {where} ORDER BY {score} LIMIT {int(limit)}"

    def bm25_zero(self, limit: int) -> str | None:
        """Rows (id, score 0, passage) of the first ``limit`` matches holding none of the ranked words and not
        ranked first, in insertion order (the rest of a page the index's top-k did not fill); None where every
        match holds one (a clause every match meets is made of them)."""
        name = self.bm25()
        assert name is not None
        ranked = set(self.times[name])
        if any(c.field == name and c.kind == "term" and set(c.tokens) <= ranked for c in self.q.must):
            return None
        words = " | ".join(lexeme(t) for t in sorted(ranked))
        first = f" AND NOT ({self.first_row})" if self.q.rank_first else ""
        return (  # the matches found first (by their GIN indexes), not by a walk of every row in id order
            f"WITH m AS MATERIALIZED (SELECT d.id FROM docs d WHERE {self.match}) "
            f"SELECT d.id, 0.0, d.passage FROM m JOIN docs d ON d.id = m.id "
            f"WHERE NOT (d.{name} @@ {lit(words)}::tsquery){first} ORDER BY d.id LIMIT {int(limit)}"
        )

    # --- statements -----------------------------------------------------------------------------------

    def count(self) -> str:
        """Rows (unit, documents) of the matches."""
        return f"SELECT d.unit, count(*) FROM docs d WHERE {self.match} GROUP BY d.unit"

    def _values(self, words: dict[str, float]) -> str:
        return f"(VALUES {', '.join(f'({lit(t)}, {w!r})' for t, w in words.items())}) w(t, w)"

    def ranking(self, limit: int) -> str:
        """Rows (id, score, first) of the first ``limit`` matches in score order, every match ranked (the page of
        any offset and size within them, whatever tier it would be ranked from)."""
        if limit not in self._rankings:
            self._rankings[limit] = f"SELECT r.id, r.score, r.first FROM ({self.page(None, window=(limit, 0))}) r"
        return self._rankings[limit]

    def page(self, tier: str | None = None, *, first_only: bool = False, window: tuple[int, int] | None = None) -> str:
        """Rows (id, score, first, candidates, passage) of the page in score order.

        ``tier`` (a mark, "" for none): the candidates are the matches where a ranked word is among the heaviest
        (its ``_top`` vector; so marked there: heavier still) or that rank first (``first_only``: that rank first,
        as many as fill the page, and among the heaviest unless ``tier`` is None); they are scored first from
        their ``_top`` vectors alone (the frequency is the position there), the best of them (:data:`POOL`, or
        twice the page's end) then by BM25 over their whole vectors. ``candidates`` counts them (else every
        match). ``window``: (limit, offset), else the query's."""
        q = self.q
        limit, offset = window or (q.limit, q.offset)
        needed = {*self.weights, *(name for name, _, _ in self.phrases)} | _columns_in(self.consts)
        vectors = "".join(f"d.{name}, d.{name}_len, " for name in sorted(needed))
        if tier is not None or first_only:
            tops = {name: words for name, words in self.weights.items() if BY_NAME[name].tiered and words}
            pre = " UNION ALL ".join(
                f"SELECT c.id, w.w * {self._bm25('x.positions[1]', name)} AS s FROM top c "
                f"CROSS JOIN LATERAL unnest(c.{name}_top) x JOIN {self._values(words)} ON w.t = x.lexeme"
                for name, words in tops.items()
            )
            top_columns = "".join(f"d.{name}_top, d.{name}_len, " for name in tops)
            pool = max(POOL, 2 * (q.offset + q.limit))
            source = (
                f"top AS MATERIALIZED (SELECT d.id, ({self.first_row}) AS first, {top_columns}d.id AS _ FROM docs d "
                f"WHERE {self.match} AND ({self._tier(tier, first_only)})), "
                f"pre AS (SELECT id, sum(s) AS s FROM ({pre}) u GROUP BY id), "
                "pool AS MATERIALIZED (SELECT t.id, t.first, count(*) OVER () AS n FROM top t "
                f"LEFT JOIN pre p ON p.id = t.id ORDER BY t.first DESC, COALESCE(p.s, 0) DESC, t.id LIMIT {pool}), "
                f"cand AS MATERIALIZED (SELECT d.id, p.first, p.n, {vectors}d.id AS _ FROM pool p "
                "JOIN docs d ON d.id = p.id)"
            )
            count = "c.n"
        else:
            source = (
                f"cand AS MATERIALIZED (SELECT d.id, ({self.first_row}) AS first, {vectors}d.id AS _ "
                f"FROM docs d WHERE {self.match})"
            )
            count = "count(*) OVER ()"
        terms = " UNION ALL ".join(
            [
                f"SELECT c.id, w.w * {self._bm25('cardinality(x.positions)', name)} AS s FROM cand c "
                f"CROSS JOIN LATERAL unnest(ts_filter(setweight(c.{name}, 'A', {lits(list(words))}), '{{a}}')) x "
                f"JOIN {self._values(words)} ON w.t = x.lexeme"
                for name, words in self.weights.items()
                if words
            ]
            + [  # a phrase's frequency (its cover density) computed once, for the passages holding it
                f"SELECT c.id, {idf!r} * {self._bm25('x.tf', name)} AS s FROM cand c CROSS JOIN LATERAL "
                f"(SELECT ts_rank_cd('{{1,1,1,1}}', c.{name}, {lit(tsquery)}::tsquery, 0) AS tf) x "
                f"WHERE c.{name} @@ {lit(tsquery)}::tsquery"
                for name, tsquery, idf in self.phrases
            ]
        )
        fixed = " + ".join([self._base(), *self.consts])
        order = "first DESC, score DESC, id"
        with_terms = f", terms AS (SELECT id, sum(s) AS s FROM ({terms}) u GROUP BY id)" if terms else ""
        join_terms = " LEFT JOIN terms t ON t.id = c.id" if terms else ""
        score = f"({fixed}){' + COALESCE(t.s, 0)' if terms else ''}"
        return (
            f"WITH {source}{with_terms}, ranked AS (SELECT c.id, c.first, {score} AS score, {count} AS n "
            f"FROM cand c{join_terms} ORDER BY {order} LIMIT {int(limit)} OFFSET {int(offset)}) "
            "SELECT r.id, r.score, r.first, r.n, d.passage FROM ranked r JOIN docs d ON d.id = r.id "
            "ORDER BY r.first DESC, r.score DESC, r.id"
        )

    def reading(self) -> str:
        """Rows (id, score, first, total, passage) of the page in reading order, rank-first matches first."""
        q = self.q
        return (
            f"SELECT d.id, 1.0, ({self.first_row}) AS first, count(*) OVER (), d.passage FROM docs d "
            f"WHERE {self.match} ORDER BY first DESC, d.corpus, d.book, d.seq "
            f"LIMIT {int(q.limit)} OFFSET {int(q.offset)}"
        )


def _columns_in(expressions: list[str]) -> set[str]:
    """The analysed columns score expressions read (``c.fold``)."""
    return {name for name in BY_NAME for e in expressions if f"c.{name}," in e or f"c.{name} " in e}


def within(statement: str, books: Iterable[tuple[str, str, str]]) -> str:
    """A statement of rows by unit (``… GROUP BY d.unit``) over the documents of these (corpus, book, channel)."""
    head, rest = statement.split(" WHERE ", 1)
    condition, tail = rest.rsplit(" GROUP BY d.unit", 1)
    values = ", ".join(f"({lit(corpus)}, {lit(book)}, {lit(channel)})" for corpus, book, channel in books)
    return f"{head} WHERE ({condition}) AND (d.corpus, d.book, d.channel) IN ({values}) GROUP BY d.unit{tail}"
