"""The sanfu heuristic's remembered values equal their plain computation: the plan and
the count per rank value of a hand (:func:`bots.sanfu.hand.read_hand`, shared by every
seat and rollout), each combination of the plan (:func:`bots.sanfu.hand.group`), the
view read with those counts, and the played cards counted by a memory started from
another's kept counts, over positions of random deals reached by random plays."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import make
from arena.games.base import Observation
from arena.games.sanfu import SanfuSetup
from arena.games.sanfu.combos import BIG_JOKER_VALUE, card_value, make_reading
from arena.games.shengji.order import card_points
from bots.sanfu.hand import Group, HandReading, group, plan_hand, read_hand
from bots.sanfu.view import PlayedMemory, read_view

GAME = make("sanfu")


def _position(seed: int, moves: int) -> Observation:
    """What the seat to act sees after ``moves`` random actions of the deal ``seed``."""
    state = GAME.new_deal(SanfuSetup(), seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        legal = state.observe(state.to_act).legal_actions
        state.apply(legal[rng.randrange(len(legal))])
    seat = state.to_act if not state.is_terminal() else 0
    return state.observe(seat)


def _plain_counts(hand: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(
        sum(1 for card in hand if card_value(card) == value) for value in range(BIG_JOKER_VALUE + 1)
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 200))
def test_a_remembered_hand_reading_is_the_plain_plan_and_counts(seed: int, moves: int) -> None:
    observation = _position(seed, moves)
    hand = observation.hand
    for _ in range(2):  # computed, then remembered
        assert read_hand(hand) == HandReading(plan_hand(hand), _plain_counts(hand))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 200))
def test_a_view_read_with_the_remembered_counts_is_the_view_read_from_the_hand(
    seed: int, moves: int
) -> None:
    observation = _position(seed, moves)
    if observation.to_act != observation.seat:
        return
    held = read_hand(observation.hand).held
    assert read_view(observation, PlayedMemory(), held) == read_view(observation, PlayedMemory())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(0, 200))
def test_a_remembered_combination_is_the_plain_one(seed: int, moves: int) -> None:
    plan = plan_hand(_position(seed, moves).hand)
    for made in plan.ordinary + plan.specials:
        combo = made.reading
        shuffled = list(made.cards)
        random.Random(seed).shuffle(shuffled)
        plain = Group(
            tuple(sorted(shuffled)),
            make_reading(combo.kind, len(shuffled), combo.value, combo.second),
            sum(card_points(card) for card in shuffled),
        )
        assert group(shuffled, combo.kind, combo.value, combo.second) == plain
        assert group(tuple(shuffled), combo.kind, combo.value, combo.second) == plain


def _plain_played(observation: Observation) -> list[int]:
    played = [0] * (BIG_JOKER_VALUE + 1)
    for event in observation.events:
        if event.kind == "play":
            for card in event.cards:
                played[card_value(card)] += 1
    return played


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 200)), min_size=1, max_size=12))
def test_memories_count_the_plain_played_cards_whatever_was_read_before(
    reads: list[tuple[int, int]],
) -> None:
    """Positions of a few deals read in any order by fresh and by continuing memories
    (each seat's, as in a rollout, and new ones that may start from kept counts)."""
    memories = [PlayedMemory() for _ in range(4)]
    for deal, moves in reads:
        observation = _position(deal, moves)
        expected = _plain_played(observation)
        assert memories[moves % 4].played(observation.events) == expected
        assert PlayedMemory().played(observation.events) == expected
