"""The web pages in a real browser (Playwright driving headless Chromium) over a real server and a
real small index: suggestions, search → reader, missing translations, an ingest task from the admin
page, a streamed chat answer (local test LLM server), the Chinese interface and a phone-width layout."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import httpx
import pytest

from gantha.rag.agent import reader_url

from conftest import Server
from llm_server import ScriptedLLM

CHROMIUM = os.environ.get("GANTHA_CHROMIUM", "/usr/bin/chromium")
if os.environ.get("GANTHA_REQUIRE_BROWSER") and not Path(CHROMIUM).exists():  # CI: run, never skip
    raise RuntimeError(f"no Chromium at {CHROMIUM}: apt-get install chromium")
playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no Chromium at {CHROMIUM} (apt install chromium)")


def shows(locator, text: str | re.Pattern[str]) -> None:
    """Wait until the element's text holds ``text`` (a locator assertion: ``page.wait_for_function`` evaluates its
    string, which the pages' Content-Security-Policy forbids)."""
    playwright_api.expect(locator).to_contain_text(text, use_inner_text=True, timeout=30_000)


@pytest.fixture(scope="module")
def llm():
    server = ScriptedLLM()
    yield server
    server.close()


@pytest.fixture(scope="module")
def base(small_index, tmp_path_factory, llm):
    index = tmp_path_factory.mktemp("browser") / "index"
    shutil.copytree(small_index, index)
    env = {
        "GANTHA_ADMIN_KEY": "s3cret",
        "GANTHA_LLM_BASE_URL": llm.url,
        "GANTHA_LLM_MODEL": "test",
        "GANTHA_LLM_TOOLS": "false",
    }
    with Server(index, env) as server:
        yield server.url


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, errors  # no JavaScript error on any page


def test_typing_shows_suggestions_with_diacritics(page, base):
    page.goto(base + "/")
    page.locator("#q").press_sequentially("parivas", delay=30)
    page.locator("#suggestions li").first.wait_for()
    texts = page.locator("#suggestions li").all_inner_texts()
    assert any("parivās" in t for t in texts), texts  # the diacritics the user did not type
    assert page.locator("#q").get_attribute("aria-expanded") == "true"
    k = next(i for i, t in enumerate(texts) if "parivās" in t)
    for _ in range(k + 1):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")  # keyboard only: pick the suggestion and search
    page.locator("article.hit").first.wait_for()
    assert page.locator("#q").input_value() == texts[k].split("\n")[0]
    assert "results" in page.locator("#status").inner_text()


def test_search_then_open_a_hit_in_the_reader(page, base):
    page.goto(base + "/?q=p%C4%81riv%C4%81sik%C4%81&mode=exact")
    hit = page.locator("article.hit").first
    hit.wait_for()
    assert hit.locator("mark").count() >= 1
    facet = page.locator("#facets button[data-field=category]").first
    assert facet.inner_text().strip()  # facets with counts
    coordinate = hit.locator("a.coord").inner_text()
    hit.locator("a", has_text="Read").click()
    page.wait_for_url(f"**/read/{coordinate}")
    target = page.locator("tr.target")
    target.wait_for()
    assert "pārivāsikā" in target.inner_text().lower()
    assert page.locator("tr.target .num").inner_text() == coordinate.rsplit("/", 1)[1]
    assert page.locator(".pb").count() > 0  # edition page markers


def test_reader_marks_missing_translations_and_switches_script(page, base):
    page.goto(base + "/read/DN 2")  # a sutta reference opens the sutta, its English beside the Pali
    page.locator("tr.target").wait_for()
    english = page.locator("tr.target td").nth(2).inner_text()
    assert "King" in english or "So I have heard" in english  # DN 2 opens with "A Discussion With the King's …"
    page.goto(base + "/read/cst/vin02a3.att/1")  # a commentary: no Burmese or English here
    page.locator("tr.target").wait_for()
    heads = page.locator("#heads th").all_inner_texts()
    assert heads[:3] == ["Pali (CST)", "Burmese · မြန်မာ", "English"]
    english = page.locator("tr.target td").nth(2)
    assert english.inner_text() == "no translation here" and "missing" in english.get_attribute("class")
    page.select_option("#script", "Burmese")
    shows(page.locator("tr.target td").first, re.compile("[\\u1000-\\u109f]"))


def test_reader_opens_each_kind_of_link_beside_the_text(page, base, small_store):
    page.goto(base + "/read/cst/vin02m3.mul/75")
    shows(page.locator("#links-title"), "cst/vin02m3.mul/75")
    shows(page.locator("#link-counts"), "Commentary")
    kinds = page.locator("#link-counts button").all()
    assert len(kinds) >= 2  # the commentary on the rule and the rules repeating it
    for button in kinds:  # each panel opens beside the text with its links
        button.click()
        kind = button.get_attribute("data-kind")
        page.locator(f"#link-items ol[data-kind={kind}] li").first.wait_for()
        assert button.get_attribute("aria-pressed") == "true"
    page.locator("#link-counts button[data-kind=commentary]").click()
    page.locator("#link-items a", has_text="cst/vin02a3.att/75").first.click()
    page.wait_for_url("**/read/cst/vin02a3.att/75")
    page.locator("#link-counts button[data-kind=root]").click()
    shows(page.locator("#link-items"), "cst/vin02m3.mul/75")
    noted = next(p for p in small_store.book_passages("cst", "vin02m3.mul") if p.notes)
    page.goto(base + "/read/" + noted.coordinate)
    shows(page.locator("#links-title"), re.compile(re.escape(noted.coordinate) + "$"))
    other = page.locator(f"button.linksbtn:not([data-coordinate='{noted.coordinate}'])").first
    other_coordinate = other.get_attribute("data-coordinate")
    other.click()  # any row's links, on demand
    shows(page.locator("#links-title"), re.compile(re.escape(other_coordinate) + "$"))
    page.locator(f"button.linksbtn[data-coordinate='{noted.coordinate}']").click()
    shows(page.locator("#links-title"), re.compile(re.escape(noted.coordinate) + "$"))
    page.locator("#link-counts button[data-kind=variants]").click()
    shows(page.locator("#link-items"), "edition")


def test_distribution_bars_link_to_filtered_search(page, base):
    page.goto(base + "/dist?w=pariv%C4%81sa")
    bar = page.locator("svg a").first
    bar.wait_for()
    assert page.locator("svg rect").count() >= 2
    swatch = page.locator(".legend span").first.evaluate("el => getComputedStyle(el, '::before').backgroundColor")
    assert swatch not in ("", "rgba(0, 0, 0, 0)")  # the category's colour, set without an inline style
    bar.click()
    page.wait_for_url("**/?*book=*")
    page.locator("article.hit").first.wait_for()
    assert page.locator("#facets button[aria-pressed=true]").count() == 1


def test_admin_ingest_task_runs_to_completion(page, base, tmp_path):
    note = tmp_path / "uposatha-notes.md"
    note.write_text("# Uposatha\n\nThe **quixotrine** observance falls on the full moon.\n", encoding="utf-8")
    page.goto(base + "/admin")
    page.fill("#key", "wrong")
    page.click("#key-form button")
    shows(page.locator("#key-status"), "API key")
    page.fill("#key", "s3cret")
    page.click("#key-form button")
    page.locator("#documents tr[data-key]").first.wait_for()
    page.set_input_files("#file", str(note))
    page.click("#add-form button")
    page.locator("#tasks tr[data-state=done]").first.wait_for(timeout=120_000)
    page.locator("#documents tr[data-key='md/uposatha-notes.md']").wait_for()
    r = httpx.get(f"{base}/api/v3/search", params={"q": "quixotrine", "resource_type": "md"}).json()
    assert r["data"]["results"][0]["coordinate"].startswith("md/uposatha-notes.md/")


def test_admin_shows_a_documents_outline_with_sizes_and_summaries(page, base):
    page.add_init_script("localStorage.setItem('gantha.adminKey', 's3cret')")
    page.goto(base + "/admin")
    page.locator("#documents tr[data-key='cst/vin02m3.mul'] button.details").click()
    book = page.locator("#outline > li[data-level=book]")
    book.wait_for()
    chapters = page.locator("#outline li[data-level=chapter]")
    assert chapters.count() >= 10
    second = page.locator("#outline li[data-coordinate='cst/vin02m3.mul/ch2']")
    assert "Pārivāsikakkhandhak" in second.locator("summary").first.inner_text()
    assert "passages" in second.locator("summary").first.inner_text()  # its size
    assert book.locator(":scope > details > p.summary").inner_text()  # the book's summary, open
    section = second.locator("li[data-level=section]").first
    assert not section.is_visible()  # chapters are folded
    second.locator("summary").first.click()
    section.wait_for()
    assert second.locator(":scope > details > p.summary").inner_text()  # the chapter's own summary
    assert section.locator("summary .node-title").inner_text()


def test_chat_streams_an_answer_whose_citation_opens_the_reader(page, base, llm):
    page.goto(base + "/chat")
    page.fill("#question", "What is parivāsa?")
    page.keyboard.press("Enter")
    link = page.locator(".turn.assistant a[data-n='1']")
    link.wait_for(timeout=60_000)
    assert page.locator("#sources li").count() >= 1 and page.locator("#sources .badge.cited").count() >= 1
    href = link.get_attribute("href")
    assert href.startswith("/read/cst/")
    link.click()
    page.wait_for_url(f"**{href}")
    page.locator("tr.target").wait_for()


def test_chat_shows_a_refusal(page, base, llm):
    before = len(llm.requests)
    page.goto(base + "/chat")
    page.fill("#question", "What is the boiling point of tungsten?")
    page.click("#send")
    page.locator(".turn.refusal").wait_for(timeout=60_000)
    assert "do not answer" in page.locator(".turn.refusal").inner_text()
    assert len(llm.requests) == before  # no model call


def test_chinese_interface(page, base):
    page.goto(base + "/")
    page.select_option("#lang-select", "zh-Hans")  # the page reloads in Chinese: wait for the reloaded page
    playwright_api.expect(page.locator("header nav a").first).to_have_text("检索")
    assert page.locator("html").get_attribute("lang") == "zh-Hans"
    page.goto(base + "/chat")
    assert page.locator("#send").inner_text() == "提问"


def test_phone_width_has_no_horizontal_scroll(browser, base):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    pg = context.new_page()
    for path in ("/?q=parivasa", "/read/cst/vin02m3.mul/75", "/chat", "/admin", "/dist?w=parivāsa"):
        pg.goto(base + path)
        pg.wait_for_load_state("networkidle")
        assert pg.evaluate("document.documentElement.scrollWidth") <= 392, path
    context.close()


# the reader's scripts and Chinese, each with the family the pages ship for it and its letters
SCRIPTS = {
    "Burmese": ("Noto Sans Myanmar", "[\\u1000-\\u109f]"),
    "Sinhala": ("Noto Sans Sinhala", "[\\u0d80-\\u0dff]"),
    "Thai": ("Noto Sans Thai", "[\\u0e00-\\u0e7f]"),
    "Devanagari": ("Noto Sans Devanagari", "[\\u0900-\\u097f]"),
    "Chinese": ("Noto Sans SC", "[\\u4e00-\\u9fff]"),
}


def drawn_with(page, selector: str) -> list[dict]:
    """The fonts Chromium drew the element's own text with (DevTools protocol): family, glyph count and
    whether it is a web font."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    cdp.detach()
    return fonts


@pytest.mark.parametrize("script", list(SCRIPTS))
def test_reader_draws_each_script_with_the_shipped_web_font(page, base, script):
    family, pattern = SCRIPTS[script]
    if script == "Chinese":  # the Chinese Union Version beside the KJV
        page.goto(base + "/read/bible/john/1:1")
        cell = "tr.target td[lang^=zh]"
    else:  # the Pali transliterated into that script by the reader's script switch
        page.goto(base + "/read/cst/vin02m3.mul/75")
        page.locator("tr.target").wait_for()
        page.select_option("#script", script)
        cell = "tr.target td"
    shows(page.locator(cell).first, re.compile(pattern))
    page.evaluate("document.fonts.ready")
    loaded = page.evaluate(
        "(family) => [...document.fonts].filter((f) => f.family.replace(/\"/g, '') === family && f.status === 'loaded').length",
        family,
    )
    # shipped under /static/fonts and fetched for this text (document.fonts.check alone would not tell:
    # it answers true for a family no @font-face declares)
    assert loaded >= 1, f"no {family} web font loaded"
    fonts = drawn_with(page, cell)
    # each CJK chunk is a font of its own; their name table says "Noto Sans SC Thin" (the outlines are 400)
    glyphs = sum(f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"].startswith(family))
    assert glyphs > 15, fonts  # the text is drawn with it, not with a system font or as boxes


def test_roman_pali_keeps_the_ordinary_font(page, base):
    page.goto(base + "/read/cst/vin02m3.mul/75")
    shows(page.locator("tr.target td").first, "ā")
    page.evaluate("document.fonts.ready")
    fonts = drawn_with(page, "tr.target td")
    assert fonts and not any(f["isCustomFont"] for f in fonts), fonts  # the script fonts claim only their scripts


def question_box(pg, height: int) -> tuple[float, float]:
    """How far above the window's bottom the question box (the form) and its text field end."""
    form = pg.locator("#ask-form").bounding_box()
    field = pg.locator("#question").bounding_box()
    return height - (form["y"] + form["height"]), height - (field["y"] + field["height"])


@pytest.mark.parametrize("size", [(1280, 900), (390, 844)], ids=["wide", "narrow"])
def test_chat_question_box_stays_at_the_bottom(browser, base, llm, size):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US", is_mobile=width < 500)
    pg = context.new_page()
    pg.goto(base + "/chat")
    pg.wait_for_load_state("networkidle")
    form_gap, field_gap = question_box(pg, height)
    assert abs(form_gap) <= 2 and 0 <= field_gap <= 120, (form_gap, field_gap)  # an empty conversation
    llm.script.append({"content": " ".join(["Parivāsa is a probation for a hidden offence [1]."] * 120)})
    pg.fill("#question", "What is parivāsa?")
    pg.keyboard.press("Enter")
    pg.locator(".turn.assistant a[data-n='1']").first.wait_for(timeout=60_000)
    answer = pg.locator(".turn.assistant").last.bounding_box()
    assert answer["height"] > height  # longer than the window
    form_gap, field_gap = question_box(pg, height)
    assert abs(form_gap) <= 2 and 0 <= field_gap <= 120, (form_gap, field_gap)  # still pinned at the bottom
    form_top = pg.locator("#ask-form").bounding_box()["y"]
    assert form_top - 60 <= answer["y"] + answer["height"] <= form_top + 1  # the answer's end in sight above it
    assert pg.evaluate("document.documentElement.scrollWidth") <= width + 2
    context.close()


@pytest.fixture(scope="module")
def bare(small_index, tmp_path_factory):
    """A server as a newcomer first starts it: no admin key, no model."""
    index = tmp_path_factory.mktemp("bare") / "index"
    shutil.copytree(small_index, index)
    with Server(index, {"GANTHA_ADMIN_KEY": "", "GANTHA_LLM_BASE_URL": ""}) as server:
        yield server.url


def test_chat_without_a_model_says_so_first(page, bare):
    page.goto(bare + "/chat")
    page.fill("#question", "PTS Vin II 31")
    page.keyboard.press("Enter")
    notice = page.locator(".turn.assistant .notice")
    notice.wait_for(timeout=60_000)
    assert "No language model is configured" in notice.inner_text() and "GANTHA_LLM_BASE_URL" in notice.inner_text()
    turn = page.locator(".turn.assistant").last.inner_text()
    assert turn.index("No language model") < turn.index("[1]") and "cst/vin02m3.mul/75" in turn  # then the passages
    assert page.locator(".turn.assistant a[data-n='1']").get_attribute("href") == "/read/cst/vin02m3.mul/75"


def test_admin_page_says_when_the_admin_api_is_off(page, base, bare):
    page.goto(bare + "/admin")
    off = page.locator("#admin-off")
    off.wait_for()
    assert "GANTHA_ADMIN_KEY" in off.inner_text() and "restart" in off.inner_text()
    assert not page.locator("#key-form").is_visible()  # no key asked for
    page.goto(base + "/admin")
    page.locator("#key-form").wait_for()  # on: the key is asked for
    assert not page.locator("#admin-off").is_visible()


def test_a_markdown_link_with_its_number_and_odd_characters_opens_its_paragraph(page, base):
    filler = " ".join(["Filler words about the rule."] * 32)
    text = f"# Ānanda's rule\n\n{filler}\n\nThe second piece names the xylophorite moon. {filler}\n"
    r = httpx.post(
        f"{base}/api/v1/documents",
        files={"file": ("notes #1 & 50% ü?.md", text.encode())},
        headers={"X-API-Key": "s3cret"},
    )
    task = r.json()["data"]
    deadline = time.monotonic() + 120
    while task["state"] not in ("done", "failed") and time.monotonic() < deadline:
        time.sleep(0.3)
        task = httpx.get(f"{base}/api/v1/documents/tasks/{task['id']}", headers={"X-API-Key": "s3cret"}).json()["data"]
    assert task["state"] == "done", task
    hits = httpx.get(f"{base}/api/v3/search", params={"q": "xylophorite", "resource_type": "md"}).json()["data"]
    coordinate = hits["results"][0]["coordinate"]
    assert coordinate == "md/notes #1 & 50% ü?.md/ānanda-s-rule#2"
    page.goto(base + "/")
    href = page.evaluate(
        """async (c) => {
          const { readerHref } = await import("/static/common.js");
          const a = Object.assign(document.createElement("a"), { id: "md-link", href: readerHref(c), textContent: c });
          document.body.prepend(a);
          return a.getAttribute("href");
        }""",
        coordinate,
    )
    assert href == reader_url(coordinate)  # the page builds the address the chat's sources carry
    page.click("#md-link")
    target = page.locator("tr.target")
    target.wait_for()
    assert "xylophorite" in target.inner_text() and page.locator("tr.target .num").inner_text() == "ānanda-s-rule#2"
    assert page.evaluate("location.hash") == ""  # the #2 stayed in the path, encoded


def test_chat_links_a_web_source_only_over_http(page, base):
    """The page's own defence (the server filters too): a javascript: address becomes plain text."""
    sources = [
        {"n": 1, "kind": "web", "title": "Trap", "url": "javascript:alert(1)", "coordinate": None, "citation": None},
        {"n": 2, "kind": "web", "title": "Page", "url": "https://example.org/a", "coordinate": None, "citation": None},
    ]
    sources = [s | {"weak": False, "cited": True, "text": "t", "translations": {}} for s in sources]
    done = {"answer": "One [1]. Two [2].", "outcome": "answered", "sources": sources, "citations": []}
    events = [("sources", {"sources": sources}), ("token", {"text": done["answer"]}), ("done", done)]
    body = "".join(f"event: {kind}\ndata: {json.dumps(data)}\n\n" for kind, data in events)
    page.route("**/api/v3/chat", lambda route: route.fulfill(body=body, content_type="text/event-stream"))
    page.goto(base + "/chat")
    page.fill("#question", "anything")
    page.keyboard.press("Enter")
    page.locator(".turn.assistant a[data-n='2']").wait_for()
    assert page.locator("a[href^='javascript' i]").count() == 0
    assert page.locator(".turn.assistant [data-n='1']").inner_text() == "1"  # shown, not linked
    assert page.locator("#sources li").first.locator("a").count() == 0
    assert "Trap" in page.locator("#sources li").first.inner_text()
    assert page.locator("#sources a").get_attribute("href") == "https://example.org/a"
