"""sanfu combinations and their comparison (SF-7, SF-8, SF-9)."""

from __future__ import annotations

import itertools

import pytest

from arena.cards import format_card, parse_cards
from arena.games.sanfu.combos import (
    BIG_JOKER_VALUE,
    SMALL_JOKER_VALUE,
    TWO_VALUE,
    Kind,
    Reading,
    beats,
    card_value,
    make_reading,
    no_combination_reason,
    rank_text,
    reading,
)


def read(text: str) -> Reading:
    found = reading(parse_cards(text))
    assert found is not None, f"{text} should be a combination"
    return found


def none(text: str) -> str:
    """Assert ``text`` is no combination; return the reason given for it."""
    cards = parse_cards(text)
    assert reading(cards) is None, f"{text} should be no combination"
    reason = no_combination_reason(cards)
    assert reason
    return reason


def wins(play: str, table: str) -> bool:
    return beats(read(play), read(table))


def same_rank(rank: str, n: int) -> str:
    """``n`` cards of ``rank``, spread over the suits (three decks: at most 12)."""
    return " ".join(rank + "shdc"[i % 4] for i in range(n))


# ----------------------------------------------------------------------------
# SF-7 order


def test_sf07_rank_order_big_joker_small_joker_two_ace_down_to_three() -> None:
    order = [format_card(c) for c in parse_cards("3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As 2s SJ BJ")]
    values = [card_value(parse_cards(token)[0]) for token in order]
    assert values == list(range(3, 18))
    for low, high in itertools.pairwise(order):
        assert wins(high, low)
        assert not wins(low, high)


def test_sf07_values_of_two_and_jokers() -> None:
    assert read("2h").value == TWO_VALUE == 15
    assert read("SJ").value == SMALL_JOKER_VALUE == 16
    assert read("BJ").value == BIG_JOKER_VALUE == 17


def test_sf07_suits_have_no_order() -> None:
    assert not wins("5s", "5h")
    assert not wins("5h", "5s")
    assert not wins("Kc Kc", "Ks Kh")


def test_sf07_rank_text() -> None:
    texts = [rank_text(v) for v in range(3, 18)]
    assert texts == ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "SJ", "BJ"]
    with pytest.raises(ValueError):
        rank_text(2)


def test_sf07_reading_to_dict() -> None:
    assert read("Ks Kh Kd 7c 7c").to_dict() == {"kind": "full_house", "rank": "K", "size": 5}
    assert read("SJ SJ SJ").to_dict() == {"kind": "joker_triple", "rank": "SJ", "size": 3}
    assert read("2s 2h").to_dict() == {"kind": "pair", "rank": "2", "size": 2}


def test_sf08_kind_labels() -> None:
    labels = "single pair triple suited_triple full_house pair_run plate plate_with_pairs bomb"
    assert [k.label for k in Kind] == [*labels.split(" "), "joker_triple"]


# ----------------------------------------------------------------------------
# SF-8 combinations


def test_sf08_single() -> None:
    assert read("7d") == Reading(Kind.SINGLE, 1, 7)
    assert read("BJ") == Reading(Kind.SINGLE, 1, 17)


def test_sf08_pair_of_one_rank_any_suits() -> None:
    assert read("2h 2s") == Reading(Kind.PAIR, 2, 15)
    assert read("9c 9c") == Reading(Kind.PAIR, 2, 9)


def test_sf08_two_big_or_two_small_jokers_are_pairs() -> None:
    assert read("BJ BJ") == Reading(Kind.PAIR, 2, 17)
    assert read("SJ SJ") == Reading(Kind.PAIR, 2, 16)


def test_sf08_big_and_small_joker_are_not_a_pair() -> None:
    assert "not a pair" in none("BJ SJ")


def test_sf08_two_cards_of_different_ranks_are_nothing() -> None:
    none("3s 4s")
    none("As 2s")


def test_sf08_triple_of_mixed_suits() -> None:
    assert read("4s 4h 4d") == Reading(Kind.TRIPLE, 3, 4)
    assert read("4c 4c 4h") == Reading(Kind.TRIPLE, 3, 4)


def test_sf08_three_identical_cards_are_a_same_suit_triple() -> None:
    combo = read("4c 4c 4c")
    assert combo.kind == Kind.SUITED_TRIPLE
    assert combo.value == 4
    assert combo.power > 0


def test_sf08_triple_with_pair() -> None:
    assert read("8s 8h 8d Js Jc") == Reading(Kind.FULL_HOUSE, 5, 8, 11)


def test_sf08_triple_with_pair_the_triple_may_be_three_identical_cards() -> None:
    assert read("8c 8c 8c Js Jc") == Reading(Kind.FULL_HOUSE, 5, 8, 11)


def test_sf08_triple_with_pair_of_twos_or_triple_of_twos() -> None:
    assert read("8s 8h 8d 2s 2c") == Reading(Kind.FULL_HOUSE, 5, 8, 15)
    assert read("2s 2h 2d 3s 3c") == Reading(Kind.FULL_HOUSE, 5, 15, 3)


def test_sf08_triple_with_pair_decision_a_pair_of_identical_jokers_may_be_carried() -> None:
    assert read("8s 8h 8d BJ BJ") == Reading(Kind.FULL_HOUSE, 5, 8, 17)
    assert read("8s 8h 8d SJ SJ") == Reading(Kind.FULL_HOUSE, 5, 8, 16)
    none("8s 8h 8d SJ BJ")


def test_sf08_triple_with_pair_decision_three_jokers_carry_nothing() -> None:
    assert "only on their own" in none("SJ SJ SJ 3s 3h")
    none("BJ BJ BJ 2s 2h")


def test_sf08_triple_carries_a_pair_not_two_singles() -> None:
    assert "pair" in none("8s 8h 8d Js Qc")


def test_sf08_triple_carries_exactly_one_pair() -> None:
    assert "exactly one pair" in none("8s 8h 8d Js Jc Qs Qc")


def test_sf08_triple_alone_is_fine_and_with_a_single_is_nothing() -> None:
    assert read("8s 8h 8d").kind == Kind.TRIPLE
    none("8s 8h 8d 9s")


def test_sf08_consecutive_pairs_from_three() -> None:
    assert read("3s 3h 4s 4h 5d 5d") == Reading(Kind.PAIR_RUN, 6, 5)


def test_sf08_consecutive_pairs_up_to_ace() -> None:
    assert read("Qs Qh Ks Kh As Ac") == Reading(Kind.PAIR_RUN, 6, 14)
    everything = " ".join(f"{r}s {r}h" for r in "3456789TJQKA")
    assert read(everything) == Reading(Kind.PAIR_RUN, 24, 14)


def test_sf08_consecutive_pairs_seed_example_223344_is_rejected() -> None:
    """The seed lists 223344 as an example but also excludes 2: the rule wins."""
    assert "2" in none("2s 2h 3s 3h 4s 4h")


def test_sf08_consecutive_pairs_never_hold_two_or_jokers() -> None:
    none("Ks Kh As Ah 2s 2h")
    none("Ks Kh As Ah SJ SJ")
    none("2s 2h SJ SJ BJ BJ")


def test_sf08_consecutive_pairs_need_three_pairs() -> None:
    assert "at least 3" in none("3s 3h 4s 4h")


def test_sf08_consecutive_pairs_need_consecutive_ranks() -> None:
    assert "consecutive" in none("3s 3h 4s 4h 6s 6h")


def test_sf08_there_are_no_straights() -> None:
    assert "straight" in none("3s 4h 5d 6c 7s")
    none("9s Th Jd Qc Ks As")


def test_sf08_steel_plate_of_two_or_three_triples() -> None:
    assert read("3s 3h 3d 4s 4h 4d") == Reading(Kind.PLATE, 6, 4)
    assert read("3s 3h 3d 4s 4h 4d 5s 5h 5d") == Reading(Kind.PLATE, 9, 5)


def test_sf08_steel_plate_from_three_to_ace() -> None:
    everything = " ".join(f"{r}s {r}h {r}d" for r in "3456789TJQKA")
    assert read(everything) == Reading(Kind.PLATE, 36, 14)
    assert read("Ks Kh Kd As Ah Ad").value == 14


def test_sf08_steel_plate_never_holds_two() -> None:
    assert "2" in none("As Ah Ad 2s 2h 2d")
    none("2s 2h 2d 3s 3h 3d")


def test_sf08_steel_plate_needs_consecutive_triples() -> None:
    assert "consecutive" in none("3s 3h 3d 5s 5h 5d")


def test_sf08_steel_plate_with_two_pairs() -> None:
    assert read("3s 3h 3d 4s 4h 4d 7s 7h 8s 8h") == Reading(Kind.PLATE_WITH_PAIRS, 10, 4, 8)


def test_sf08_steel_plate_with_three_pairs() -> None:
    cards = "3s 3h 3d 4s 4h 4d 5s 5h 5d Js Jh Qs Qh Ks Kh"
    assert read(cards) == Reading(Kind.PLATE_WITH_PAIRS, 15, 5, 13)


def test_sf08_steel_plate_pairs_may_sit_below_or_next_to_the_plate() -> None:
    assert read("Ts Th Td Js Jh Jd 3s 3h 4s 4h") == Reading(Kind.PLATE_WITH_PAIRS, 10, 11, 4)
    assert read("3s 3h 3d 4s 4h 4d 5s 5h 6s 6h") == Reading(Kind.PLATE_WITH_PAIRS, 10, 4, 6)


def test_sf08_steel_plate_decision_carried_pairs_must_be_consecutive() -> None:
    """The seed: 三張連牌可帶連對 (a plate carries consecutive pairs)."""
    assert "consecutive" in none("3s 3h 3d 4s 4h 4d 7s 7h 9s 9h")


def test_sf08_steel_plate_carries_as_many_pairs_as_triples() -> None:
    assert "exactly 2 pairs" in none("3s 3h 3d 4s 4h 4d 7s 7h")
    assert "exactly 2 pairs" in none("3s 3h 3d 4s 4h 4d 7s 7h 8s 8h 9s 9h")


def test_sf08_steel_plate_decision_no_two_or_jokers_among_carried_pairs() -> None:
    none("3s 3h 3d 4s 4h 4d As Ah 2s 2h")
    none("3s 3h 3d 4s 4h 4d SJ SJ BJ BJ")


def test_sf08_steel_plate_decision_carried_pairs_are_of_other_ranks() -> None:
    """Five 4s are no triple and pair: ``333 444 + 44 55`` is nothing."""
    none("3s 3h 3d 4s 4h 4d 4c 4c 5s 5h")


def test_sf08_steel_plate_does_not_carry_singles() -> None:
    none("3s 3h 3d 4s 4h 4d 7s 8s")


@pytest.mark.parametrize("size", range(4, 13))
def test_sf08_bomb_of_four_to_twelve_cards_of_one_rank(size: int) -> None:
    assert read(same_rank("K", size)) == make_reading(Kind.BOMB, size, 13)
    assert read(same_rank("K", size)).power == size


def test_sf08_bomb_example_five_kings() -> None:
    assert read("Ks Kh Kd Kc Ks").kind == Kind.BOMB


def test_sf08_twelve_cards_is_the_largest_bomb() -> None:
    assert read(same_rank("2", 12)).size == 12
    assert "at most 12" in no_combination_reason(parse_cards(same_rank("2", 12) + " 2s"))


def test_sf08_three_big_or_three_small_jokers() -> None:
    assert read("BJ BJ BJ") == make_reading(Kind.JOKER_TRIPLE, 3, 17)
    assert read("SJ SJ SJ") == make_reading(Kind.JOKER_TRIPLE, 3, 16)


def test_sf08_three_jokers_never_mixed() -> None:
    none("BJ BJ SJ")
    none("BJ SJ SJ")


def test_sf08_no_cards_is_no_combination() -> None:
    assert reading(()) is None
    assert no_combination_reason(()) == "no cards"


def test_sf08_reading_ignores_card_order() -> None:
    assert read("8s Jc 8h Js 8d") == read("Js Jc 8s 8h 8d")


# ----------------------------------------------------------------------------
# SF-9 comparison


def test_sf09_same_kind_and_size_compare_by_rank() -> None:
    assert wins("Ks Kh", "Qs Qh")
    assert wins("BJ BJ", "SJ SJ")
    assert wins("SJ SJ", "2s 2h")
    assert not wins("Qs Qh", "Ks Kh")
    assert wins("5s 5h 5d", "4s 4h 4c")
    assert not wins("4s 4h 4d", "4s 4h 4c")


def test_sf09_a_play_of_another_kind_never_beats_an_ordinary_play() -> None:
    assert not wins("As Ah", "3s")
    assert not wins("As Ah Ad", "3s 3h")
    assert not wins("5s 5h 5d 6s 6h", "3s 3h 3d")
    assert not wins("Qs Qh Ks Kh As Ah", "3s 3h 3d 4s 4h 4d")


def test_sf09_triple_with_pair_needs_both_parts_higher() -> None:
    """押三押二: ``888 JJ`` needs ``999 QQ`` or better."""
    table = "8s 8h 8d Js Jc"
    assert wins("9s 9h 9d Qs Qc", table)
    assert wins("As As Ad 2s 2c", table)
    assert not wins("9s 9h 9d Ts Tc", table)  # higher triple, lower pair
    assert not wins("9s 9h 9d Jh Jd", table)  # higher triple, equal pair
    assert not wins("7s 7h 7d Ks Kc", table)  # higher pair, lower triple
    assert not wins("8c 8c 8c Ks Kc", table)  # equal triple


def test_sf09_triple_with_pair_of_jokers_is_beaten_only_by_a_higher_joker_pair() -> None:
    assert wins("9s 9h 9d BJ BJ", "8s 8h 8d SJ SJ")
    assert not wins("As Ah Ad SJ SJ", "8s 8h 8d SJ SJ")


def test_sf09_steel_plate_without_pairs_by_highest_triple() -> None:
    assert wins("4s 4h 4d 5s 5h 5d", "3s 3h 3d 4s 4h 4d")
    assert not wins("3s 3h 3d 4c 4h 4d", "3s 3h 3d 4s 4h 4d")


def test_sf09_steel_plates_of_different_lengths_do_not_compare() -> None:
    assert not wins("3s 3h 3d 4s 4h 4d 5s 5h 5d", "Ks Kh Kd As Ah Ad")
    assert not wins("Js Jh Jd Qs Qh Qd Ks Kh Kd", "3s 3h 3d 4s 4h 4d")


def test_sf09_steel_plate_with_pairs_needs_both_parts_higher() -> None:
    table = "3s 3h 3d 4s 4h 4d 7s 7h 8s 8h"
    assert wins("5s 5h 5d 6s 6h 6d 9s 9h Ts Th", table)
    assert not wins("5s 5h 5d 6s 6h 6d 3c 3c 4c 4c", table)  # higher plate, lower pairs
    assert not wins("5s 5h 5d 6s 6h 6d 7c 7c 8c 8c", table)  # equal pairs
    assert not wins("9s 9h 9d Ts Th Td 3c 3c 4c 4c", table)
    assert not wins("3c 3c 3c 4c 4c 4c 9s 9h Ts Th", table)  # equal plate, higher pairs


def test_sf09_steel_plate_with_pairs_and_without_do_not_compare() -> None:
    assert not wins("9s 9h 9d Ts Th Td 3s 3h 4s 4h", "3s 3h 3d 4s 4h 4d")


def test_sf09_consecutive_pairs_same_length_by_highest_pair() -> None:
    table = "3s 3h 4s 4h 5s 5h"
    assert wins("4c 4d 5c 5d 6s 6h", table)
    assert not wins("3c 3d 4c 4d 5c 5d", table)
    assert not wins("9s 9h Ts Th Js Jh Qs Qh", table)  # four pairs never beat three
    assert not wins("Ts Th Js Jh Qs Qh", "3s 3h 4s 4h 5s 5h 6s 6h")


def test_sf09_bombs_of_equal_size_by_rank() -> None:
    assert wins(same_rank("4", 5), same_rank("3", 5))
    assert wins(same_rank("2", 4), same_rank("A", 4))
    assert not wins(same_rank("3", 4), same_rank("2", 4))
    assert not wins("Ks Kh Kd Kc", "Ks Ks Kh Kd")


def test_sf09_larger_bomb_beats_smaller_whatever_the_rank() -> None:
    assert wins(same_rank("3", 5), same_rank("2", 4))
    assert not wins(same_rank("2", 5), same_rank("3", 6))


def test_sf09_bomb_beats_every_ordinary_play() -> None:
    bomb = same_rank("3", 4)
    for table in (
        "BJ",
        "BJ BJ",
        "2s 2h 2d",
        "2s 2h 2d BJ BJ",
        " ".join(f"{r}s {r}h" for r in "3456789TJQKA"),
        " ".join(f"{r}s {r}h {r}d" for r in "3456789TJQKA"),
        "Qs Qh Qd Ks Kh Kd As Ah Ad 7s 7h 8s 8h 9s 9h",
    ):
        assert wins(bomb, table)
        assert not wins(table, bomb)


def test_sf09_same_suit_triple_beats_every_bomb() -> None:
    assert wins("3c 3c 3c", same_rank("2", 12))
    assert not wins(same_rank("2", 12), "3c 3c 3c")


def test_sf09_same_suit_triples_by_rank_and_equal_ranks_do_not_beat() -> None:
    assert wins("2s 2s 2s", "As As As")
    assert wins("5h 5h 5h", "4c 4c 4c")
    assert not wins("4h 4h 4h", "4c 4c 4c")
    assert not wins("4c 4c 4c", "4h 4h 4h")


def test_sf09_same_suit_triple_beats_a_plain_triple_and_not_the_other_way() -> None:
    assert wins("3c 3c 3c", "2s 2h 2d")
    assert not wins("2s 2h 2d", "3c 3c 3c")


def test_sf09_three_jokers_on_top() -> None:
    assert wins("SJ SJ SJ", "2s 2s 2s")
    assert wins("BJ BJ BJ", "SJ SJ SJ")
    assert not wins("SJ SJ SJ", "BJ BJ BJ")
    assert not wins("2s 2s 2s", "SJ SJ SJ")


def test_sf09_the_ladder() -> None:
    """3×BJ > 3×SJ > same-suit triple of 2 > … > of 3 > 12-card bomb > … > 4-card bomb > others.

    Every step of the ladder beats everything below it and nothing above it;
    within a bomb size the ranks go 3 … A, 2.
    """
    ordinary = ["BJ", "2s 2h 2d Ks Kh", "As Ah Ad", "Qs Qh Ks Kh As Ah"]
    bomb_ranks = "3456789TJQKA2"
    bombs = [same_rank(r, size) for size in range(4, 13) for r in bomb_ranks]
    suited = [f"{r}c {r}c {r}c" for r in bomb_ranks]
    ladder = [read(text) for text in [*bombs, *suited, "SJ SJ SJ", "BJ BJ BJ"]]
    powers = [c.power for c in ladder]
    assert powers == sorted(powers)
    for i, high in enumerate(ladder):
        for low in ladder[:i]:
            assert beats(high, low), (high, low)
            assert not beats(low, high), (low, high)
        for text in ordinary:
            assert beats(high, read(text))
            assert not beats(read(text), high)


def test_sf09_power_is_zero_for_every_ordinary_play() -> None:
    for text in ("3s", "BJ BJ", "4s 4h 4d", "4s 4h 4d 5s 5h", "3s 3h 4s 4h 5s 5h"):
        assert read(text).power == 0
