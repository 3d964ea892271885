"""References: every accepted form of a page parses to the same edition, volume and page; every form of
reference resolves, through one resolver, to the passage it names, in every verb."""

import pytest

from gantha.ingest import ingest_cst, ingest_suttacentral
from gantha.model import full_range
from gantha.research import Research
from gantha.research.resolver import ReferenceNotFound
from gantha.store.embedded import EmbeddedStore
from gantha.text.refs import PageRefError, page_key, parse_page_ref

from conftest import DATA, link_books


@pytest.mark.parametrize(
    "text", ["P2.0031", "P2.31", "p2.31", "P 2.31", "PTS 2.31", "PTS Vin II 31", "Vin II 31", "Vin.II.31", "vin 2 31"]
)
def test_pts_forms_of_one_page(text):
    assert parse_page_ref(text).key == "P2.0031"


def test_footnote_form_narrows_to_the_collection():
    ref = parse_page_ref("PTS Vin II 31")
    assert ref.books is not None and ref.label == "Vin"
    assert parse_page_ref("P2.31").books is None
    assert parse_page_ref("D II 31").books != ref.books


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("M0.82", "M0.0082"),
        ("V0.77", "V0.0077"),
        ("VRI 0.77", "V0.0077"),
        ("Myanmar 0.82", "M0.0082"),
        ("T1.128", "T1.0128"),
        ("Dhp 12", "P0.0012"),
    ],
)
def test_other_editions(text, key):
    assert parse_page_ref(text).key == key


@pytest.mark.parametrize("text", ["", "xyz 12", "P2", "Vin II", "PTS Foo 3", "Q2.31"])
def test_unparseable_refs_say_what_is_accepted(text):
    with pytest.raises(PageRefError, match="accepted forms: P2.0031 or P2.31"):
        parse_page_ref(text)


def test_page_key_from_pb_attributes():
    assert page_key("P", "2.0031") == "P2.0031"
    assert page_key("m", "0.82") == "M0.0082"


@pytest.mark.parametrize(
    ("written", "full"),
    [
        ("429-30.1", "429-430.1"),
        ("429-430.4", "429-430.4"),
        ("1234-5~2", "1234-1235~2"),
        ("9-10", "9-10"),
        ("75.3", "75.3"),
    ],
)
def test_paragraph_ranges_in_full(written, full):
    assert full_range(written) == full


@pytest.mark.parametrize(
    ("text", "key", "books"),
    [
        ("PTS S V 420–421", "P5.0420", r"s03\d\dm"),  # a range of pages: its first
        ("PTS Sn p. 25", "P0.0025", r"s0505m"),  # the Suttanipāta as citations print it, not the Saṃyutta
        ("PTS Th pp. 3–4", "P0.0003", r"s0508m"),
        ("PTS Pj I 5", "P0.0005", r"s0501a"),  # a two-word abbreviation
        ("PTS Sv-pṭ I 12", "P1.0012", r"s01\d\dt"),
    ],
)
def test_every_page_a_citation_prints_parses_back(text, key, books):
    ref = parse_page_ref(text)
    assert (ref.key, ref.books) == (key, books)


# --- one resolver for every reference, on real books --------------------------------------------

REFS_BOOKS = (
    "s0502m.mul",  # Dhammapada
    "s0502a.att",  # its commentary
    "s0505m.mul",  # Suttanipāta
    "s0506m.mul",  # Vimānavatthu
    "s0508m.mul",  # Theragāthā
    "s0509m.mul",  # Therīgāthā
    "s0501m.mul",  # Khuddakapāṭha (the "Namo tassa" that Thag 1.1 used to land on)
    "s0305m.mul",  # SN 5 (SN 56.11)
    "vin02m2.mul",  # Mahāvagga (mahāva. 86)
    "e0101n.mul",  # Visuddhimagga I (its outline's ch4)
    "s0516m.mul",  # Cūḷaniddesa (verses the CST writes with their speaker inside and words run together)
)
# SuttaCentral's texts of those books (its files for the books left out would only slow the alignment)
REFS_TEXTS = (
    "sutta/kn/dhp",
    "sutta/kn/snp",
    "sutta/kn/vv",
    "sutta/kn/thag",
    "sutta/kn/thig",
    "sutta/kn/kp",
    "sutta/kn/cnd",
    "sutta/sn/sn46",  # the peyyāla of one-line texts (SN 46.59)
    "sutta/sn/sn48",  # a peyyāla's vaggas, one a line the CST runs together, some titles only
    "sutta/sn/sn55",  # and of texts sharing no run of words with the CST (SN 55.63)
    "sutta/sn/sn56",
)


def suttacentral_subset(folder, parts=REFS_TEXTS):
    """A SuttaCentral folder holding only these parts of the root texts, with the names (symlinks)."""
    source = DATA / "suttacentral"
    for part in parts:
        for f in (source / "root" / "pli" / "ms" / part).rglob("*.json*"):
            target = folder / f.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(f)
    names = source / "root" / "misc" / "site" / "name"
    (folder / names.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
    (folder / names.relative_to(source)).symlink_to(names)
    return folder


@pytest.fixture(scope="session")
def refs_suttacentral(tmp_path_factory):
    return suttacentral_subset(tmp_path_factory.mktemp("refs-sc"))


@pytest.fixture(scope="session")
def refs_index(tmp_path_factory, refs_suttacentral):
    """Ten real CST books and SuttaCentral's texts of them."""
    path = tmp_path_factory.mktemp("refs-index")
    store = EmbeddedStore(path)
    assert ingest_cst(store, link_books(tmp_path_factory.mktemp("refs-cst"), REFS_BOOKS)).ok
    ingest_suttacentral(store, refs_suttacentral)
    store.close()
    return path


@pytest.fixture(scope="session")
def refs(refs_index):
    return Research.open(refs_index)


@pytest.mark.parametrize(
    ("reference", "first", "opening"),
    [
        ("Dhp 1", "cst/s0502m.mul/1.1", "Manopubbaṅgamā dhammā"),  # not 1.2: the verse's first line
        ("Dhp 183", "cst/s0502m.mul/183.1", "Sabbapāpassa akaraṇaṃ"),  # not 182.2
        ("Thag 1.1", "cst/s0508m.mul/0.1", "Namo tassa"),  # the Theragāthā's own opening, not the Khuddakapāṭha's
        ("Thig 1.1", "cst/s0509m.mul/0.1", "Namo tassa"),
        ("Vv 1", "cst/s0506m.mul/0.1", "Namo tassa"),  # the Vimānavatthu's, not the Itivuttaka's
        ("Vv 1.1", "cst/s0506m.mul/0.1", "Namo tassa"),  # its first chapter's first story
        ("Snp 1.8", "cst/s0505m.mul/143.1", "Karaṇīyamatthakusalena"),  # not Kp 9
        ("Cnd 18", "cst/s0516m.mul/81~2.1", "Yoatītaṃ ādisati"),  # the verse, not 81~2.4 explaining it
        ("Cnd 19", "cst/s0516m.mul/85~2.1", "Dvāhaṃsakkaṃ apucchissaṃ"),  # SuttaCentral's <b>…</b> inside its words
        ("Thig 1.10", "cst/s0509m.mul/10.1", "‘‘Upasame tare oghaṃ"),  # not Thig 1.7, which shares its second line
    ],
)
def test_get_a_text_starts_at_its_first_line(refs, reference, first, opening):
    items = [i for i in refs.get([reference]).items if i.channel == "pali"]
    assert items[0].status == "ok" and items[0].coordinate == first and items[0].text.startswith(opening)


def test_a_verse_is_cited_as_itself_and_whole(refs):
    items = [i for i in refs.get(["Dhp 183"]).items if i.channel == "pali"]
    assert [i.coordinate.rsplit("/", 1)[1] for i in items] == ["183.1", "183.2"]  # the verse, no more, no less
    assert items[0].citations.default.startswith("Dhp 183")
    assert refs.reference("Vv 2.3").label == "Vv 20"  # the third story of the second chapter (17 in the first)


def test_links_of_a_verse_find_its_commentary(refs):
    links = refs.links("Dhp 1", kinds=["commentary"])
    assert links.reference == "Dhp 1" and links.coordinate == "cst/s0502m.mul/1"  # its number opens it
    assert links.commentary.total >= 70  # the story of Cakkhupāla and the words explained


@pytest.mark.parametrize(
    ("reference", "kind", "first", "last"),
    [
        ("cst/e0101n.mul/ch4", "node", "50.9", "90.6"),  # an outline id
        ("cst/e0101n.mul/50.9-90.6", "range", "50.9", "90.6"),  # a range of sub-paragraphs
        ("mahāva. 86", "citation", "86", "86"),  # the commentaries' citation form
        ("Mahava 86", "citation", "86", "86"),  # without diacritics and dots
        ("SN 56.11", "text", "1081", "1081.12"),
        ("sn56.11", "text", "1081", "1081.12"),  # SuttaCentral's uid
        ("PTS Dhp 183", "text", "183", "183.2"),  # as a citation prints a verse
    ],
)
def test_one_resolver_for_every_form(refs, reference, kind, first, last):
    span = refs.reference(reference)
    assert (span.kind, span.first, span.last) == (kind, first, last)


def test_every_verb_takes_every_form(refs):
    for reference in ("cst/e0101n.mul/ch4", "cst/e0101n.mul/50.9-90.6"):
        links = refs.links(reference, kinds=["variants"], limit=0)
        assert links.coordinate == "cst/e0101n.mul/50.9" and links.paragraphs > 100
        assert refs.chapter(reference).paragraphs == links.paragraphs
    cited = refs.links("mahāva. 86", kinds=["root"])
    assert cited.coordinate == "cst/vin02m2.mul/86" and cited.paragraphs == 1
    assert refs.versions("mahāva. 86").coordinate == "cst/vin02m2.mul/86"
    assert refs.outline("Snp 1.8").node.sutta == "Snp 1.8"


def test_a_page_names_the_paragraphs_on_it(refs):
    sutta = refs.reference("SN 56.11")
    page = refs.reference("PTS S V 420")  # the page the sutta begins on
    assert page.kind == "page" and page.book == sutta.book and page.first_seq <= sutta.first_seq <= page.last_seq
    assert refs.reference("S V 420–421").first == page.first


@pytest.mark.parametrize(
    ("reference", "understood", "suggested"),
    [
        ("Dhp 999", "dhp999", "Dhp 423"),  # the nearest verses that exist
        ("cst/s0502m.mul/9999", "no paragraph 9999", "cst/s0502m.mul/423"),
        ("Mahavagga 86", "no collection, work or edition known", "mahāva. 86"),
        ("mahāva. 99999", "paragraph 99999", "cst/vin02m2.mul/"),
        ("nonsense", "not a coordinate", None),
    ],
)
def test_a_form_not_understood_says_what_was_and_suggests(refs, reference, understood, suggested):
    with pytest.raises(ReferenceNotFound) as caught:
        refs.reference(reference)
    error = caught.value
    assert understood in str(error) and len(error.suggestions) <= 3
    assert suggested is None or any(s.startswith(suggested) for s in error.suggestions)
    item = refs.get([reference]).items[0]  # get answers it item by item
    assert item.status == "not_found" and understood in item.message
