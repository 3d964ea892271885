"""Page references: every accepted form parses to the same edition, volume and page."""

import pytest

from gantha.model import full_range
from gantha.text.refs import PageRefError, page_key, parse_page_ref


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
