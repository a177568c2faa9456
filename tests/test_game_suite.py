"""The shared game suite (tests/game_suite.py), run for every registered game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import game_suite as suite
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import format_cards
from arena.errors import IllegalActionError
from arena.games import Action, Event, Observation, make, names, next_seat
from arena.games.guandan import GuandanGame, GuandanState

GAMES = names()
SEEDS = st.integers(0, 2**32)


def test_every_game_is_covered() -> None:
    assert "guandan" in GAMES
    for name in GAMES:
        assert make(name).name == name


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=25, deadline=None)
@given(seed=SEEDS)
def test_random_play_finishes(name: str, seed: int) -> None:
    suite.check_random_play_finishes(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=SEEDS)
def test_cards_accounted(name: str, seed: int) -> None:
    suite.check_cards_accounted(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=12, deadline=None)
@given(seed=SEEDS)
def test_legal_actions(name: str, seed: int) -> None:
    suite.check_legal_actions(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
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
def test_action_syntax(name: str, seed: int) -> None:
    suite.check_action_syntax(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_malformed_actions_rejected(name: str, seed: int) -> None:
    suite.check_malformed_actions_rejected(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_observations(name: str, seed: int) -> None:
    suite.check_observations(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_observations_kept(name: str, seed: int) -> None:
    suite.check_observations_kept(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=20, deadline=None)
@given(seed=SEEDS)
def test_observation_ignores_other_hands(name: str, seed: int) -> None:
    suite.check_observation_ignores_other_hands(make(name), seed)


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=20, deadline=None)
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


# ------------------------------------------------ the suite catches broken games


class _BrokenGuandan(GuandanGame):
    """Guandan whose states are of a deliberately broken subclass."""

    def __init__(self, state_class: type[GuandanState]) -> None:
        super().__init__()
        self.state_class = state_class

    def new_deal(
        self,
        setup: Any = None,
        *,
        seed: int | None = None,
        hands: Sequence[Sequence[int]] | None = None,
    ) -> GuandanState:
        state = super().new_deal(setup, seed=seed, hands=hands)
        state.__class__ = self.state_class
        return state


class _PeeksNextHand(GuandanState):
    def observe(self, seat: int) -> Observation:
        obs = super().observe(seat)
        peek = format_cards(self.hand(next_seat(seat)))
        return obs._replace(public={**obs.public, "next": peek})


class _MaskForAll(GuandanState):
    def observe(self, seat: int) -> Observation:
        obs = super().observe(seat)
        return obs._replace(legal_actions=tuple(self.legal_actions()))


class _DirtyReject(GuandanState):
    def apply(self, action: Action) -> None:
        try:
            super().apply(action)
        except IllegalActionError:
            self._events.append(Event("oops"))
            raise


class _DropsACard(GuandanState):
    def hand(self, seat: int) -> tuple[int, ...]:
        cards = super().hand(seat)
        return cards[1:] if seat == 0 and len(self.events) > 6 else cards


class _SharedClone(GuandanState):
    def clone(self) -> GuandanState:
        return self


class _DuplicateActions(GuandanState):
    def legal_actions(self) -> list[Action]:
        legal = super().legal_actions()
        return legal + legal[:1]


@pytest.mark.interpreted_engines
@pytest.mark.parametrize(
    ("state_class", "check"),
    [
        (_PeeksNextHand, suite.check_observations),
        (_MaskForAll, suite.check_observations),
        (_PeeksNextHand, suite.check_observation_ignores_other_hands),
        (_DirtyReject, suite.check_illegal_actions_rejected),
        (_DropsACard, suite.check_cards_accounted),
        (_SharedClone, suite.check_clone_independent),
        (_DuplicateActions, suite.check_legal_actions),
    ],
)
def test_suite_catches_a_broken_game(state_class: type[GuandanState], check: Any) -> None:
    with pytest.raises(AssertionError):
        for seed in range(3):
            check(_BrokenGuandan(state_class), seed)
