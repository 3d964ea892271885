"""The lemmas whose paradigm holds a written form: ``Words``' paradigms run backwards.

A lemma's paradigm (``Words.family``) is what WikiPali's analyses and the ending tables propose for it and, for
a verb, for its participle and gerundive stems, kept where the texts attest it. Here a form is taken apart
instead: every ending of the tables it may end in (after an enclitic join or not), the stem left looked up
among the headwords and the verbs' derived stems by its folded spelling, and each candidate proposed forward
again and kept when it gives the form. The answer depends on the lexicon alone, not on which books are
indexed: computed once per written form, it names every lemma whose search the form should answer, so an
index could hold a form's lemmas beside it and search a lemma as one term.

``tabulate`` keeps every written form's lemmas in the store beside the vocabulary (``vocab_lemmas``), so that
a lemma's attested forms are one indexed query (``Words``' paradigms of the ordinary search).

By written form, a lemma's forms found this way are exactly ``Words.family``'s. By folded form, they are every
attested folded form one of its proposed spellings folds to — more than the folded family, which keeps a
proposed spelling only where the texts spell it exactly so (``kūlaṃ`` proposed and unattested still finds
``kulaṃ``, which folds alike).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from gantha.model import EndingRule
from gantha.search.words import NOMINAL, VERBAL, Words
from gantha.store.base import Store
from gantha.text.pali import canon, fold


def due(store: Store, words: Words) -> bool:
    """Whether the store's forms' lemmas lag behind its vocabulary or its lexicon (never without a lexicon)."""
    if store.form_lemmas_state() == words.table_state:
        return False
    return bool(words.headwords) and not getattr(words.lexicon, "problem", None)


def tabulate(store: Store) -> int:
    """Bring the store's forms' lemmas up to date with its vocabulary and lexicon: the written forms added since
    they were computed, every form when the lexicon changed (the whole CST: about 28 s of one core, the lexicon
    indexed backwards first, about 3 s of it). Returns the forms computed (0: already current, or no lexicon)."""
    words = Words(store.lexicon(), store)
    if not due(store, words):
        return 0
    state, recorded = words.table_state, store.form_lemmas_state()
    everything = recorded.split("\n")[0] != state.split("\n")[0]
    forms = store.forms_without_lemmas(everything)
    store.put_form_lemmas(FormLemmas(words).many(forms, written=True), state, replace=everything)
    return len(forms)


class FormLemmas:
    """A written or folded form → the headwords whose paradigm proposes it, over one lexicon."""

    def __init__(self, words: Words):
        self.words = words
        self.lexicon = words.lexicon

    def lemmas(self, form: str, *, written: bool = False) -> frozenset[str]:
        """The headwords whose paradigm proposes a spelling that folds to ``form`` (a folded form), or
        (``written``) that is ``form`` exactly (a written form, canonical)."""
        folded = fold(form) if written else form
        found: set[str] = set()
        analysed = self._analysed_as_written.get(form, ()) if written else self._analysed.get(form, ())
        for base in analysed:  # WikiPali's analyses of the words spelled so
            found |= self._owners(base)
        self._by_tables(folded, form, written, None, found)
        for size, joins in self._joins:  # an enclitic join: undone, then the tables
            for ending, joined, folded_ending in joins.get(folded[-size:], ()):
                self._by_tables(folded[: len(folded) - size] + folded_ending, form, written, (ending, joined), found)
        return frozenset(found)

    def many(self, forms: Iterable[str], *, written: bool = False) -> dict[str, frozenset[str]]:
        """``lemmas`` of each form."""
        return {f: self.lemmas(f, written=written) for f in forms}

    def _by_tables(self, bare: str, form: str, written: bool, join: tuple[str, str] | None, found: set[str]) -> None:
        """Lemmas whose stem's ending-table forms (joined by ``join``: ending, joined) are ``form`` (written) or
        fold to it; ``bare``: the folded form before the join."""
        plain = self._plain
        for k in range(max(0, len(bare) - self._longest), len(bare) + 1):  # every ending it may have, none too
            for folded_base, rules in self._rules_by_folded_ending.get(bare[k:], ()):
                stems = self._stems_by_fold.get(bare[:k] + folded_base)
                if not stems:
                    continue
                for rule in rules:
                    for stem in stems:
                        if not stem.endswith(rule.base_ending):
                            continue
                        proposed = stem[: len(stem) - len(rule.base_ending)] + rule.form_ending
                        if join:
                            if not proposed.endswith(join[0]):
                                continue
                            proposed = proposed[: len(proposed) - len(join[0])] + join[1]
                        if written:
                            if proposed != form:
                                continue
                        elif not (join is None and stem in plain and rule in plain) and fold(proposed) != form:
                            continue  # (a plain stem and ending fold letter by letter: the form folds to bare)
                        if self.words.is_lemma(stem) and rule.pos in (VERBAL if stem in self._verbs else NOMINAL):
                            found.add(stem)
                        if rule.pos in NOMINAL:
                            found |= self._derived_of.get(stem, set())

    def _owners(self, stem: str) -> set[str]:
        """The lemmas a WikiPali base is a stem of: itself, and the verbs it is a participle or gerundive of."""
        return {stem} | self._derived_of.get(stem, set())

    # --- the lexicon, indexed backwards (once) ----------------------------------------------------

    @cached_property
    def _verbs(self) -> frozenset[str]:
        return self.words.verbs(self.words.headwords)

    @cached_property
    def _derived_of(self) -> dict[str, set[str]]:
        """A verb's participle and gerundive stem → the verbs it derives from."""
        out: dict[str, set[str]] = {}
        for verb in self._verbs:
            for stem, _ in self.words.derived(verb):
                out.setdefault(stem, set()).add(verb)
        return out

    @cached_property
    def _stems_by_fold(self) -> dict[str, list[str]]:
        """Headwords and derived stems by their folded spelling."""
        out: dict[str, list[str]] = {}
        for stem, folded in self._folded.items():
            out.setdefault(folded, []).append(stem)
        return out

    @cached_property
    def _folded(self) -> dict[str, str]:
        """Headwords and derived stems → their folded spelling (folded in one pass)."""
        stems = sorted(self.words.headwords | self._derived_of.keys())
        return dict(zip(stems, fold("\n".join(stems)).split("\n"), strict=True))

    @cached_property
    def _rules_by_folded_ending(self) -> dict[str, list[tuple[str, list[EndingRule]]]]:
        """The ending rules a paradigm applies (a lemma ending, a verb's or a declined stem's), by their folded
        form ending, then by their folded lemma ending."""
        grouped: dict[str, dict[str, list[EndingRule]]] = {}
        for rule in self.lexicon.endings:
            if rule.base_ending and rule.pos in VERBAL + NOMINAL:
                by_base = grouped.setdefault(fold(rule.form_ending), {})
                by_base.setdefault(fold(rule.base_ending), []).append(rule)
        return {ending: list(by_base.items()) for ending, by_base in grouped.items()}

    @cached_property
    def _plain(self) -> frozenset[str | EndingRule]:
        """Stems and rules whose spellings fold letter by letter (canonical, no letter folded to two or none):
        a form made of them folds to its folded stem and ending."""

        def plain(text: str, folded: str | None = None) -> bool:
            return canon(text) == text and len(fold(text) if folded is None else folded) == len(text)

        stems = {stem for stem, folded in self._folded.items() if plain(stem, folded)}
        rules = {r for by_base in self._rules_by_folded_ending.values() for _, rs in by_base for r in rs}
        return frozenset(stems | {r for r in rules if plain(r.form_ending) and plain(r.base_ending)})

    @cached_property
    def _longest(self) -> int:
        """The longest folded form ending of the tables."""
        return max(map(len, self._rules_by_folded_ending), default=0)

    @cached_property
    def _joins(self) -> list[tuple[int, dict[str, list[tuple[str, str, str]]]]]:
        """The sandhi joins by the length of their folded joined spelling, then by it: (ending, joined, folded
        ending)."""
        grouped: dict[int, dict[str, list[tuple[str, str, str]]]] = {}
        for s in self.lexicon.sandhi:
            found = fold(s.joined)
            joins = grouped.setdefault(len(found), {}).setdefault(found, [])
            if (s.ending, s.joined, fold(s.ending)) not in joins:
                joins.append((s.ending, s.joined, fold(s.ending)))
        return sorted(grouped.items())

    @cached_property
    def _analysed_as_written(self) -> dict[str, set[str]]:
        """Every word WikiPali analysed → its bases."""
        out: dict[str, set[str]] = {}
        for word, base in self.lexicon.analysed_pairs():
            out.setdefault(word, set()).add(base)
        return out

    @cached_property
    def _analysed(self) -> dict[str, set[str]]:
        """Folded spelling of every word WikiPali analysed → its bases."""
        out: dict[str, set[str]] = {}
        for word, bases in self._analysed_as_written.items():
            out.setdefault(fold(word), set()).update(bases)
        return out
