"""Citations inside the texts as coordinates: parsing (pure) and resolution on real CST books.

Expected targets in the parsing tests follow the published structure of the collections (DN volume 2 is the
Mahāvagga, AN "10.61" is the Dasakanipāta, Jātaka "1.15.146" is the 15th nipāta of volume 1 …); the tests on
real books check each resolution independently of the resolver: the words the citing passage quotes must
occur in the resolved paragraph, and the heading of that paragraph must name the nipāta, vagga or tika cited.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from gantha.corpus import cst
from gantha.model import Passage
from gantha.text.citations import Citation, Target, find_citations, parse_table, resolve, runs, table
from gantha.text.pali import fold

from conftest import CST

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
