"""The Burmese translation beside the Pali: a book whose few paragraphs have no CST paragraph of the same
number is read, those paragraphs reported as left out; a book of the Pali not indexed is skipped."""

from gantha.ingest import ingest_cst, ingest_myanmar
from gantha.store.embedded import EmbeddedStore

from conftest import DATA, link_books


def test_a_book_with_a_few_unnumbered_paragraphs_is_read_not_skipped(tmp_path):
    store = EmbeddedStore(tmp_path / "idx")
    assert ingest_cst(store, link_books(tmp_path / "cst", ("vin02m3.mul",))).ok
    burmese = tmp_path / "myanmar"
    burmese.mkdir()
    for name in ("01_vinaya_04.html.gz", "01_vinaya_01.html.gz"):  # the Cūḷavagga; the Pārājika, not indexed
        (burmese / name).symlink_to(DATA / "myanmar" / name)
    summary = ingest_myanmar(store, burmese)
    assert summary.books == 1 and summary.passages > 400
    assert [s["item"] for s in summary.skipped] == ["01_vinaya_01.html.gz"]  # its Pali book is not indexed
    assert "not indexed" in summary.skipped[0]["reason"]
    left_out = [d for d in summary.details if d["item"] == "01_vinaya_04.html.gz"]
    assert len(left_out) == 1 and "paragraphs have no CST paragraph" in left_out[0]["reason"]
    store.close()
