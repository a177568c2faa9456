"""Trump declaration during the Shengji deal (rules/shengji.md SJ-7 … SJ-12, SJ-31)."""

from __future__ import annotations

import pytest

from arena.cards import BIG_JOKER, CLUBS, DIAMONDS, HEARTS, RANK_TEN, SMALL_JOKER, SPADES
from arena.cards import parse_cards as cards
from arena.errors import ConfigError
from arena.games.shengji.declare import (
    BIG_JOKER_PAIR,
    BIG_JOKER_TRIPLE,
    LEVEL_PAIR,
    LEVEL_TRIPLE,
    SINGLE,
    SMALL_JOKER_PAIR,
    SMALL_JOKER_TRIPLE,
    Declaration,
    can_override,
    declaration_options,
    first_dealer,
    make_declaration,
    strength_of,
    trump_when_undeclared,
)

TEN = RANK_TEN  # the seeds' examples play 10


def declare(seat: int, text: str, decks: int = 2, two_colour: bool = False) -> Declaration:
    declaration = make_declaration(seat, cards(text), TEN, decks, two_colour)
    assert declaration is not None, text
    return declaration


# ---------------------------------------------------------------- strength (SJ-8)


def test_sj08_ladder_is_strictly_increasing() -> None:
    ladder = [
        SINGLE,
        LEVEL_PAIR,
        SMALL_JOKER_PAIR,
        BIG_JOKER_PAIR,
        LEVEL_TRIPLE,
        SMALL_JOKER_TRIPLE,
        BIG_JOKER_TRIPLE,
    ]
    assert ladder == sorted(set(ladder))


@pytest.mark.parametrize(
    ("text", "decks", "expected"),
    [
        ("Th", 2, SINGLE),
        ("Th Th", 2, LEVEL_PAIR),
        ("SJ SJ", 2, SMALL_JOKER_PAIR),
        ("BJ BJ", 2, BIG_JOKER_PAIR),
        ("Ts", 3, SINGLE),
        ("Ts Ts", 3, LEVEL_PAIR),
        ("SJ SJ", 3, SMALL_JOKER_PAIR),
        ("BJ BJ", 3, BIG_JOKER_PAIR),
        ("Tc Tc Tc", 3, LEVEL_TRIPLE),
        ("SJ SJ SJ", 3, SMALL_JOKER_TRIPLE),
        ("BJ BJ BJ", 3, BIG_JOKER_TRIPLE),
        ("Td", 1, SINGLE),
    ],
)
def test_sj08_strength_ladder(text: str, decks: int, expected: int) -> None:
    assert strength_of(cards(text), TEN, decks) == expected


@pytest.mark.parametrize(
    ("text", "decks"),
    [
        ("", 2),  # nothing shown
        ("9h", 2),  # not a level card
        ("SJ", 2),  # a single joker never declares
        ("BJ", 3),
        ("Th Td", 2),  # two level cards of different suits are not a pair
        ("Th Th Th", 2),  # triples need 3 decks
        ("SJ SJ SJ", 2),
        ("SJ BJ", 2),  # jokers must be identical
        ("Th Th SJ", 3),
        ("Th Th Th Th", 3),  # no quads below 4 decks
        ("9h 9h", 2),
    ],
)
def test_sj08_not_a_declaration(text: str, decks: int) -> None:
    assert strength_of(cards(text), TEN, decks) is None


def test_sj08_level_follows_the_level_being_played() -> None:
    assert strength_of(cards("5s"), 3, 2) == SINGLE
    assert strength_of(cards("Ts"), 3, 2) is None


def test_sj08_declared_suit_and_notrump() -> None:
    assert declare(1, "Th Th").suit == HEARTS
    assert declare(1, "Tc").suit == CLUBS
    assert declare(1, "SJ SJ").suit is None
    assert declare(1, "BJ BJ BJ", decks=3).suit is None
    assert declare(2, "Ts Ts Ts", decks=3) == Declaration(2, cards("Ts Ts Ts"), LEVEL_TRIPLE, 0)


def test_sj08_card_ids_out_of_range_are_not_a_declaration() -> None:
    assert strength_of([54], TEN, 2) is None
    assert strength_of([-1], TEN, 2) is None


def test_sj08_bad_configuration_is_an_error() -> None:
    with pytest.raises(ConfigError):
        strength_of(cards("Th"), TEN, 5)
    with pytest.raises(ConfigError):
        strength_of(cards("Th"), 13, 2)
    with pytest.raises(ConfigError):
        strength_of(cards("Th"), TEN, 2, two_colour=True)


# ---------------------------------------------------------------- 1 deck (SJ-9, SJ-31)


def test_sj09_one_deck_has_only_single_level_cards() -> None:
    assert strength_of(cards("Th"), TEN, 1) == SINGLE
    assert strength_of(cards("Th Td"), TEN, 1) is None
    assert strength_of(cards("Th Th"), TEN, 1) is None  # impossible with one deck
    assert strength_of(cards("SJ BJ"), TEN, 1) is None
    assert strength_of(cards("SJ"), TEN, 1) is None


def test_sj31_two_colour_pair_is_two_level_cards_of_one_colour() -> None:
    red = declare(0, "Th Td", decks=1, two_colour=True)
    black = declare(0, "Tc Ts", decks=1, two_colour=True)
    assert (red.strength, red.suit) == (LEVEL_PAIR, 1)
    assert (black.strength, black.suit) == (LEVEL_PAIR, 0)
    assert strength_of(cards("Th Ts"), TEN, 1, two_colour=True) is None


def test_sj31_two_colour_single_names_its_colour() -> None:
    assert declare(0, "Td", decks=1, two_colour=True).suit == 1
    assert declare(0, "Tc", decks=1, two_colour=True).suit == 0


def test_sj31_two_colour_jokers_cannot_declare_notrump() -> None:
    assert strength_of(cards("SJ BJ"), TEN, 1, two_colour=True) is None
    assert strength_of(cards("BJ"), TEN, 1, two_colour=True) is None
    assert strength_of(cards("Th Th"), TEN, 1, two_colour=True) is None


def test_sj31_two_colour_options() -> None:
    hand = cards("Th Td Ts 3c SJ BJ")
    options = declaration_options(hand, 0, TEN, 1, None, two_colour=True)
    assert [(d.cards, d.strength, d.suit) for d in options] == [
        (cards("Ts"), SINGLE, 0),
        (cards("Th"), SINGLE, 1),
        (cards("Td"), SINGLE, 1),
        (cards("Th Td"), LEVEL_PAIR, 1),
    ]
    standing = declare(1, "Tc", decks=1, two_colour=True)
    options = declaration_options(hand, 0, TEN, 1, standing, two_colour=True)
    assert [d.cards for d in options] == [cards("Th Td")]


# ---------------------------------------------------------------- overriding (SJ-8)


def test_sj08_first_declaration_is_always_accepted() -> None:
    assert can_override(declare(3, "Ts"), None, 2)


def test_sj08_pair_of_another_suit_overrides_a_single() -> None:
    assert can_override(declare(1, "Ts Ts"), declare(0, "Th"), 2)


def test_sj08_self_protect_single_to_pair_of_same_suit() -> None:
    # 自保
    assert can_override(declare(0, "Th Th"), declare(0, "Th"), 2)


def test_sj08_self_change_suit_with_stronger_declaration() -> None:
    # 自反
    assert can_override(declare(0, "Ts Ts"), declare(0, "Th"), 2)
    assert can_override(declare(0, "SJ SJ"), declare(0, "Th Th"), 2)


def test_sj08_equal_strength_never_overrides() -> None:
    assert not can_override(declare(1, "Ts"), declare(0, "Th"), 2)
    assert not can_override(declare(1, "Ts Ts"), declare(0, "Th Th"), 2)
    assert not can_override(declare(1, "SJ SJ"), declare(0, "SJ SJ"), 2)
    assert not can_override(declare(0, "Ts"), declare(0, "Th"), 2)


def test_sj08_weaker_never_overrides() -> None:
    assert not can_override(declare(1, "Ts"), declare(0, "Th Th"), 2)
    assert not can_override(declare(1, "Ts Ts"), declare(0, "SJ SJ"), 2)


def test_sj08_joker_pairs_notrump_small_below_big() -> None:
    small, big = declare(1, "SJ SJ"), declare(2, "BJ BJ")
    assert small.strength < big.strength
    assert can_override(small, declare(0, "Th Th"), 2)
    assert can_override(big, small, 2)
    assert not can_override(small, big, 2)


def test_sj08_three_deck_triples() -> None:
    pair_bj = declare(0, "BJ BJ", decks=3)
    triple = declare(1, "Ts Ts Ts", decks=3)
    small = declare(2, "SJ SJ SJ", decks=3)
    big = declare(3, "BJ BJ BJ", decks=3)
    assert can_override(triple, pair_bj, 3)
    assert can_override(small, triple, 3)
    assert can_override(big, small, 3)
    assert not can_override(declare(0, "Th Th Th", decks=3), triple, 3)
    assert not can_override(pair_bj, triple, 3)


# ---------------------------------------------------------------- 4 decks (SJ-10)


def test_sj10_strength_is_the_number_of_level_cards() -> None:
    for n in range(1, 5):
        assert strength_of(cards(" ".join(["Td"] * n)), TEN, 4) == n
    assert strength_of(cards("Td Td Td Td Td"), TEN, 4) is None
    assert strength_of(cards("Td Th"), TEN, 4) is None
    assert declare(0, "Tc Tc Tc", decks=4).suit == CLUBS


def test_sj10_jokers_never_declare() -> None:
    for text in ("SJ", "SJ SJ", "BJ BJ", "BJ BJ BJ", "BJ BJ BJ BJ"):
        assert strength_of(cards(text), TEN, 4) is None


def test_sj10_override_needs_exactly_one_card_more() -> None:
    standing = declare(0, "Th Th", decks=4)
    assert can_override(declare(1, "Ts Ts Ts", decks=4), standing, 4)
    assert can_override(declare(2, "Th Th Th", decks=4), standing, 4)
    assert not can_override(declare(1, "Ts Ts", decks=4), standing, 4)
    assert not can_override(declare(1, "Ts Ts Ts Ts", decks=4), standing, 4)
    assert not can_override(declare(1, "Ts", decks=4), standing, 4)


def test_sj10_no_override_of_ones_own_declaration() -> None:
    standing = declare(0, "Th", decks=4)
    assert not can_override(declare(0, "Th Th", decks=4), standing, 4)
    assert not can_override(declare(0, "Ts Ts", decks=4), standing, 4)


def test_sj10_first_declaration_may_show_any_count() -> None:
    assert can_override(declare(2, "Td Td Td", decks=4), None, 4)


def test_sj10_options() -> None:
    hand = cards("Th Th Th Ts Ts SJ SJ BJ BJ 9h")
    assert [(d.strength, d.suit) for d in declaration_options(hand, 1, TEN, 4, None)] == [
        (1, SPADES),
        (1, HEARTS),
        (2, SPADES),
        (2, HEARTS),
        (3, HEARTS),
    ]
    standing = declare(0, "Td Td", decks=4)
    assert declaration_options(hand, 1, TEN, 4, standing) == [
        Declaration(1, cards("Th Th Th"), 3, HEARTS)
    ]
    assert declaration_options(hand, 0, TEN, 4, declare(0, "Tc", decks=4)) == []
    assert declaration_options(hand, 1, TEN, 4, declare(0, "Tc Tc Tc", decks=4)) == []


# ---------------------------------------------------------------- options (SJ-11)


def test_sj11_options_sorted_with_every_multiset_once() -> None:
    hand = cards("Ts Th Th Td 3c SJ SJ BJ Ah")
    options = declaration_options(hand, 2, TEN, 2, None)
    assert [(d.cards, d.strength, d.suit) for d in options] == [
        (cards("Ts"), SINGLE, SPADES),
        (cards("Th"), SINGLE, HEARTS),
        (cards("Td"), SINGLE, DIAMONDS),
        (cards("Th Th"), LEVEL_PAIR, HEARTS),
        (cards("SJ SJ"), SMALL_JOKER_PAIR, None),
    ]
    assert all(d.seat == 2 for d in options)


def test_sj11_options_only_stronger_than_standing() -> None:
    hand = cards("Ts Th Th SJ SJ")
    options = declaration_options(hand, 1, TEN, 2, declare(0, "Td"))
    assert [d.cards for d in options] == [cards("Th Th"), cards("SJ SJ")]


def test_sj11_options_for_the_standing_declarer() -> None:
    hand = cards("Th Th Ts")
    options = declaration_options(hand, 0, TEN, 2, declare(0, "Th"))
    assert [d.cards for d in options] == [cards("Th Th")]


def test_sj11_options_empty_when_nothing_stronger_is_possible() -> None:
    hand = cards("Ts Ts Th Th SJ SJ")
    assert declaration_options(hand, 1, TEN, 2, declare(0, "BJ BJ")) == []
    assert declaration_options(hand, 1, TEN, 2, declare(0, "Tc Tc")) != []
    assert declaration_options(cards("Ts Ts"), 1, TEN, 2, declare(0, "Tc Tc")) == []
    assert declaration_options(cards("9s 3h"), 1, TEN, 2, None) == []
    assert declaration_options(cards("BJ BJ BJ"), 1, TEN, 3, declare(0, "BJ BJ BJ", 3)) == []


def test_sj11_three_deck_options() -> None:
    hand = cards("Tc Tc Tc BJ BJ BJ SJ")
    options = declaration_options(hand, 3, TEN, 3, declare(0, "SJ SJ", decks=3))
    assert [d.cards for d in options] == [
        cards("BJ BJ"),
        cards("Tc Tc Tc"),
        cards("BJ BJ BJ"),
    ]


def test_sj09_one_deck_options_are_singles() -> None:
    hand = cards("Th Ts SJ BJ")
    options = declaration_options(hand, 0, TEN, 1, None)
    assert [d.cards for d in options] == [cards("Ts"), cards("Th")]
    assert declaration_options(hand, 0, TEN, 1, declare(1, "Td", decks=1)) == []


# ---------------------------------------------------------------- no declaration


def test_sj08_undeclared_notrump() -> None:
    assert trump_when_undeclared(2, "notrump", cards("3s 4s 5s 6h 7h 8h 9h Jd")) is None


def test_sj08_undeclared_flip_kitty_uses_the_fourth_card() -> None:
    kitty = cards("3s 4s 5s 6d 7h 8h 9h Jc")
    assert trump_when_undeclared(2, "flip_kitty", kitty) == DIAMONDS
    assert trump_when_undeclared(3, "flip_kitty", cards("3s 4s 5s Kc 7h 8h")) == CLUBS


def test_sj08_undeclared_flip_kitty_joker_means_notrump() -> None:
    kitty = (3, 4, 5, SMALL_JOKER, 7, 8)
    assert trump_when_undeclared(1, "flip_kitty", kitty) is None
    kitty = (3, 4, 5, BIG_JOKER, 7, 8)
    assert trump_when_undeclared(2, "flip_kitty", kitty) is None


def test_sj31_undeclared_flip_kitty_names_a_colour() -> None:
    kitty = cards("3s 4s 5s 6d 7h 8h")
    assert trump_when_undeclared(1, "flip_kitty", kitty, two_colour=True) == 1
    kitty = cards("3s 4s 5s 6c 7h 8h")
    assert trump_when_undeclared(1, "flip_kitty", kitty, two_colour=True) == 0


def test_sj10_undeclared_four_decks_is_spades() -> None:
    assert trump_when_undeclared(4, "notrump", ()) == SPADES
    assert trump_when_undeclared(4, "flip_kitty", ()) == SPADES


def test_sj08_unknown_no_declaration_option_is_an_error() -> None:
    with pytest.raises(ValueError, match="bogus"):
        trump_when_undeclared(2, "bogus", cards("3s 4s 5s 6d 7h 8h 9h Jc"))
    with pytest.raises(ValueError):
        trump_when_undeclared(2, "flip_kitty", cards("3s 4s"))


# ---------------------------------------------------------------- first dealer (SJ-12)


def test_sj12_first_dealer_is_the_standing_declarer() -> None:
    assert first_dealer(declare(3, "Th Th")) == 3


def test_sj12_first_dealer_without_declaration_is_seat_0() -> None:
    assert first_dealer(None) == 0
