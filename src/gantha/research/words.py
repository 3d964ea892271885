"""The verbs ``forms`` and ``word``: a form's lemma and every attested form (and compound) of it; a word's
dictionary meanings and morphology."""

from __future__ import annotations

from pydantic import BaseModel, Field

from gantha.search.words import Family, FormInfo, LemmaCandidate
from gantha.store.base import Clause, StoreQuery
from gantha.text.inflect import analyse, grammar_label
from gantha.text.pali import fold, normalize_query_text

LISTED_COMPOUNDS = 50  # compounds named in a lemma search's query_info (the most frequent; all in `forms`)


class DerivativeInfo(BaseModel):
    """A derivative of the lemma (pārivāsika of parivāsa): its stem, suffix, attested forms and counts."""

    lemma: str
    suffix: str  # ika, ya, in, tā, tta
    forms: list[FormInfo]
    paragraphs: int  # paragraphs holding any of its forms
    bold_paragraphs: int  # paragraphs where one stands in bold
    evidence: str  # why it is the lemma's: the dictionary that says so, a shared meaning, a regular suffix
    left_out: list[str] = Field(default_factory=list)  # attested forms WikiPali reads as another word's


class FormsResult(BaseModel):
    query: str
    lemma: str | None
    lemmas: list[LemmaCandidate]
    forms: list[FormInfo]  # inflected forms (a verb's participles, gerundives … among them), attested
    derivatives: list[DerivativeInfo] = Field(default_factory=list)  # attested derivatives, apart from the forms
    compounds: list[FormInfo] = Field(default_factory=list)  # attested compounds holding the lemma, with members
    total_paragraphs: int = 0  # paragraphs holding any inflected form
    compound_paragraphs: int = 0  # paragraphs holding a form or a compound
    family_paragraphs: int = 0  # paragraphs holding a form, a derivative or a compound: what a lemma search finds
    unattested_count: int = 0  # forms the tables propose that the texts never write
    unattested: list[str] | None = None  # those forms, on request
    message: str | None = None


class Entry(BaseModel):
    word: str
    dictionary: str
    language: str
    pos: str
    grammar: str
    meanings: list[str]
    note: str = ""
    factors: str = ""


class Morphology(BaseModel):
    lemma: str
    pos: str
    grammar: str
    probability: float
    source: str


class WordResult(BaseModel):
    query: str
    word: str
    entries: list[Entry]
    morphology: list[Morphology]
    lemmas: list[str]
    message: str | None = None


class WordVerbs:
    """Needs ``store``, ``lexicon``, ``words``."""

    def lemmas(self, word: str) -> list[LemmaCandidate]:
        """Candidate lemmas of a form, most likely first."""
        return self.words.lemmas(word)

    def _resolve(self, word: str) -> str:
        """Canonical form of typed input; diacritic-free input becomes its most frequent written form."""
        word, _ = normalize_query_text(word)
        word = word.strip()
        if word == fold(word) and not self.lexicon.is_lemma(word) and not self.lexicon.bases_of(word):
            written = self.store.forms_by_fold(word)
            if written:
                return written[0][0]
        return word

    def _count(self, field: str, forms: list[str]) -> int:
        """Paragraphs of the Pali original holding any of these forms in a field (exact, bold_exact)."""
        query = StoreQuery(must=[Clause(field, forms)], filters={"channel": ["pali"]}, limit=1, aggregate=())
        return self.store.search(query).total

    def _likely_lemma(self, word: str) -> tuple[str, list[LemmaCandidate], str]:
        """Typed input as written (``_resolve``), its candidate lemmas, and the most likely one."""
        word = self._resolve(word)
        candidates = self.lemmas(word)
        return word, candidates, candidates[0].lemma if candidates else word

    def family(self, word: str, compounds: bool = True, derivatives: bool = False) -> Family:
        """The attested forms (derivatives, compounds) of the most likely lemma of ``word``."""
        return self.words.family(self._likely_lemma(word)[2], compounds, derivatives)

    def forms(
        self, word: str, compounds: bool = True, unattested: bool = False, derivatives: bool = True
    ) -> FormsResult:
        """The candidate lemmas of ``word`` and every attested form of the best one, its derivatives
        (``derivatives``) and the compounds it stands in (``compounds``) apart, the forms the tables propose
        in vain on request (``unattested``)."""
        query = word
        word, candidates, lemma = self._likely_lemma(word)
        family = self.words.family(lemma, compounds, derivatives)
        total = self._count("exact", family.words(False)) if family.forms else 0
        own_and_compounds = [*family.words(False), *(c.form for c in family.compounds)]
        with_compounds = self._count("exact", own_and_compounds) if family.compounds else total
        whole = self._count("exact", family.words()) if family.derivatives else with_compounds
        message = None
        if not family.forms:
            message = (
                f"no form of {lemma!r} occurs in the indexed texts"
                if candidates or family.unattested
                else f"{word!r} is not known to the lexicon; load it with `gantha ingest wordstats|grammar|dict`"
            )
        return FormsResult(
            query=query,
            lemma=lemma if (candidates or family.forms) else None,
            lemmas=candidates,
            forms=[f.model_copy() for f in family.forms],
            derivatives=[
                DerivativeInfo(
                    lemma=d.lemma,
                    suffix=d.suffix,
                    forms=[f.model_copy() for f in d.forms],
                    paragraphs=self._count("exact", forms := [f.form for f in d.forms]),
                    bold_paragraphs=self._count("bold_exact", forms),
                    evidence=d.evidence,
                    left_out=d.left_out,
                )
                for d in family.derivatives
            ],
            compounds=[f.model_copy() for f in family.compounds],
            total_paragraphs=total,
            compound_paragraphs=with_compounds,
            family_paragraphs=whole,
            unattested_count=len(family.unattested),
            unattested=family.unattested if unattested else None,
            message=message,
        )

    def word(self, word: str) -> WordResult:
        """Dictionary meanings of a word and, when it is an inflected form, its morphology."""
        query = word
        word = self._resolve(word)
        entries = self.lexicon.entries(word) or (self.lexicon.entries(word, folded=True) if word == fold(word) else [])
        candidates = self.lemmas(word)
        morphology: list[Morphology] = []
        lemma_names = [c.lemma for c in candidates if c.lemma != word]
        if lemma_names and candidates[0].lemma != word:  # an inflected form (a headword is its own lemma)
            top = lemma_names[0]
            genders = {e.grammar for e in self.lexicon.entries(top) if e.grammar}
            for a in analyse(word, self.lexicon.endings, self.lexicon.sandhi):
                if a.lemma != top:
                    continue
                gender = a.grammar.split("$")[0]
                if genders and gender.startswith((".m.", ".f.", ".nt.")) and gender not in genders:
                    continue
                morphology.append(
                    Morphology(
                        lemma=a.lemma,
                        pos=a.pos.strip("."),
                        grammar=grammar_label(a.grammar),
                        probability=a.probability,
                        source=a.source,
                    )
                )
            if not morphology:  # a participle: analysed through its stem (parivasanto → parivasanta → parivasati)
                best = candidates[0]
                morphology = [
                    Morphology(lemma=top, pos="", grammar=g, probability=best.score, source=best.sources[0])
                    for g in best.grammar
                ]
            for name in lemma_names[:3]:
                entries += self.lexicon.entries(name)
        message = None if entries or morphology else f"{word!r} is in none of the loaded dictionaries"
        return WordResult(
            query=query,
            word=word,
            lemmas=lemma_names,
            entries=[
                Entry(
                    word=e.word,
                    dictionary=e.dictionary,
                    language=e.language,
                    pos=e.pos,
                    grammar=e.grammar,
                    meanings=e.meanings,
                    note=e.note,
                    factors=e.factors,
                )
                for e in entries
            ],
            morphology=morphology,
            message=message,
        )
