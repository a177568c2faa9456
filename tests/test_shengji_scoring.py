"""Shengji end-of-deal scoring (rules/shengji.md SJ-17 penalty, SJ-22 … SJ-27, SJ-30, SJ-32).

Every test names its rule id. Levels are rank indices (0 is the 2, 8 the 10, 12 the ace);
P is the defenders' points.
"""

from __future__ import annotations

import pytest

from arena.cards import RANKS, deck, parse_cards
from arena.errors import ConfigError
from arena.games.shengji.scoring import (
    LevelChange,
    apply_levels,
    defender_trick_points,
    kitty_multiplier,
    kitty_points,
    last_trick_settlement,
    level_change,
    match_winner,
    next_dealer,
    points_in,
    room_multiplier,
    room_points_change,
    settle_four_decks,
    settle_kitty,
    throw_penalty_points,
)

ACE = RANKS.index("A")
KING = RANKS.index("K")
QUEEN = RANKS.index("Q")
TEN = RANKS.index("T")


def declarers(up: int) -> LevelChange:
    return LevelChange(declarers_up=up, defenders_up=0, take_over=False)


def take_over(up: int) -> LevelChange:
    return LevelChange(declarers_up=0, defenders_up=up, take_over=True)


# ------------------------------------------------------------------ SJ-17 throw penalty


def test_sj17_declarer_failed_throw_gives_defenders_penalty_per_card() -> None:
    assert throw_penalty_points(10, 5, thrower_is_defender=False, defender_points=30) == 80


def test_sj17_defender_failed_throw_is_deducted_from_defenders() -> None:
    assert throw_penalty_points(10, 3, thrower_is_defender=True, defender_points=45) == 15


def test_sj17_defender_penalty_never_takes_defenders_below_zero() -> None:
    assert throw_penalty_points(10, 5, thrower_is_defender=True, defender_points=20) == 0
    assert throw_penalty_points(10, 5, thrower_is_defender=True, defender_points=0) == 0


def test_sj17_default_zero_penalty_changes_nothing() -> None:
    for thrower_is_defender in (False, True):
        assert throw_penalty_points(0, 6, thrower_is_defender, 35) == 35


def test_sj17_negative_penalty_or_card_count_is_refused() -> None:
    with pytest.raises(ValueError, match="negative"):
        throw_penalty_points(-5, 3, False, 0)
    with pytest.raises(ValueError, match="negative"):
        throw_penalty_points(5, -3, False, 0)


# ------------------------------------------------------------------ SJ-22 points


@pytest.mark.parametrize(("decks", "total"), [(1, 100), (2, 200), (3, 300), (4, 400)])
def test_sj22_card_points_of_whole_decks(decks: int, total: int) -> None:
    assert points_in(deck(decks)) == total


def test_sj22_trick_won_by_defender_adds_its_points() -> None:
    trick = parse_cards("5s Ks Th 3s")
    assert defender_trick_points(trick, winner=1, declarer_team=0) == 25
    assert defender_trick_points(trick, winner=2, declarer_team=1) == 25


def test_sj22_trick_won_by_declarer_does_not_count() -> None:
    trick = parse_cards("5s Ks Th 3s")
    assert defender_trick_points(trick, winner=0, declarer_team=0) == 0
    assert defender_trick_points(trick, winner=3, declarer_team=1) == 0


def test_sj22_bad_team_is_refused() -> None:
    with pytest.raises(ValueError, match="team"):
        defender_trick_points(parse_cards("5s"), winner=0, declarer_team=2)


# ------------------------------------------------------------------ SJ-23 next dealer


@pytest.mark.parametrize("dealer", range(4))
def test_sj23_declarers_going_up_pass_the_deal_to_the_partner(dealer: int) -> None:
    for up in (1, 2, 3):
        assert next_dealer(dealer, declarers(up)) == (dealer + 2) % 4


@pytest.mark.parametrize("dealer", range(4))
def test_sj23_take_over_passes_the_deal_to_the_next_player(dealer: int) -> None:
    for up in (0, 1, 2):
        assert next_dealer(dealer, take_over(up)) == (dealer + 1) % 4


def test_sj23_take_over_threshold_decides_the_next_dealer() -> None:
    assert next_dealer(3, level_change(75, decks=2)) == 1
    assert next_dealer(3, level_change(80, decks=2)) == 0


# ------------------------------------------------------------------ SJ-24 cap and match end


def test_sj24_only_the_winning_side_changes_level() -> None:
    assert apply_levels((TEN, 4), 0, declarers(2)) == (TEN + 2, 4)
    assert apply_levels((TEN, 4), 1, declarers(2)) == (TEN, 6)
    assert apply_levels((TEN, 4), 0, take_over(1)) == (TEN, 5)
    assert apply_levels((TEN, 4), 1, take_over(0)) == (TEN, 4)


def test_sj24_declarer_levels_never_pass_ace() -> None:
    assert apply_levels((QUEEN, 3), 0, declarers(3)) == (ACE, 3)
    assert apply_levels((ACE, 3), 0, declarers(1)) == (ACE, 3)


def test_sj24_defender_levels_never_pass_ace() -> None:
    assert apply_levels((5, KING), 0, take_over(4)) == (5, ACE)


def test_sj24_levels_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="level"):
        apply_levels((ACE + 1, 0), 0, declarers(1))
    with pytest.raises(ValueError, match="team"):
        apply_levels((0, 0), 2, declarers(1))


def test_sj24_pass_a_declarers_win_a_deal_while_playing_ace() -> None:
    for team in (0, 1):
        before = (ACE, 3) if team == 0 else (3, ACE)
        after = apply_levels(before, team, declarers(1))
        assert match_winner(before, after, team, declarers(1), "pass_a") == team


def test_sj24_pass_a_take_over_while_declarers_play_ace_wins_nothing() -> None:
    before = (ACE, 3)
    for up in (0, 2):
        after = apply_levels(before, 0, take_over(up))
        assert match_winner(before, after, 0, take_over(up), "pass_a") is None


def test_sj24_pass_a_reaching_ace_is_not_enough() -> None:
    before = (QUEEN, 3)
    after = apply_levels(before, 0, declarers(3))
    assert after == (ACE, 3)
    assert match_winner(before, after, 0, declarers(3), "pass_a") is None
    before, after = (3, KING), (3, ACE)
    assert match_winner(before, after, 0, take_over(2), "pass_a") is None


def test_sj24_pass_a_defenders_at_ace_do_not_win_by_taking_over() -> None:
    before = (5, ACE)
    assert match_winner(before, before, 0, take_over(1), "pass_a") is None


def test_sj24_reach_a_declarers_reaching_ace_win() -> None:
    before = (QUEEN, 3)
    after = apply_levels(before, 0, declarers(2))
    assert match_winner(before, after, 0, declarers(2), "reach_a") == 0


def test_sj24_reach_a_defenders_reaching_ace_win() -> None:
    before = (4, KING)
    after = apply_levels(before, 0, take_over(1))
    assert match_winner(before, after, 0, take_over(1), "reach_a") == 1


def test_sj24_reach_a_below_ace_no_winner() -> None:
    before = (TEN, 3)
    after = apply_levels(before, 0, declarers(1))
    assert match_winner(before, after, 0, declarers(1), "reach_a") is None


def test_sj24_unknown_match_end_is_refused() -> None:
    with pytest.raises(ConfigError, match="'first_to_a'"):
        match_winner((ACE, 0), (ACE, 0), 0, declarers(1), "first_to_a")
    with pytest.raises(ValueError):
        match_winner((ACE, 0), (ACE, 0), 0, declarers(1), "first_to_a")


# ------------------------------------------------------------------ SJ-25 kitty


@pytest.mark.parametrize(
    ("winning_play", "largest_combination", "multiplier"),
    [
        ("4s 4s 4s 5s 5s 5s", "4s 4s 4s 5s 5s 5s", 64),
        ("4s 4s 5s 5s 6s 6s", "4s 4s 5s 5s 6s 6s", 64),
        ("4s 4s 5s 5s", "4s 4s 5s 5s", 16),
        ("5s 5s 5s", "5s 5s 5s", 8),
        ("4s 4s", "4s 4s", 4),
        ("4s", "4s", 2),
        ("As Ks Qs Js Ts 9s 8s 7s 7s", "7s 7s", 4),
        ("As Ks Qs Js", "As", 2),
        ("As As Js Js", "As As", 4),
    ],
    ids=lambda value: value if isinstance(value, str) else str(value),
)
def test_sj25_seed_examples_of_the_kitty_multiplier(
    winning_play: str, largest_combination: str, multiplier: int
) -> None:
    assert set(parse_cards(largest_combination)) <= set(parse_cards(winning_play))
    assert kitty_multiplier(len(parse_cards(largest_combination))) == multiplier


def test_sj25_multiplier_is_at_most_64() -> None:
    eight_card_tractor = parse_cards("4s 4s 5s 5s 6s 6s 7s 7s")
    assert kitty_multiplier(len(eight_card_tractor)) == 64
    assert kitty_multiplier(12) == 64


def test_sj25_empty_combination_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one card"):
        kitty_multiplier(0)


def test_sj25_kitty_points_are_card_points_times_multiplier() -> None:
    kitty = parse_cards("5h Kd Tc 3s 4s 6d 7c 8h")
    assert kitty_points(kitty, 2) == 25 * 4
    assert kitty_points(kitty, 1) == 25 * 2
    assert kitty_points(parse_cards("3s 4s 6d 7c 8h 9h 2c Jd"), 6) == 0


def test_sj25_defender_winning_last_trick_adds_the_kitty() -> None:
    kitty = parse_cards("5h Kd Tc 3s 4s 6d 7c 8h")
    assert settle_kitty(60, kitty, last_winner_is_defender=True, largest_unit_cards=4) == 60 + 400


def test_sj25_declarers_winning_last_trick_nothing_happens() -> None:
    kitty = parse_cards("5h Kd Tc 3s 4s 6d 7c 8h")
    assert settle_kitty(60, kitty, last_winner_is_defender=False, largest_unit_cards=4) == 60


# ------------------------------------------------------------------ SJ-26 levels, 1-3 decks


def test_sj26_two_decks_zero_points_declarers_up_three() -> None:
    assert level_change(0, decks=2) == declarers(3)


def test_sj26_two_decks_under_40_declarers_up_two() -> None:
    assert level_change(5, decks=2) == declarers(2)
    assert level_change(35, decks=2) == declarers(2)


def test_sj26_two_decks_40_to_80_declarers_up_one() -> None:
    assert level_change(40, decks=2) == declarers(1)
    assert level_change(75, decks=2) == declarers(1)


def test_sj26_two_decks_80_to_120_take_over_without_level() -> None:
    assert level_change(80, decks=2) == take_over(0)
    assert level_change(115, decks=2) == take_over(0)


def test_sj26_two_decks_120_to_160_take_over_and_up_one() -> None:
    assert level_change(120, decks=2) == take_over(1)
    assert level_change(155, decks=2) == take_over(1)


def test_sj26_two_decks_160_to_200_defenders_up_two() -> None:
    assert level_change(160, decks=2) == take_over(2)
    assert level_change(195, decks=2) == take_over(2)


def test_sj26_two_decks_each_further_40_one_more_level() -> None:
    assert level_change(200, decks=2) == take_over(3)
    assert level_change(240, decks=2) == take_over(4)
    assert level_change(200 + 400, decks=2) == take_over(3 + 10)


@pytest.mark.parametrize(
    ("points", "result"),
    [
        (0, declarers(3)),
        (5, declarers(2)),
        (15, declarers(2)),
        (20, declarers(1)),
        (35, declarers(1)),
        (40, take_over(0)),
        (55, take_over(0)),
        (60, take_over(1)),
        (80, take_over(2)),
        (100, take_over(3)),
    ],
)
def test_sj26_one_deck_thresholds_are_halved(points: int, result: LevelChange) -> None:
    assert level_change(points, decks=1) == result
    assert level_change(points * 2, decks=2) == result


@pytest.mark.parametrize("points", range(0, 201, 5))
def test_sj26_two_colour_thresholds_are_halved_like_one_deck(points: int) -> None:
    assert level_change(points, decks=1, two_colour=True) == level_change(points, decks=1)


@pytest.mark.parametrize(
    ("points", "result"),
    [
        (0, declarers(3)),
        (5, declarers(2)),
        (55, declarers(2)),
        (60, declarers(1)),
        (115, declarers(1)),
        (120, take_over(0)),
        (175, take_over(0)),
        (180, take_over(1)),
        (235, take_over(1)),
        (240, take_over(2)),
        (300, take_over(3)),
        (360, take_over(4)),
    ],
)
def test_sj26_three_decks_step_60(points: int, result: LevelChange) -> None:
    assert level_change(points, decks=3) == result


@pytest.mark.parametrize("decks", [1, 2, 3])
def test_sj26_negative_points_are_refused_for_one_to_three_decks(decks: int) -> None:
    with pytest.raises(ValueError, match="negative"):
        level_change(-5, decks=decks)


def test_sj26_unknown_deck_count_or_two_colour_beyond_one_deck_is_refused() -> None:
    for decks in (0, 5):
        with pytest.raises(ConfigError, match="decks"):
            level_change(40, decks=decks)
    with pytest.raises(ConfigError, match="two-colour"):
        level_change(40, decks=2, two_colour=True)


@pytest.mark.parametrize(
    ("declarers_up", "defenders_up", "is_take_over"),
    [(0, 0, False), (1, 1, False), (-1, 0, False), (1, 0, True), (0, -1, True)],
)
def test_sj26_a_result_has_exactly_one_winning_side(
    declarers_up: int, defenders_up: int, is_take_over: bool
) -> None:
    with pytest.raises(ValueError, match="not a deal result"):
        LevelChange(declarers_up, defenders_up, is_take_over)


@pytest.mark.parametrize("decks", [1, 2, 3, 4])
def test_sj26_sj27_more_defender_points_never_help_the_declarers(decks: int) -> None:
    def standing(points: int) -> int:
        change = level_change(points, decks)
        return change.defenders_up + 1 if change.take_over else -change.declarers_up

    low = -200 if decks == 4 else 0
    standings = [standing(points) for points in range(low, 100 * decks * 3, 5)]
    assert standings == sorted(standings)


# ------------------------------------------------------------------ SJ-27 levels, 4 decks


@pytest.mark.parametrize(
    ("points", "result"),
    [
        (-120, declarers(3)),
        (0, declarers(3)),
        (5, declarers(2)),
        (75, declarers(2)),
        (80, declarers(1)),
        (155, declarers(1)),
        (160, take_over(1)),
        (235, take_over(1)),
        (240, take_over(2)),
        (315, take_over(2)),
        (320, take_over(3)),
        (400, take_over(4)),
        (1200, take_over(14)),
    ],
)
def test_sj27_four_decks_step_80(points: int, result: LevelChange) -> None:
    assert level_change(points, decks=4) == result


def test_sj27_four_decks_never_take_over_without_gain() -> None:
    for points in range(-400, 1600, 5):
        change = level_change(points, decks=4)
        assert not change.take_over or change.defenders_up >= 1


def test_sj27_no_cap_other_than_ace() -> None:
    change = level_change(1200, decks=4)
    assert apply_levels((3, 2), 0, change) == (3, ACE)


# ------------------------------------------------------------------ SJ-30 last trick, 4 decks


def test_sj30_winners_take_the_other_teams_points_times_width() -> None:
    assert last_trick_settlement(winner_points=250, loser_points=150, widest_set=2) == 300
    assert last_trick_settlement(winner_points=0, loser_points=150, widest_set=2) == 300


@pytest.mark.parametrize(
    ("winning_play", "width"),
    [("As", 1), ("As As", 2), ("As As As", 3), ("As As As As", 4)],
)
def test_sj30_width_of_single_pair_triple_quad(winning_play: str, width: int) -> None:
    assert len(parse_cards(winning_play)) == width
    assert last_trick_settlement(100, 50, width) == 50 * width


def test_sj30_a_tractor_counts_by_its_width() -> None:
    pair_tractor_width = 2  # 4s 4s 5s 5s: two pairs, width 2, not 4 cards
    assert settle_four_decks(100, 300, False, pair_tractor_width) == -100
    assert settle_four_decks(100, 300, True, pair_tractor_width) == 100 + 600


def test_sj30_defenders_winning_last_trick_take_from_declarers() -> None:
    assert settle_four_decks(150, 250, last_winner_is_defender=True, widest_set=3) == 150 + 750


def test_sj30_declarers_winning_last_trick_take_from_defenders() -> None:
    assert settle_four_decks(150, 250, last_winner_is_defender=False, widest_set=1) == 0
    assert settle_four_decks(150, 250, last_winner_is_defender=False, widest_set=4) == -450


def test_sj30_negative_total_is_a_shutout() -> None:
    total = settle_four_decks(100, 300, last_winner_is_defender=False, widest_set=3)
    assert total == -200
    assert level_change(total, decks=4) == declarers(3)


def test_sj30_bad_width_or_points_are_refused() -> None:
    for width in (0, 5):
        with pytest.raises(ValueError, match="widest set"):
            last_trick_settlement(100, 100, width)
    with pytest.raises(ValueError, match="negative"):
        settle_four_decks(-10, 100, True, 2)


# ------------------------------------------------------------------ SJ-32 room points


def test_sj32_seed_example_shutout_at_90_room_points_is_doubled() -> None:
    assert room_points_change(declarers(3), [90, 90, 90, 90], declarer_team=0) == (8, -8, 8, -8)


@pytest.mark.parametrize(("up", "gain"), [(1, 2), (2, 3), (3, 4)])
def test_sj32_declarers_going_up(up: int, gain: int) -> None:
    assert room_points_change(declarers(up), [0] * 4, declarer_team=1) == (-gain, gain, -gain, gain)


def test_sj32_declarers_gain_at_most_four() -> None:
    assert room_points_change(declarers(5), [0] * 4, declarer_team=0) == (4, -4, 4, -4)


@pytest.mark.parametrize(("up", "gain"), [(0, 2), (1, 3), (2, 4), (4, 6)])
def test_sj32_defenders_taking_over(up: int, gain: int) -> None:
    assert room_points_change(take_over(up), [0] * 4, declarer_team=0) == (-gain, gain, -gain, gain)
    assert room_points_change(take_over(up), [0] * 4, declarer_team=1) == (gain, -gain, gain, -gain)


@pytest.mark.parametrize(
    ("room_points", "factor"),
    [
        ([0, 0, 0, 0], 1),
        ([79, 80, 80, 80], 1),
        ([80, 80, 80, 80], 2),
        ([299, 80, 150, 200], 2),
        ([300, 300, 300, 300], 3),
        ([300, 1000, 450, 301], 3),
        ([299, 300, 300, 300], 1),
    ],
)
def test_sj32_multiplier_by_all_four_room_points(room_points: list[int], factor: int) -> None:
    assert room_multiplier(room_points) == factor
    assert room_points_change(take_over(0), room_points, 0) == (-2 * factor, 2 * factor) * 2


def test_sj32_all_four_at_least_300_triples() -> None:
    assert room_points_change(take_over(1), [300] * 4, declarer_team=0) == (-9, 9, -9, 9)


def test_sj32_room_points_need_four_seats() -> None:
    with pytest.raises(ValueError, match="one per seat"):
        room_points_change(declarers(1), [100, 100, 100], declarer_team=0)
