"""The Āgamas in a real browser: a sutta beside its Āgama parallel and back, traditional or simplified, Chinese
hits highlighted on the search page, the CJK text drawn with the shipped web font (and a screenshot taken)."""

from __future__ import annotations

import shutil

import pytest

from test_browser import browser, drawn_with, page, playwright_api, shows  # noqa: F401 (fixtures)

from conftest import Server


@pytest.fixture(scope="module")
def base(agama_index, tmp_path_factory):
    index = tmp_path_factory.mktemp("agama-browser") / "index"
    shutil.copytree(agama_index, index)
    with Server(index, {}) as server:
        yield server.url


def test_a_sutta_beside_its_agama_parallel_in_either_script(page, base, tmp_path):  # noqa: F811 (the fixture)
    page.goto(base + "/read/MN 63")
    panel = page.locator("#parallel")
    shows(panel.locator("#parallel-title"), "MA 221")
    shows(panel.locator("#parallel-rows"), "毒箭")  # traditional, as the edition writes it
    assert "尊者鬘童子" in panel.inner_text()
    page.evaluate("document.fonts.ready")
    fonts = drawn_with(page, "#parallel-rows tr:nth-child(3) td[lang=zh-Hant]")  # a long paragraph
    glyphs = sum(f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"].startswith("Noto Sans SC"))
    assert glyphs > 15, fonts  # drawn with the shipped CJK font, not as boxes
    shot = tmp_path / "reader-agama.png"
    page.screenshot(path=str(shot), full_page=False)
    assert shot.stat().st_size > 20_000
    page.select_option("#hanzi", "Hans")
    shows(page.locator("#parallel-rows"), "尊者鬘童子独安静处")  # simplified on request


def test_an_agama_sutra_beside_its_pali_parallel(page, base):  # noqa: F811 (the fixture)
    page.goto(base + "/read/agama/ma/221.3")
    shows(page.locator("tr.target"), "鬘童子")
    shows(page.locator("#parallel-title"), "MN 63")
    shows(page.locator("#parallel-rows"), "Evaṃ me sutaṃ")
    assert page.locator("#parallel-heads th").count() == 2  # the Pali and its English


def test_the_search_page_highlights_chinese_hits(page, base):  # noqa: F811 (the fixture)
    page.goto(base + "/?q=" + "毒箭")
    page.locator("article.hit").first.wait_for()
    marks = page.locator("article.hit mark").all_inner_texts()
    assert "毒箭" in marks, marks
