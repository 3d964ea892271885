"""The philologist's desk on real CST books: the concordance, collocates and frequency profile of parivāsa
(the Cūḷavagga's probation) in the small index (Cūḷavagga, its commentary, the Dīghanikāya's first book and
a later Sinhala work)."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.research import Research
from gantha.research.desk import DeskQuery
from gantha.research.desk.collocates import scan_windows, text_windows
from gantha.research.desk.concordance import pali_key, sort_keys
from gantha.research.desk.profile import scan_occurrences
from gantha.research.desk.tally import Tallies
from gantha.search.errors import SearchError
from gantha.text.pali import WORD_RE, canon, fold
from gantha.verbs import VERBS

PARIVASA = DeskQuery(q="parivāsa", lemma=True)


@pytest.fixture(scope="module")
def research(small_index) -> Research:
    return Research.open(small_index)


@pytest.fixture(scope="module")
def client(small_index) -> TestClient:
    return TestClient(create_app(small_index))


def run(research: Research, name: str, **params):
    verb = next(v for v in VERBS if v.name == name)
    return verb.run(research, verb.params(**params))


def test_pali_order_and_sort_cascade():
    words = ["kho", "ka", "āpatti", "ñāṇa", "ṭhāna", "saṃgha", "hoti", "aṃsa", "a"]
    assert sorted(words, key=pali_key) == ["a", "aṃsa", "āpatti", "ka", "kho", "ñāṇa", "ṭhāna", "saṃgha", "hoti"]
    assert sort_keys(["right1"]) == ["right1", "right2", "right3", "book"]
    assert sort_keys(["left2"]) == ["left2", "left3", "book"]
    assert sort_keys(["form", "right1"]) == ["form", "right1", "book"]


def test_concordance_centres_every_form_of_the_lemma_sorted_right(research):
    res = run(research, "concordance", q="parivāsa", lemma=True, sort=["right1"], limit=1000, context=4)
    family = set(research.family("parivāsa", True, True).words())
    assert res.lines_total == len(res.lines) == sum(f.count for f in res.forms) > 300
    assert {ln.form for ln in res.lines} <= family
    assert {ln.coordinate.split("/")[1] for ln in res.lines} >= {"vin02m3.mul", "vin02a3.att"}
    firsts = [WORD_RE.findall(canon(ln.right))[:1] for ln in res.lines]
    keys = [pali_key(first[0]) if first else "\U0010ffff" for first in firsts]
    assert keys == sorted(keys)  # by the first word after the form, in Pali alphabetical order
    passages = research.get([ln.coordinate for ln in res.lines[:40]]).items
    texts = {p.coordinate: "".join(p.text.split()) for p in passages}
    for ln in res.lines[:40]:  # the line is the paragraph's own text, the form between its context
        assert "".join(f"{ln.left}{ln.node}{ln.right}".split()) in texts[ln.coordinate]
        assert len(ln.left.split()) <= 4 + 2 and ln.node.lower().startswith(ln.form.split()[0][:3])


def test_first_page_in_book_order_is_the_whole_concordances_start(small_index, research):
    fresh = Research.open(small_index)  # no whole scan of parivāsa kept yet
    fast = run(fresh, "concordance", q="parivāsa", lemma=True, limit=300)  # read chapter by chapter
    whole = run(fresh, "concordance", q="parivāsa", lemma=True, limit=300, sort=["book", "book"])
    assert fast.lines_total is None and fast.notes  # not every chapter read
    assert [ln.model_dump() for ln in fast.lines] == [ln.model_dump() for ln in whole.lines]
    assert whole.lines_total and whole.paragraphs == fast.paragraphs
    again = run(fresh, "concordance", q="parivāsa", lemma=True, limit=300)  # the whole scan is kept now
    assert again.lines_total == whole.lines_total and not again.notes
    page = run(research, "concordance", q="parivāsa", lemma=True, limit=5, offset=5, sort=["book", "book"])
    assert page.lines[0].model_dump() != whole.lines[0].model_dump()


def test_concordance_exports_every_line_with_its_coordinate(research):
    res = run(research, "concordance", q="parivāsa", lemma=True, sort=["left1"], format="tsv")
    file = res.exported()
    assert file is not None and file.media_type.startswith("text/tab-separated-values")
    rows = file.content.decode().splitlines()
    assert rows[0].split("\t") == ["coordinate", "book", "paragraph", "word", "left", "node", "right", "form"]
    assert len(rows) - 1 == res.lines_total
    first = rows[1].split("\t")
    assert first[0] == f"cst/{first[1]}/{first[2]}" and int(first[3]) >= 1
    as_csv = run(research, "concordance", q="parivāsa", lemma=True, format="csv").exported()
    assert len(list(csv.reader(io.StringIO(as_csv.content.decode())))) == len(rows)


def test_concordance_of_a_phrase_and_of_near(research):
    near = run(research, "concordance", q="parivāsaṃ NEAR/3 deti", limit=1000)
    assert near.lines_total and near.lines_total > 5
    deti = set(near.query_info["near"][0]["forms"][1])  # every form of deti, folded
    for ln in near.lines:  # the first word centred, a form of the second within three words between
        words = WORD_RE.findall(fold(ln.left))[-4:] + WORD_RE.findall(fold(ln.right))[:4]
        assert ln.form.startswith("parivās") and deti & set(words), ln
    phrase = run(research, "concordance", q='"parivāsaṃ deti"', limit=1000)
    assert phrase.lines_total and all(ln.form == "parivāsaṃ deti" for ln in phrase.lines)


def test_concordance_filters_and_errors(research):
    commentary = run(research, "concordance", q="parivāsa", lemma=True, book=["vin02a3.att"], sort=["form"])
    assert commentary.lines and all(ln.coordinate.startswith("cst/vin02a3.att/") for ln in commentary.lines)
    with pytest.raises(SearchError):
        run(research, "concordance", q="parivāsa", sort=["middle"])
    with pytest.raises(SearchError):
        run(research, "concordance", q="parivāsa deti", lemma=True)


def test_collocates_of_parivasa(research):
    res = run(research, "collocates", q="parivāsa", lemma=True, limit=60)
    top = [c.lemma for c in res.collocates]
    assert res.measure == "logdice" and res.nodes > 300 and res.corpus_words > 100_000
    assert {"deti", "dātabba"} <= set(top[:30])  # a probation is given (deti) / to be given (dātabba)
    assert {"suddhanta", "samodhāna"} <= set(top)  # kinds of probation, members of its compounds
    assert [c.score for c in res.collocates] == sorted((c.score for c in res.collocates), reverse=True)
    samodhana = next(c for c in res.collocates if c.lemma == "samodhāna")
    assert samodhana.in_compound > 0
    deti = next(c for c in res.collocates if c.lemma == "deti")
    lines = run(research, "concordance", **{k: v for k, v in _params(deti.link).items()}, limit=1000)
    assert lines.collocate == "deti" and 0 < lines.lines_total <= deti.cooccurrences
    mi = run(research, "collocates", q="parivāsa", lemma=True, measure="mi", limit=60)
    assert [c.lemma for c in mi.collocates] != top  # MI lifts the rarer words
    assert [c.score for c in mi.collocates] == sorted((c.score for c in mi.collocates), reverse=True)


@pytest.mark.parametrize(
    "query",
    [
        PARIVASA,
        DeskQuery(q="bhikkhu"),
        DeskQuery(q="parivāsa", books=["vin02a3.att"]),
        DeskQuery(q="āpatti", mode="exact"),
    ],
    ids=["lemma", "fuzzy", "book", "exact"],
)
def test_collocates_counted_in_word_ids_as_in_the_paragraphs(research, query):
    """A query of words is counted in the canon's word ids (no paragraph read): the same nodes, window words,
    compound members and occurrences per book as the scan of its paragraphs counts."""
    scanner, tallies, _ = research._desk()
    words = scanner.words(query)
    assert words is not None
    scan = scanner.scan(query)
    fast = text_windows(tallies.get(), words.forms, words.scope, 5, words.family)
    slow = scan_windows(scan, 5)
    assert fast.nodes == slow.nodes > 20
    assert fast.seen == slow.seen and fast.compound == slow.compound
    per_book = tallies.get().occurrences(words.forms, words.scope)
    assert {b: n for b, n in per_book.items() if n} == scan_occurrences(scan)
    assert scanner.words(DeskQuery(q='"parivāsaṃ deti"')) is None  # a phrase: scanned


def test_the_tally_is_kept_beside_the_index(small_index, research):
    kept = research._desk()[1].get()
    again = Tallies(research.store).get()  # another process: read from the files, not counted
    assert again is not kept and again.key == kept.key and again.vocab == kept.vocab
    assert np.array_equal(again.text, kept.text) and again.forms == kept.forms
    start, end = again.spans["s0101m.mul"]  # each paragraph's words, then a break
    paragraphs = list(research.store.book_passages("cst", "s0101m.mul", "pali"))
    assert (
        again.books["s0101m.mul"]
        == end - start - len(paragraphs)
        == sum(len(WORD_RE.findall(p.text)) for p in paragraphs)
    )
    assert again.forms["parivāsaṃ"] == sum(
        WORD_RE.findall(canon(p.text)).count("parivāsaṃ")
        for b in again.books
        for p in research.store.book_passages("cst", b, "pali")
    )


def test_a_pronoun_collocate_is_named_by_its_headword(research):
    """WikiPali writes the base of ayaṃ, ime, imaṃ … as the stem pair ``ay$i``: the desk names it *ima*, and
    its frequency and concordance lines are found by that name."""
    res = run(research, "collocates", q="bhikkhu", limit=400, min_freq=1)
    assert not [c.lemma for c in res.collocates if "$" in c.lemma]
    ima = next(c for c in res.collocates if c.lemma == "ima")
    assert {"ayaṃ", "imaṃ"} & {f.form for f in ima.forms} and ima.frequency > ima.cooccurrences
    lines = run(research, "concordance", **_params(ima.link), limit=5)
    assert lines.collocate == "ima" and lines.lines_total > 0


def _params(link: str) -> dict[str, object]:
    from urllib.parse import parse_qsl

    out: dict[str, object] = dict(parse_qsl(link))
    out["lemma"] = out.get("lemma") == "true"
    out["window"] = int(str(out["window"]))
    return out


def test_profile_of_parivasa(research):
    res = run(research, "profile", q="parivāsa", lemma=True)
    books = {b.key: b for b in res.books}
    assert books["s0101m.mul"].occurrences == 0 and books["s0101m.mul"].words > 10_000
    assert books["vin02m3.mul"].per_10000 == max(b.per_10000 for b in res.books) > 10
    assert books["vin02a3.att"].per_10000 > 10 * books["e1208n.nrf"].per_10000
    assert sum(b.words for b in res.books) == res.corpus_words
    assert sum(b.occurrences for b in res.books) == res.occurrences
    layers = {r.key: r for r in res.layers}
    assert layers["mula"].occurrences + layers["atthakatha"].occurrences > 0.95 * res.occurrences
    assert {r.key for r in res.collections} >= {"Vinayapiṭaka", "Suttapiṭaka › Dīghanikāya"}
    png = run(research, "profile", q="parivāsa", lemma=True, format="png").exported()
    assert png.content.startswith(b"\x89PNG") and png.filename == "profile-parivasa-lemma.png"
    table = run(research, "profile", q="parivāsa", lemma=True, format="csv").exported().content.decode()
    assert "book,vin02m3.mul,Cūḷavaggapāḷi" in table


def test_http_routes_and_page(client):
    r = client.get("/api/v3/concordance", params={"q": "parivāsa", "lemma": "true", "sort": "right1", "limit": 3})
    assert r.status_code == 200 and len(r.json()["data"]["lines"]) == 3
    r = client.get("/api/v3/concordance", params={"q": "parivāsa", "lemma": "true", "format": "tsv"})
    assert r.headers["content-type"].startswith("text/tab-separated-values")
    assert r.text.startswith("coordinate\tbook\t")
    r = client.get("/api/v3/profile", params={"q": "parivāsa", "lemma": "true", "format": "svg"})
    assert r.headers["content-type"].startswith("image/svg+xml") and b"<svg" in r.content
    r = client.get("/api/v3/collocates", params={"q": "parivāsa", "lemma": "true", "limit": 5})
    assert len(r.json()["data"]["collocates"]) == 5
    r = client.get("/api/v3/concordance", params={"q": "parivāsa", "sort": "middle"})
    assert r.status_code == 400
    page = client.get("/desk")
    assert page.status_code == 200 and "/static/desk.js" in page.text
    assert client.get("/static/desk.js").status_code == 200
