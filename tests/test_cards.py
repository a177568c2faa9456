"""Cards and their text notation (rules/common.md C-1)."""

from __future__ import annotations

import pytest

from arena.cards import (
    BIG_JOKER,
    RANKS,
    SMALL_JOKER,
    SUITS,
    deck,
    format_card,
    format_cards,
    from_counts,
    is_joker,
    make_card,
    parse_card,
    parse_cards,
    pretty_card,
    pretty_cards,
    rank_of,
    suit_of,
    to_counts,
)
from arena.errors import ParseError

ALL_NAMES = [r + s for r in RANKS for s in SUITS] + ["SJ", "BJ"]


# ---------------------------------------------------------------- parsing


def test_c1_every_card_name_parses_to_a_distinct_card() -> None:
    cards = [parse_card(name) for name in ALL_NAMES]
    assert sorted(cards) == list(range(54))


def test_c1_rank_then_suit_encoding() -> None:
    ace_of_hearts = parse_card("Ah")
    assert rank_of(ace_of_hearts) == RANKS.index("A")
    assert suit_of(ace_of_hearts) == SUITS.index("h")
    assert parse_card("2s") == make_card(0, 0)
    assert parse_card("Tc") == make_card(8, 3)


def test_c1_jokers_are_upper_case_sj_and_bj() -> None:
    assert parse_card("SJ") == SMALL_JOKER
    assert parse_card("BJ") == BIG_JOKER
    assert is_joker(SMALL_JOKER)
    assert is_joker(BIG_JOKER)
    assert not is_joker(parse_card("As"))
    assert suit_of(BIG_JOKER) == -1


def test_c1_the_rules_example_list_parses_in_order() -> None:
    cards = parse_cards("Ah Ah Kh 5s SJ")
    assert len(cards) == 5
    assert cards[0] == cards[1] == parse_card("Ah")
    assert format_cards(cards) == "Ah Ah Kh 5s SJ"


@pytest.mark.parametrize("suit", list(SUITS))
def test_c1_ten_is_accepted_as_10_and_as_t(suit: str) -> None:
    assert parse_card("10" + suit) == parse_card("T" + suit)
    assert parse_cards(f"10{suit} T{suit}") == (parse_card("T" + suit),) * 2


def test_c1_ten_is_always_written_t() -> None:
    assert format_cards(parse_cards("10s 10h 10d 10c")) == "Ts Th Td Tc"


def test_c1_empty_list_parses_to_no_cards() -> None:
    assert parse_cards("") == ()
    assert parse_cards("   ") == ()


def test_c1_extra_spaces_between_cards_are_allowed() -> None:
    assert parse_cards("  As   Kd ") == parse_cards("As Kd")


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [
        ("Kx", "Kx", 1),
        ("As Kx Qd", "Kx", 2),
        ("As Kd Qd 1s", "1s", 4),
        ("As AS", "AS", 2),  # suits are lower case
        ("sj", "sj", 1),  # jokers are upper case
        ("Bj", "Bj", 1),
        ("As Kd ah", "ah", 3),  # ranks are upper case
        ("As 11s", "11s", 2),
        ("As Kd, Qd", "Kd,", 2),  # lists are space separated
        ("♠A", "♠A", 1),  # unicode display is never input
        ("2s 3s 4s 5s 6s 7s 8s 9s Ts Js 0s", "0s", 11),
    ],
)
def test_c1_unknown_token_error_names_token_and_1_based_position(
    text: str, token: str, position: int
) -> None:
    with pytest.raises(ParseError) as info:
        parse_cards(text)
    message = str(info.value)
    assert repr(token) in message
    assert f"position {position}" in message


def test_c1_parse_error_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="Zz"):
        parse_cards("Zz")


@pytest.mark.parametrize("token", ["", "A", "As ", "AsKd", "SJ ", "Js1", "XJ", "10", "1"])
def test_c1_parse_card_rejects_anything_but_one_exact_token(token: str) -> None:
    with pytest.raises(ParseError):
        parse_card(token)


def test_c1_parse_card_error_names_the_token() -> None:
    with pytest.raises(ParseError, match="'Qx'"):
        parse_card("Qx")


# ------------------------------------------------------------- formatting


def test_c1_round_trip_of_every_card() -> None:
    for name in ALL_NAMES:
        assert format_card(parse_card(name)) == name
    for card in range(54):
        assert parse_card(format_card(card)) == card


def test_c1_round_trip_of_a_two_deck_list() -> None:
    cards = tuple(deck(2))
    text = format_cards(cards)
    assert len(text.split()) == 108
    assert parse_cards(text) == cards


def test_c1_format_keeps_the_order_given() -> None:
    text = "BJ 3d Ah SJ 3d Tc"
    assert format_cards(parse_cards(text)) == text


@pytest.mark.parametrize(
    ("name", "pretty"),
    [
        ("As", "♠A"),
        ("Th", "♥10"),
        ("10h", "♥10"),
        ("2d", "♦2"),
        ("Kc", "♣K"),
        ("Js", "♠J"),
        ("Qh", "♥Q"),
        ("9c", "♣9"),
    ],
)
def test_c1_pretty_display(name: str, pretty: str) -> None:
    assert pretty_card(parse_card(name)) == pretty


def test_c1_pretty_display_of_jokers_uses_the_joker_symbol() -> None:
    small, big = pretty_card(SMALL_JOKER), pretty_card(BIG_JOKER)
    assert "🃏" in small
    assert "🃏" in big
    assert small != big


def test_c1_pretty_display_of_a_list() -> None:
    assert pretty_cards(parse_cards("As Th")) == "♠A ♥10"


def test_c1_pretty_display_is_never_input() -> None:
    for card in range(52):
        with pytest.raises(ParseError):
            parse_cards(pretty_card(card))


# --------------------------------------------------------------- multisets


def test_c1_deck_of_two_copies_has_108_cards_two_of_each() -> None:
    cards = deck(2)
    assert len(cards) == 108
    assert to_counts(cards) == [2] * 54


def test_c1_one_deck_has_54_cards() -> None:
    assert len(deck()) == 54
    assert sorted(deck()) == list(range(54))


def test_c1_identical_cards_are_the_same_card_and_a_hand_is_a_multiset() -> None:
    hand = parse_cards("Ah 3d Ah SJ")
    counts = to_counts(hand)
    assert counts[parse_card("Ah")] == 2
    assert from_counts(counts) == tuple(sorted(hand))
    assert from_counts(to_counts(parse_cards("SJ Ah 3d Ah"))) == from_counts(counts)
