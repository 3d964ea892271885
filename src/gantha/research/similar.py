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
MAX_SIMILAR_CHARS = 500  # the longest sentence compared (a verse or a long sentence of the canon)
MAX_SIMILAR_LEMMAS = 12  # the rarest lemmas of a longer sentence choose the candidates (each costs its forms)


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

    def similar(
        self, text: str, limit: int = 10, offset: int = 0, min_similarity: float = 0.0, **filters: Any
    ) -> SearchResponse:
        """Sentences whose lemma sequence matches the query's, whatever the inflection or sandhi.

        Candidate paragraphs hold a form of every query lemma (of a longer sentence, of its
        :data:`MAX_SIMILAR_LEMMAS` lemmas whose words are in the fewest paragraphs: ``query_info.similar.forms``
        lists them); their sentences are scored by ``gantha.text.sentences.similarity`` (1.0: the lemmas in the
        same order, side by side); those below ``min_similarity`` are left out (of the total too).
        """
        started = time.perf_counter()
        if len(text) > MAX_SIMILAR_CHARS:
            raise SearchError("invalid_query", f"a sentence of at most {MAX_SIMILAR_CHARS} characters")
        normalized, steps = normalize_query_text(text)
        words = WORD_RE.findall(normalized)
        if not words:
            raise SearchError("empty_query", "give a sentence to compare with")
        lemmas = [self._lemma_of(w) for w in words]
        written: dict[str, str] = {}  # each lemma's first form in the sentence
        for lemma, w in zip(lemmas, words, strict=True):
            written.setdefault(lemma, canon(w))
        if len(written) > MAX_SIMILAR_LEMMAS:
            counts = self.store.word_counts(list(set(written.values())))
            rarest = sorted(written, key=lambda lemma: counts.get(written[lemma], (0, 0))[0])[:MAX_SIMILAR_LEMMAS]
            written = {lemma: w for lemma, w in written.items() if lemma in rarest}
        forms: dict[str, list[str]] = {}
        for lemma, w in written.items():
            attested = (
                [f.form for f in self.family(lemma, compounds=False).forms]
                if lemma != w or self.lexicon.is_lemma(lemma)
                else []
            )
            forms[lemma] = sorted({*attested, w})
        asked = set(lemmas)
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
                if score > 0 and score >= min_similarity:
                    marked = [i for i, lem in enumerate(s_lemmas) if lem in asked]
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
            "min_similarity": min_similarity,
        }
        return SearchResponse.timed(started, len(scored), hits, info)
