"""Screenshots of the running app's pages for the README (Playwright + Chromium).

    GANTHA_ADMIN_KEY=… gantha serve &        # with a model configured for the chat page
    python scripts/screenshots.py http://127.0.0.1:8000 docs/screenshots --key …
"""

from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base")
    ap.add_argument("out", type=Path)
    ap.add_argument("--key", required=True, help="the server's GANTHA_ADMIN_KEY")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        page.goto(f"{args.base}/?q=parivasa&lemma=1")
        page.locator("article.hit").first.wait_for()
        page.screenshot(path=args.out / "search.png")
        page.goto(f"{args.base}/dist?w=parivāsa")
        page.locator("svg rect").first.wait_for()
        page.screenshot(path=args.out / "distribution.png")
        page.goto(f"{args.base}/read/cst/vin02m3.mul/75")
        page.locator("tr.target").wait_for()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=args.out / "reader.png")
        page.goto(f"{args.base}/chat")
        page.fill("#question", "What is parivāsa?")
        page.keyboard.press("Enter")
        page.locator(".turn.assistant a[data-n]").first.wait_for(timeout=300_000)
        page.screenshot(path=args.out / "chat.png")
        page.goto(f"{args.base}/admin")
        page.fill("#key", args.key)
        page.click("#key-form button")
        page.locator("#documents tr[data-key]").first.wait_for()
        page.fill("#bench-q", "parivasa")
        page.click("#bench-form button")
        page.locator("#bench section").first.wait_for()
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=args.out / "admin.png", full_page=True)
        browser.close()


if __name__ == "__main__":
    main()
