"""Determinization: drawn states agree with everything the observing seat has seen."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from arena import games
from arena.cards import Card
from arena.chance import derive_seed
from arena.games.base import NUM_SEATS, Observation, State
from arena.games.shengji import ShengjiState
from bots.determinize import Bin, NoAssignment, SampleError, assign, sample_state
from bots.determinize.shengji import follow_facts
from bots.simple import RandomBot

VARIANTS = ["guandan", "sanfu", "shengji-1", "shengji-2", "shengji-3", "shengji-4"]
DECKS = {"guandan": 2, "sanfu": 3, "shengji-1": 1, "shengji-2": 2, "shengji-3": 3, "shengji-4": 4}


def positions(variant: str, seed: int, deals: int = 2, every: int = 9) -> Iterator[State]:
    """Copies of random-bot deals at random decisions (later deals have tribute, sweeps…)."""
    game = games.make(variant)
    rng = random.Random(seed)
    bots = [RandomBot(seed * 4 + i) for i in range(NUM_SEATS)]
    setup = game.first_setup()
    for deal in range(deals):
        state = game.new_deal(setup, seed=derive_seed(seed, "deal", deal))
        while not state.is_terminal():
            if rng.randrange(every) == 0:
                yield state.clone()
            state.apply(bots[state.player_at(state.to_act)].act(state.observe(state.to_act)))
        setup = state.outcome().next_setup
        if setup is None:
            return


def all_cards(state: State) -> Counter[Card]:
    """Hands, cards played face up and cards set aside: the whole deal."""
    cards: Counter[Card] = Counter(state.set_aside())
    for seat in range(NUM_SEATS):
        cards.update(state.hand(seat))
    for event in state.events:
        if event.kind == "play":
            cards.update(event.cards)
    return cards


def check_sample(real: State, drawn: State, observation: Observation) -> None:
    seat = observation.seat
    assert drawn.observe(seat) == observation  # C-5: the seat cannot tell them apart
    assert drawn.hand(seat) == real.hand(seat)
    assert list(drawn.events) == list(real.events)
    assert all_cards(drawn) == all_cards(real)  # hidden cards conserved
    for other in range(NUM_SEATS):
        assert len(drawn.hand(other)) == len(real.hand(other))
    if isinstance(real, ShengjiState) and real.order is not None:
        assert isinstance(drawn, ShengjiState)
        facts = follow_facts(observation.events, real.order)
        for other in range(NUM_SEATS):  # SJ-19: voids respected
            suits = {real.order.suits[c] for c in drawn.hand(other)}
            assert not suits & facts.void[other]


@pytest.mark.parametrize("variant", VARIANTS)
def test_drawn_states_match_the_observation(variant: str) -> None:
    checked = 0
    differs = 0
    for seed in range(2):
        for real in positions(variant, seed):
            observation = real.observe(real.to_act)
            drawn = sample_state(observation, random.Random(checked))
            check_sample(real, drawn, observation)
            checked += 1
            others = [s for s in range(NUM_SEATS) if s != observation.seat]
            differs += any(drawn.hand(s) != real.hand(s) for s in others)
    assert checked >= 10
    assert differs > checked // 2  # hidden hands are really drawn, not copied


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_drawing_is_deterministic_given_the_rng(variant: str) -> None:
    real = next(positions(variant, 5, every=3))
    observation = real.observe(real.to_act)
    first = sample_state(observation, random.Random(42))
    second = sample_state(observation, random.Random(42))
    assert first.seat_cards() == second.seat_cards()
    assert first.set_aside() == second.set_aside()


def test_tribute_positions_are_sampled() -> None:
    """GD-13/GD-14: tribute and return decisions, and the play after them."""
    seen = Counter[str]()
    for seed in range(6):
        plays = 0
        for real in positions("guandan", seed, deals=2, every=2):
            after_tribute = any(e.kind in ("tribute", "refuse_tribute") for e in real.events)
            if real.phase in ("tribute", "return") or (after_tribute and plays < 2):
                plays += real.phase == "play"
                observation = real.observe(real.to_act)
                check_sample(real, sample_state(observation, random.Random(seed)), observation)
                seen[real.phase] += 1
        if seen["tribute"] and seen["return"] and seen["play"] >= 4:
            break
    assert seen["play"] and seen["tribute"] and seen["return"]


def test_shengji_dealing_and_burying_positions_are_sampled() -> None:
    seen = Counter[str]()
    for seed in range(4):
        for real in positions("shengji-2", seed, deals=1, every=2):
            if real.phase in ("declare", "bury"):
                observation = real.observe(real.to_act)
                check_sample(real, sample_state(observation, random.Random(seed)), observation)
                seen[real.phase] += 1
    assert seen["declare"] and seen["bury"]


def test_an_impossible_observation_is_a_clear_error() -> None:
    real = next(positions("guandan", 1, every=2))
    observation = real.observe(real.to_act)
    doctored = observation._replace(hand=observation.hand[:-1])  # a card gone missing
    with pytest.raises(SampleError, match="no guandan deal consistent"):
        sample_state(doctored, random.Random(0), attempts=5)


def test_assign_fills_every_bin_and_respects_refusals_and_limits() -> None:
    cards = [0, 0, 1, 1, 2, 2, 3, 3]
    bins = [Bin(3, frozenset({0})), Bin(3, limits={1: 1}), Bin(2, frozenset({2, 3}))]
    for seed in range(50):
        placed = assign(cards, bins, random.Random(seed))
        assert [len(p) for p in placed] == [3, 3, 2]
        assert sorted(c for p in placed for c in p) == cards
        assert 0 not in placed[0]
        assert placed[1].count(1) <= 1
        assert not {2, 3} & set(placed[2])


def test_assign_reports_impossible_constraints() -> None:
    with pytest.raises(NoAssignment):
        assign([0, 1], [Bin(1, frozenset({0, 1})), Bin(1)], random.Random(0))
    with pytest.raises(NoAssignment):
        assign([0, 1, 2], [Bin(1), Bin(1)], random.Random(0))
    with pytest.raises(NoAssignment):  # two copies, but each bin takes at most one: fine
        assign([5, 5], [Bin(2, limits={5: 1}), Bin(0)], random.Random(0))
    placed = assign([5, 5], [Bin(1, limits={5: 1}), Bin(1, limits={5: 1})], random.Random(0))
    assert placed == [[5], [5]]


@pytest.mark.parametrize("order", [(0, 2, 1, 3), (2, 0, 3, 1), (1, 3, 0, 2), (3, 1, 2, 0)])
def test_an_equal_double_tribute_is_read_as_the_engine_gives_it(order: tuple[int, ...]) -> None:
    """GD-14: with equal tribute cards each loser gives to their 上家 and each winner
    returns to its giver. A search bot's reading of the tribute facts (who was first,
    who gave to whom) draws states whose tribute and return events are the engine's
    once the tributes are shown, at every return decision and the first plays after
    them (while tributes lie face down, states the seat cannot tell apart)."""
    from test_directions import equal_tribute_hands

    from arena.games.guandan import GuandanSetup
    from bots.determinize.guandan import previous_orders

    game = games.make("guandan")
    setup = GuandanSetup(previous_order=order, level_team=order[0] % 2)  # the winners play
    real = game.new_deal(setup, hands=equal_tribute_hands(order))
    given = {}
    checked = 0
    while real.phase != "play" or checked < 8:
        observation = real.observe(real.to_act)
        if real.phase == "play":  # the first and second known; the losers' order is not
            assert [found[:2] for found in previous_orders(observation)] == [order[:2]]
        for seed in range(2):
            drawn = sample_state(observation, random.Random(seed))
            if real.phase == "tribute":  # face down: a single tribute looks the same
                assert drawn.observe(observation.seat) == observation
            else:
                check_sample(real, drawn, observation)
        checked += 1
        real.apply(real.legal_actions()[0])
        given |= {
            (e.kind, e.seat): e.target for e in real.events if e.kind in ("tribute", "return")
        }
    losers, winners = order[2:], order[:2]
    assert given == {("tribute", s): (s - 1) % 4 for s in losers} | {
        ("return", w): (w + 1) % 4 for w in winners
    }
