"""Build eval/regression.jsonl and eval/bible.jsonl from the real data (deterministic).
python eval/build.py [DATA_DIR] [bible]   (bible: only eval/bible.jsonl)

regression.jsonl: Bible verse retrieval across languages (KJV → CUV, CUV → KJV, verses of the four books the
test index holds), Chinese lexical search with traditional input, Pali diacritic-free forms and lemma expansion
over a few CST books, and unanswerable queries that must be refused. bible.jsonl: the same verse retrieval
over the whole Bible, :data:`WHOLE_BIBLE` verses in each direction spread evenly over all 66 books.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from gantha.corpus import bible, cst
from gantha.corpus.wikipali import read_word_statistics
from gantha.text.chinese import to_simplified
from gantha.text.pali import canon, fold

ROOT = Path(__file__).resolve().parents[1]
ARGS = [a for a in sys.argv[1:] if a != "bible"]
DATA = Path(ARGS[0]) if ARGS else ROOT.parent / "shared" / "data"
BIBLE_BOOKS = ("genesis", "matthew", "john", "romans")  # the books the test index holds
WHOLE_BIBLE = 400  # verses per direction in bible.jsonl
CST_BOOK = "vin02m3.mul"
TRADITIONAL = {"耶稣": "耶穌", "天地": "天地", "创造": "創造", "祷告": "禱告", "信心": "信心", "爱人如己": "愛人如己"}
NONSENSE = [
    "boiling point of tungsten",
    "qwxz plorf vrenk",
    "stock market crash of 2008",
    "python list comprehension syntax",
    "how to bake sourdough bread",
    "best smartphone camera 2026",
    "钨的沸点是多少",
    "股票市场崩盘",
    "football world cup final score",
    "quantum chromodynamics lattice",
    "zzkv mmqt",
    "how to reset a router password",
]


def verses(channel: str, books: tuple[str, ...] | None = BIBLE_BOOKS) -> dict[str, str]:
    """Verse coordinate → text of one translation (of these books; None: every book)."""
    out = {}
    for bf in bible.files(DATA / "bible"):
        if bf.channel.name != channel:
            continue
        info, _, vs = bible.read_file(bf)
        if books is None or info.book in books:
            out.update({p.coordinate: p.text for p in vs})
    return out


def verse_pairs(kjv: dict[str, str], cuv: dict[str, str], n: int, suffix: str = "") -> list[dict]:
    """``n`` verses spread evenly over both translations, each asked in English for its Chinese verse and in
    Chinese for its English one (groups ``bible-en-zh`` and ``bible-zh-en``, plus ``suffix``)."""
    shared = sorted(set(kjv) & set(cuv), key=lambda c: (c.split("/")[1], *map(int, c.split("/")[2].split(":"))))
    rows = []
    for c in shared[:: max(1, len(shared) // n)][:n]:
        for direction, text, language in (("en-zh", kjv[c], "zh"), ("zh-en", cuv[c], "en")):
            rows.append(
                {
                    "id": f"{direction}:{c}",
                    "group": f"bible-{direction}{suffix}",
                    "query": text,
                    "mode": "hybrid",
                    "relevant": [c],
                    "filters": {"languages": [language], "corpora": ["bible"]},
                }
            )
    return rows


def write(rows: list[dict], name: str) -> None:
    out = ROOT / "eval" / name
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(f"{len(rows)} queries → {out}")


def main() -> None:
    write(verse_pairs(verses("kjv", None), verses("cuv", None), WHOLE_BIBLE, "-whole"), "bible.jsonl")
    if "bible" in sys.argv[1:]:
        return
    kjv, cuv = verses("kjv"), verses("cuv")
    rows = verse_pairs(kjv, cuv, 40)
    for phrase, traditional in TRADITIONAL.items():
        relevant = [c for c, t in cuv.items() if phrase in t]
        rows.append(
            {
                "id": f"zh-trad:{phrase}",
                "group": "zh-traditional",
                "query": traditional,
                "mode": "fuzzy",
                "relevant": relevant,
                "filters": {"languages": ["zh"], "corpora": ["bible"]},
                "k": 10,
            }
        )
    books, _ = cst.discover(DATA / "cst" / f"{CST_BOOK}.toc.xml.gz")
    paragraphs = [(p.coordinate, [canon(w) for w in re.findall(r"\w+", p.text)]) for p in cst.read_book(books[0])]
    for form in ("parivāsaṃ", "pārivāsikā", "mānattaṃ", "abbhānaṃ", "āpattiṃ", "bhikkhūnaṃ"):
        relevant = [c for c, ws in paragraphs if form in ws]
        rows.append(
            {
                "id": f"pali-fold:{form}",
                "group": "pali-fuzzy",
                "query": fold(form),
                "mode": "fuzzy",
                "relevant": relevant,
                "filters": {"books": [CST_BOOK]},
                "k": 100,
            }
        )
    analysis, _ = read_word_statistics(DATA / "wikipali" / "word_statistics")
    for lemma in ("parivāsa", "mānatta", "abbhāna", "pārivāsika"):
        forms = {a.word for a in analysis if a.base == lemma}
        relevant = [c for c, ws in paragraphs if forms & set(ws)]
        rows.append(
            {
                "id": f"pali-lemma:{lemma}",
                "group": "pali-lemma",
                "query": "",
                "lemma": lemma,
                "mode": "exact",
                "relevant": relevant,
                "filters": {"books": [CST_BOOK]},
                "k": 100,
            }
        )
    for q in NONSENSE:
        rows.append(
            {
                "id": f"refuse:{q}",
                "group": "unanswerable",
                "query": to_simplified(q),
                "mode": "hybrid",
                "relevant": [],
                "answerable": False,
            }
        )
    write(rows, "regression.jsonl")


if __name__ == "__main__":
    main()
