"""The shared game suite (tests/game_suite.py), run for every registered game."""

from __future__ import annotations

import game_suite as suite
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games import make, names

GAMES = names()
SEEDS = st.integers(0, 2**32)


def test_every_game_is_covered() -> None:
    assert "guandan" in GAMES
    for name in GAMES:
        assert make(name).name == name


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS)
def test_random_play_finishes(name: str, seed: int) -> None:
    suite.check_random_play_finishes(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_cards_accounted(name: str, seed: int) -> None:
    suite.check_cards_accounted(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=8, deadline=None)
@given(seed=SEEDS)
def test_legal_actions(name: str, seed: int) -> None:
    suite.check_legal_actions(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_every_legal_action_applies(name: str, seed: int) -> None:
    suite.check_every_legal_action_applies(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_illegal_actions_rejected(name: str, seed: int) -> None:
    suite.check_illegal_actions_rejected(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_observations(name: str, seed: int) -> None:
    suite.check_observations(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_observation_ignores_other_hands(name: str, seed: int) -> None:
    suite.check_observation_ignores_other_hands(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_clone_independent(name: str, seed: int) -> None:
    suite.check_clone_independent(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_new_deal_deterministic(name: str, seed: int) -> None:
    suite.check_new_deal_deterministic(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS)
def test_record_replays(name: str, seed: int) -> None:
    suite.check_record_replays(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_same_seed_same_match(name: str, seed: int) -> None:
    suite.check_same_seed_same_match(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
def test_different_seeds_different_deals(name: str) -> None:
    game = make(name)
    deals = {tuple(game.new_deal(game.first_setup(), seed=s).seat_cards()) for s in range(8)}
    assert len(deals) == 8
