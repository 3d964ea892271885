"""Links between paragraphs on the whole CST: commentary layers, citations, repeated passages, variant readings,
and the verb that answers them on every surface."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.links import layers, parallels
from gantha.research import Research
from gantha.text.pali import fold
from gantha.text.variants import EDITIONS, readings


@pytest.fixture(scope="module")
def research(full_ingest) -> Research:
    return Research.open(full_ingest[0])


def coordinates(found) -> list[str]:
    return [i.coordinate for i in found.items]


def test_rule_to_commentary_and_subcommentary_and_back(research):
    """The issue's path: the Pārivāsikakkhandhaka's first rule → its aṭṭhakathā and ṭīkā; the aṭṭhakathā → the rule."""
    rule = research.links("cst/vin02m3.mul/75", limit=100)
    assert coordinates(rule.commentary)[0] == "cst/vin02a3.att/75"
    assert rule.commentary.items[0].reason == "paragraph number 75"
    ttika = [c for c in coordinates(rule.subcommentary) if c.startswith("cst/vin02t.tik/75")]
    assert ttika, coordinates(rule.subcommentary)
    comment = research.links("cst/vin02a3.att/75", kinds=["root", "subcommentary"])
    assert coordinates(comment.root) == ["cst/vin02m3.mul/75"]
    assert ttika[0] in coordinates(comment.subcommentary)
    tika = research.links(ttika[0], kinds=["root"])  # a ṭīkā paragraph: the aṭṭhakathā it explains, then the rule
    assert coordinates(tika.root) == ["cst/vin02a3.att/75", "cst/vin02m3.mul/75"]
    assert [i.layer for i in tika.root.items] == ["atthakatha", "mula"]


def test_a_comment_continues_in_its_unnumbered_paragraphs(research, full_store):
    following = full_store.book_passages("cst", "vin02a3.att", "pali", (1, 10_000))
    continuation = next(p for p in following if p.para.startswith("75."))
    assert coordinates(research.links(continuation.coordinate, kinds=["root"]).root) == ["cst/vin02m3.mul/75"]
    rule = research.links("cst/vin02m3.mul/75", kinds=["commentary"], limit=100)
    assert continuation.coordinate in coordinates(rule.commentary)
    assert (
        "continues the comment"
        in rule.commentary.items[coordinates(rule.commentary).index(continuation.coordinate)].reason
    )


def test_a_paragraph_without_its_own_comment_gets_the_section_it_falls_in(research, full_store):
    commented = {i.coordinate for i in research.links("cst/vin02m3.mul/75", kinds=["commentary"]).commentary.items}
    rules = [p for p in full_store.book_passages("cst", "vin02m3.mul", "pali") if layers.is_numbered(p.para)]
    att_numbers = {p.para for p in full_store.book_passages("cst", "vin02a3.att", "pali")}
    quiet = next(p for p in rules if int(p.para.split("-")[0]) > 75 and p.para not in att_numbers)
    found = research.links(quiet.coordinate, kinds=["commentary"]).commentary
    assert found.total and found.items[0].reason.startswith("no comment numbered for it")
    assert int(found.items[0].coordinate.rsplit("/", 1)[1].split("-")[0]) < int(quiet.para.split("-")[0])
    assert commented  # the numbered rule itself has its own comment


def test_coverage_of_the_layers_and_its_report(full_ingest):
    _, summary = full_ingest
    links = summary.links
    assert links["layers"]["atthakatha"]["share"] >= 0.95, links["layers"]
    report = Path(links["report"]).read_text(encoding="utf-8")
    assert "vin02a3.att\tCūḷavagga-aṭṭhakathā\tatthakatha\tvin02m3.mul" in report
    assert "not paired" in report and "vin09t.nrf" in report


def test_dn22_and_mn10_repeat_each_other(research):
    dn22 = research.links("DN 22", kinds=["parallels"], limit=20)
    assert dn22.reference == "DN 22" and dn22.paragraphs > 20
    top = dn22.parallels.items
    assert top[0].reference == "MN 10", [(i.coordinate, i.reference) for i in top]
    first = top[0]
    assert first.shared and first.words >= 10
    ours = research.get([first.of]).items[0].text
    assert " ".join(first.shared.split()[:3]).lower() in ours.lower()


def test_stock_formulas_are_not_parallels():
    """A stretch found in more than FORMULA paragraphs counts for none; a rarer shared stretch does."""
    formula = "evaṃ me sutaṃ ekaṃ samayaṃ bhagavā sāvatthiyaṃ viharati jetavane anāthapiṇḍikassa ārāme"
    rare = "atha kho āyasmā upāli yena bhagavā tenupasaṅkami upasaṅkamitvā bhagavantaṃ abhivādetvā ekamantaṃ nisīdi"
    texts = [f"{formula} tatra kho bhagavā bhikkhū āmantesi {i}" for i in range(parallels.FORMULA + 1)]
    texts += [f"{formula} {rare}", f"{rare} iti"]
    hashes, owners = parallels.shingles(texts)
    first, second, shared = parallels.pairs(hashes, owners.astype("int64"))
    assert list(zip(first.tolist(), second.tolist(), strict=True)) == [(len(texts) - 2, len(texts) - 1)]
    assert shared[0] == len(rare.split()) - parallels.K + 1


def test_formulas_do_not_head_an_ordinary_suttas_parallels(research):
    opening = research.links("cst/s0201m.mul/1", kinds=["parallels"], limit=5)  # MN 1 opens with evaṃ me sutaṃ
    for item in opening.parallels.items:
        assert "evam me sutam" not in fold(item.shared or "")


def test_mn10_opening_lists_its_verbatim_repeats(research):
    """Issue 41: MN 10's 17-word opening sentence stands in 33 paragraphs of the canon; each repeat is a parallel."""
    found = research.links("cst/s0201m.mul/106", kinds=["parallels"], limit=100).parallels.items
    computed = {i.coordinate: i for i in found if not i.curated}
    for repeat in ("cst/s0102m.mul/373", "cst/s0305m.mul/367.1"):  # DN 22, SN 47.1
        assert repeat in computed, sorted(computed)
        assert computed[repeat].words == 17 and "ekayano" in fold(computed[repeat].shared or "")
    order = [i.coordinate for i in found if not i.curated]  # whole repeats ahead of texts of partial echoes
    assert {"cst/s0102m.mul/373", "cst/s0305m.mul/367.1"} <= set(order[:4]), order[:6]


def test_a_formula_only_overlap_is_no_parallel(research):
    """MN 2 and MN 6 open with the same 26 words, all of them the Sāvatthī opening formula: not parallels."""
    texts = {i.coordinate: i.text for i in research.get(["cst/s0201m.mul/14", "cst/s0201m.mul/64"]).items}
    assert parallels.shared_span(texts["cst/s0201m.mul/14"], texts["cst/s0201m.mul/64"])[1] >= 25
    found = research.links("cst/s0201m.mul/14", kinds=["parallels"], limit=100).parallels.items
    assert "cst/s0201m.mul/64" not in [i.coordinate for i in found]


def test_refrains_within_a_work_come_after_the_parallels_of_other_works(research):
    """MN 8's sallekha refrain repeats from jhāna to jhāna: those repeats are marked and ranked after other works."""
    found = research.links("cst/s0201m.mul/82", kinds=["parallels"], limit=100).parallels.items
    computed = [i for i in found if not i.curated]
    assert computed, "no parallels"
    flags = [bool(i.same_work) for i in computed]
    assert flags == sorted(flags), "a repeat within the work ranked before another work's parallel"
    for item in computed:
        assert item.same_work == (item.coordinate.split("/")[1] == "s0201m.mul")


@pytest.mark.parametrize(
    ("comment", "root"),
    [
        ("cst/s0505a.att/293", "cst/s0505m.mul/292"),  # after the Suttanipāta's slip (two verses 274): one ahead
        ("cst/s0508a2.att/1205", "cst/s0508m.mul/1205"),  # Thag writes 1204 twice and the commentary follows it
        ("cst/s0514a1.att/137~2", "cst/s0514m.mul/137~2"),  # so do the Jātaka's 21~2, 21~3
    ],
)
def test_a_repeated_root_number_is_a_slip_only_where_the_texts_show_it(research, comment, root):
    assert root in coordinates(research.links(comment, kinds=["root"]).root)


def test_variants_name_their_editions_and_stay_out_of_the_text(research, full_store):
    p = next(p for p in full_store.book_passages("cst", "vin02m3.mul", "pali") if p.notes)
    found = research.links(p.coordinate, kinds=["variants"], limit=100).variants
    parsed = [r for note in p.notes for r in readings(note)]
    assert [i.reading for i in found.items] == [r.text for r in parsed]
    first = found.items[0]
    assert first.editions and all(e.name == EDITIONS[e.siglum] for e in first.editions)
    assert first.replaces and first.replaces in p.text


def test_a_note_is_read_as_readings_with_their_editions():
    assert readings("samāditabbaṃ (ka.)")[0].text == "samāditabbaṃ"
    two = readings("samphusito (syā.), saṃpuṭito (pī. ka.) ettha saṃphuṭitoti saṅkucitoti attho")
    assert [(r.text, [e.siglum for e in r.editions]) for r in two] == [
        ("samphusito", ["syā."]),
        ("saṃpuṭito", ["pī.", "ka."]),
    ]
    assert readings("mahāva. 9") == []  # a reference, not a variant
    assert EDITIONS["kaṃ."].startswith("Cambodian")


def test_links_are_paged_and_kinds_chosen(research):
    whole = research.links("cst/vin02m3.mul/75", kinds=["commentary"], limit=100).commentary
    page = research.links("cst/vin02m3.mul/75", kinds=["commentary"], limit=2, offset=1)
    assert page.commentary.total == whole.total and coordinates(page.commentary) == coordinates(whole)[1:3]
    assert page.root is None and page.parallels is None
    counts = research.links("cst/vin02m3.mul/75", limit=0)
    assert counts.commentary.total == whole.total and counts.commentary.items == []


def test_links_over_http_and_the_cli(full_ingest):
    client = TestClient(create_app(full_ingest[0]))
    ok = client.get("/api/v3/links", params={"coordinate": "cst/vin02a3.att/75", "kind": "root"})
    assert ok.status_code == 200 and ok.json()["data"]["root"]["items"][0]["coordinate"] == "cst/vin02m3.mul/75"
    bad = client.get("/api/v3/links", params={"coordinate": "cst/vin02m3.mul/75", "kind": "friends"})
    assert bad.status_code == 400 and "unknown link kind" in bad.json()["error"]["message"]
    missing = client.get("/api/v3/links", params={"coordinate": "cst/vin02m3.mul/99999"})
    assert missing.status_code == 400 and missing.json()["error"]["code"] == "not_found"
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "gantha.api.cli",
            "links",
            "cst/vin02m3.mul/75",
            "--index",
            str(full_ingest[0]),
            "--kind",
            "commentary",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(cli.stdout)["commentary"]["items"][0]["coordinate"] == "cst/vin02a3.att/75"


def test_curated_parallels_stand_beside_the_computed_ones(full_ingest, tmp_path):
    """A file in the format of SuttaCentral's relationship/parallels.json: the Pali parallels the index holds
    link to their coordinates, the others by their SuttaCentral address; all marked curated."""
    from gantha.ingest import ingest_parallels
    from gantha.store.embedded import EmbeddedStore

    sample = tmp_path / "parallels.json"
    sample.write_text(
        json.dumps([{"parallels": ["mn10", "~dn22", "ma98", "ea12.1"]}, {"mentions": ["an3.65", "sn56.11#3"]}]),
        encoding="utf-8",
    )
    store = EmbeddedStore(full_ingest[0])
    try:
        summary = ingest_parallels(store, sample)
        assert summary.ok and summary.passages == 8  # from each indexed text of a group to every other member
        assert ingest_parallels(store, sample).unchanged == 1
    finally:
        store.close()
    found = Research.open(full_ingest[0]).links("MN 10", kinds=["parallels"], limit=50).parallels.items
    curated = [i for i in found if i.curated]
    assert {i.reference for i in curated} == {"DN 22", "ma98", "ea12.1"}
    dn22 = next(i for i in curated if i.reference == "DN 22")
    assert dn22.coordinate.startswith("cst/s0102m.mul/") and "resembling parallel" in dn22.reason
    ma98 = next(i for i in curated if i.reference == "ma98")
    assert ma98.coordinate is None and ma98.url == "https://suttacentral.net/ma98"
    assert any(not i.curated and i.reference == "DN 22" for i in found)  # the computed ones beside them


def test_a_word_only_in_a_variant_is_found_with_variants_and_not_without(research, full_store):
    from gantha.model import SearchMode, SearchRequest

    reading = next(
        (p, w)
        for p in full_store.book_passages("cst", "vin02m3.mul", "pali")
        for note in p.notes
        for r in readings(note)
        for w in r.text.split()
        if len(w) > 6 and full_store.word_counts([w]).get(w, (0, 0))[0] == 0  # written in no paragraph's text
    )
    passage, word = reading
    without = research.search(SearchRequest(q=word, mode=SearchMode.EXACT))
    assert without.total == 0
    found = research.search(SearchRequest(q=word, mode=SearchMode.EXACT, variants=True))
    assert found.query_info.variants and passage.coordinate in [h.coordinate for h in found.hits]
    hit = next(h for h in found.hits if h.coordinate == passage.coordinate)
    assert hit.variant_only and any(word in r for r in hit.variant_readings)
    ordinary = research.search(SearchRequest(q="pārivāsikā", mode=SearchMode.EXACT, variants=True, limit=3))
    assert ordinary.hits and not any(h.variant_only for h in ordinary.hits)  # in the text itself


def test_search_the_commentaries_on_a_range_of_rules(research):
    from gantha.model import SearchRequest

    everywhere = research.search(SearchRequest(q="parivāsa", limit=1))
    commentary = research.search(SearchRequest(q="parivāsa", comments_on=["vin02m3.mul/75-110"], limit=100))
    assert 0 < commentary.total < everywhere.total
    on = set(research.commentaries_on(["vin02m3.mul/75-110"]))
    assert "cst/vin02a3.att/75" in on and any(c.startswith("cst/vin02t.tik/") for c in on)
    assert all(h.coordinate in on for h in commentary.hits)
    assert commentary.query_info.comments_on["paragraphs"] == len(on)
    listed = research.search(SearchRequest(comments_on=["vin02m3.mul/75"], limit=3))  # no words: in reading order
    assert listed.hits[0].coordinate == "cst/vin02a3.att/75"
