"""The reference audit over the test index's books: every SuttaCentral uid of them resolves to the passage its
text begins and ends with, and every reference a citation prints resolves back."""

import gzip
import json

import pytest

from gantha.research.audit import (
    TARGET,
    Audit,
    _edge,
    _held,
    audit_cst_numbered,
    audit_suttacentral,
    report,
    words,
)
from test_refs import refs, refs_index, refs_suttacentral  # noqa: F401 (fixtures)

from conftest import DATA

AUDITED = ("kn-dhp", "kn-snp", "kn-vv", "kn-thag", "kn-thig", "kn-kp", "kn-cnd", "sn")


@pytest.fixture(scope="module")
def audit(refs, refs_suttacentral) -> Audit:  # noqa: F811
    return audit_suttacentral(refs, refs_suttacentral, AUDITED)


def test_every_collection_of_the_test_books_agrees(audit):
    by = {c.collection: c for c in audit.collections}
    assert set(AUDITED) <= set(by)
    assert by["kn-dhp"].texts == 423 and by["kn-thig"].texts == 73 and by["sn"].texts >= 11  # SN 56 (SN 5 indexed)
    assert by["kn-kp"].agreeing == by["kn-kp"].texts == 9  # Kp 2 too: the CST's veramaṇī-sikkhāpadaṃ
    for c in audit.collections:  # the target, or two texts of a collection this small (the CST abridges the
        allowed = max(2, round((1 - TARGET) * c.texts))  # peyyāla of SN 56 that SuttaCentral writes out)
        assert c.texts - c.agreeing <= allowed, (c.collection, c.share, [f.why for f in c.findings][:3])
    assert any("only s0305m.mul" in why for why in audit.left_out)  # a collection indexed in part says so
    assert any("sn48.137-146" in why and "titles only" in why for why in audit.left_out)  # "Title of Section Only"


@pytest.mark.parametrize(
    ("reference", "words", "lines"),
    [
        ("SN 46.59", "Vinīlakasaññā, bhikkhave…pe… tatiyaṃ", 1),  # three words; 'pe' where SuttaCentral has none
        ("SN 55.57", "anāgāmiphalasacchikiriyāya", 1),
        ("SN 55.63", "Puthupaññatā saṃvattantī", 1),  # SuttaCentral's Puthupaññatāya: no run of words in common
        ("Kp 2", "Pāṇātipātā veramaṇī-sikkhāpadaṃ", 10),  # the ten precepts, hyphenated in the CST only
        ("SN 48.159-168", "Appamādavagga-balakaraṇīyavagga-esanāvaggā vitthāretabbā", 1),  # run together
    ],
)
def test_short_texts_resolve_to_their_own_lines(refs, reference, words, lines):  # noqa: F811
    span = refs.reference(reference)
    paragraphs = refs.store.book_passages(span.corpus, span.book, span.channel, (span.first_seq, span.last_seq))
    body = [p for p in paragraphs if p.kind == "bodytext"]
    assert len(body) == lines and words in body[0].text, [p.text for p in paragraphs]


def test_the_check_fails_a_span_a_line_off():
    """Dhp 1 as it was resolved (from its second line, 1.2) does not agree; from its first line it does."""
    begin = words("Manopubbaṅgamā dhammā, manoseṭṭhā manomayā; Manasā ce paduṭṭhena, bhāsati")
    first, second = (
        words("Manopubbaṅgamā dhammā, manoseṭṭhā manomayā;"),
        words("Manasā ce paduṭṭhena, bhāsati vā karoti vā;"),
    )
    assert _edge(begin, first, second, [], at_start=True) == (True, True)
    assert _edge(begin, second, [], first, at_start=True)[0] is False
    end = words("vahato padaṃ")  # a closing the editions write alike: found where it is, not a line early
    assert _edge(end, words("Tato naṃ dukkhamanveti, cakkaṃva vahato padaṃ."), second, [], at_start=False)[0]
    assert not _edge(end, second, [], words("Tato naṃ dukkhamanveti, cakkaṃva vahato padaṃ."), at_start=False)[0]


def test_the_report_lists_each_collection_and_each_disagreement(audit, refs):  # noqa: F811
    markdown, tsv = report([audit, audit_cst_numbered(refs)], "python eval/refs-audit.py INDEX")
    assert "| kn-dhp | 423 |" in markdown and "Target: 99.5%" in markdown
    assert tsv.splitlines()[0] == "collection\treference\tlabel\toutcome\twhy\tspan"
    assert len(tsv.splitlines()) == 1 + sum(len(c.findings) + len(c.lacking) + len(c.names) for c in audit.collections)


def test_a_text_ends_at_its_own_closing_not_at_the_next_texts_like_it(refs):  # noqa: F811
    """Vv 75 and Vv 76 share their last verses; the CST writes Vv 75's ``adāsi`` where SuttaCentral and Vv 76
    write ``adāsiṃ``: a final niggahita is no difference to the aligner, so Vv 75 ends at its own closing."""
    span = refs.reference("Vv 75")
    paragraphs = refs.store.book_passages(span.corpus, span.book, span.channel, (span.first_seq, span.last_seq))
    assert paragraphs[-1].text == "Cittalatāvimānaṃ paṭhamaṃ."
    assert not any("Nandana" in p.text for p in paragraphs)


def test_the_lines_the_cst_book_lacks_are_left_out_of_a_texts_end(refs):  # noqa: F811
    """SuttaCentral's Parivāra closes with verses (its Pariyosānagāthā) that the CST holds nowhere: the audit then
    compares a text's end with the last line its book holds. Dhp 1 with those verses after it: they are left out,
    its own last line kept; Dhp 1 as it is: nothing is left out."""
    dhp1 = {k: v for k, v in _root("sutta/kn/dhp/dhp1-20").items() if k.startswith("dhp1:")}
    verses = _root("vinaya/pli-tv-pvr/pli-tv-pvr21")
    closing = {f"dhp1:9{k.partition(':')[2]}": v for k, v in verses.items() if int(k.split(":")[1].split(".")[0]) >= 80}
    assert len(closing) == 31
    span = refs.reference("Dhp 1")
    segments, dropped = _held(refs, span, {**dhp1, **closing}, "dhp1")
    assert dropped == list(closing) and segments == dhp1
    assert _held(refs, span, dhp1, "dhp1") is None


def _root(part: str) -> dict[str, str]:
    path = DATA / "suttacentral" / "root" / "pli" / "ms" / f"{part}_root-pli-ms.json.gz"
    return json.loads(gzip.decompress(path.read_bytes()))
