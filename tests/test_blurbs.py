"""SuttaCentral's blurbs as the human summaries of suttas, Vinaya rules and chapters, and its Chinese names beside
the Pali and English titles — read from the real files, shown in hits, outlines and the reader, and embedded."""

from __future__ import annotations

import pytest

from gantha.corpus import blurbs
from gantha.embed.corpora import groups
from gantha.model import SearchRequest
from gantha.research import Research
from gantha.research.descriptions import name_key

from conftest import DATA


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


def test_blurbs_and_names_are_read_from_every_collection():
    found = blurbs.read(DATA / "suttacentral")
    assert "seventh factor of the noble eightfold path" in found["mn10"].blurb
    assert found["mn10"].pali == "Mahāsatipaṭṭhānasutta"
    assert found["sn1"].chinese == "诸天相应" and found["sn1"].english == "Linked Discourses With Deities"
    assert found["pli-tv-bu-vb-pj1"].blurb.startswith("A monk who has sexual intercourse is expelled")
    assert "<i" not in found["pli-tv-bu-vb-pj"].blurb and "pārājika" in found["pli-tv-bu-vb-pj"].blurb
    assert sum(1 for d in found.values() if d.blurb) > 4900  # every collection's file, not one


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ("1. Mūlapariyāyavaggo", "Mūlapariyāyavagga"),
        ("1. Devatāsaṃyuttaṃ", "Devatāsaṁyutta"),
        ("Sīlakkhandhavaggapāḷi", "Sīlakkhandhavagga"),
        ("1. Pārājikakaṇḍaṃ", "Pārājika"),
    ],
)
def test_a_heading_bears_its_division_name(heading, name):
    assert name_key(heading) == name_key(name)


def test_a_sutta_hit_carries_its_blurb_and_titles(research):
    res = research.search(SearchRequest(q="monks on probation", mode="hybrid", limit=10))
    probation = [h for h in res.hits if h.sutta == "Kd 12"]
    assert probation, [h.sutta for h in res.hits]
    assert probation[0].sutta_summary.startswith("The Pārivāsikakkhandhaka")
    assert probation[0].sutta_title_pali == "Pārivāsikakkhandhaka"


def test_outlines_prefer_the_blurb_and_show_the_chinese_name(research):
    book = research.outline("cst/s0101m.mul").node  # DN 1–13: SuttaCentral's "Sīlakkhandhavagga"
    assert book.summary_by == "suttacentral" and book.title_zh == "戒蕴品"
    assert "Gradual Training in ethics" in book.summary
    sutta = research.outline("DN 2").node
    assert sutta.summary_by == "suttacentral" and sutta.summary == research.store.text("dn2").blurb
    chapter = research.outline("cst/vin02m3.mul/ch2").node  # Kd 12 whole
    assert chapter.summary_by == "suttacentral" and "probation" in chapter.summary


def test_the_reader_shows_the_blurb_of_a_sutta(research):
    chapter = research.chapter("DN 2")
    assert chapter.summary == research.store.text("dn2").blurb and chapter.summary


def test_a_blurb_is_embedded_with_its_sutta(small_store):
    found, _ = groups(small_store, "cst", "en")
    texts = [text for g in found for _, text, _ in g.rows]
    blurb = small_store.text("dn2").blurb
    assert any(text.endswith(blurb) for text in texts)
