"""Every direction the rules name, on a drawn table, against the engines.

The seeds say where the turn goes: Guandan's next player (下家) sits on the right
(004: 位于右方的对手为下家), Shengji is played counter-clockwise (000: 按逆時針方向輪流出牌),
sanfu clockwise (003: 隨后按順時針方向出牌). C-2 numbers the seats in the order of
the turn (seat s + 1 plays after s). So each game's table can be drawn from the
seed's words alone: seat 0 at 6 o'clock, the next seat a quarter turn further in
the game's direction. A player facing the centre has the counter-clockwise neighbour
on the right hand and the clockwise one on the left.

Each row below is one rule that names a direction (clockwise, counter-clockwise,
上家/下家, left/right, opposite, who leads or deals next): a worked position, the
seat the engine makes act or receive, and the seat the seed's words give on the
drawn table, worked out here from the clock face, never from the engines' own
helpers. A direction flipped in an engine fails its row.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Literal

import pytest

from arena.cards import SMALL_JOKER, Card, deck, parse_card, parse_cards, rank_of
from arena.games import PASS, Action, make
from arena.games.guandan import GuandanSetup, GuandanState
from arena.games.sanfu import SanfuSetup, SanfuState
from arena.games.shengji import ShengjiSetup, ShengjiState

Turn = Literal["clockwise", "counter-clockwise"]

TURN: dict[str, Turn] = {
    "guandan": "counter-clockwise",  # 004: the 下家 on the right, the 上家 on the left
    "shengji": "counter-clockwise",  # 000: 按逆時針方向輪流出牌
    "sanfu": "clockwise",  # 003: 隨后按順時針方向出牌
}
"""Where the turn goes on a table seen from above, in each seed's words."""


# ----------------------------------------------------------------- the drawn table


def hour(game: str, seat: int) -> int:
    """The clock hour the seat is drawn at: seat 0 at 6, each next seat (C-2) a quarter
    turn further in the game's direction (clockwise: 6 → 9 → 12 → 3)."""
    step = 3 if TURN[game] == "clockwise" else -3
    return on_dial(6 + step * seat)


def on_dial(clock: int) -> int:
    """An hour counted round the dial: 1 … 12."""
    return (clock - 1) % 12 + 1


def at(game: str, clock: int) -> int:
    """The seat drawn at that hour."""
    return next(s for s in range(4) if hour(game, s) == on_dial(clock))


def clockwise_of(game: str, seat: int) -> int:
    return at(game, hour(game, seat) + 3)


def counter_clockwise_of(game: str, seat: int) -> int:
    return at(game, hour(game, seat) - 3)


def right_of(game: str, seat: int) -> int:
    """The neighbour on the right hand of a player facing the centre."""
    return counter_clockwise_of(game, seat)


def left_of(game: str, seat: int) -> int:
    return clockwise_of(game, seat)


def opposite(game: str, seat: int) -> int:
    return at(game, hour(game, seat) + 6)


def turn_after(game: str, seat: int) -> int:
    """The player the seed's direction of play passes the turn to."""
    return (
        clockwise_of(game, seat) if TURN[game] == "clockwise" else counter_clockwise_of(game, seat)
    )


def test_the_drawn_table_is_the_seeds_table() -> None:
    """The clock face itself: Guandan's 下家 on the right, 上家 on the left (004); the
    turn goes counter-clockwise in Shengji (000) and clockwise in sanfu (003)."""
    assert [hour("guandan", s) for s in range(4)] == [6, 3, 12, 9]
    assert right_of("guandan", 0) == 1 and left_of("guandan", 0) == 3
    assert [hour("shengji", s) for s in range(4)] == [6, 3, 12, 9]
    assert [hour("sanfu", s) for s in range(4)] == [6, 9, 12, 3]
    assert all(opposite(g, s) == (s + 2) % 4 for g in TURN for s in range(4))


# ------------------------------------------------------------------------ Guandan

GUANDAN = make("guandan")


def guandan_after(order: tuple[int, ...], hands: list[str]) -> GuandanState:
    """A deal after one that finished in ``order``: tribute owed."""
    state = GUANDAN.new_deal(GuandanSetup(previous_order=order), hands=hands)
    assert isinstance(state, GuandanState)
    return state


def tributes(state: GuandanState) -> dict[int, int]:
    """Each giver's receiver, once every tribute is made (the first legal card each)."""
    while state.phase == "tribute":
        state.apply(state.legal_actions()[0])
    return {e.seat: e.target for e in state.events if e.kind == "tribute"}


def returns(state: GuandanState) -> dict[int, int]:
    """Each returner's receiver, once every return is made."""
    tributes(state)
    while state.phase == "return":
        state.apply(state.legal_actions()[0])
    return {e.seat: e.target for e in state.events if e.kind == "return"}


EQUAL = ["3s 4s", "Ad 6s", "8s 9s", "As 7d"]
"""Losers 1 and 3 each hold an ace as their highest card: equal tribute cards."""
EQUAL_ODD = ["Ad 6s", "3s 4s", "As 7d", "8s 9s"]
"""The same with losers 0 and 2."""


def equal_tribute_hands(order: tuple[int, ...]) -> list[list[Card]]:
    """Whole hands (27 cards each, two decks) for a deal after 双下 in ``order`` (the
    losers last), at level 2, where each loser's highest card is an ace: GD-14's equal
    tribute cards. The jokers and the 2s (the level cards) are the winners'."""
    high = {card for card in deck(2) if rank_of(card) == 0 or card >= SMALL_JOKER}
    rest = sorted(card for card in deck(2) if card not in high)
    hands: list[list[Card]] = [[] for _ in range(4)]
    for loser in order[2:]:  # two aces each, from the top of the sorted rest
        hands[loser] = rest[-2:] + rest[:25]
        rest = rest[25:-2]
    winners = sorted(card for card in deck(2) if card in high) + rest
    hands[order[0]], hands[order[1]] = winners[:27], winners[27:]
    return hands


def gd10_next_player() -> tuple[int, int]:
    """GD-10: after a play the turn passes to the 下家, the right-hand neighbour."""
    state = GUANDAN.new_deal(GuandanSetup(leader=2), hands=["3s", "4s", "5s 6s", "7s"])
    state.apply(Action.from_str("play 5s"))
    return state.to_act, right_of("guandan", 2)


def gd11_partner_leads() -> tuple[int, int]:
    """GD-11: the winner of a trick who is out hands the lead to the partner opposite."""
    state = GUANDAN.new_deal(GuandanSetup(leader=1), hands=["3s 3d", "As", "5s 6s", "7s 8s"])
    state.apply(Action.from_str("play As"))  # out
    for _ in range(3):  # nobody beats it
        state.apply(PASS)
    return state.to_act, opposite("guandan", 1)


def gd13_single_tribute() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """GD-13: the last (下游) gives to the first (头游) and leads the first trick."""
    state = guandan_after((1, 0, 3, 2), ["3s 4s", "5s 6s", "As 7d", "8s 9s"])
    given = tributes(state)
    returns(state)
    return (*given.items(), state.to_act), ((2, 1), 2)


def gd14_unequal_double_tribute() -> tuple[dict[int, int], dict[int, int]]:
    """GD-14: the first takes the higher tribute, the second the lower."""
    state = guandan_after((2, 0, 1, 3), ["3s 4s", "BJ 6s", "8s 9s", "Ad 7d"])
    return tributes(state), {1: 2, 3: 0}


def gd14_equal_tribute(order: tuple[int, ...], hands: list[str]) -> Callable[[], object]:
    def row() -> tuple[dict[int, int], dict[int, int]]:
        """GD-14: equal tribute cards go clockwise (按順時針方向進貢): each loser gives to
        the winner on their left, their 上家, whoever of the two winners was first."""
        state = guandan_after(order, hands)
        losers = order[2:]
        return tributes(state), {loser: clockwise_of("guandan", loser) for loser in losers}

    return row


def gd14_equal_returns(order: tuple[int, ...], hands: list[str]) -> Callable[[], object]:
    def row() -> tuple[dict[int, int], dict[int, int]]:
        """GD-14: returns go counter-clockwise (按逆時針方向分別還牌), each to its giver."""
        state = guandan_after(order, hands)
        winners = order[:2]
        return returns(state), {w: counter_clockwise_of("guandan", w) for w in winners}

    return row


def gd14_leader(order: tuple[int, ...], hands: list[str]) -> Callable[[], object]:
    def row() -> tuple[int, int]:
        """GD-14: after a double tribute the first player's 下家 (右手方者) leads."""
        state = guandan_after(order, hands)
        returns(state)
        return state.to_act, right_of("guandan", order[0])

    return row


def gd15_refusal_leader() -> tuple[int, int]:
    """GD-15: a refused tribute: the first player (头游) leads."""
    state = guandan_after((3, 1, 0, 2), ["BJ 3s", "4s", "BJ 5s", "6s"])
    return state.to_act, 3


# ------------------------------------------------------------------------ Shengji


def shengji_to_play(name: str, setup: ShengjiSetup, seed: int) -> ShengjiState:
    """A seeded deal with every declaration declined and the kitty buried: the first lead."""
    state = make(name).new_deal(setup, seed=seed)
    assert isinstance(state, ShengjiState)
    while state.phase != "play":
        legal = state.legal_actions()
        state.apply(PASS if PASS in legal else legal[0])
    return state


def sj07_dealing() -> tuple[list[int], list[int]]:
    """SJ-7/SJ-11: cards are dealt one at a time from the dealer in the turn's direction
    (counter-clockwise, 000): the players whose first card is a level card are asked to
    declare in the order they receive it."""
    dealer = 1
    first_cards = {1: "2s", 2: "2h", 0: "2d"}  # seat 3's first card is no level card
    plain = " ".join(f"{rank}{suit}" for rank in "3456789TJQKA" for suit in "shdc")
    filler = iter(parse_cards(plain + " SJ BJ"))
    hands = [list(parse_cards(first_cards.get(seat, ""))) for seat in range(4)]
    for hand in hands:
        hand += [next(filler) for _ in range(12 - len(hand))]
    kitty = [*filler, parse_card("2c")]
    state = make("shengji-1").new_deal(ShengjiSetup(dealer=dealer), hands=[*hands, kitty])
    asked = []
    while len(asked) < len(first_cards):
        asked.append(state.to_act)
        state.apply(PASS)
    receiving = [dealer]
    for _ in range(3):
        receiving.append(turn_after("shengji", receiving[-1]))
    return asked, [seat for seat in receiving if seat in first_cards]


def sj18_turn() -> tuple[list[int], list[int]]:
    """SJ-18: the dealer leads; the turn passes counter-clockwise (000: 按逆時針方向)."""
    state = shengji_to_play("shengji-2", ShengjiSetup(dealer=2), seed=5)
    seen = [state.to_act]
    for _ in range(3):
        state.apply(state.legal_actions()[0])
        seen.append(state.to_act)
    expected = [2]
    for _ in range(3):
        expected.append(turn_after("shengji", expected[-1]))
    return seen, expected


def sj23_next_dealer(take_over: bool) -> Callable[[], object]:
    def row() -> tuple[int, int]:
        """SJ-23: the dealer's partner (对家) deals after the declarers went up; after a
        take-over the dealer's 下家, the next player counter-clockwise (000)."""
        dealer = 1
        for seed in range(400):
            state = shengji_to_play("shengji-1", ShengjiSetup(dealer=dealer), seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply(legal[rng.randrange(len(legal))])
            outcome = state.outcome()
            if outcome.details["take_over"] == take_over:
                assert outcome.next_setup is not None
                expected = (
                    turn_after("shengji", dealer) if take_over else opposite("shengji", dealer)
                )
                return outcome.next_setup.dealer, expected
        raise AssertionError("no seeded deal ended that way")

    return row


# -------------------------------------------------------------------------- sanfu

SANFU = make("sanfu")


def sanfu_deal(setup: SanfuSetup, turned: list[int]) -> SanfuState:
    state = SANFU.new_deal(setup, seed=11, turned=turned)
    assert isinstance(state, SanfuState)
    return state


def sf1_first_receivers() -> tuple[list[int], list[int]]:
    """SF-1: the first two players to receive cards hold 41 cards, the other two 40;
    Decision: dealt from seat 0 in the turn's direction (clockwise). The turned cards
    go to seats 0 and 2, already opposite: nobody moves."""
    state = sanfu_deal(SanfuSetup(), [0, 2])
    sizes = [len(state.hand(s)) for s in range(4)]
    first, second = 0, turn_after("sanfu", 0)
    return sizes, [41 if s in (first, second) else 40 for s in range(4)]


def sf4_swap() -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """SF-4: the first receiver keeps their seat; the second moves opposite them; the
    first receiver leads (SF-6). Turned cards 1 and 4 go to seats 1 and 0."""
    state = sanfu_deal(SanfuSetup(), [1, 4])
    first_player, second_player = 1, 0
    seat_of = state.seating.index
    return (seat_of(first_player), seat_of(second_player), state.to_act), (
        1,
        opposite("sanfu", 1),
        1,
    )


def sf5_one_card() -> tuple[tuple[int, int], tuple[int, int]]:
    """SF-5/SF-6: after a sweep the one turned card's receiver moves opposite the
    previous first finisher (player 2, at seat 2), who leads."""
    state = sanfu_deal(SanfuSetup(previous_first=2, previous_sweep=True), [5])
    receiver = 1  # card 5 is dealt to seat 1
    return (state.seating.index(receiver), state.to_act), (opposite("sanfu", 2), 2)


def sf6_turn() -> tuple[list[int], list[int]]:
    """SF-6: play passes to the next player, clockwise (003: 隨后按順時針方向出牌)."""
    state = sanfu_deal(SanfuSetup(), [2, 6])  # both to seat 2: nobody moves, seat 2 leads
    seen = [state.to_act]
    for _ in range(3):
        state.apply(state.legal_actions()[0])
        seen.append(state.to_act)
    expected = [2]
    for _ in range(3):
        expected.append(turn_after("sanfu", expected[-1]))
    return seen, expected


# ------------------------------------------------------------------- the table

ROWS: list[tuple[str, Callable[[], object]]] = [
    ("GD-10 the next player (xiajia) sits on the right", gd10_next_player),
    ("GD-11 the partner opposite leads", gd11_partner_leads),
    ("GD-13 the last gives to the first and leads", gd13_single_tribute),
    ("GD-14 higher to the first, lower to the second", gd14_unequal_double_tribute),
    (
        "GD-14 equal tribute clockwise to the shangjia, first 0",
        gd14_equal_tribute((0, 2, 1, 3), EQUAL),
    ),
    (
        "GD-14 equal tribute clockwise to the shangjia, first 2",
        gd14_equal_tribute((2, 0, 3, 1), EQUAL),
    ),
    (
        "GD-14 equal tribute clockwise to the shangjia, first 1",
        gd14_equal_tribute((1, 3, 0, 2), EQUAL_ODD),
    ),
    (
        "GD-14 equal tribute clockwise to the shangjia, first 3",
        gd14_equal_tribute((3, 1, 2, 0), EQUAL_ODD),
    ),
    ("GD-14 equal returns counter-clockwise", gd14_equal_returns((0, 2, 1, 3), EQUAL)),
    ("GD-14 equal returns counter-clockwise, odd", gd14_equal_returns((3, 1, 0, 2), EQUAL_ODD)),
    ("GD-14 the first's xiajia leads", gd14_leader((2, 0, 1, 3), EQUAL)),
    ("GD-14 the first's xiajia leads, odd", gd14_leader((3, 1, 0, 2), EQUAL_ODD)),
    ("GD-15 refused: the first leads", gd15_refusal_leader),
    ("SJ-7 dealt from the dealer counter-clockwise", sj07_dealing),
    ("SJ-18 the turn goes counter-clockwise", sj18_turn),
    ("SJ-23 take-over: the dealer's xiajia deals", sj23_next_dealer(take_over=True)),
    ("SJ-23 declarers up: the dealer's partner deals", sj23_next_dealer(take_over=False)),
    ("SF-1 the first two receivers hold 41", sf1_first_receivers),
    ("SF-4 second receiver moves opposite the first", sf4_swap),
    ("SF-5 one turned card: opposite the previous first", sf5_one_card),
    ("SF-6 the turn goes clockwise", sf6_turn),
]


@pytest.mark.parametrize("row", [r for _, r in ROWS], ids=[name for name, _ in ROWS])
def test_each_direction_the_rules_name_is_the_seeds(row: Callable[[], object]) -> None:
    """The seat the engine makes act or receive is the seat the seed's direction gives."""
    actual, expected = row()  # type: ignore[misc]
    assert actual == expected


def test_the_table_covers_every_game() -> None:
    assert {name[:2] for name, _ in ROWS} == {"GD", "SJ", "SF"}


@pytest.mark.parametrize("name", ["guandan", "sanfu", "shengji-1", "shengji-4"])
def test_each_game_says_where_its_turn_goes_as_its_seed_does(name: str) -> None:
    """C-2, GD-10, SJ-18, SF-6: the direction a game names (:attr:`Game.turn`, what the
    web table draws by) is its seed's, and it is where its engine passes the turn on the
    table drawn from the seed's words."""
    from arena.games import family_of, turn_of

    family = family_of(name)
    assert make(name).turn == turn_of(name) == TURN[family]
    assert all(turn_after(family, seat) == (seat + 1) % 4 for seat in range(4))


def test_a_name_no_game_has_has_no_turn() -> None:
    from arena.games import turn_of

    assert turn_of("nope") is None
