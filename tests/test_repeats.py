"""Repeats found however short (issue 41): a verbatim run of words shared by two paragraphs links them, whatever
the paragraphs' length and however often the run recurs, unless it is a stock formula."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gantha.corpus import cst
from gantha.ingest import ingest_cst
from gantha.links import parallels
from gantha.research import Research
from gantha.store.embedded import EmbeddedStore

from conftest import CST, link_books

BOOKS = ("s0201m.mul", "s0102m.mul", "s0305m.mul")  # MN 1-50, DN 14-23, SN 45-56
MN10_OPENING = "cst/s0201m.mul/106"


@pytest.fixture(scope="module")
def three_books(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of the three CST books holding MN 10, DN 22 and SN 47.1, links built by the ingest."""
    root = tmp_path_factory.mktemp("repeats")
    store = EmbeddedStore(root / "index")
    summary = ingest_cst(store, link_books(root / "cst", BOOKS))
    store.close()
    assert summary.ok and summary.links["parallels"] > 0, summary.skipped
    return root / "index"


def test_mn10_opening_lists_dn22_and_sn47_1(three_books):
    found = Research.open(three_books).links(MN10_OPENING, kinds=["parallels"], limit=50).parallels.items
    words = {i.coordinate: i.words for i in found if not i.curated}
    assert words.get("cst/s0102m.mul/373") == 17, words  # DN 22: the same 17 words
    assert words.get("cst/s0305m.mul/367.1") == 17, words  # SN 47.1, a sub-paragraph
    assert list(words)[:2] != ["cst/s0201m.mul/138"]  # MN 10's own closing repeat comes after the other works


def _mn10_opening() -> str:
    book = next(b for b in cst.discover(CST)[0] if b.book == "s0201m.mul")
    return next(p.text for p in cst.read_book(book) if p.para == "106")


def _linked(texts: list[str]) -> set[tuple[int, int]]:
    hashes, owners = parallels.shingles(texts)
    first, second, _ = parallels.pairs(hashes, owners.astype(np.int64))
    return set(zip(first.tolist(), second.tolist(), strict=True))


def test_a_short_passage_recurring_below_the_formula_limit_links_every_pair():
    """MN 10's opening (17 words) in 33 paragraphs, as in the canon: every pair is linked, though each of its
    stretches stands in 33 paragraphs (the rarity weight alone, 12 x 5/33, fell short of the threshold)."""
    opening = _mn10_opening()
    texts = [f"paragraph {i} atha kho {opening}" for i in range(33)] + ["atha kho ekāyano ayaṃ bhikkhave"]
    assert _linked(texts) == {(a, b) for a in range(33) for b in range(a + 1, 33)}


def test_a_formula_links_nothing_and_the_run_needs_nine_words():
    """The same sentence in more than FORMULA paragraphs is a stock formula; eight shared words are too few."""
    opening = _mn10_opening()
    assert not _linked([f"paragraph {i} {opening}" for i in range(parallels.FORMULA + 1)])
    eight = "sokaparidevānaṃ samatikkamāya dukkhadomanassānaṃ atthaṅgamāya ñāyassa adhigamāya nibbānassa sacchikiriyāya"
    nine = f"{eight} yadidaṃ"
    assert not _linked([f"idha {eight} ca", f"tattha {eight} vā"])
    assert _linked([f"idha {nine} ca", f"tattha {nine} vā"]) == {(0, 1)}
    assert not _linked([]) and not _linked(["ekāyano ayaṃ"])
