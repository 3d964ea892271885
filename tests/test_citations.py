"""Citations inside the texts as coordinates: parsing (pure) and resolution on real CST books.

Expected targets in the parsing tests follow the published structure of the collections (DN volume 2 is the
Mahāvagga, AN "10.61" is the Dasakanipāta, Jātaka "1.15.146" is the 15th nipāta of volume 1 …); the tests on
real books check each resolution independently of the resolver: the words the citing passage quotes must
occur in the resolved paragraph, and the heading of that paragraph must name the nipāta, vagga or tika cited.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from gantha.api.app import create_app
from gantha.corpus import cst
from gantha.ingest import ingest_cst, ingest_suttacentral
from gantha.model import Passage, TextRecord
from gantha.research import Research
from gantha.research.citing import cite, passage_citations, source_of
from gantha.search.errors import SearchError
from gantha.store.embedded import EmbeddedStore
from gantha.text.citations import Citation, Target, find_citations, parse_table, resolve, runs, table
from gantha.text.cite_export import CiteError, Source, bibtex, export, styled
from gantha.text.cite_pages import Page, PtsWork, cite_other, cite_pts, paragraph_label, paragraph_number, pts_work
from gantha.text.pali import fold
from gantha.tools import Toolbox

from conftest import CST, DATA, link_books

A, T = "atthakatha", "tika"


def one(text: str) -> Citation:
    (c,) = find_citations(text)
    return c


# ------------------------------------------------------------------------------------------- parsing

TOP = [  # (citation as written, abbreviation, targets); the 30 most frequent abbreviations and more
    ("(ma. ni. 1.22)", "ma. ni.", [Target("s0201m.mul", 22)]),
    ("(saṃ. ni. 5.1081)", "saṃ. ni.", [Target("s0305m.mul", 1081)]),
    ("(dī. ni. 2.95)", "dī. ni.", [Target("s0102m.mul", 95)]),
    ("(a. ni. 10.61)", "a. ni.", [Target("s0404m3.mul", 61)]),
    ("(a. ni. 4.34)", "a. ni.", [Target("s0402m3.mul", 34)]),
    ("(mahāva. 86)", "mahāva.", [Target("vin02m2.mul", 86)]),
    ("(pārā. 39)", "pārā.", [Target("vin01m.mul", 39)]),
    ("(pāci. 417)", "pāci.", [Target("vin02m1.mul", 417)]),
    ("(jā. 1.15.146)", "jā.", [Target("s0513m.mul", 146, run=15)]),
    ("(jā. 2.22.94)", "jā.", [Target("s0514m.mul", 94, run=6)]),  # volume 2 begins with nipāta 17
    ("(vibha. 751)", "vibha.", [Target("abh02m.mul", 751)]),
    ("(cūḷava. 384)", "cūḷava.", [Target("vin02m3.mul", 384)]),
    ("(dha. sa. 163)", "dha. sa.", [Target("abh01m.mul", 163, run=3)]),  # after the two mātikā runs
    ("(dha. pa. 183)", "dha. pa.", [Target("s0502m.mul", 183)]),
    ("(pārā. aṭṭha. 2.172)", "pārā. aṭṭha.", [Target("vin01m.mul", 172, layer=A)]),
    ("(paṭi. ma. 1.37)", "paṭi. ma.", [Target("s0517m.mul", 37, run=2)]),  # run 1 is the mātikā
    ("(visuddhi. 1.51)", "visuddhi.", [Target("e0101n.mul", 51)]),
    ("(su. ni. 407)", "su. ni.", [Target("s0505m.mul", 407)]),
    ("(pāci. aṭṭha. 417)", "pāci. aṭṭha.", [Target("vin02m1.mul", 417, layer=A)]),
    ("(mahāva. aṭṭha. 86)", "mahāva. aṭṭha.", [Target("vin02m2.mul", 86, layer=A)]),
    ("(paṭṭhā. 1.1.39)", "paṭṭhā.", [Target("abh03m7.mul", 39, run=1)]),
    ("(paṭṭhā. 2.12.78)", "paṭṭhā.", [Target("abh03m8.mul", 78, run=7)]),  # volume 2 begins with tika 6
    ("(pari. 3)", "pari.", [Target("vin02m4.mul", 3)]),
    ("(dī. ni. aṭṭha. 2.33)", "dī. ni. aṭṭha.", [Target("s0102m.mul", 33, layer=A)]),
    ("(mahāni. 150)", "mahāni.", [Target("s0515m.mul", 150)]),
    ("(apa. thera 2.46.64)", "apa. thera", [Target("s0510m2.mul", 64, run=4)]),  # volume 2 begins with vagga 43
    ("(cūḷava. aṭṭha. 102)", "cūḷava. aṭṭha.", [Target("vin02m3.mul", 102, layer=A)]),
    ("(dī. ni. ṭī. 3.305)", "dī. ni. ṭī.", [Target("s0103m.mul", 305, layer=T)]),
    ("(udā. 11)", "udā.", [Target("s0503m.mul", 11)]),
    ("(vibha. aṭṭha. 367)", "vibha. aṭṭha.", [Target("abh02m.mul", 367, layer=A)]),
    ("(dha. sa. aṭṭha. 350)", "dha. sa. aṭṭha.", [Target("abh01m.mul", 350, run=3, layer=A)]),
    ("(sārattha. ṭī. mahāvagga 3.26)", "sārattha. ṭī.", [Target("vin02m2.mul", 26, layer=T)]),
    ("(ma. ni. aṭṭha. 1.201)", "ma. ni. aṭṭha.", [Target("s0201m.mul", 201, layer=A)]),
    ("(itivu. 1)", "itivu.", [Target("s0504m.mul", 1)]),
    ("(bu. vaṃ. 2.83)", "bu. vaṃ.", [Target("s0511m.mul", 83, run=2)]),
    ("(yama. 2.cittayamaka.81)", "yama.", [Target("abh03m5.mul", 81, run=5)]),
    ("(netti. 40)", "netti.", [Target("s0519m.mul", 40, run=3)]),
    ("(khu. pā. 5.3)", "khu. pā.", [Target("s0501m.mul", 3, run=3)]),  # sections 2, 4, 5 … are runs 1, 2, 3 …
    ("(theragā. 1027)", "theragā.", [Target("s0508m.mul", 1027)]),
    ("(saṃ. ni. aṭṭha. 3.4.238)", "saṃ. ni. aṭṭha.", [Target("s0304m.mul", 238, layer=A)]),
    ("(a. ni. aṭṭha. 3.8.65)", "a. ni. aṭṭha.", [Target("s0404m1.mul", 65, layer=A)]),
    ("(kathā. 296)", "kathā.", [Target("abh03m3.mul", 296)]),
    ("(visuddhi. mahāṭī. 2.650)", "visuddhi. mahāṭī.", [Target("e0104n.att", 650)]),
    ("(vi. saṅga. aṭṭha. 156 ādayo)", "vi. saṅga. aṭṭha.", [Target("vin05t.nrf", 156)]),
    ("(cūḷani. khaggavisāṇasuttaniddesa 121)", "cūḷani.", [Target("s0516m.mul", 121, run=2)]),
    ("(mi. pa. 4.1.6)", "mi. pa.", [Target("s0518m.nrf", 6, run=9)]),
]


@pytest.mark.parametrize(("text", "abbreviation", "targets"), TOP, ids=[t[1] + " " + t[0] for t in TOP])
def test_top_abbreviations(text: str, abbreviation: str, targets: list[Target]) -> None:
    c = one(text)
    assert (c.abbreviation, list(c.targets), c.problem) == (abbreviation, targets, None)
    assert c.text == text.strip("()").removesuffix(" ādayo")
    assert text[c.start : c.end] == c.text


def test_ranges_are_expanded() -> None:
    assert [t.number for t in one("(mahāva. 84-86)").targets] == [84, 85, 86]
    assert [(t.book, t.number) for t in one("(saṃ. ni. 1.1-2)").targets] == [("s0301m.mul", 1), ("s0301m.mul", 2)]
    assert [t.number for t in one("(pārā. aṭṭha. 2.583-4)").targets] == [583, 584]  # the end's last digits
    assert [t.number for t in one("(dha. pa. 153–154)").targets] == [153, 154]  # an en dash


def test_continuations_inherit_abbreviation_and_volume() -> None:
    text = "(dī. 1.10, 194; ma. ni. 1.293; 3.14)"
    found = find_citations(text)
    assert [(c.text, c.abbreviation) for c in found] == [
        ("dī. 1.10", "dī. ni."),
        ("194", "dī. ni."),
        ("ma. ni. 1.293", "ma. ni."),
        ("3.14", "ma. ni."),
    ]
    assert [c.targets[0] for c in found] == [
        Target("s0101m.mul", 10),
        Target("s0101m.mul", 194),  # volume 1 inherited
        Target("s0201m.mul", 293),
        Target("s0203m.mul", 14),  # a volume of its own
    ]
    assert [text[c.start : c.end] for c in found] == [c.text for c in found]


def test_lists_at_semicolons_and_commas() -> None:
    jataka = find_citations("(jā. 1.15.146; 2.20.129)")
    assert [c.targets for c in jataka] == [(Target("s0513m.mul", 146, 15),), (Target("s0514m.mul", 129, 4),)]
    assert [c.targets[0].number for c in find_citations("(pari. 3, 8)")] == [3, 8]
    mixed = find_citations("(mahāva. 1-3; udā. 1-3; saṃ. ni. 3.81, 345)")
    assert [(c.abbreviation, len(c.targets)) for c in mixed] == [
        ("mahāva.", 3),
        ("udā.", 3),
        ("saṃ. ni.", 1),
        ("saṃ. ni.", 1),
    ]
    assert mixed[-1].targets == (Target("s0303m.mul", 345),)


def test_named_sections_select_runs_and_continue() -> None:
    found = find_citations("(dha. sa. tikamātikā 11; dukamātikā 12)")
    assert [c.targets for c in found] == [(Target("abh01m.mul", 11, 1),), (Target("abh01m.mul", 12, 2),)]
    assert one("(vi. vi. ṭī. mahāvagga 2.201)").targets == (Target("vin07t.nrf", 201, 4),)
    assert one("(vajira. ṭī. pārājika 76)").targets == (Target("vin06t.nrf", 76, 1),)


def test_missing_separator_starts_a_new_citation() -> None:
    found = find_citations("(dī. ni. aṭṭha. 1.1 ma. ni. aṭṭha. 1.1)")
    assert [c.abbreviation for c in found] == ["dī. ni. aṭṭha.", "ma. ni. aṭṭha."]


def test_spelling_variants() -> None:
    assert one("(Dī.ni. 2.90)").targets == one("(dī. ni. 2.90)").targets
    assert one("(dha.pa. 183)").abbreviation == "dha. pa."
    assert one("(cuḷava. 442)").targets == (Target("vin02m3.mul", 442),)  # a CST misspelling
    assert one("(cariyā 3.65)").targets == (Target("s0512m.mul", 65, 3),)  # the dot forgotten
    assert one("(Saṃ. ni. 2.64)").abbreviation == "saṃ. ni."


@pytest.mark.parametrize(
    ("text", "abbreviation", "problem"),
    [
        ("(nāma. pari. 24)", "nāma. pari.", "unknown abbreviation"),
        ("(dha. pa. aṭṭha. 1.10 sāriputtattheravatthu)", "dha. pa. aṭṭha.", None),
        ("(sārattha. ṭī. 1.paṭhamamahāsaṅgītikathāvaṇṇanā)", "sārattha. ṭī.", "named section, no number"),
        ("(su. ni. āḷavakasutta)", "su. ni.", "named section, no number"),
        ("(ma. ni. 7.22)", "ma. ni.", "volume 7 of a 3-volume work"),
        ("(sārattha. ṭī. 3.417)", "sārattha. ṭī.", "volume 3 holds several books and no section is named"),
        ("(pāṇini 3.2.5)", "pāṇini", "Pāṇini's grammar: a work outside the CST canon"),
        ("(jātaka aṭṭha. 2-302 piṭṭhe)", "jā. aṭṭha.", "a page number, not a paragraph"),
        ("(ma. ni. 1.2.3.4)", "ma. ni.", "4 numbers where ma. ni. is cited as vol.para"),
    ],
)
def test_unresolved_are_reported_with_a_reason(text: str, abbreviation: str, problem: str | None) -> None:
    c = one(text)
    assert (c.abbreviation, c.problem) == (abbreviation, problem)
    assert bool(c.targets) == (problem is None)


@pytest.mark.parametrize(
    "text",
    [
        "Tattha (1.) paṭhamaṃ, (2) dutiyaṃ.",  # enumerations
        "pañcasatāni bhikkhū 500 nisīdiṃsu (yathā 191 ādayo anucchedā, evaṃ vitthāretabbaṃ)",  # prose numbers
        "(Iti sarapaccayā)",  # a word that is also a work's name, no number
        "(Avipākaṃ – 4)",
        "evaṃ vutte (āyasmā ānando) bhagavantaṃ etadavoca",
    ],
)
def test_not_citations(text: str) -> None:
    assert find_citations(text) == []


def test_trailing_words_tolerated() -> None:
    assert one("(su. ni. 407 ādayo)").targets == (Target("s0505m.mul", 407),)
    assert one("(a. ni. 10.217 thokaṃ visadisaṃ)").targets == (Target("s0404m3.mul", 217),)


# ---------------------------------------------------------------------------------------- resolution


def test_resolve_by_run_and_range() -> None:
    numbering = {"x.mul": ["1", "2", "3-5", "7", "1~2", "2~2", "2~3", "4~2"]}
    assert resolve(Target("x.mul", 4), numbering) == "3-5"
    assert resolve(Target("x.mul", 2, run=2), numbering) == "2~2"  # the first of a repeated number
    assert resolve(Target("x.mul", 6), numbering) is None  # a gap
    assert resolve(Target("x.mul", 1, run=3), numbering) is None
    assert resolve(Target("y.mul", 1), numbering) is None
    assert [sorted(r) for r in runs(numbering["x.mul"])] == [[1, 2, 3, 4, 5, 7], [1, 2, 4]]


def test_layer_resolves_to_the_root_paragraph() -> None:
    numbering = {"vin02m2.mul": ["84-87", "88"]}
    assert resolve(Target("vin02m2.mul", 86, layer=A), numbering) == "84-87"


def test_table_parses_its_own_format() -> None:
    works = parse_table("# comment\nab. cd.\tA work\tatthakatha\tvol.para|para\t1=b1.mul 2=b2.mul@3:1-9 x\tab cd\n")
    work = works["ab cd"]
    assert (work.abbreviation, work.layer, work.schemes) == ("ab. cd.", A, (("vol", "para"), ("para",)))
    assert work.entries["2"][0].run == 3 and work.entries["2"][0].numbers == (1, 9)
    assert work.entries["*"][0].book == "x"
    with pytest.raises(ValueError, match="unknown layer"):
        parse_table("ab.\tA\tcommentary\tpara\tx\n")


# ------------------------------------------------------------------------------------ real CST books


@cache
def books() -> dict[str, cst.CstBook]:
    found, problems = cst.discover(CST)
    assert not problems
    return {b.book: b for b in found}


@cache
def passages(book: str) -> tuple[Passage, ...]:
    return tuple(cst.read_book(books()[book]))


def numbering(*names: str) -> dict[str, list[str]]:
    return {n: [p.para for p in passages(n) if "." not in p.para] for n in names}


def block(book: str, para: str) -> tuple[str, list[str]]:
    """A numbered paragraph's text with the unnumbered paragraphs after it, and its heading path."""
    ps = passages(book)
    i = next(k for k, p in enumerate(ps) if p.para == para)
    j = next((k for k in range(i + 1, len(ps)) if "." not in ps[k].para), len(ps))
    return " ".join(p.text for p in ps[i:j]), ps[i].path


def quoted(text: str, citation: Citation) -> list[str]:
    """The words (4+ letters, folded) of the quotation ‘‘…’’ just before the citation's parenthesis."""
    before = text[: text.rfind("(", 0, citation.start)]
    m = re.search(r"‘‘([^‘’]+)’’[^‘’()]{0,40}$", before)
    assert m, "the citing passage quotes what it cites"
    return [w for w in re.findall(r"\w+", fold(m.group(1))) if len(w) >= 4]


def contains(text: str, words: list[str]) -> bool:
    """Most quoted words occur (their ending may differ by sandhi) in the text."""
    folded = fold(text)
    return sum(w[: max(4, len(w) - 2)] in folded for w in words) >= 0.75 * len(words)


def cited(book: str, para: str, written: str) -> tuple[str, Citation]:
    text = next(p.text for p in passages(book) if p.para == para)
    return text, next(c for c in find_citations(text) if c.text == written)


REAL = [  # (citing book, paragraph, citation as written, heading the resolved paragraph must lie under)
    ("vin02a3.att", "75", "mahāva. 86", "Mahākhandhako"),
    ("abh01a.att", "0.101", "a. ni. 10.61", "Dasakanipātapāḷi"),
    ("abh01a.att", "0.47", "saṃ. ni. 5.195", "Mahāvaggo"),
    ("abh01a.att", "0.149", "dī. ni. 2.218", "Mahāvaggapāḷi"),
    ("abh01a.att", "1.2", "ma. ni. 2.361", "Majjhimapaṇṇāsapāḷi"),
    ("abh01a.att", "1.2", "jā. 1.15.146", "15. Vīsatinipāto"),
    ("abh01a.att", "1.2", "2.20.129", "20. Sattatinipāto"),
    ("abh01a.att", "1.2", "jā. 2.22.94", "22. Mahānipāto"),
    ("abh08t.nrf", "128-130", "apa. thera 1.1.286", "1. Buddhavaggo"),
    ("abh01t.tik", "600.4", "paṭṭhā. 2.12.78", "12. Parittattikaṃ"),
    ("abh02t.tik", "205~2.4", "visuddhi. 2.644", "17. Paññābhūminiddeso"),
    ("abh02t.tik", "219~2.9", "mi. pa. 4.1.6", "1. Iddhibalavaggo"),
    ("abh02t.tik", "20.21", "yama. 2.saṅkhārayamaka.128", "6. Saṅkhārayamakaṃ"),
    ("s0201t.tik", "506", "khu. pā. 6.18", "6. Ratanasuttaṃ"),
    ("s0301t.tik", "246.4", "bu. vaṃ. 2.83", "2. Sumedhapatthanākathā"),
    ("abh01a.att", "285.1", "paṭi. ma. 2.17", "2. Yuganaddhavaggo"),
    ("abh01a.att", "160", "netti. 40", "4. Paṭiniddesavāro"),
    ("abh01a.att", "13~2.5", "cūḷani. khaggavisāṇasuttaniddesa 154", "Khaggavisāṇasuttaniddeso"),
    ("abh01a.att", "1.2", "dha. sa. 431", "Dhammasaṅgaṇīpāḷi"),
    ("vin08t.nrf", "56~2.10", "vi. vi. ṭī. mahāvagga 2.253", "Cammakkhandhako"),  # where Mahāvagga 253 lies
    ("vin08t.nrf", "163.20", "vajira. ṭī. mahāvagga 138", "Mahāvaggavaṇṇanā"),
]


@pytest.mark.parametrize(("book", "para", "written", "heading"), REAL, ids=[r[2] for r in REAL])
def test_resolves_to_the_paragraph_quoted(book: str, para: str, written: str, heading: str) -> None:
    text, c = cited(book, para, written)
    target = c.targets[0]
    resolved = resolve(target, numbering(target.book))
    assert resolved, c
    body, path = block(target.book, resolved)
    assert contains(body, quoted(text, c)), (c, resolved, body[:300])
    assert any(heading in h for h in path), (resolved, path)


def test_issue_example_mahavagga_86() -> None:
    """(mahāva. 86) in the Cūḷavagga commentary, paragraph 75, is Mahāvagga paragraph 86."""
    text, c = cited("vin02a3.att", "75", "mahāva. 86")
    assert (c.targets, resolve(c.targets[0], numbering("vin02m2.mul"))) == ((Target("vin02m2.mul", 86),), "86")
    assert contains(block("vin02m2.mul", "86")[0], quoted(text, c))


LAYERED = [  # a commentary cited: the quotation is in the commentary paragraph carrying the root number
    ("s0105t.nrf", "359.1", "pārā. aṭṭha. 2.162", "vin01a.att"),
    ("s0104t.nrf", "15.5", "cūḷava. aṭṭha. 297", "vin02a3.att"),
    ("abh01a.att", "285", "saṃ. ni. aṭṭha. 3.5.182", "s0305a.att"),
    ("abh08t.nrf", "27~2.34", "a. ni. aṭṭha. 3.8.65", "s0404a.att"),
    ("s0102t.tik", "385.6", "dha. pa. aṭṭha. 2.380", "s0502a.att"),
    ("s0104t.nrf", "3.1", "dī. ni. ṭī. 1.3", "s0101t.tik"),
    ("s0202t.tik", "69.10", "sārattha. ṭī. mahāvagga 3.26", "vin02t.tik"),
]


@pytest.mark.parametrize(("book", "para", "written", "commentary"), LAYERED, ids=[r[2] for r in LAYERED])
def test_layers_point_at_the_commentary_on_the_root(book: str, para: str, written: str, commentary: str) -> None:
    text, c = cited(book, para, written)
    target = c.targets[0]
    assert target.layer in (A, T) and target.book.endswith(".mul")
    assert resolve(target, numbering(target.book))  # the root paragraph exists
    words = quoted(text, c)
    carrying = [p for p in passages(commentary) if "." not in p.para and _covers(p.para, target.number)]
    assert any(contains(block(commentary, p.para)[0], words) for p in carrying), (c, [p.para for p in carrying])


def _covers(para: str, number: int) -> bool:
    lo, _, hi = para.split("~")[0].partition("-")
    return int(lo) <= number <= int(hi or lo)


@pytest.mark.parametrize(
    ("book", "heading"),
    [("s0513m.mul", r"^{k}\. \w+nipāto$"), ("s0511m.mul", r"^{k}\. "), ("s0512m.mul", r"^{k}\. \w+vaggo$")],
)
def test_numbering_runs_follow_the_chapters(book: str, heading: str) -> None:
    """Run k of the Jātaka is nipāta k, of the Buddhavaṃsa chapter k, of the Cariyāpiṭaka vagga k."""
    ids = numbering(book)[book]
    firsts = [next(iter(r.values())) for r in runs(ids)]
    paths = {p.para: p.path for p in passages(book)}
    for k, first in enumerate(firsts, 1):
        assert any(re.match(heading.format(k=k), h) for h in paths[first]), (k, first, paths[first])


NIPATA = [
    "Ekaka",
    "Duka",
    "Tika",
    "Catukka",
    "Pañcaka",
    "Chakka",
    "Sattaka",
    "Aṭṭhakādi",
    "Navaka",
    "Dasaka",
    "Ekādasaka",
]


def test_volumes_select_the_right_books() -> None:
    """The books of the volume-numbered collections, by their titles in CST."""
    titles = {name: b.info.title for name, b in books().items()}
    works = table()
    for n, name in enumerate(NIPATA, 1):
        assert titles[works["a ni"].entries[str(n)][0].book].startswith(name), n
    for n, name in enumerate(["Sīlakkhandhavagga", "Mahāvagga", "Pāthikavagga"], 1):
        assert titles[works["di ni"].entries[str(n)][0].book].startswith(name)
    for n, name in enumerate(["Mūlapaṇṇāsa", "Majjhimapaṇṇāsa", "Uparipaṇṇāsa"], 1):
        assert titles[works["ma ni"].entries[str(n)][0].book].startswith(name)
    for n, name in enumerate(["Sagāthāvagga", "Nidānavagga", "Khandhavagga", "Saḷāyatanavagga", "Mahāvagga"], 1):
        assert titles[works["sam ni"].entries[str(n)][0].book].startswith(name)


def test_every_book_of_the_table_exists() -> None:
    for work in {id(w): w for w in table().values()}.values():
        for entries in work.entries.values():
            for entry in entries:
                assert entry.book == "?" or entry.book in books(), (work.abbreviation, entry.book)


# ------------------------------------------------------------------- citing a passage: pages, exports

CSL_TYPES = {"book", "chapter", "article", "manuscript", "classic", "document"}
CSL_VARIABLES = {
    "id", "type", "title", "container-title", "collection-title", "edition", "publisher", "publisher-place",
    "language", "section", "note", "URL", "author",
}  # the CSL-JSON schema's names for what an item of ours holds (csl-data.json)


def at(book: str, para: str) -> Passage:
    return next(p for p in passages(book) if p.para == para)


def test_a_paragraph_is_cited_from_the_page_it_begins_on_to_the_page_it_ends_on() -> None:
    # SN 56.11's first paragraph runs from S V 420 onto 421 (P5.0420, P5.0421): the first page was dropped
    sn = at("s0305m.mul", "1081")
    assert [k for k in sn.page_refs if k[0] == "P"] == ["P5.0420", "P5.0421"]
    cited = passage_citations(sn, None)
    assert "PTS S V 420–421" in cited["default"] and "S V 421)" not in cited["default"]
    # the same in a commentary (Sp 1159–1160) and at MN 10's opening (M I 55–56)
    assert "PTS Sp 1159–1160" in passage_citations(at("vin02a3.att", "75"), None)["default"]
    assert "PTS M I 55–56" in passage_citations(at("s0201m.mul", "106"), None)["default"]
    # a paragraph on one page names that page alone
    assert source_of([at("s0201m.mul", "107")]).pages["PTS"] == "M I 56"


def test_a_range_runs_from_its_first_page_to_its_last() -> None:
    book = passages("s0305m.mul")
    i = next(k for k, p in enumerate(book) if p.para == "1081")
    j = next(k for k, p in enumerate(book) if p.para == "1082")  # SN 56.11 is 1081 and what follows it
    source = source_of(book[i:j])
    last = max(int(k[3:]) for p in book[i:j] for k in p.page_refs if k.startswith("P5."))
    assert source.pages["PTS"] == f"S V 420–{last}" and last > 421
    assert source.paragraphs == "CST para 1081" and source.coordinate == f"cst/s0305m.mul/1081-{book[j - 1].para}"
    assert source_of([book[i], book[j]]).paragraphs == "CST paras 1081–1082"


def test_single_volume_works_by_page_the_dhammapada_by_verse() -> None:
    assert source_of([at("s0503m.mul", "2")]).pages["PTS"] == "Ud 1–2"  # was "PTS 0.1"
    assert source_of([at("s0502m.mul", "183.1")]).pages["PTS"] == "Dhp 183"
    assert source_of([p for p in passages("s0502m.mul") if p.para.split(".")[0] in ("1", "2")]).pages["PTS"] == (
        "Dhp 1–2"
    )
    for book in ("s0503m.mul", "s0518m.nrf", "abh01m.mul", "vin02a3.att"):  # no volume 0 of any edition
        for p in passages(book)[::25]:
            default = passage_citations(p, None)["default"]
            assert not re.search(r"\b0\.\d", default), (p.coordinate, default)
    assert source_of([at("s0518m.nrf", "1.1")]).pages["PTS"] == "Mil 1"


def test_pts_conventions_of_each_collection() -> None:
    span = (Page(2, 31), Page(2, 31))
    assert cite_pts("vin02m3.mul", span) == "Vin II 31"
    assert cite_pts("s0402a.att", (Page(2, 150), Page(3, 1))) == "Mp II 150 – III 1"  # over two volumes
    assert cite_pts("vin02a3.att", (Page(6, 1159), Page(6, 1160))) == "Sp 1159–1160"  # paginated through
    assert cite_pts("s0510m2.mul", (Page(2, 379), Page(2, 380))) == "Ap 379–380"  # paginated through its parts
    assert cite_pts("s0505m.mul", (Page(0, 25), Page(0, 25))) == "Sn p. 25"  # the PTS verse numbers differ
    assert cite_pts("x9999m.mul", span) == "PTS II 31"
    assert cite_other("V", (Page(3, 484), Page(3, 485))) == "VRI 3.484–485"
    assert pts_work("abh03m2.mul") == PtsWork("Pp", "page")
    with pytest.raises(ValueError, match="not a page key"):
        Page.parse("P5-420")


def test_no_internal_suffix_in_any_citation() -> None:
    p = at("vin02a3.att", "102~2")  # the CST's second paragraph numbered 102
    cited = passage_citations(p, None)
    assert "CST para 102 " in cited["default"]
    for p in passages("vin02a3.att"):
        source = source_of([p])
        shown = [*passage_citations(p, None).values(), source.note, bibtex(source).split("coordinate =")[0]]
        assert not any("~" in s or re.search(r"para \d+\.\d", s) for s in shown), (p.coordinate, shown)
    assert paragraph_label(["0.1", "0.2"]) == "" and paragraph_number("84-87") == "84–87"


def mn10_opening() -> Source:
    named = TextRecord("mn10", "MN 10", "cst", "s0201m.mul", "105", "138.6", 0, 0, "", "Mahāsatipaṭṭhānasutta")
    return source_of([at("s0201m.mul", "106")], named)


def test_bibtex_parses_back_with_its_fields() -> None:
    import bibtexparser

    source = mn10_opening()
    library = bibtexparser.parse_string(export([source], "bibtex"))
    assert not library.failed_blocks
    (entry,) = library.entries
    assert entry.entry_type == "incollection" and entry.key == "cst-s0201m.mul-106"
    fields = {f.key: f.value for f in entry.fields}
    assert fields["title"] == "Mahāsatipaṭṭhānasutta" and fields["booktitle"] == "Mūlapaṇṇāsapāḷi"
    assert fields["series"] == "Majjhimanikāya" and fields["coordinate"] == "cst/s0201m.mul/106"
    assert fields["note"].startswith("MN 10; CST para 106; PTS M I 55–56; VRI 1.71")
    assert fields["author"] == "{Vipassana Research Institute}"
    escaped = bibtex(replace(source, title="50% & #1_{x}"))
    assert r"title = {50\% \& \#1\_\{x\}}" in escaped


def test_ris_parses_back_with_its_tags() -> None:
    import rispy

    (record,) = rispy.loads(export([mn10_opening()], "ris"))
    assert record["type_of_reference"] == "CHAP" and record["id"] == "cst/s0201m.mul/106"
    assert record["title"] == "Mahāsatipaṭṭhānasutta" and record["secondary_title"] == "Mūlapaṇṇāsapāḷi"
    assert record["publisher"] == "Vipassana Research Institute" and "PTS M I 55–56" in record["notes"][0]


def test_csl_json_holds_the_required_keys_and_renders_in_styles() -> None:
    items = json.loads(export([mn10_opening(), source_of([at("s0503m.mul", "2")])], "csl-json"))
    assert [i["id"] for i in items] == ["cst/s0201m.mul/106", "cst/s0503m.mul/2"]
    for item in items:
        assert {"id", "type"} <= item.keys() <= CSL_VARIABLES and item["type"] in CSL_TYPES
        assert all(isinstance(v, str) for k, v in item.items() if k != "author")
    apa = styled(mn10_opening(), "apa")
    assert apa.startswith("Vipassana Research Institute. (n.d.). Mahāsatipaṭṭhānasutta. In Mūlapaṇṇāsapāḷi")
    assert "Mahāsatipaṭṭhānasutta" in styled(mn10_opening(), "chicago-author-date")
    with pytest.raises(CiteError, match="unknown citation style 'no-such-style'"):
        styled(mn10_opening(), "no-such-style")
    with pytest.raises(CiteError, match="known: bibtex, ris, csl-json"):
        export([mn10_opening()], "endnote")


# ------------------------------------------------------------------ the verb on every surface


@pytest.fixture(scope="module")
def cite_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three real CST books and SuttaCentral's MN 10, indexed (a few seconds)."""
    root = tmp_path_factory.mktemp("cite")
    store = EmbeddedStore(root / "index")
    assert ingest_cst(store, link_books(root / "cst", ("vin02a3.att", "s0503m.mul", "s0201m.mul"))).ok
    sc = DATA / "suttacentral"
    for rel in ("root/pli/ms/sutta/mn/mn10_root-pli-ms.json.gz", "_publication-v2.json.gz"):
        (root / "sc" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "sc" / rel).symlink_to(sc / rel)
    assert ingest_suttacentral(store, root / "sc").ok
    store.close()
    return root / "index"


def test_cite_a_named_text_a_range_and_a_paragraph(cite_index: Path) -> None:
    research = Research.open(cite_index)
    whole = cite(research, "MN 10")
    assert whole.reference == "MN 10" and whole.coordinate.startswith("cst/s0201m.mul/105-")
    assert whole.pages["PTS"].startswith("M I 55–") and whole.citation.startswith("MN 10")
    assert set(whole.styles) == {"apa", "mla"} and whole.export is None
    ranged = cite(research, "cst/s0503m.mul/1-3", "ris", ["chicago"])
    assert ranged.coordinate == "cst/s0503m.mul/1-3" and "CST paras 1–3 (PTS Ud 1–3" in ranged.citation
    assert set(ranged.styles) == {"chicago"} and ranged.export and ranged.export.startswith("TY  - CHAP")
    one = cite(research, "cst/vin02a3.att/102~2", "bibtex")
    assert "~" not in one.citation and one.export and "coordinate = {cst/vin02a3.att/102~2}" in one.export
    with pytest.raises(SearchError, match="unknown citation style"):
        cite(research, "MN 10", styles=["nonesuch"])
    item = research.get(["cst/s0201m.mul/106"]).items[0]
    assert item.citations and "PTS M I 55–56" in item.citations.default and "MN 10" in item.citations.default


def test_cite_over_http_mcp_and_the_cli(cite_index: Path) -> None:
    client = TestClient(create_app(cite_index))
    ok = client.get("/api/v3/cite", params={"coordinate": "cst/vin02a3.att/75", "format": "csl-json"})
    assert ok.status_code == 200, ok.text
    data = ok.json()["data"]
    assert data["pages"]["PTS"] == "Sp 1159–1160" and json.loads(data["export"])[0]["id"] == "cst/vin02a3.att/75"
    bad = client.get("/api/v3/cite", params={"coordinate": "cst/vin02a3.att/75", "format": "endnote"})
    assert bad.status_code in (400, 422) and "bibtex|ris|csl-json" in bad.text
    tool = Toolbox(Research.open(cite_index)).cite(coordinate="MN 10", format="bibtex")
    assert tool["export"].startswith("@incollection{cst-s0201m.mul-105-")
    cli = subprocess.run(
        [sys.executable, "-m", "gantha.api.cli", "cite", "cst/s0201m.mul/106", "--format", "ris", "--index",
         str(cite_index)],
        capture_output=True, text=True, check=True,
    )
    assert cli.stdout.splitlines()[0] == "TY  - CHAP" and "N1  - MN 10; CST para 106; PTS M I 55–56" in cli.stdout


def test_another_corpus_names_no_edition_of_the_canon() -> None:
    verse = Passage("bible", "43", "3.16", 3, "For God so loved the world", "", channel="kjv", language="en",
                    book_title="John", chapter_title="3")
    item = json.loads(export([source_of([verse])], "csl-json"))[0]
    assert item == {"id": "bible/43/3.16", "type": "book", "title": "John", "language": "en", "section": "3.16",
                    "note": "3.16"}
    assert "Vipassana" not in bibtex(source_of([verse])) and styled(source_of([verse]), "apa")


def test_books_holding_two_works_are_cited_by_the_one_the_pages_belong_to() -> None:
    kkh = next(p for p in passages("vin04t.nrf") if any(k[0] == "P" for k in p.page_refs))
    assert source_of([kkh]).pages["PTS"].startswith("Kkh ")


def pts_pages(*names: str) -> list[tuple[int, int, int]]:
    """(volume, first page, last page) of each PTS volume the page breaks of these books mark."""
    pages: dict[int, list[int]] = {}
    for name in names:
        for root in cst.parse_book(books()[name]):
            for pb in root.iter("pb"):
                if pb.get("ed") == "P" and re.fullmatch(r"\d+\.\d+", pb.get("n") or ""):
                    volume, page = pb.get("n").split(".")
                    pages.setdefault(int(volume), []).append(int(page))
    return [(v, min(pages[v]), max(pages[v])) for v in sorted(pages)]


@pytest.mark.parametrize(
    ("names", "through"),
    [
        (("vin02a1.att", "vin02a2.att", "vin02a3.att", "vin02a4.att"), True),  # Sp IV–VII: 735–1416
        (("s0505a.att",), True),  # Pj II
        (("s0401a.att", "s0402a.att"), False),  # Mp I–III, each from page 1
    ],
)
def test_works_cited_by_page_alone_are_paginated_through_their_volumes(names: tuple[str, ...], through: bool) -> None:
    volumes = pts_pages(*names)
    assert len(volumes) > 1
    continuous = all(nxt[1] > prev[2] for prev, nxt in zip(volumes, volumes[1:], strict=False))
    assert continuous == through, volumes
    work = pts_work(names[0])
    assert work and (work.style == "page") == through


def test_styled_entries_rendered_once_per_shape_equal_those_rendered_one_by_one() -> None:
    from gantha.text.cite_export import _render

    sample = [replace(mn10_opening(), title="Sutta ‘quoted’ here.")]
    for book in ("vin02a3.att", "s0503m.mul", "abh01m.mul", "s0513a3.att"):  # s0513a3.att: digits, brackets
        sources = {}
        for p in passages(book):
            source = source_of([p])
            sources.setdefault((source.title, source.book_title, source.collection), source)
        sample += list(sources.values())[::3][:6]
    assert any(any(c.isdigit() for c in s.title + s.collection) for s in sample)
    for style in ("apa", "modern-language-association", "chicago-author-date"):
        for source in sample:
            assert styled(source, style) == _render(source, style), (style, source.title)
