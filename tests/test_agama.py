"""The four Chinese Āgamas beside the Pali: the reader, references, Chinese search, parallels both ways, on real
sūtras of the shared data (a few Madhyama and Saṃyukta sūtras, and MN 51–100 with SuttaCentral's texts)."""

from __future__ import annotations

import http.server
import re
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.corpus import agama, agama_marks
from gantha.corpus.download import DownloadError, download_agama
from gantha.corpus.files import read_text
from gantha.ingest import ingest_agama
from gantha.links.agama import editor_links
from gantha.model import SearchRequest, TextRecord
from gantha.research import Research
from gantha.search.errors import SearchError
from gantha.store.embedded import EmbeddedStore
from gantha.text.chinese import characters, fold

from conftest import AGAMA, small_agama


@pytest.fixture(scope="module")
def research(agama_index: Path) -> Research:
    return Research.open(agama_index)


def search(research: Research, q: str, **kw):
    return research.search(SearchRequest(q=q, limit=kw.pop("limit", 20), **kw))


# --- the reader -----------------------------------------------------------------------------------


def test_the_madhyama_is_read_whole_with_its_titles_and_numbered_paragraphs():
    book = agama.read_book(AGAMA / "agmm-lca.md.gz")
    by_number = {s.number: s for s in book.sutras}
    assert len(by_number) == 222 and by_number[221].title == "箭喻經"
    assert by_number[221].paragraphs[0] == ("221.1", "我聞如是︰")
    text = read_text(AGAMA / "agmm-lca.md.gz")
    body = re.sub(r"\^[\w-]+|^#.*$|\s", "", text, flags=re.M)
    read = "".join(t for s in book.sutras for _, t in s.paragraphs)
    assert abs(len(read) - len(body)) < len(body) * 0.001  # nothing of the text lost


def test_the_chapters_of_da_30_are_parts_of_its_sutra():
    book = agama.read_book(AGAMA / "agmd-lca.md.gz")
    world = next(s for s in book.sutras if s.number == 30)
    paras = [p for p, _ in world.paragraphs]
    assert "30.1" in paras and "30b.1" in paras and len(paras) == len(set(paras))


# --- the editor's marks -----------------------------------------------------------------------------


def test_chinese_numbers_as_the_edition_writes_them():
    assert agama_marks.chinese_number("三七九") == 379
    assert agama_marks.chinese_number("二二一") == 221
    assert agama_marks.chinese_number("一○") == 10
    assert agama_marks.chinese_number("二十一") == 21


def test_marks_are_read_with_their_chapter_and_taisho_number():
    marks = {m.sutra: m for m in agama_marks.read_marks(AGAMA).marks}
    assert marks["ma221"].uids == ["mn63"]
    assert marks["ma1"].written == "A7.64"
    assert marks["da2"].uids == ["dn16", "dn17"]
    assert marks["sa379"].uids == ["sn56.11"]  # 諦相應: the Saccasaṃyutta
    assert marks["sa1"].uids == ["sn22.12", "sn22.13", "sn22.14", "sn22.51"]


def test_the_editors_anguttara_numbers_are_reconciled_with_suttacentrals():
    """MA 1's 【A7.64】 is the PTS edition's number of the Dhammaññūsutta, SuttaCentral's AN 7.68."""
    marks = [m for m in agama_marks.read_marks(AGAMA).marks if m.sutra in ("ma1", "ma4")]
    texts = [TextRecord(uid, uid, "x", "b", "1", "1", i, i) for i, uid in enumerate(["ma1", "ma4", "an7.15", "an7.64", "an7.68"])]
    rows, report = editor_links(marks, texts)
    assert {(r.src, r.dst) for r in rows if r.src.startswith("ma")} == {("ma1", "an7.68"), ("ma4", "an7.15")}
    assert ("an7.68", "ma1") in {(r.src, r.dst) for r in rows}  # both ways
    assert report.resolved == {"ma": 2}


def test_the_ekottarika_is_numbered_by_chapter_and_sutra():
    names = agama_marks.read_marks(AGAMA).ea_names
    assert len(names) == 472 and names[1] == "2.1"
    assert list(names.values()).count("12.1") == 1


# --- references --------------------------------------------------------------------------------------


@pytest.mark.parametrize("reference", ["MA 221", "ma221", "T 26 no. 221", "T26.221"])
def test_references_as_scholars_write_them(research, reference):
    got = research.get([reference])
    assert got.items[0].coordinate == "agama/ma/221.1"


def test_the_outline_lists_each_sutra_as_a_chapter(research):
    outline = research.outline("agama/ma")
    titles = [n.title for n in outline.children]
    assert titles[0].startswith("1 善法經") and any(t.startswith("221 箭喻經") for t in titles)
    chapter = research.chapter("MA 221", confirm=True, channel="taisho", script="Hans")
    assert [(p.reference, p.title) for p in chapter.parallels] == [("MN 63", "Cūḷamālukyasutta")]
    assert research.chapter("MN 63").parallels[0].title == "箭喻經"
    assert "尊者鬘童子独安静处" in chapter.passages[2].text  # simplified on request


def test_get_cites_the_sutra(research):
    got = research.get(["SA 379"])
    assert got.items[0].coordinate == "agama/sa/379.1"
    assert "SA 379" in got.items[0].citations.default


# --- search in Chinese ---------------------------------------------------------------------------------


def test_a_word_is_a_phrase_of_its_characters_and_finds_the_arrow_sutra(research):
    found = search(research, "毒箭")
    coordinates = [h.coordinate for h in found.hits]
    assert any(c.startswith("agama/ma/221.") for c in coordinates)
    for h in found.hits:  # the two characters together, never apart
        assert "毒箭" in fold(h.passage.text)
    arrow = next(h for h in found.hits if h.coordinate.startswith("agama/ma/221."))
    assert arrow.sutta == "MA 221" and [p.reference for p in arrow.parallels] == ["MN 63"]
    assert "<mark>毒箭</mark>" in arrow.snippet


def test_an_agama_hit_brings_its_pali_parallel_in_pali_and_english(research):
    """What meaning search attaches to an Āgama hit (beside a translation's snippet): its parallel's opening."""
    arrow = next(h for h in search(research, "毒箭").hits if h.coordinate.startswith("agama/ma/221."))
    research.searcher.presenter.attach_parallel_texts([arrow])
    parallel = arrow.parallels[0]
    assert parallel.reference == "MN 63" and parallel.coordinate.startswith("cst/s0202m.mul/")
    assert "mālukyaputta" in parallel.pali.lower() and "Māluṅkya" in parallel.english


def test_simplified_finds_traditional_and_variants_are_one(research):
    simplified = {h.coordinate for h in search(research, "四圣谛").hits}
    traditional = {h.coordinate for h in search(research, "四聖諦").hits}
    assert simplified and simplified == traditional
    assert any(c.startswith("agama/sa/379.") for c in simplified)
    assert fold("衞") == fold("衛") and fold("爲") == fold("為") and fold("卽") == fold("即")
    written = {h.coordinate for h in search(research, "舍衞國").hits}
    assert written and written == {h.coordinate for h in search(research, "舍卫国").hits}


def test_near_counts_characters(research):
    near = {h.coordinate for h in search(research, "毒 NEAR/0 箭").hits}
    phrase = {h.coordinate for h in search(research, "毒箭").hits}
    assert phrase <= near


def test_a_particle_alone_or_punctuation_is_refused(research, agama_index):
    with pytest.raises(SearchError) as refused:
        search(research, "之")
    assert refused.value.code == "invalid_query"
    client = TestClient(create_app(str(agama_index)))
    for q in ("之", "，。"):
        r = client.get("/api/v3/search", params={"q": q})
        assert r.status_code == 400 and "error" in r.json(), (q, r.text)


def test_characters_keep_their_offsets():
    assert characters("舍衞國。") == [("舍", 0, 1), ("卫", 1, 2), ("国", 2, 3)]


# --- parallels both ways ---------------------------------------------------------------------------------


def test_links_from_the_pali_to_the_agama_and_back(research):
    pali = research.links("MN 63", kinds=["parallels"])
    assert "MA 221" in [i.reference for i in pali.parallels.items]
    chinese = research.links("MA 221", kinds=["parallels"])
    found = [i for i in chinese.parallels.items if i.reference == "MN 63"]
    assert found and found[0].coordinate.startswith("cst/s0202m.mul/")
    assert "Lin Chong-an" in found[0].reason and "M63" in found[0].reason


# --- bad input ------------------------------------------------------------------------------------------


def test_a_damaged_sutra_is_reported_and_the_rest_read(tmp_path):
    store = EmbeddedStore(tmp_path / "index")
    summary = ingest_agama(store, small_agama(tmp_path / "agama", damaged=True))
    reported = " ".join(f"{s['item']} {s['reason']}" for s in summary.skipped)
    assert "unreadable sūtra heading" in reported
    assert store.text("ma221") is not None and store.text("ma9") is None
    assert store.text("sa379") is not None
    store.close()


# --- the upstream, for a user with internet ------------------------------------------------------------


@pytest.fixture()
def upstream():
    """A local server laid out like the edition's repository: agm-lca/agm?-lca.md and raw/agm?-lca.txt."""
    files = {
        f"/agm-lca/agm{x}-lca.md": (AGAMA / f"agm{x}-lca.md.gz") for x in "dmsu"
    } | {f"/raw/agm{x}-lca.txt": (AGAMA / "raw" / f"agm{x}-lca.txt.gz") for x in "dmsu"}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path not in files:
                self.send_response(404)
                self.end_headers()
                return
            body = read_text(files[self.path]).encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_the_upstream_is_downloaded_into_a_folder_the_reader_takes(upstream, tmp_path):
    folder = download_agama(upstream, tmp_path)
    assert sorted(p.name for p in folder.glob("agm*")) == [f"agm{x}-lca.md" for x in "dmsu"]
    assert len(agama.read_book(folder / "agmm-lca.md").sutras) == 222
    assert agama_marks.read_marks(folder).ea_names[83] == "12.1"
    with pytest.raises(DownloadError):
        download_agama(upstream + "/missing", tmp_path / "again")
    assert not (tmp_path / "again" / "agama").exists()  # nothing that looks complete
