"""sanfu rules of the deal, the play, the scoring and the match (rules/sanfu.md), by rule id.

Combination readings and legal play generation (SF-7 … SF-9) are checked in
tests/test_sanfu_combos.py and tests/test_sanfu_moves.py; here they are only used.

Deals are built from explicit hands. A hand spec is a list of tokens: ``Ax12``
is twelve aces (suits spread evenly over what is left of the three decks), ``5s``
is one card. A move in a script is ``"SEAT: pass"`` or ``"SEAT: TOKENS"`` (the
cards are taken from that seat's hand); the script checks that the seat is the
one to act. Most deals are made of big bombs so that a seat can go out in a few
plays while the others pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import product

import pytest

import bots
from arena.cards import BIG_JOKER, RANKS, SMALL_JOKER, SUITS, Card, deck, parse_card
from arena.chance import shuffled_deck
from arena.errors import ConfigError, IllegalActionError
from arena.games import NOBODY, PASS, Action, Event, Observation, State, make, team_of
from arena.games.sanfu import SanfuSetup, SanfuState, scoring
from arena.match import (
    AUTO_MARK,
    FLED_MARK,
    Clock,
    FirstLegal,
    MatchResult,
    Policy,
    SeatGone,
    play_match,
)
from arena.replay import replay_entry, start_deal

GAME = make("sanfu")
SIZES = (41, 41, 40, 40)

# A deal where every seat can go out with a few bombs. Points (C-3): seat 0 holds
# 25 (five 5s), seat 1 25, seat 2 160 (twelve 10s, four Ks), seat 3 90 (eight Ks, two 5s);
# seat 3 also holds three small and three big jokers.
QUICK = (
    "3x12 4x12 6x12 5x5",
    "7x12 8x12 9x12 5x5",
    "Tx12 Jx12 Qx12 Kx4",
    "Kx8 Ax12 2x12 5x2 SJx3 BJx3",
)
NO_MOVE = (0, 2)
"""Turned dealing indices 0 and 2: seats 0 and 2 receive them, already opposite."""


# ------------------------------------------------------------------ helpers


def _rank_cards(rank: str, count: int, available: Counter[Card]) -> list[Card]:
    if rank in ("SJ", "BJ"):
        return [parse_card(rank)] * count
    cards: list[Card] = []
    for _ in range(count):
        suited = [parse_card(rank + suit) for suit in SUITS]
        card = max(suited, key=lambda c: (available[c] - cards.count(c), -c))
        cards.append(card)
    return cards


def hand_spec(spec: str, available: Counter[Card]) -> list[Card]:
    """The cards of a spec, taken from ``available`` (which loses them)."""
    cards: list[Card] = []
    for token in spec.split():
        if "x" in token:
            rank, count = token.split("x")
            taken = _rank_cards(rank, int(count), available)
        else:
            taken = [parse_card(token)]
        for card in taken:
            assert available[card] > 0, f"no {token} left for {spec!r}"
            available[card] -= 1
        cards += taken
    return cards


def deal_hands(*specs: str) -> list[list[Card]]:
    """Hands of seats 0..3 (in dealing order) from four specs covering the three decks."""
    available = Counter(deck(3))
    hands = [hand_spec(spec, available) for spec in specs]
    assert tuple(len(h) for h in hands) == SIZES, [len(h) for h in hands]
    return hands


def new_deal(
    specs: Sequence[str] = QUICK,
    turned: Sequence[int] = NO_MOVE,
    setup: SanfuSetup | None = None,
) -> SanfuState:
    state = GAME.new_deal(setup or SanfuSetup(), hands=deal_hands(*specs), turned=list(turned))
    assert isinstance(state, SanfuState)
    return state


def pick(hand: Sequence[Card], spec: str) -> list[Card]:
    """Cards of ``hand`` matching a spec (``Kx8``: eight Ks of the hand, ``5s``: that card)."""
    left = Counter(hand)
    cards: list[Card] = []
    for token in spec.split():
        if "x" in token:
            rank, count = token.split("x")
            wanted = [c for c in sorted(left.elements()) if _rank_of_text(c) == rank]
            assert len(wanted) >= int(count), f"the hand holds no {token}"
            taken = wanted[: int(count)]
        else:
            taken = [parse_card(token)]
        for card in taken:
            assert left[card] > 0, f"the hand holds no {token}"
            left[card] -= 1
        cards += taken
    return cards


def _rank_of_text(card: Card) -> str:
    return {SMALL_JOKER: "SJ", BIG_JOKER: "BJ"}.get(card) or RANKS[card >> 2]


def play(state: State, *moves: str) -> None:
    """Apply a script of ``"SEAT: pass"`` / ``"SEAT: TOKENS"`` moves, checking whose turn it is."""
    for move in moves:
        seat_text, what = move.split(":")
        seat, what = int(seat_text), what.strip()
        assert state.to_act == seat, f"{move!r}: seat {state.to_act} is to act"
        if what == "pass":
            state.apply(PASS)
        else:
            state.apply(Action.make("play", pick(state.hand(seat), what)))


def events(state: State, kind: str) -> list[Event]:
    return [e for e in state.events if e.kind == kind]


def seat_of(state: SanfuState, player: int) -> int:
    return state.seating.index(player)


# ----------------------------------------------------- SF-1 dealing


@pytest.mark.parametrize("seating", [(0, 1, 2, 3), (2, 0, 3, 1)])
@pytest.mark.parametrize("seed", [1, 7, 2024])
def test_sf01_a_seed_deals_162_cards_one_at_a_time_from_seat_0(
    seating: tuple[int, int, int, int], seed: int
) -> None:
    state = GAME.new_deal(SanfuSetup(seating=seating), seed=seed)
    assert isinstance(state, SanfuState)
    order = shuffled_deck(3, seed)
    dealt = {seating[s]: sorted(order[s::4]) for s in range(4)}  # card k to seat k % 4
    assert [len(dealt[p]) for p in seating] == [41, 41, 40, 40]
    for player, cards in dealt.items():  # every player holds what was dealt to them
        assert list(state.hand(seat_of(state, player))) == cards
    all_cards = Counter(c for s in range(4) for c in state.hand(s))
    assert all_cards == Counter(deck(3)) and sum(all_cards.values()) == 162
    assert sorted(state.observe(0).public["counts"]) == [40, 40, 41, 41]


@pytest.mark.parametrize("indices", [(0, 161), (3, 52), (5, 158), (159, 160)])
def test_sf01_explicit_hands_are_dealt_one_card_at_a_time_from_seat_0(
    indices: tuple[int, int],
) -> None:
    hands = deal_hands(*QUICK)
    state = GAME.new_deal(SanfuSetup(), hands=hands, turned=list(indices))
    turns = events(state, "turn")
    # dealing index k goes to seat k % 4 (player k % 4 here), as the (k // 4)-th card of its
    # hand; the event names the seat that player plays from once the seats are rearranged
    assert [(e.seat, e.value, e.cards) for e in turns] == [
        (seat_of(state, k % 4), k % 4, (hands[k % 4][k // 4],)) for k in indices
    ]


def test_sf01_hands_must_be_41_41_40_40_from_three_decks() -> None:
    hands = deal_hands(*QUICK)
    with pytest.raises(ConfigError, match="41/41/40/40"):
        GAME.new_deal(SanfuSetup(), hands=[hands[2], hands[1], hands[0], hands[3]], turned=[0, 2])
    four_aces = [*hands[0][:-1], parse_card("As")]  # a fourth As: seat 3 holds three
    with pytest.raises(ConfigError, match="three"):
        GAME.new_deal(SanfuSetup(), hands=[four_aces, *hands[1:]], turned=[0, 2])
    for bad in (54, -1, "As", True):  # not a card int 0..53
        with pytest.raises(ConfigError, match="is not a card"):
            GAME.new_deal(SanfuSetup(), hands=[[*hands[0][:-1], bad], *hands[1:]], turned=[0, 2])


# ------------------------------------------------ SF-2 turned cards


def test_sf02_the_seed_picks_two_turned_cards_deterministically() -> None:
    setup = SanfuSetup(seating=(3, 0, 2, 1))
    picked = set()
    for seed in range(30):
        state = GAME.new_deal(setup, seed=seed)
        assert list(state.events) == list(GAME.new_deal(setup, seed=seed).events)
        turns = events(state, "turn")
        assert len(turns) == 2
        order = shuffled_deck(3, seed)
        for turn in turns:
            (card,) = turn.cards
            assert turn.value == state.seating[turn.seat]  # the player receiving it, seated
            assert card in order[setup.seating.index(turn.value) :: 4]  # dealt to that player
            assert card in state.hand(turn.seat)
        picked.add(tuple((e.seat, e.cards) for e in turns))
    assert len(picked) > 20  # the seed decides


def test_sf02_turn_events_are_public_with_the_card_and_the_receiver() -> None:
    hands = deal_hands(*QUICK)
    setup = SanfuSetup(seating=(2, 3, 0, 1))
    state = GAME.new_deal(setup, hands=hands, turned=[100, 7])  # given in any order
    expected = [
        Event("turn", 3, (hands[3][1],), value=1),  # index 7: dealt to seat 3, player 1
        # index 100: dealt to seat 0, player 2, who then moves opposite player 1 (seat 1)
        Event("turn", 1, (hands[0][25],), value=2),
    ]
    assert events(state, "turn") == expected
    kinds = [e.kind for e in state.events]
    assert kinds.index("turn") < kinds.index("lead")
    for seat in range(4):  # every seat sees them
        assert [e for e in state.observe(seat).events if e.kind == "turn"] == expected
    text = GAME.describe_event(expected[0], state)
    assert "player 1" in text


def test_sf02_turned_cards_must_be_two_distinct_dealing_indices() -> None:
    hands = deal_hands(*QUICK)
    for turned in ([0], [0, 0], [0, 1, 2], [0, 162], [-1, 3]):
        with pytest.raises(ConfigError, match="turned"):
            GAME.new_deal(SanfuSetup(), hands=hands, turned=turned)


# ------------------------------------------- SF-3 / SF-4 partners and seats

# For the first and second receiver's seats (first, second) with players 0..3 at
# seats 0..3: the player sitting at each seat after the rearrangement (SF-4).
REARRANGED = {
    (0, 0): (0, 1, 2, 3),
    (0, 1): (0, 2, 1, 3),  # 1 swaps with 2, who sits opposite 0
    (0, 2): (0, 1, 2, 3),  # already opposite
    (0, 3): (0, 1, 3, 2),  # 3 swaps with 2
    (1, 0): (3, 1, 2, 0),  # 0 swaps with 3, who sits opposite 1
    (1, 1): (0, 1, 2, 3),
    (1, 2): (0, 1, 3, 2),  # 2 swaps with 3
    (1, 3): (0, 1, 2, 3),
    (2, 0): (0, 1, 2, 3),
    (2, 1): (1, 0, 2, 3),  # 1 swaps with 0, who sits opposite 2
    (2, 2): (0, 1, 2, 3),
    (2, 3): (3, 1, 2, 0),  # 3 swaps with 0
    (3, 0): (1, 0, 2, 3),  # 0 swaps with 1, who sits opposite 3
    (3, 1): (0, 1, 2, 3),
    (3, 2): (0, 2, 1, 3),  # 2 swaps with 1
    (3, 3): (0, 1, 2, 3),
}
SEATINGS = [(0, 1, 2, 3), (2, 0, 3, 1)]
POSITIONS = list(product(range(4), repeat=2))


def rearranged(seating: Sequence[int], first: int, second: int) -> tuple[int, ...]:
    """REARRANGED for any seating: the players move as seats 0..3 do in the table."""
    return tuple(seating[s] for s in REARRANGED[first, second])


@pytest.mark.parametrize("seating", SEATINGS)
@pytest.mark.parametrize(("first", "second"), POSITIONS)
def test_sf03_receivers_are_partners_or_a_double_receiver_partners_the_one_opposite(
    seating: tuple[int, int, int, int], first: int, second: int
) -> None:
    state = new_deal(turned=[first, 4 + second], setup=SanfuSetup(seating=seating))
    one, two = seating[first], seating[second]
    partner = seating[(first + 2) % 4] if one == two else two
    # partners sit opposite: seats s and s + 2 (C-2)
    assert seat_of(state, partner) == (seat_of(state, one) + 2) % 4
    assert team_of(seat_of(state, partner)) == team_of(seat_of(state, one))
    others = [p for p in range(4) if p not in (one, partner)]
    assert (seat_of(state, others[0]) - seat_of(state, others[1])) % 4 == 2


@pytest.mark.parametrize("seating", SEATINGS)
@pytest.mark.parametrize(("first", "second"), POSITIONS)
def test_sf04_the_second_receiver_swaps_with_whoever_sits_opposite_the_first(
    seating: tuple[int, int, int, int], first: int, second: int
) -> None:
    hands = deal_hands(*QUICK)
    state = GAME.new_deal(SanfuSetup(seating=seating), hands=hands, turned=[first, 4 + second])
    assert isinstance(state, SanfuState)
    expected = rearranged(seating, first, second)
    assert state.seating == expected
    assert [state.player_at(s) for s in range(4)] == list(expected)
    assert state.seating[first] == seating[first]  # the first receiver keeps their seat
    for seat in range(4):
        assert tuple(state.observe(seat).public["seating"]) == expected
    # every player keeps their own cards when they move
    for dealt_seat, player in enumerate(seating):
        assert list(state.hand(seat_of(state, player))) == sorted(hands[dealt_seat])
    counts = state.observe(0).public["counts"]
    assert [counts[seat_of(state, p)] for p in seating] == [41, 41, 40, 40]
    if second in (first, (first + 2) % 4):  # one player got both, or already opposite
        assert events(state, "swap") == []
    else:
        assert len(events(state, "swap")) == 1


@pytest.mark.parametrize("seating", SEATINGS)
def test_sf04_each_seat_change_is_a_public_event_naming_the_mover(
    seating: tuple[int, int, int, int],
) -> None:
    for first, second in POSITIONS:
        opposite = (first + 2) % 4
        if second in (first, opposite):
            continue
        state = new_deal(turned=[first, 4 + second], setup=SanfuSetup(seating=seating))
        mover, other = seating[second], seating[opposite]
        assert state.seating[opposite] == mover
        # "player X swaps seats with player Y": X the mover, now at seat `seat`; Y now at
        # seat `target` (seats of the rearranged table, as every event's)
        swap = Event("swap", opposite, target=second, value=mover, tag=str(other))
        assert events(state, "swap") == [swap], (first, second)
        text = GAME.describe_event(swap, state)
        assert text == f"player {mover} swaps seats with player {other}: now at seat {opposite}"
        for seat in range(4):
            assert swap in state.observe(seat).events


def test_sf04_the_order_of_dealing_decides_who_is_first_not_the_order_given() -> None:
    given_late_first = new_deal(turned=[4 + 1, 0])  # seat 0 receives first (index 0)
    assert given_late_first.seating == REARRANGED[0, 1]
    reverse = new_deal(turned=[1, 4 + 0])  # now seat 1 is first
    assert reverse.seating == REARRANGED[1, 0]


# ------------------------------------------------------- SF-5 after a sweep


@pytest.mark.parametrize(("first_seat", "receiver"), POSITIONS)
def test_sf05_after_a_sweep_one_card_moves_its_receiver_opposite_the_previous_first(
    first_seat: int, receiver: int
) -> None:
    seating = (3, 1, 0, 2)
    previous_first = seating[first_seat]
    setup = SanfuSetup(seating=seating, previous_first=previous_first, previous_sweep=True)
    hands = deal_hands(*QUICK)
    index = 40 + receiver  # dealt to `receiver`
    state = GAME.new_deal(setup, hands=hands, turned=[index])
    assert isinstance(state, SanfuState)
    turns = events(state, "turn")
    # the same moves as two cards with the previous first finisher as first receiver
    assert state.seating == rearranged(seating, first_seat, receiver)
    now = seat_of(state, seating[receiver])  # the seat the receiver plays from
    assert turns == [Event("turn", now, (hands[receiver][10],), value=seating[receiver])]
    assert seat_of(state, previous_first) == first_seat  # the previous first never moves
    partner = state.player_at((first_seat + 2) % 4)
    if receiver == first_seat:  # they keep their current partner
        assert partner == seating[(first_seat + 2) % 4]
        assert events(state, "swap") == []
    else:
        assert partner == seating[receiver]
    for dealt_seat, player in enumerate(seating):
        assert list(state.hand(seat_of(state, player))) == sorted(hands[dealt_seat])
    # SF-6: the previous first finisher leads
    assert state.to_act == first_seat
    assert events(state, "lead") == [Event("lead", first_seat)]


def test_sf05_a_deal_after_a_sweep_turns_one_card_and_otherwise_two() -> None:
    hands = deal_hands(*QUICK)
    after_sweep = SanfuSetup(previous_first=2, previous_sweep=True)
    with pytest.raises(ConfigError, match="one card"):
        GAME.new_deal(after_sweep, hands=hands, turned=[0, 2])
    with pytest.raises(ConfigError, match="two cards"):
        GAME.new_deal(SanfuSetup(previous_first=2), hands=hands, turned=[0])
    with pytest.raises(ConfigError, match="previous first"):
        GAME.new_deal(SanfuSetup(previous_sweep=True), hands=hands, turned=[0])
    for seed in range(10):
        assert len(events(GAME.new_deal(after_sweep, seed=seed), "turn")) == 1
        assert len(events(GAME.new_deal(SanfuSetup(previous_first=2), seed=seed), "turn")) == 2


# ---------------------------------------------------------------- SF-6 lead


def test_sf06_the_first_receiver_leads_and_play_passes_to_the_next_player() -> None:
    # index 1 (seat 1) is turned first, index 6 (seat 2) second: 2 swaps with 3
    state = new_deal(turned=[6, 1], setup=SanfuSetup(previous_first=0))
    assert state.seating == (0, 1, 3, 2)
    assert state.to_act == 1
    assert events(state, "lead") == [Event("lead", 1)]
    play(state, "1: 7s", "2: Ks", "3: pass", "0: pass", "1: pass")
    assert state.to_act == 2


def test_sf06_after_a_sweep_the_previous_first_finisher_leads() -> None:
    setup = SanfuSetup(seating=(1, 2, 3, 0), previous_first=0, previous_sweep=True)
    state = new_deal(turned=[5], setup=setup)  # seat 1 (player 2) receives it
    assert state.seating == (1, 2, 3, 0)  # player 2 already sits opposite player 0
    assert state.to_act == 3 == seat_of(state, 0)
    play(state, "3: 5x2", "0: pass", "1: pass", "2: pass")
    assert state.to_act == 3


# ----------------------------------------------------------- SF-10 tricks


def test_sf10_three_passes_end_the_trick_and_the_last_player_captures_its_points() -> None:
    state = new_deal()
    play(state, "0: 5x1", "1: 7x1", "2: Tx1", "3: Kx1", "0: pass", "1: pass")
    assert events(state, "capture") == []  # two passes: the trick goes on
    assert state.to_act == 2
    play(state, "2: pass")
    # 5 + 10 + 10 points (C-3), the 7 is worth nothing
    assert events(state, "capture") == [Event("capture", 3, value=25)]
    assert state.events[-1] == Event("lead", 3)
    assert state.to_act == 3
    for seat in range(4):
        public = state.observe(seat).public
        assert public["captured"] == [0, 0, 0, 25]
        assert public["table"] is None


def test_sf10_a_player_who_passed_may_play_later_in_the_same_trick() -> None:
    state = new_deal()
    play(state, "0: 3x1", "1: pass", "2: pass", "3: 5x1")  # two passes, then a play
    play(state, "0: 6x1", "1: 9x1", "2: pass", "3: pass")  # seat 1 passed before
    assert state.to_act == 0 and events(state, "capture") == []  # one more pass ends it
    play(state, "0: pass")
    assert events(state, "capture") == [Event("capture", 1, value=5)]
    assert state.to_act == 1
    assert state.observe(2).public["captured"] == [0, 5, 0, 0]


def test_sf10_the_leader_must_play() -> None:
    state = new_deal()
    with pytest.raises(IllegalActionError, match="leader"):
        state.apply(PASS)
    assert PASS not in state.legal_actions()


def test_sf10_the_leader_may_play_any_combination_given_in_text_form() -> None:
    state = new_deal()
    for text in ("play 3s 3h", "play 3d 3c 3h 3s", "play 4s 4h 4d"):
        assert state.parse_action(text) == Action.from_str(text)


def test_sf10_the_partner_of_a_trick_winner_who_is_out_leads_and_the_out_player_keeps_points() -> (
    None
):
    state = new_deal()
    play(state, "0: 3x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 4x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 6x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 5x5")
    assert events(state, "out") == [Event("out", 0, value=1)]
    play(state, "1: pass", "2: pass", "3: pass")  # the three others pass
    assert events(state, "capture")[-1] == Event("capture", 0, value=25)
    assert state.events[-1] == Event("lead", 2, tag="partner")  # 对家接风
    assert state.to_act == 2
    # seat 0 is out: skipped (3 is followed by 1), and two passes now end a trick
    play(state, "2: Tx12", "3: Ax12", "1: pass", "2: pass")
    assert events(state, "capture")[-1] == Event("capture", 3, value=120)
    assert state.observe(1).public["captured"] == [25, 0, 0, 120]  # seat 0 keeps its 25
    assert state.observe(1).public["finished"] == (0,)
    assert state.to_act == 3
    after_out = state.events[state.events.index(Event("out", 0, value=1)) + 1 :]
    assert all(e.seat != 0 for e in after_out if e.kind in ("play", "pass"))


# ------------------------------------------------------- SF-11 end of the deal


def sweep_by_seats_0_and_2(setup: SanfuSetup | None = None) -> SanfuState:
    """Seat 0 goes out first, seat 2 second: a sweep (抬了)."""
    state = new_deal(setup=setup)
    play(state, "0: 3x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 4x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 6x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 5x5", "1: pass", "2: pass", "3: pass")  # seat 0 captures 25
    play(state, "2: Tx12", "3: pass", "1: pass")  # seat 2 captures 120
    play(state, "2: Jx12", "3: pass", "1: pass")
    play(state, "2: Qx12", "3: pass", "1: pass")
    play(state, "2: Kx4")  # out: the last play takes the table (40)
    return state


def test_sf11_the_deal_ends_as_soon_as_both_players_of_a_team_are_out() -> None:
    hands = deal_hands(*QUICK)
    state = sweep_by_seats_0_and_2()
    assert events(state, "out") == [Event("out", 0, value=1), Event("out", 2, value=2)]
    assert state.is_terminal() and state.to_act == NOBODY and state.phase == "over"
    assert state.legal_actions() == []
    with pytest.raises(IllegalActionError):
        state.apply(PASS)
    # the remaining players keep their cards
    assert list(state.hand(1)) == sorted(hands[1])
    assert list(state.hand(3)) == sorted(hands[3])
    details = state.outcome().details
    assert details["order"] == [0, 2]
    assert sorted(details["last"]) == [1, 3]
    assert details["captured"] == [25, 0, 160, 0]


def one_second_one_last(seating: tuple[int, int, int, int]) -> SanfuState:
    """Seats 0, 1, 2 go out in that order; seat 3 is last holding 10 points."""
    state = new_deal(setup=SanfuSetup(seating=seating))
    play(state, "0: 5x5", "1: pass", "2: pass", "3: Ax12", "0: pass", "1: pass", "2: pass")
    play(state, "3: 2x2", "0: 3x12", "1: pass", "2: pass", "3: pass")  # 3 took 25, 0 took 0
    play(state, "0: 4x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 6x12")  # seat 0 first
    play(state, "1: 7x12", "2: pass", "3: pass")
    play(state, "1: 8x12", "2: pass", "3: pass")
    play(state, "1: 9x12", "2: pass", "3: pass")
    play(state, "1: 5x5")  # seat 1 second: one player of each team is out
    assert not state.is_terminal()
    play(state, "2: pass", "3: pass")  # seat 1 takes 25; its partner (seat 3) leads
    assert state.events[-1] == Event("lead", 3, tag="partner")
    play(state, "3: Kx8", "2: Tx12", "3: pass")  # seat 2 takes 80 + 120
    play(state, "2: Jx12", "3: pass", "2: Qx12", "3: pass", "2: Kx4")  # third, takes 40
    return state


def test_sf11_the_deal_goes_on_until_a_whole_team_is_out() -> None:
    state = one_second_one_last((0, 1, 2, 3))
    assert [e.seat for e in events(state, "out")] == [0, 1, 2]
    assert [e.value for e in events(state, "out")] == [1, 2, 3]
    assert state.is_terminal()
    assert state.outcome().details["last"] == [3]
    assert len(state.hand(3)) == 40 - 12 - 2 - 8


# ---------------------------------------------------------- SF-13 team points


def test_sf13_the_last_players_captures_and_hand_go_to_the_other_team() -> None:
    # players 1, 3, 0, 2 at seats 0..3: teams are players {1, 0} and {3, 2}
    state = one_second_one_last((1, 3, 0, 2))
    outcome = state.outcome()
    d = outcome.details
    assert d["order"] == [1, 3, 0]
    assert d["last"] == [2]
    assert d["teams"] == [[0, 1], [2, 3]]
    assert d["captured"] == [240, 0, 25, 25]  # per player
    assert d["hand_points"] == [0, 0, 10, 0]
    # player 3 (second) counts for its team, player 2 (last) gives 25 + 10 to the others
    assert d["transferred"] == [35, 0]
    assert d["team_points"] == [240 + 35, 25]
    assert d["sweep"] is False
    assert (d["winner_team"], d["stake"]) == (0, 2)
    assert outcome.scores == (2, 2, -2, -2)
    assert d["joker_bonus"] == [0, 0, 0, 0]  # player 2 holds both joker triples unplayed


def test_sf13_team_points_as_a_pure_function() -> None:
    team = [0, 1, 0, 1]
    # one last player (3): captures and hand go to team 0
    points = scoring.team_points([50, 40, 60, 30], [0, 0, 0, 120], [3], team)
    assert points.points == (50 + 60 + 30 + 120, 40)
    assert points.transferred == (150, 0)
    # two last players (a sweep by team 0): everything goes to team 0
    points = scoring.team_points([100, 20, 30, 10], [0, 60, 0, 80], [1, 3], team)
    assert points.points == (300, 0)
    assert points.transferred == (170, 0)
    assert scoring.TOTAL_POINTS == 300 == 5 * 12 + 10 * 12 + 10 * 12  # 5s, 10s, Ks (C-3)


# ------------------------------------------------------------ SF-14 results


def test_sf14_a_sweep_wins_6x_when_the_sweeping_team_has_all_300_points() -> None:
    state = sweep_by_seats_0_and_2(SanfuSetup(seating=(3, 2, 1, 0)))
    outcome = state.outcome()
    d = outcome.details
    assert d["sweep"] is True
    # seats 1 and 3 are both last: their captures (0) and hands (25 and 90) go across
    assert d["team_points"] == [300, 0]
    assert d["transferred"] == [115, 0]
    assert (d["winner_team"], d["stake"]) == (0, 6)
    assert outcome.scores == (-6, 6, -6, 6)  # players 3 and 1 sat at seats 0 and 2


TIE_HANDS = (
    "7x12 8x12 9x12 Ax5",
    "3x12 4x12 6x12 Tx5",
    "Kx10 Jx12 Qx12 2x6",
    "5x12 Tx7 Kx2 Ax7 2x6 SJx3 BJx3",
)


def first_finisher_captures(kings: int) -> SanfuState:
    """Seat 1 goes out first having taken 50 + 10 × ``kings`` points; seats 0 and 2
    follow and seat 3 is last: every other point goes to team 0 (seats 0 and 2)."""
    state = new_deal(TIE_HANDS, turned=[1, 3], setup=SanfuSetup(seating=(2, 3, 0, 1)))
    play(state, "1: 3x12", "2: pass", "3: pass", "0: pass")
    play(state, "1: 4x12", "2: pass", "3: pass", "0: pass")
    play(state, "1: Tx5", f"2: Kx{kings}", "3: pass", "0: pass", "1: 6x12")
    play(state, "2: pass", "3: pass", "0: pass")
    play(state, "3: 2x6", "0: 7x12", "2: pass", "3: pass")
    play(state, "0: 8x12", "2: pass", "3: pass", "0: 9x12", "2: pass", "3: pass", "0: Ax5")
    play(state, "2: pass", "3: pass")
    play(state, "2: Jx12", "3: pass", "2: Qx12", "3: pass", "2: 2x6")
    if kings < 10:
        play(state, "3: pass", f"2: Kx{10 - kings}")
    assert state.is_terminal()
    return state


@pytest.mark.parametrize(
    ("kings", "team_points", "winner", "stake"),
    [
        (10, [150, 150], 1, 1),  # 150-150: the first finisher's team wins
        (8, [170, 130], 0, 1),  # more points win, even without the first finisher
        (5, [200, 100], 0, 2),  # 200 or more: 2×
    ],
)
def test_sf14_more_points_win_and_150_150_goes_to_the_first_finishers_team(
    kings: int, team_points: list[int], winner: int, stake: int
) -> None:
    outcome = first_finisher_captures(kings).outcome()
    d = outcome.details
    assert d["order"] == [3, 2, 0]  # players at seats 1, 0, 2
    assert d["last"] == [1]
    assert d["teams"] == [[0, 2], [1, 3]]
    assert d["sweep"] is False
    assert d["team_points"] == team_points
    assert (d["winner_team"], d["stake"]) == (winner, stake)
    sign = 1 if winner == 0 else -1
    assert outcome.scores == (sign * stake, -sign * stake, sign * stake, -sign * stake)


@pytest.mark.parametrize(
    ("points", "first_team", "sweep", "expected"),
    [
        ((160, 140), 0, False, (0, 1)),
        ((140, 160), 0, False, (1, 1)),
        ((150, 150), 0, False, (0, 1)),
        ((150, 150), 1, False, (1, 1)),
        ((199, 101), 1, False, (0, 1)),
        ((200, 100), 1, False, (0, 2)),
        ((95, 205), 0, False, (1, 2)),
        ((295, 5), 0, False, (0, 2)),
        ((300, 0), 1, False, (0, 3)),
        ((0, 300), 1, False, (1, 3)),
        ((250, 50), 0, True, (0, 3)),
        ((100, 200), 0, True, (0, 3)),  # a sweep wins whatever the points
        ((300, 0), 0, True, (0, 6)),
        ((0, 300), 1, True, (1, 6)),
    ],
)
def test_sf14_deal_stake(
    points: tuple[int, int], first_team: int, sweep: bool, expected: tuple[int, int]
) -> None:
    assert scoring.deal_stake(points, first_team, sweep) == expected


def test_sf14_each_winner_gains_the_stake_and_each_loser_pays_it() -> None:
    assert scoring.stake_results(0, 2, [0, 1, 0, 1]) == [2, -2, 2, -2]
    assert scoring.stake_results(1, 6, [1, 1, 0, 0]) == [6, 6, -6, -6]


# ------------------------------------------------------- SF-16 joker bonus


def test_sf16_three_big_jokers_played_gain_6_and_cost_each_other_player_2() -> None:
    state = new_deal()
    play(state, "0: 3x12", "1: pass", "2: pass", "3: BJx3", "0: pass", "1: pass", "2: pass")
    play(state, "3: 5x2", "0: 4x12", "1: pass", "2: pass", "3: pass")
    play(state, "0: 6x12", "1: pass", "2: pass", "3: pass", "0: 5x5", "1: pass", "2: pass")
    play(state, "3: pass", "2: Tx12", "3: pass", "1: pass", "2: Jx12", "3: pass", "1: pass")
    play(state, "2: Qx12", "3: pass", "1: pass", "2: Kx4")
    assert state.hand(3).count(parse_card("SJ")) == 3  # three small jokers held: no bonus
    outcome = state.outcome()
    assert outcome.details["joker_bonus"] == [-2, -2, -2, 6]
    assert outcome.details["stake"] == 6  # seats 0 and 2 swept
    assert outcome.scores == (6 - 2, -6 - 2, 6 - 2, -6 + 6)


def test_sf16_both_joker_triples_played_gain_12_and_cost_each_other_player_4() -> None:
    state = new_deal(turned=[3, 7], setup=SanfuSetup(seating=(1, 2, 3, 0)))
    assert state.seating == (1, 2, 3, 0) and state.to_act == 3  # player 0 got both
    play(state, "3: BJx3", "0: pass", "1: pass", "2: pass")
    play(state, "3: SJx3", "0: pass", "1: pass", "2: pass")
    for bomb in ("Kx8", "Ax12", "2x12"):
        play(state, f"3: {bomb}", "0: pass", "1: pass", "2: pass")
    play(state, "3: 5x2", "0: pass", "1: pass", "2: pass")  # player 0 out first
    play(state, "1: 7x12", "2: pass", "0: pass", "1: 8x12", "2: pass", "0: pass")
    play(state, "1: 9x12", "2: pass", "0: pass", "1: 5x5")  # player 2 out: a sweep
    outcome = state.outcome()
    assert [e.tag for e in events(state, "play")][:2] == ["joker_triple", "joker_triple"]
    assert outcome.details["joker_bonus"] == [12, -4, -4, -4]  # per player
    assert outcome.details["stake"] == 6
    assert outcome.scores == (6 + 12, -6 - 4, 6 - 4, -6 - 4)


def test_sf16_joker_bonus_as_a_pure_function() -> None:
    assert scoring.joker_bonus([]) == [0, 0, 0, 0]
    assert scoring.joker_bonus([2]) == [-2, -2, 6, -2]
    assert scoring.joker_bonus([1, 1]) == [-4, 12, -4, -4]
    assert scoring.joker_bonus([0, 3]) == [4, -4, -4, 4]


# ------------------------------------------------- SF-12 / SF-15 time and fleeing


class FakeTime:
    """A clock that only moves when a slow policy thinks."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class LateOn:
    """Answers like a random bot, taking 10 s (on the fake clock) for the decisions
    whose number (1, 2, …) is in ``late``; raises SeatGone at decision ``gone``."""

    def __init__(self, time: FakeTime, late: Sequence[int] = (), gone: int = 0) -> None:
        self.time, self.late, self.gone = time, set(late), gone
        self.calls = 0
        self.inner = bots.make("random", 11)

    def act(self, observation: Observation) -> Action | str:
        self.calls += 1
        if self.calls == self.gone:
            raise SeatGone
        if self.calls in self.late:
            self.time.now += 10.0
        return self.inner.act(observation)


def one_deal(policy: LateOn, player: int, seed: int = 4) -> tuple[MatchResult, list[Event]]:
    policies: list[Policy] = [bots.make("random", p) for p in range(4)]
    policies[player] = policy
    seen: list[Event] = []
    result = play_match(
        make("sanfu", deals=1),
        policies,
        seed=seed,
        clock=Clock(limit=1.0, now=policy.time),
        on_event=lambda state, event: seen.append(event),
    )
    return result, seen


def test_sf12_a_late_decision_is_made_by_automatic_play_in_public() -> None:
    policy = LateOn(FakeTime(), late=[2, 5])
    result, seen = one_deal(policy, player=2)
    deal = result.record.deals[0]
    outcome = result.outcomes[0]
    seat = outcome.details["seating"].index(2)
    assert deal.actions.count(AUTO_MARK) == 2
    assert [e for e in seen if e.kind == "auto"] == [Event("auto", seat)] * 2
    assert "fled" not in outcome.details  # the deal went on to its end
    assert outcome.details["order"]
    # each automatic play is the fallback's choice (the first legal action)
    state = start_deal(GAME, deal)
    entries = iter(deal.actions)
    for entry in entries:
        replay_entry(state, entry)
        if entry == AUTO_MARK:
            assert state.to_act == seat
            chosen = FirstLegal().act(state.observe(seat))
            following = next(entries)
            assert following == str(chosen)
            replay_entry(state, following)
    assert state.is_terminal()


def test_sf12_five_automatic_plays_in_a_row_are_fleeing_and_end_the_deal() -> None:
    """由系統幫助出牌連續5次視為逃跑: the fifth automatic play in a row makes the player fled
    at once (no sixth decision is asked for)."""
    policy = LateOn(FakeTime(), late=range(1, 1000))
    result, seen = one_deal(policy, player=3)
    outcome = result.outcomes[0]
    seat = outcome.details["seating"].index(3)
    actions = result.record.deals[0].actions
    assert actions.count(AUTO_MARK) == 5  # five automatic plays in a row
    assert actions[-3] == AUTO_MARK and actions[-1] == f"{FLED_MARK} {seat}"
    assert policy.calls == 5
    assert [e for e in seen if e.kind == "fled"] == [Event("fled", seat, value=3)]
    # SF-15: the player who fled pays 10×, nobody else gains or pays
    assert outcome.details["fled"] == 3
    assert outcome.scores == (0, 0, 0, -10)
    assert result.totals == [0, 0, 0, -10]


def test_sf12_automatic_plays_count_only_in_a_row() -> None:
    policy = LateOn(FakeTime(), late=[*range(1, 5), *range(6, 10)])  # four, one in time, four
    result, _ = one_deal(policy, player=1)
    actions = result.record.deals[0].actions
    assert policy.calls >= 10
    assert actions.count(AUTO_MARK) == 8
    assert not any(a.startswith(FLED_MARK) for a in actions)
    assert "fled" not in result.outcomes[0].details


def test_sf12_a_player_who_leaves_has_fled_at_once() -> None:
    policy = LateOn(FakeTime(), gone=3)
    result, seen = one_deal(policy, player=1)
    outcome = result.outcomes[0]
    seat = outcome.details["seating"].index(1)
    actions = result.record.deals[0].actions
    assert actions[-1] == f"{FLED_MARK} {seat}"
    assert AUTO_MARK not in actions
    assert [e.kind for e in seen].count("fled") == 1
    assert outcome.details["fled"] == 1
    assert outcome.scores == (0, -10, 0, 0)


def test_sf15_only_the_player_who_fled_pays_even_after_a_joker_triple() -> None:
    state = new_deal(setup=SanfuSetup(seating=(2, 0, 1, 3)))
    play(state, "0: 3x12", "1: pass", "2: pass", "3: BJx3", "0: pass")
    state.flee(2)  # seat 2: player 1
    assert state.is_terminal()
    assert state.events[-1] == Event("fled", 2, value=1)
    outcome = state.outcome()
    assert outcome.details["fled"] == 1
    assert outcome.scores == (0, -10, 0, 0)
    assert scoring.flee_results(3) == [0, 0, 0, -10]
    with pytest.raises(IllegalActionError):
        state.flee(0)


# ---------------------------------------------------------------- SF-17 match


def test_sf17_a_match_is_eight_deals_by_default_and_results_add_up_per_player() -> None:
    assert GAME.options["deals"] == 8
    result = play_match(GAME, [bots.make("random", p) for p in range(4)], seed=12)
    assert len(result.outcomes) == 8
    assert result.totals == [sum(o.scores[p] for o in result.outcomes) for p in range(4)]
    assert sum(result.totals) == 0  # nobody fled: every deal is zero-sum
    assert [o.next_setup is None for o in result.outcomes] == [False] * 7 + [True]
    assert result.complete and result.winner is None


@pytest.mark.parametrize("deals", [1, 3])
def test_sf17_the_number_of_deals_is_an_option(deals: int) -> None:
    result = play_match(make("sanfu", deals=deals), [bots.make("first")] * 4, seed=3)
    assert len(result.outcomes) == deals
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ConfigError, match="deals"):
            make("sanfu", deals=bad)


def test_sf17_seating_and_the_first_finisher_carry_over_to_the_next_deal() -> None:
    starts: list[list[Event]] = []

    def collect(state: State, event: Event) -> None:
        if event.kind == "deal":
            starts.append([])
        starts[-1].append(event)

    game = make("sanfu", deals=6)
    result = play_match(
        game, [bots.make("random", 20 + p) for p in range(4)], seed=5, on_event=collect
    )
    outcomes = result.outcomes
    assert len(starts) == 6
    for index, deal in enumerate(result.record.deals):
        assert deal.setup["deal_index"] == index
        assert starts[index][0] == Event("deal", value=index)
        if index:
            previous = outcomes[index - 1]
            setup = previous.next_setup
            assert setup.seating == tuple(previous.details["seating"])
            assert setup.previous_first == previous.details["order"][0]
            assert setup.previous_sweep == previous.details["sweep"]
            assert setup.deal_index == index
            assert deal.setup == game.setup_to_dict(setup)
            turns = [e for e in starts[index] if e.kind == "turn"]
            assert len(turns) == (1 if previous.details["sweep"] else 2)
            for turn in turns:  # the receiver, at its seat of the rearranged table
                assert turn.value == outcomes[index].details["seating"][turn.seat]


def test_sf17_next_setup_of_an_explicit_deal() -> None:
    swept = sweep_by_seats_0_and_2(SanfuSetup(seating=(3, 2, 1, 0), deals=2))
    setup = swept.outcome().next_setup
    assert setup == SanfuSetup(
        seating=(3, 2, 1, 0), previous_first=3, previous_sweep=True, deal_index=1, deals=2
    )
    assert len(events(GAME.new_deal(setup, seed=1), "turn")) == 1
    last = GAME.new_deal(setup, hands=deal_hands(*QUICK), turned=[0])
    assert isinstance(last, SanfuState)
    last.flee(1)
    assert last.outcome().next_setup is None  # the second of two deals ends the match


# ------------------------------------------- SF-11 … SF-16 on random deals (oracle)


def expected_result(d: dict[str, object]) -> tuple[list[int], int, int]:
    """Team points, winning team and stake recomputed from the facts of a deal."""
    teams: list[list[int]] = d["teams"]  # type: ignore[assignment]
    order: list[int] = d["order"]  # type: ignore[assignment]
    last: list[int] = d["last"]  # type: ignore[assignment]
    captured: list[int] = d["captured"]  # type: ignore[assignment]
    hand_points: list[int] = d["hand_points"]  # type: ignore[assignment]
    team = {p: t for t in (0, 1) for p in teams[t]}
    points = [0, 0]
    for player in range(4):
        if player in last:  # SF-13
            points[1 - team[player]] += captured[player] + hand_points[player]
        else:
            points[team[player]] += captured[player]
    first_team = team[order[0]]
    if len(order) == 2:  # a sweep (SF-14)
        return points, first_team, 6 if points[first_team] == 300 else 3
    winner = first_team if points[0] == points[1] else int(points[1] > points[0])
    won = points[winner]
    return points, winner, 3 if won == 300 else 2 if won >= 200 else 1


@pytest.mark.parametrize("seed", range(6))
def test_sf11_to_sf16_random_deals_agree_with_the_rules(seed: int) -> None:
    result = play_match(GAME, [bots.make("random", seed * 4 + p) for p in range(4)], seed=seed)
    for outcome in result.outcomes:
        d = dict(outcome.details)
        order, last, teams = d["order"], d["last"], d["teams"]
        team = {p: t for t in (0, 1) for p in teams[t]}
        assert sorted(order + last) == [0, 1, 2, 3]
        # SF-11: the deal ended when the second player of one team went out
        assert len(order) in (2, 3) and team[order[-1]] in [team[p] for p in order[:-1]]
        assert len({team[p] for p in order[:-1]}) == len(order) - 1
        assert d["sweep"] == (len(order) == 2)
        assert all(d["hand_points"][p] == 0 for p in order)
        assert sum(d["captured"]) + sum(d["hand_points"]) == 300
        points, winner, stake = expected_result(d)
        assert d["team_points"] == points and sum(points) == 300
        assert (d["winner_team"], d["stake"]) == (winner, stake)
        stakes = [stake if team[p] == winner else -stake for p in range(4)]
        bonus = d["joker_bonus"]
        assert list(outcome.scores) == [s + b for s, b in zip(stakes, bonus, strict=True)]
        assert sum(outcome.scores) == 0
