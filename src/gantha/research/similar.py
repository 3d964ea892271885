"""Similar sentences: the sentences whose lemma sequence matches a given one, whatever the inflection or sandhi."""

from __future__ import annotations

import html
import time
from typing import Any

from gantha import deadline
from gantha.model import (
    Hit,
    Passage,
    SearchRequest,
    SearchResponse,
)
from gantha.search.service import SearchError
from gantha.store.base import Clause
from gantha.text.pali import WORD_RE, canon, normalize_query_text
from gantha.text.sentences import similarity
from gantha.text.sentences import split as split_sentences

SIMILAR_CANDIDATES = 300  # paragraphs examined for similar sentences


def _mark_tokens(text: str, marked: set[int]) -> str:
    """HTML-escaped text with the words at these token positions in <mark>."""
    out, pos = [], 0
    for i, m in enumerate(WORD_RE.finditer(text)):
        if i in marked:
            out += [html.escape(text[pos : m.start()]), f"<mark>{html.escape(m.group())}</mark>"]
            pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


class SimilarVerbs:
    """Needs ``store``, ``lexicon``, ``searcher``, ``forms``, ``_analyse``."""

    def _lemma_of(self, surface: str) -> str:
        return self._analyse(surface).lemma or canon(surface)

    def similar(self, text: str, limit: int = 10, offset: int = 0, **filters: Any) -> SearchResponse:
        """Sentences whose lemma sequence matches the query's, whatever the inflection or sandhi.

        Candidate paragraphs hold a form of every query lemma; their sentences are scored by
        ``gantha.text.sentences.similarity`` (1.0: the lemmas in the same order, side by side).
        """
        started = time.perf_counter()
        normalized, steps = normalize_query_text(text)
        words = WORD_RE.findall(normalized)
        if not words:
            raise SearchError("empty_query", "give a sentence to compare with")
        lemmas = [self._lemma_of(w) for w in words]
        forms: dict[str, list[str]] = {}
        for lemma, w in zip(lemmas, words, strict=True):
            if lemma not in forms:
                attested = (
                    [f.form for f in self.forms(lemma).forms]
                    if lemma != canon(w) or self.lexicon.is_lemma(lemma)
                    else []
                )
                forms[lemma] = sorted({*attested, canon(w)})
        req = SearchRequest(limit=1, **filters)
        sq, info, _ = self.searcher.plan(req.model_copy(update={"forms": [canon(w) for w in words]}))
        sq.must = [c for c in sq.must if c.field != "exact"] + [Clause("exact", f) for f in forms.values()]
        sq.rank_first, sq.limit, sq.offset, sq.aggregate = [], SIMILAR_CANDIDATES, 0, ()
        result = self.store.search(sq)
        scored: list[tuple[float, Passage, int, str, list[int]]] = []
        for h in result.hits:
            deadline.check()
            for k, sentence in enumerate(split_sentences(h.passage.text), start=1):
                tokens = WORD_RE.findall(sentence)
                s_lemmas = [self._lemma_of(t) for t in tokens]
                score = similarity(lemmas, s_lemmas)
                if score > 0:
                    marked = [i for i, lem in enumerate(s_lemmas) if lem in forms]
                    scored.append((score, h.passage, k, sentence, marked))
        scored.sort(key=lambda t: (-t[0], t[1].book, t[1].seq, t[2]))
        hits = [
            Hit.of(p, rank, _mark_tokens(sentence, set(marked)), score, sentence=k, similarity=score)
            for rank, (score, p, k, sentence, marked) in enumerate(scored[offset : offset + limit], offset + 1)
        ]
        info.steps = steps
        info.forms = sorted({f for fs in forms.values() for f in fs})
        info.similar = {
            "lemmas": lemmas,
            "forms": forms,
            "paragraphs_examined": len(result.hits),
            "paragraphs_matching": result.total,
        }
        return SearchResponse.timed(started, len(scored), hits, info)
