"""CST reader on real books: coordinates, headings, page refs, bold, notes, both layouts, bad files."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from lxml import etree

from gantha.corpus.cst import BookError, discover, parse_book, read_book
from gantha.corpus.files import read_text

from conftest import book_files, link_books

# counts computed straight from the XML with XPath, independently of the reader
XPATH = {
    "paragraphs": "count(//p)",
    "numbered": "count(//p[@n])",
    "page_refs": "count(//pb)",
    "bold_terms": "count(//hi[@rend='bold'][normalize-space(.)!=''][not(ancestor::hi[@rend='bold'])])",
}


def independent_counts(book: str) -> dict[str, int]:
    totals = dict.fromkeys(XPATH, 0)
    for f in book_files(book):
        if ".toc." in f.name:
            continue
        root = etree.fromstring(re.sub(r"^<\?xml[^>]*\?>", "", read_text(f)))
        for k, xp in XPATH.items():
            totals[k] += int(root.xpath(xp))
    return totals


def read(folder: Path, book: str):
    books, problems = discover(folder)
    assert not problems
    (found,) = [b for b in books if b.book == book]
    return found, list(read_book(found))


@pytest.mark.parametrize("book", ["vin02m3.mul", "vin02a3.att", "s0101m.mul"])
def test_counts_match_the_xml(small_cst, book):
    _, passages = read(small_cst, book)
    expected = independent_counts(book)
    assert len(passages) == expected["paragraphs"]
    assert sum(1 for p in passages if "." not in p.para) == expected["numbered"]
    assert sum(len(p.page_starts) for p in passages) == expected["page_refs"]
    assert sum(p.display.count("**") // 2 for p in passages) == expected["bold_terms"]  # every span marked
    assert sum(len(p.bold) for p in passages) >= expected["bold_terms"]
    assert len({p.coordinate for p in passages}) == len(passages)


def test_paragraph_75_of_the_culavagga(small_cst):
    info, passages = read(small_cst, "vin02m3.mul")
    assert info.info.title == "Cūḷavaggapāḷi"
    assert info.info.category == "mula" and info.info.tags == ["vinaya", "khandhaka", "mula", "culavagga"]
    (p,) = [p for p in passages if p.coordinate == "cst/vin02m3.mul/75"]
    assert p.path[:3] == ["Vinayapiṭake", "Cūḷavaggapāḷi", "2. Pārivāsikakkhandhakaṃ"]
    assert p.text.startswith("Tena samayena buddho bhagavā")
    assert not p.text.startswith("75")  # the number lives in the coordinate
    assert set(p.page_starts) == {"P2.0031", "M0.0082", "V0.0077", "T1.0128"}
    assert {"P2.0030", "P2.0031"} <= set(p.page_refs)  # the page runs into it, and one begins in it
    following = passages[passages.index(p) + 1]
    assert following.para == "75.1" and "P2.0031" in following.page_refs


def test_notes_are_kept_out_of_the_text_but_shown(small_cst):
    _, passages = read(small_cst, "vin02m3.mul")
    (p,) = [p for p in passages if p.coordinate == "cst/vin02m3.mul/97"]
    assert p.notes == ["te bhikkhū bhagavato (syā.)"]
    assert "(syā.)" not in p.text
    assert "[^1]" in p.display and "[^1]" not in p.text


def test_bold_terms_in_fields_and_markdown(small_cst):
    _, passages = read(small_cst, "vin02a3.att")
    bold = [p for p in passages if p.bold]
    assert bold
    for p in bold[:50]:
        for term in p.bold:  # each span as marked, or the whole word a marked span stops inside
            assert term in p.text
            assert f"**{term}**" in p.display or any(t in term and f"**{t}**" in p.display for t in p.bold)
    # a span that stops inside a word (**paṇḍukalohitakā**ti): the form as marked and the word as written
    first = next(p for p in passages if "**paṇḍukalohitakā**ti" in p.display)
    assert {"paṇḍukalohitakā", "paṇḍukalohitakāti"} <= set(first.bold)


def test_unnumbered_paragraphs_get_stable_subaddresses(small_cst):
    _, passages = read(small_cst, "vin02m3.mul")
    assert passages[0].para == "0.1"  # "Namo tassa…" before paragraph 1
    for prev, cur in zip(passages, passages[1:], strict=False):
        if "." in cur.para:
            anchor, _, i = cur.para.rpartition(".")
            expected_prev = anchor if i == "1" else f"{anchor}.{int(i) - 1}"
            assert prev.para == expected_prev


def test_repeated_numbers_in_a_book_are_disambiguated(tmp_path):
    folder = link_books(tmp_path / "cst", ("s0510m1.mul",))
    _, passages = read(folder, "s0510m1.mul")
    coords = [p.coordinate for p in passages]
    assert len(set(coords)) == len(coords)
    assert any("~2" in c for c in coords)


def test_a_chapter_an_edition_lacks_is_not_on_its_last_page(tmp_path):
    """The PTS Apadāna has no Yasavagga (the VRI turns 15 pages in it, the PTS none): its apadānas carry no
    PTS page, not the 511 the chapter before it ends on; the page turning inside the next chapter counts again."""
    folder = link_books(tmp_path / "cst", ("s0510m2.mul",))
    _, passages = read(folder, "s0510m2.mul")
    yasa = [p for p in passages if p.chapter_title == "56. Yasavaggo"]
    assert len(yasa) > 100 and all(not r.startswith("P") for p in yasa for r in p.page_refs)
    assert any(r.startswith("V") for p in yasa for r in p.page_refs)  # the VRI's pages are there
    before = max((p for p in passages if p.seq < yasa[0].seq), key=lambda p: p.seq)
    assert "P2.0511" in before.page_refs
    assert any("P2.0512" in p.page_starts for p in passages if p.seq > yasa[-1].seq)


def _single_file_book(folder: Path, book: str, encoding: str) -> bytes:
    """One TEI file holding every chapter of a book, as the one-file-per-book layout has it."""
    bodies = []
    found, _ = read(folder, book)
    for f in found.files:  # in the order of the book's table of contents
        text = read_text(f)
        bodies.append(text[text.index("<body>") + 6 : text.index("</body>")])
    doc = f'<?xml version="1.0" encoding="{encoding.upper()}"?>\n<TEI.2><text><body>{"".join(bodies)}</body></text></TEI.2>'
    return doc.encode("utf-16" if encoding == "utf-16" else "utf-8")


@pytest.mark.parametrize(("encoding", "gz"), [("utf-8", False), ("utf-16", False), ("utf-16", True)])
def test_one_file_per_book_layout_reads_the_same(small_cst, tmp_path, encoding, gz):
    data = _single_file_book(small_cst, "vin02m3.mul", encoding)
    name = "vin02m3.mul.xml" + (".gz" if gz else "")
    (tmp_path / name).write_bytes(gzip.compress(data) if gz else data)
    _, single = read(tmp_path, "vin02m3.mul")
    _, split = read(small_cst, "vin02m3.mul")
    assert [(p.coordinate, p.text, p.page_refs, p.path) for p in single] == [
        (p.coordinate, p.text, p.page_refs, p.path) for p in split
    ]


def test_malformed_file_fails_its_book_with_the_file_named(tmp_path):
    folder = link_books(tmp_path / "cst", ("vin02m3.mul",))
    bad = folder / "vin02m3.mul3.xml.gz"
    bad.unlink()
    bad.write_bytes(gzip.compress("<TEI.2><body><p>broken".encode("utf-16")))
    books, _ = discover(folder)
    with pytest.raises(BookError, match="vin02m3.mul3.xml.gz"):
        parse_book(books[0])


def test_missing_chapter_file_is_reported(tmp_path):
    folder = link_books(tmp_path / "cst", ("vin02m3.mul",))
    (folder / "vin02m3.mul5.xml.gz").unlink()
    books, _ = discover(folder)
    assert books[0].problems and "vin02m3.mul5.xml" in books[0].problems[0]
    with pytest.raises(BookError):
        parse_book(books[0])
