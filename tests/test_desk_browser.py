"""The desk's page in headless Chromium over a real server and the small index: parivāsa's concordance lines
(a click opens the reader at the line), its collocates (a click shows their lines) and its profile's bars."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import Server

CHROMIUM = os.environ.get("GANTHA_CHROMIUM", "/usr/bin/chromium")
if os.environ.get("GANTHA_REQUIRE_BROWSER") and not Path(CHROMIUM).exists():  # CI: run, never skip
    raise RuntimeError(f"no Chromium at {CHROMIUM}: apt-get install chromium")
playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (apt install chromium)")


@pytest.fixture(scope="module")
def base(small_index):
    with Server(small_index) as server:  # the desk only reads (its tally is written beside the index once)
        yield server.url


@pytest.fixture()
def page(base):
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        pg = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US").new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert not errors, errors  # no JavaScript error


def test_desk_shows_lines_collocates_and_profile(page, base):
    page.goto(base + "/desk?q=pariv%C4%81sa&lemma=true&sort=right1")
    rows = page.locator("#kwic tbody tr")
    rows.first.wait_for(timeout=60_000)
    assert rows.count() == 50
    nodes = page.locator("#kwic td.node").all_inner_texts()
    assert all("vās" in n for n in nodes), nodes  # a form of the lemma in the middle of every line
    page.locator("#collocates tbody tr").first.wait_for(timeout=60_000)
    lemmas = page.locator("#collocates tbody a").all_inner_texts()
    assert "deti" in lemmas
    assert page.locator("#profile svg rect").count() >= 5  # layers, collections, books holding it
    page.locator("#collocates a[data-collocate='deti']").click()
    playwright_api.expect(page.locator("#with")).to_contain_text("deti", timeout=60_000)
    assert "collocate=deti" in page.url
    coordinate = page.locator("#kwic td.coord a").first.inner_text()
    page.locator("#kwic td.coord a").first.click()
    page.wait_for_url(re.compile(r"/read/"))
    assert page.url.endswith(coordinate)
