import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sparring.poker.cards import as_cards, format_cards, parse_cards


def test_encoding_is_four_times_rank_plus_suit():
    assert parse_cards("2c").tolist() == [0]
    assert parse_cards("2s").tolist() == [3]
    assert parse_cards("As").tolist() == [51]
    assert parse_cards("Td").tolist() == [4 * 8 + 1]
    assert parse_cards("AsKd").dtype == np.uint8


def test_spaces_and_case_are_accepted():
    assert parse_cards("Ah 7c 2d").tolist() == parse_cards("ah7C2D").tolist()


@given(st.lists(st.integers(0, 51), unique=True, max_size=52))
def test_format_parse_round_trip(cards):
    text = format_cards(cards)
    assert parse_cards(text).tolist() == cards


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AsKx", "unknown suit 'x'"),
        ("1sKd", "unknown rank '1'"),
        ("AsK", "odd number of characters"),
        ("AsAs", "duplicate card As"),
        ("AsKdas", "duplicate card As"),
    ],
)
def test_bad_text_is_named(text, message):
    with pytest.raises(ValueError, match=message):
        parse_cards(text)


def test_integer_input_is_checked():
    assert as_cards([51, 0]).tolist() == [51, 0]
    with pytest.raises(ValueError, match="outside 0..51"):
        as_cards([52])
    with pytest.raises(ValueError, match="duplicate card 2c"):
        as_cards([0, 0])
