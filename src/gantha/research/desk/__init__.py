"""The philologist's desk: a word's concordance (every occurrence aligned on it), its collocates (the words
that keep it company, by lemma) and its frequency profile (per layer, collection and book, per 10,000 words).

Three views over what the index already has: search's planner finds the paragraphs (lemma families,
inflections, phrases, ``NEAR``, filters), :mod:`.scan` splits them into words and finds each occurrence,
:mod:`.tally` knows the books' sizes and the forms' frequencies.
"""

from __future__ import annotations

from typing import Any

from gantha.research.desk.collocates import (
    Collocate,
    CollocatesResult,
    Lemmas,
    collocates,
    scan_windows,
    text_windows,
    with_collocate,
)
from gantha.research.desk.concordance import ConcordanceLine, ConcordanceResult, FormCount, concordance
from gantha.research.desk.export import Export, Exportable
from gantha.research.desk.profile import ProfileResult, ProfileRow, attach, profile, scan_occurrences
from gantha.research.desk.scan import CORPUS, DeskQuery, Scanner
from gantha.research.desk.tally import Tallies

__all__ = [
    "Collocate",
    "CollocatesResult",
    "ConcordanceLine",
    "ConcordanceResult",
    "DeskQuery",
    "DeskVerbs",
    "Export",
    "Exportable",
    "FormCount",
    "ProfileResult",
    "ProfileRow",
]


class DeskVerbs:
    """Needs ``store``, ``lexicon``, ``searcher`` and ``family``; its helpers are made on first use."""

    store: Any
    lexicon: Any

    def _desk(self) -> tuple[Scanner, Tallies, Lemmas]:
        found = self.__dict__.get("_desk_parts")
        if found is None:
            found = self.__dict__["_desk_parts"] = (Scanner(self), Tallies(self.store), Lemmas(self.lexicon))  # type: ignore[arg-type]
        return found

    def concordance(
        self,
        query: DeskQuery,
        *,
        sort: list[str] | None = None,
        context: int = 6,
        limit: int = 50,
        offset: int = 0,
        fmt: str = "json",
        collocate: str | None = None,
        window: int = 5,
    ) -> ConcordanceResult:
        """Every occurrence one line, the form centred with ``context`` words either side; a page of them,
        or (``fmt`` tsv, csv) all of them as a file. ``collocate``: only the lines with a form of that lemma
        within ``window`` words. A first page in book order reads only the books it needs."""
        scanner = self._desk()[0]
        sort = sort or ["book"]
        whole = fmt != "json" or collocate is not None or sort != ["book"]
        scan = scanner.scan(query, None if whole else offset + limit)
        nodes = with_collocate(scan, self._desk()[2], collocate, window) if collocate else None
        return concordance(
            scan,
            _label(query),
            nodes=nodes,
            sort=sort,
            context=context,
            limit=limit,
            offset=offset,
            fmt=fmt,
            collocate=collocate,
        )

    def collocates(
        self,
        query: DeskQuery,
        *,
        measure: str = "logdice",
        window: int = 5,
        min_freq: int = 3,
        limit: int = 50,
    ) -> CollocatesResult:
        """The lemmas within ``window`` words of the query's occurrences, ranked by ``measure``."""
        scanner, tallies, lemmas = self._desk()
        tally = tallies.get()
        words = scanner.words(query)
        if words is not None:  # counted in the canon's word ids
            info, family, scope = words.info, words.family, words.scope
            counted = text_windows(tally, words.forms, scope, window, family)
        else:
            scan = scanner.scan(query)
            info, family, scope = scan.info, scan.family, scan.scope
            counted = scan_windows(scan, window)
        scope_words = sum(tally.books.get(b, 0) for b in scope) if scope is not None else tally.words
        res = collocates(
            counted,
            _label(query),
            _link(query),
            family,
            info,
            lemmas,
            tally,
            scope_words,
            measure=measure,
            window=window,
            min_freq=min_freq,
            limit=limit,
        )
        if scope is not None:
            res.notes.append("in the filters' scope a collocate's frequency is estimated from the books' sizes")
        return res

    def profile(self, query: DeskQuery, fmt: str = "json") -> ProfileResult:
        """The query's occurrences per layer, collection and book, absolute and per 10,000 words; ``fmt`` csv,
        png or svg attaches the table or a bar chart."""
        scanner, tallies, _ = self._desk()
        tally = tallies.get()
        words = scanner.words(query)
        if words is not None:  # counted in the canon's word ids
            per_book, info = tally.occurrences(words.forms, words.scope), words.info
        else:
            scan = scanner.scan(query)
            per_book, info = scan_occurrences(scan), scan.info
        res = profile(per_book, info, _label(query), self.store.books(CORPUS), tally)
        return attach(res, fmt)


def _label(query: DeskQuery) -> str:
    """The query as the results name it: ``parivāsa (lemma)``, ``"a b"``, or the forms."""
    if query.lemma:
        return f"{query.q.strip()} (lemma)"
    return query.q.strip() or ", ".join(query.forms)


def _link(query: DeskQuery) -> dict[str, str]:
    """The query as HTTP parameters of the desk's verbs (the collocates link to their concordance lines)."""
    params: dict[str, str] = {"q": query.q} if query.q else {}
    if query.lemma:
        params["lemma"] = "true"
    lists = {"forms": query.forms, "book": query.books, "category": query.categories, "tags": query.tags}
    for name, values in {**lists, "topic": query.topics}.items():
        if values:
            params[name] = ",".join(values)
    if query.mode != "fuzzy":
        params["mode"] = str(query.mode.value)
    for flag in ("inflections", "compounds", "derivatives"):
        if not getattr(query, flag):
            params[flag] = "false"
    return params
