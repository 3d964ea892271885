"""Bridges: the Pali lemmas a Chinese or English query names (the synonym list, then the dictionaries),
with their attested forms, and the Pali passages holding them as a ranking to fuse with the query's own."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import Any

from gantha.model import SearchMode, SearchRequest
from gantha.search.plan import Planner
from gantha.store.base import Store, StoreQuery
from gantha.store.lexicon import Lexicon
from gantha.text import chinese
from gantha.text.chinese import has_chinese, to_simplified
from gantha.text.pali import canon

MAX_BRIDGES = 3  # Pali lemmas one query may bridge to
COMMON_BRIDGE = 0.01  # share of the Pali paragraphs above which a term inside a longer query is not bridged
SYNONYMS = Path(__file__).resolve().parents[1] / "data" / "synonyms.tsv"


class Bridges:
    """``forms``: a lemma's expansion (its lemma, attested forms and the paragraphs holding them)."""

    def __init__(self, store: Store, lexicon: Lexicon, planner: Planner, forms: Callable[..., Any]):
        self.store, self.lexicon, self.planner, self.forms = store, lexicon, planner, forms

    @cached_property
    def _pali_paragraphs(self) -> int:
        return self.store.search(StoreQuery(filters={"channel": ["pali"]}, limit=1, aggregate=())).total

    @cached_property
    def synonyms(self) -> dict[str, str]:
        """Term → Pali lemma: the list shipped with gantha, then the file named by GANTHA_SYNONYMS."""
        files = [SYNONYMS]
        if extra := os.environ.get("GANTHA_SYNONYMS"):
            files.append(Path(extra))
        out: dict[str, str] = {}
        for f in files:
            for line in f.read_text(encoding="utf-8").splitlines():
                term, _, lemma = line.partition("\t")
                if lemma.strip() and not term.startswith("#"):
                    out[to_simplified(term.strip()).lower()] = canon(lemma.strip())
        return out

    def find(self, text: str) -> list[dict[str, Any]]:
        """Pali lemmas (with their attested forms) that a Chinese or English query names.

        The whole query first; failing that, each Chinese term inside a longer Chinese query
        (``佛陀关于四圣谛的教导`` → 四圣谛 → ariyasacca). A lemma spelt with ``ṇ`` where the texts
        write ``n`` (bhikkhuṇī → bhikkhunī) takes the spelling the texts use.
        """
        found = [(text, lemma, source) for lemma, source in self.lexicon.bridge(text, self.synonyms)]
        inside = not found and has_chinese(text)
        if inside:  # the query's own terms, one lemma each
            for term, _, _ in chinese.tokens(text):
                if term in chinese.FUNCTION_WORDS:
                    continue
                if len(term) > 1 and (named := self.lexicon.bridge(term, self.synonyms)):
                    found.append((term, *named[0]))
        out: list[dict[str, Any]] = []
        for term, lemma, source in found:
            spellings = dict.fromkeys([lemma, lemma.replace("ṇ", "n")])
            expansion = max(
                (self.forms(s, compounds=False, derivatives=False) for s in spellings), key=lambda f: f.total_paragraphs
            )
            lemma = expansion.lemma or lemma
            if inside and expansion.total_paragraphs > COMMON_BRIDGE * self._pali_paragraphs:
                continue  # a word of every other paragraph (佛陀, 比丘) says nothing about the question
            if expansion.forms and all(b["to"] != lemma for b in out):
                forms = [f.form for f in expansion.forms]
                out.append({"from": term, "to": lemma, "source": source, "forms": forms})
        return out[:MAX_BRIDGES]

    def ranking(self, bridges: list[dict[str, Any]], req: SearchRequest, depth: int) -> list:
        """The Pali passages holding a bridged lemma's forms, under the request's filters, best first."""
        forms = sorted({f for b in bridges for f in b["forms"]})
        only_forms = {"q": "", "forms": forms, "limit": depth, "offset": 0, "mode": SearchMode.FUZZY}
        sq, _, _ = self.planner.plan(req.model_copy(update=only_forms))
        return [(h.passage.doc_id, h.score) for h in self.store.search(sq).hits]
