"""Word families: the lemma of a typed word, every attested form of a lemma (a verb's participles,
gerundives, absolutives and infinitives under it), its derivatives (``gantha.search.derivatives``) and the
compounds it stands in, counted from the index's vocabulary.

A compound is an attested word that ends with a form of the lemma after another dictionary stem
(``ekāha|parivāsaṃ``, ``pañc-āha|parivāsaṃ``) or begins with the lemma's stem before another attested
word (``parivāsa|dānaṃ``). Verbal prefixes are derivation, not composition (``pari|vāsaṃ`` is not a
compound of ``vāsa``), and a form of the lemma itself or an enclitic join is never a compound.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from pydantic import BaseModel, Field

from gantha.search.compounds import Compounds, FormInfo
from gantha.search.derivatives import Derivative, Derivatives
from gantha.search.expansions import MISSING, Expansions
from gantha.store.base import Store
from gantha.store.lexicon import Lexicon
from gantha.text.inflect import analyse, expand, grammar_label
from gantha.text.pali import canon, fold

DERIVED = (".prp.", ".pp.", ".fpp.")  # a verb's participles and gerundives: forms of the verb here
REGULAR_DERIVATIONS = ("anta", "enta", "onta", "māna", "tabba", "anīya")  # not -ta/-na/-eyya: homographs
VERBAL, NOMINAL = (".v.", ".v:ind."), (".n.", ".ti.")  # ending tables of finite verbs, of declined stems
RECENT_KEPT = 128  # the families and inflections asked for last, computed again when the vocabulary changes
RULES = 4  # how inflections are chosen: kept ones of an earlier rule are computed again
WARM_SECONDS = 20.0  # at most this long per reopen (a cold family of dhamma: about a second)
TABLE_RECHECK = 5.0  # seconds between two looks at whether the forms' lemmas caught up with the vocabulary
Kind = tuple[bool, bool] | None  # a family with (compounds, derivatives), or None: an inflection


class LemmaCandidate(BaseModel):
    lemma: str
    score: float
    sources: list[str]
    grammar: list[str] = Field(default_factory=list)


@dataclass
class Family:
    """A lemma's attested forms, its derivatives, the compounds it stands in, and the forms the tables propose
    in vain."""

    lemma: str
    forms: list[FormInfo]
    compounds: list[FormInfo]
    unattested: list[str] = field(default_factory=list)
    derivatives: list[Derivative] = field(default_factory=list)

    def words(self, compounds: bool = True) -> list[str]:
        """Its own forms, and (``compounds``) every other word of the family: derivatives' forms, compounds."""
        return list(self._words if compounds else self._own)

    @cached_property
    def _own(self) -> tuple[str, ...]:
        return tuple(f.form for f in self.forms)

    @cached_property
    def derived(self) -> tuple[str, ...]:
        """The forms of its derivatives."""
        return tuple(f.form for d in self.derivatives for f in d.forms)

    @cached_property
    def _words(self) -> tuple[str, ...]:  # a family is cached and asked for its words several times per search
        return self._own + self.derived + tuple(f.form for f in self.compounds)


@dataclass(frozen=True)
class Inflection:
    """A typed word read as every attested form of its most frequent lemma (``others``: the other lemmas)."""

    word: str
    lemma: str
    forms: tuple[str, ...]
    others: tuple[str, ...] = ()


class Words:
    """Lemmas, paradigms and compounds over one store's vocabulary and one lexicon."""

    def __init__(self, lexicon: Lexicon, store: Store):
        self.lexicon = lexicon
        self.store = store
        self.compounds = Compounds(store, self.is_lemma, lambda: frozenset(r.form_ending for r in self._derivations))
        self._families = lru_cache(maxsize=1024)(self._family)
        self._inflections = lru_cache(maxsize=4096)(self._inflection)
        self._lemmas = lru_cache(maxsize=4096)(self._lemmas_uncached)
        self._paradigms = lru_cache(maxsize=4096)(self._paradigm)
        self._stamp = self._stamp_of(lexicon, store)
        self._recent: OrderedDict[tuple[str, Kind], None] = OrderedDict()  # (lemma, its kind of family) or (word, None)
        self._recent_lock = threading.Lock()
        self._table_current = False  # the store's forms' lemmas hold this vocabulary and lexicon
        self._table_checked = -TABLE_RECHECK

    def family(self, lemma: str, compounds: bool = True, derivatives: bool = False) -> Family:
        """A lemma's attested forms, (``derivatives``) its derivatives and (``compounds``) the compounds it
        stands in; cached."""
        self._note((lemma, (compounds, derivatives)))
        return self._families(lemma, compounds, derivatives)

    def inflection(self, word: str) -> Inflection | None:
        """A typed word (folded, or as written with its diacritics) read as every attested form of its lemma;
        cached."""
        self._note((word, None))
        return self._inflections(word)

    def _note(self, key: tuple[str, Kind]) -> None:
        with self._recent_lock:
            self._recent[key] = None
            self._recent.move_to_end(key)
            if len(self._recent) > RECENT_KEPT:
                self._recent.popitem(last=False)

    def warmed(self, asked: list[tuple[str, Kind]], seconds: float = WARM_SECONDS) -> Words:
        """These words with the families and inflections ``asked`` (most recent first) computed, within
        ``seconds``: after a write changed the vocabulary, the first searches do not each pay for their
        paradigm and compounds again."""
        until = time.monotonic() + seconds
        for word, kind in asked:
            if time.monotonic() > until:
                break
            if kind is None:
                self.inflection(word)
            else:
                self.family(word, *kind)
        return self

    @staticmethod
    def _stamp_of(lexicon: Lexicon, store: Store) -> tuple:
        """What every family and lemma depends on: the vocabulary's tabulation and the lexicon's sources."""
        return store.vocabulary_stamp(), tuple(sorted(lexicon.sources().items())) if lexicon is not None else ()

    def reopened(self, lexicon: Lexicon, store: Store) -> Words:
        """The words of the same index opened again: these, with every cache, while neither the vocabulary nor
        the lexicon changed (a write to another channel); otherwise new ones, warmed with what these were
        asked for last."""
        if self._stamp_of(lexicon, store) != self._stamp or getattr(self.lexicon, "problem", None):
            with self._recent_lock:
                asked = list(reversed(self._recent))
            return Words(lexicon, store).warmed(asked)
        self.lexicon, self.store, self.compounds.store = lexicon, store, store
        return self

    @property
    def table_state(self) -> str:
        """What the store's table of forms' lemmas must have been computed for to serve these words: this
        lexicon (a key of its sources) and this vocabulary (its stamp)."""
        return f"{hashlib.sha1(repr(self._stamp[1]).encode()).hexdigest()}\n{self._stamp[0]}"

    def _tabulated(self) -> bool:
        """Whether the store's forms' lemmas hold this vocabulary and lexicon (looked at again every few seconds
        until they do: a write's tabulation ends after its vocabulary)."""
        if not self._table_current and time.monotonic() - self._table_checked > TABLE_RECHECK:
            self._table_checked = time.monotonic()
            problem = getattr(self.lexicon, "problem", None)
            self._table_current = self.store.form_lemmas_state() == self.table_state and not problem
        return self._table_current

    @cached_property
    def headwords(self) -> frozenset[str]:
        """Every lemma the lexicon knows (dictionary headwords and analysed bases)."""
        return self.lexicon.headwords()

    def is_lemma(self, word: str) -> bool:
        return word in self.headwords

    def is_headword(self, word: str, folded: bool = False) -> bool:
        """A dictionary headword (``folded``: diacritics ignored), not only an analysed base."""
        return self._headword(word, folded)

    @cached_property
    def _headword(self) -> Callable[[str, bool], bool]:
        return lru_cache(maxsize=4096)(lambda word, folded: bool(self.lexicon.entries(word, folded=folded)))

    # --- lemmas ---------------------------------------------------------------------------------

    def lemmas(self, word: str) -> list[LemmaCandidate]:
        """Candidate lemmas of a form, the one it is read as first (``lemma``), then the word itself when it is a
        headword, WikiPali's analyses, the ending tables (a participle's verb among them)."""
        return [c.model_copy(deep=True) for c in self._lemmas(canon(word))]

    def lemma(self, form: str) -> str:
        """The one lemma a written form is read as (``Lexicon.lemma``: ``kāyo`` kāya, ``sati`` sati)."""
        return self.lexicon.lemma(form)

    def _lemmas_uncached(self, form: str) -> tuple[LemmaCandidate, ...]:
        chosen, rule = self.lexicon.lemmatizer.explain(form)
        found = {chosen: LemmaCandidate(lemma=chosen, score=1.0, sources=[f"gantha-{rule}"])}
        if self.lexicon.entries(form):  # a headword is its own lemma too (parivāsa the noun, not an aorist)
            found.setdefault(form, LemmaCandidate(lemma=form, score=0.99, sources=[]))
            found[form].sources.append("lexicon-headword")
        analysed = self.lexicon.bases_of(form)
        total = sum(count for _, count, _ in analysed) or 1
        for base, count, _ in analysed:
            found.setdefault(
                base, LemmaCandidate(lemma=base, score=round(0.5 + 0.49 * count / total, 4), sources=[])
            ).sources.append("wikipali-analysis")
        if form not in found and self.is_lemma(form):
            found[form] = LemmaCandidate(lemma=form, score=0.5, sources=["lexicon-headword"])
        for a in analyse(form, self.lexicon.endings, self.lexicon.sandhi):
            lemma, label = a.lemma, grammar_label(a.grammar)
            if not self.is_lemma(lemma):  # a participle's stem: its verb is the lemma (parivasanto → parivasati)
                verb = self._verb_of(lemma)
                if verb is None:
                    continue
                lemma, label = verb[0], f"{verb[1]} {label}".strip()
            cand = found.setdefault(lemma, LemmaCandidate(lemma=lemma, score=round(0.4 * a.probability, 4), sources=[]))
            if a.source not in cand.sources:
                cand.sources.append(a.source)
            if label and label not in cand.grammar:
                cand.grammar.append(label)
        return tuple(sorted(found.values(), key=lambda c: (c.lemma != chosen, -c.score)))

    def _verb_of(self, stem: str) -> tuple[str, str] | None:
        """The verb a participle or gerundive stem derives from, with the derivation's label."""
        for a in analyse(stem, self._derivations):
            if self.is_lemma(a.lemma):
                return a.lemma, grammar_label(a.grammar)
        return None

    @cached_property
    def _derivations(self) -> list:
        return [r for r in self.lexicon.endings if r.grammar in DERIVED]

    # --- paradigms ------------------------------------------------------------------------------

    def derived(self, lemma: str) -> list[tuple[str, str]]:
        """A verb's participle and gerundive stems: (stem, label), by the regular suffixes of the tables
        (-anta, -māna, -itabba, -anīya …) and by the dictionaries (irregular ones: parivuttha, diṭṭha)."""
        stems = {
            a.form: grammar_label(a.grammar)
            for a in expand(lemma, self._derivations)
            if a.form.endswith(REGULAR_DERIVATIONS)
        }
        bare = lemma[:-2]  # the present stem alone is an imperative, not a participle (passa)
        for word, grammar in self.lexicon.derived_words(lemma):
            if grammar in DERIVED and word != bare:
                stems.setdefault(word, grammar_label(grammar))
        return [(s, label) for s, label in stems.items() if s != lemma]

    def is_verb(self, lemma: str) -> bool:
        return lemma.endswith("ti") and self._verb_by(lemma, self.lexicon.entries(lemma))

    def verbs(self, lemmas: Iterable[str]) -> frozenset[str]:
        """The verbs among ``lemmas`` (``is_verb`` of many, their dictionary entries read at once)."""
        candidates = [lemma for lemma in lemmas if lemma.endswith("ti")]
        entries = self.lexicon.entries_of(candidates)
        return frozenset(lemma for lemma in candidates if self._verb_by(lemma, entries.get(lemma, [])))

    @staticmethod
    def _verb_by(lemma: str, entries: list) -> bool:
        """A lemma in -ti is a verb by its dictionary entries' parts of speech, or without any by its ending."""
        kinds = {e.pos for e in entries if e.pos}
        return any(k.startswith(".v") for k in kinds) if kinds else lemma.endswith(("ati", "eti", "oti"))

    @cached_property
    def _endings(self) -> dict[str, list]:
        """Ending rules by the lemma ending they apply to."""
        grouped: dict[str, list] = {}
        for rule in self.lexicon.endings:
            grouped.setdefault(rule.base_ending, []).append(rule)
        return grouped

    def _rules(self, stem: str, kinds: tuple[str, ...]) -> list:
        return [r for k in range(1, len(stem) + 1) for r in self._endings.get(stem[-k:], ()) if r.pos in kinds]

    def _proposals(self, lemma: str) -> dict[str, tuple[list[str], list[str]]]:
        """Forms of the lemma by WikiPali's analyses and by the ending tables, each with its sources and grammar
        labels; a verb's by its finite endings and, for its participles and gerundives, by theirs (labelled
        ``prp.``, ``pp.``, ``fpp.``). Plain lists: most of the thousands proposed are not attested."""
        proposals: dict[str, tuple[list[str], list[str]]] = {}

        def propose(form: str, source: str, label: str = "") -> None:
            sources, labels = proposals.get(form) or proposals.setdefault(form, ([], []))
            if source not in sources:
                sources.append(source)
            if label and label not in labels:
                labels.append(label)

        verb = self.is_verb(lemma)
        stems = [(lemma, "", VERBAL if verb else NOMINAL)]
        if verb:
            stems += [(stem, label, NOMINAL) for stem, label in self.derived(lemma)]
        for stem, prefix, kinds in stems:
            for form, _ in self.lexicon.forms_of(stem):
                propose(form, "wikipali-analysis", prefix)
            for a in expand(stem, self._rules(stem, kinds), self.lexicon.sandhi):
                label = grammar_label(a.grammar)
                label = f"{prefix} {label}" if prefix and label else prefix or label
                propose(a.form, a.source, f"{label} +{a.enclitic}" if a.enclitic else label)
        return proposals

    def _family(self, lemma: str, compounds: bool = True, derivatives: bool = False) -> Family:
        if compounds or derivatives:  # the paradigm once, the derivatives and compounds on top
            own = self._families(lemma, False, False)
            derived = self._derivatives(lemma, own.forms) if derivatives else []
            taken = {f.form for d in derived for f in d.forms}  # a derivative's form is no compound (dhammatāya)
            found = [c for c in self.compounds.find(lemma, own.forms) if c.form not in taken] if compounds else []
            return Family(lemma, own.forms, found, own.unattested, derived)
        proposals = self._proposals(lemma)
        counts = self.store.word_counts(list(proposals))
        forms, unattested = [], []
        for form, (sources, labels) in proposals.items():
            if form in counts:
                paragraphs, bold = counts[form]
                forms.append(
                    FormInfo(form=form, paragraphs=paragraphs, bold_paragraphs=bold, sources=sources, grammar=labels)
                )
            else:
                unattested.append(form)
        forms.sort(key=lambda f: (-f.paragraphs, f.form))
        return Family(lemma, forms, [], sorted(unattested))

    def _derivatives(self, lemma: str, own: list[FormInfo]) -> list[Derivative]:
        """A noun's or an adjective's derivatives; none for a verb (its participles are among its forms)."""
        if self.is_verb(lemma):
            return []
        return Derivatives(self.lexicon, lambda stem: self._families(stem, False, False).forms).find(lemma, own)

    # --- the ordinary search ------------------------------------------------------------------

    @cached_property
    def _kept(self) -> Expansions:
        """The inflections computed by any worker over this vocabulary and lexicon, kept beside the index."""
        return Expansions(self.store.files(), hashlib.sha1(repr((RULES, self._stamp)).encode()).hexdigest())

    def _inflection(self, word: str) -> Inflection | None:
        """An inflection computed once per machine: kept beside the index by whichever worker computed it."""
        kept = self._kept.get(word)
        if kept is not MISSING:
            return None if kept is None else Inflection(kept[0], kept[1], tuple(kept[2]), tuple(kept[3]))
        found = self._computed_inflection(word)
        if not getattr(self.lexicon, "problem", None):  # not what a damaged lexicon answered
            self._kept.put(word, None if found is None else [found.word, found.lemma, found.forms, found.others])
        return found

    def _paradigm(self, lemma: str) -> tuple[int, tuple[str, ...]]:
        """A lemma's weight among a word's lemmas (the paragraphs of its attested forms) and those forms,
        folded; computed once per machine, like inflections."""
        kept = self._kept.get(lemma, "paradigm")
        if kept is not MISSING:
            return kept[0], tuple(kept[1])  # type: ignore[index]
        if self.is_lemma(lemma) and self._tabulated():  # one indexed query, not the paradigm's thousand proposals
            forms = sorted(((form, n) for form, n, _ in self.store.lemma_forms(lemma)), key=lambda f: (-f[1], f[0]))
        else:
            forms = [(f.form, f.paragraphs) for f in self.family(lemma, False).forms]
        found = sum(n for _, n in forms), tuple(dict.fromkeys(fold(form) for form, _ in forms))
        if not getattr(self.lexicon, "problem", None):
            self._kept.put(lemma, [found[0], found[1]], "paradigm")
        return found

    def warm(self, limit: int, seconds: float) -> tuple[int, int]:
        """Compute and keep the inflections of the ``limit`` most frequent words of the vocabulary, for at most
        ``seconds``: a new index's first searches find them computed. Returns (words kept, words wanted)."""
        if not self._kept.usable or getattr(self.lexicon, "problem", None):
            return 0, 0
        wanted = self.store.frequent_words(limit)
        kept = self._kept.kept(wanted)
        until = time.monotonic() + seconds
        for word in wanted:
            if word in kept:
                continue
            if time.monotonic() > until:
                break
            self._inflection(word)
            kept.add(word)
        return len(kept), len(wanted)

    def _computed_inflection(self, word: str) -> Inflection | None:
        """A diacritic-free word read as every attested form of the lemma of its most frequent spelling; a word
        typed with its diacritics, when the texts have it so written, as that spelling's lemma (kūlaṃ: kūla, not
        kula); ``others``: the other lemmas its spellings could be, that the texts attest."""
        folded = fold(word)
        typed = self.store.word_counts([word]) if word != folded else {}
        written = (
            [(word, typed[word][0])]
            if word in typed
            else [(form, paragraphs) for form, paragraphs, _ in self.store.forms_by_fold(folded)[:3]]
        )
        evidence: dict[str, int] = {}  # each lemma read: the paragraphs of the most frequent spelling read as it
        others: list[str] = []
        for form, paragraphs in written or [(folded, 0)]:
            lemma = self.lemma(form)
            evidence[lemma] = max(evidence.get(lemma, 0), paragraphs)
            others += [c.lemma for c in self.lemmas(form)[:2]]
        # the lemma of the word's most frequent spelling (nanam: ñāṇaṃ's ñāṇa, not the rare nanaṃ's pronoun)
        ranked = sorted(evidence, key=lambda lemma: -evidence[lemma])
        best = ranked[0]
        forms = self._paradigms(best)[1]
        if not forms:
            return None
        rest = [lemma for lemma in dict.fromkeys(ranked[1:] + others) if lemma != best]
        return Inflection(folded, best, forms, tuple(lemma for lemma in rest if self._paradigms(lemma)[0]))
