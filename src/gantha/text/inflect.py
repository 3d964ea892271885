"""Pali inflection over ending tables: lemma → candidate forms, form → candidate lemmas. Pure functions.

The tables (WikiPali's, plus the few sandhi rules below) map a lemma ending to a form ending with
a part of speech, a grammar and a probability. Expanding a lemma proposes forms; only those that
the corpus attests are kept by the caller, so a generous table costs nothing but a lookup.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import NamedTuple

from gantha.model import EndingRule, SandhiRule

# where WikiPali's sandhi table falls short: common enclitic joins attested in the canon
EXTRA_SANDHI = (
    SandhiRule("i", "ipi", "api", "gantha-sandhi"),
    SandhiRule("ṃ", "ṃyeva", "eva", "gantha-sandhi"),
    SandhiRule("ṃ", "ṃva", "iva", "gantha-sandhi"),
    SandhiRule("ā", "āva", "eva", "gantha-sandhi"),
    SandhiRule("ṃ", "nteva", "iti+eva", "gantha-sandhi"),
)


class Analysis(NamedTuple):  # a tuple: hundreds of thousands are made per cold paradigm
    """One reading of a form: its lemma, part of speech, grammar, probability and the rule's source."""

    form: str
    lemma: str
    pos: str
    grammar: str
    probability: float
    source: str
    enclitic: str = ""


@lru_cache(maxsize=4096)  # a few hundred grammars label hundreds of thousands of proposed forms
def grammar_label(grammar: str) -> str:
    """``.m.$.sg.$.acc.`` → ``m. sg. acc.``"""
    return " ".join(f"{part.strip('.')}." for part in grammar.split("$") if part.strip("."))


def grammar_short(grammar: str) -> str:
    """``.m.$.sg.$.acc.`` → ``sg.acc`` (number and case, as in token analyses)."""
    parts = [p.strip(".") for p in grammar.split("$") if p.strip(".")]
    keep = [p for p in parts if p not in {"m", "f", "nt"}]
    return ".".join(keep or parts)


def expand(lemma: str, endings: Iterable[EndingRule], sandhi: Iterable[SandhiRule] = ()) -> list[Analysis]:
    """Every form the tables derive from ``lemma`` (with enclitic joins), most probable first."""
    out: list[Analysis] = []
    for rule in endings:
        if rule.base_ending and lemma.endswith(rule.base_ending):
            form = lemma[: len(lemma) - len(rule.base_ending)] + rule.form_ending
            out.append(Analysis(form, lemma, rule.pos, rule.grammar, rule.probability, rule.source))
    joined: list[Analysis] = []
    by_ending: dict[str, list[tuple[int, SandhiRule]]] = {}  # the sandhi rules by the ending they join to
    for k, s in enumerate(sandhi):
        by_ending.setdefault(s.ending, []).append((k, s))
    lengths = sorted({len(e) for e in by_ending})
    for a in out:
        found = [m for n in lengths if n <= len(a.form) for m in by_ending.get(a.form[len(a.form) - n :], ())]
        for _, s in sorted(found, key=lambda m: m[0]) if len(found) > 1 else found:  # in the table's order
            form = a.form[: len(a.form) - len(s.ending)] + s.joined
            joined.append(Analysis(form, lemma, a.pos, a.grammar, a.probability * 0.9, s.source, s.enclitic))
    return sorted(out + joined, key=lambda a: -a.probability)


def analyse(form: str, endings: Iterable[EndingRule], sandhi: Iterable[SandhiRule] = ()) -> list[Analysis]:
    """Candidate lemmas of ``form`` by the tables (unverified: the caller checks them against a lexicon)."""
    bare = [(form, "", "")]
    for s in sandhi:
        if form.endswith(s.joined) and len(form) > len(s.joined):
            bare.append((form[: len(form) - len(s.joined)] + s.ending, s.enclitic, s.source))
    out: list[Analysis] = []
    rules = list(endings)
    for stem_form, enclitic, _ in bare:
        for rule in rules:
            if rule.form_ending and stem_form.endswith(rule.form_ending) and len(stem_form) > len(rule.form_ending):
                lemma = stem_form[: len(stem_form) - len(rule.form_ending)] + rule.base_ending
                out.append(Analysis(form, lemma, rule.pos, rule.grammar, rule.probability, rule.source, enclitic))
    return sorted(out, key=lambda a: -a.probability)
