"""Shengji engine properties over random deals of every variant (C-3, SJ-7, SJ-13, SJ-22, SJ-25)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import deck
from arena.games import make
from arena.games.shengji.order import card_points
from arena.games.shengji.state import ShengjiState

VARIANTS = ["shengji-1", "shengji-2", "shengji-3", "shengji-4"]


def play_randomly(name: str, seed: int, **options: object) -> ShengjiState:
    state = make(name, **options).new_deal(seed=seed)
    assert isinstance(state, ShengjiState)
    rng = random.Random(seed)
    while not state.is_terminal():
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])
    return state


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_c3_points_are_conserved(name: str, seed: int) -> None:
    """C-3/SJ-22: the points won by both teams plus the buried kitty's are the decks' points."""
    state = play_randomly(name, seed)
    decks = state.rules.decks
    assert sum(card_points(c) for c in deck(decks)) == 100 * decks
    kitty = sum(card_points(c) for c in state.buried)
    assert state.declarer_points + state.defender_points + kitty == 100 * decks


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_sj13_kitty_buried_is_the_kitty_size_and_shown_at_the_end(name: str, seed: int) -> None:
    """SJ-13/SJ-25: the dealer buries as many cards as the kitty holds; all see them at the end."""
    state = play_randomly(name, seed)
    kitty_events = [e for e in state.events if e.kind == "kitty"]
    assert len(kitty_events) == 1
    assert len(kitty_events[0].cards) == state.rules.kitty_size
    buries = [e for e in state.events if e.kind == "bury"]
    assert len(buries) == state.rules.kitty_size


@pytest.mark.parametrize("name", VARIANTS)
def test_sj07_every_player_gets_the_hand_size(name: str) -> None:
    """SJ-7: after the dealing every player holds the variant's hand size (the dealer + kitty)."""
    state = make(name).new_deal(seed=11)
    assert isinstance(state, ShengjiState)
    while state.phase == "declare":
        state.apply(state.legal_actions()[0])  # always pass
    sizes = [len(state.hand(s)) for s in range(4)]
    expected = [state.rules.hand_size] * 4
    expected[state.dealer] += state.rules.kitty_size
    assert sizes == expected


def test_sj13_dealer_sees_the_buried_cards_others_do_not() -> None:
    """C-5: the buried kitty is private to the dealer until the end."""
    state = make("shengji-2").new_deal(seed=4)
    assert isinstance(state, ShengjiState)
    while state.phase == "declare":
        state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])  # bury one card
    dealer = state.dealer
    assert "buried" in state.observe(dealer).private
    for seat in range(4):
        if seat != dealer:
            assert "buried" not in state.observe(seat).private


def test_sj17_throw_penalty_changes_points() -> None:
    """SJ-17: with throw_penalty, a failed throw moves points (random deals fail throws often)."""
    plain = [play_randomly("shengji-2", seed) for seed in range(6)]
    penalised = [play_randomly("shengji-2", seed, throw_penalty=10) for seed in range(6)]
    failed = [sum(1 for e in s.events if e.kind == "throw_failed") for s in plain]
    assert any(failed)
    assert [s.defender_points for s in plain] != [s.defender_points for s in penalised]


def test_observations_state_the_rule_options_that_change_the_card_order() -> None:
    from arena.games import make as make_game

    game = make_game("shengji-1", constant_twos=True, two_colour=True)
    state = game.new_deal(game.first_setup(), seed=1)
    public = state.observe(0).public
    assert public["constant_twos"] is True and public["two_colour"] is True
    plain = make_game("shengji-2")
    public = plain.new_deal(plain.first_setup(), seed=1).observe(0).public
    assert public["constant_twos"] is False and public["two_colour"] is False


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_observed_counts_are_the_hand_sizes_of_the_state_and_its_copies(
    name: str, seed: int
) -> None:
    """The public ``counts`` (kept as the cards are dealt, taken, buried and played) are
    every seat's hand size at every decision, in a copy too, whichever moves first."""
    state = make(name).new_deal(seed=seed)
    rng = random.Random(seed)
    copies: list[ShengjiState] = []
    while not state.is_terminal():
        for current in (state, *copies):
            sizes = [len(current.hand(seat)) for seat in range(4)]
            assert current.observe(current.to_act).public["counts"] == sizes
        if rng.random() < 0.05:
            copies = [state.clone()]
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])
        for copy in copies:
            if not copy.is_terminal() and rng.random() < 0.5:
                moves = copy.legal_actions()
                copy.apply(moves[rng.randrange(len(moves))])
