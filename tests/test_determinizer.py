"""A determinizer (one per decision) draws exactly what fresh draws would: what it
works out once and shares between its draws is never changed by a draw."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from fixtures.search_record import VARIANTS, observations
from hypothesis import example, given, settings
from hypothesis import strategies as st

from arena.chance import derive_seed
from arena.games.base import Observation, State
from bots import determinize
from bots.determinize import SampleError, determinizer, game_for, sample_state
from bots.determinize.assign import shuffle
from bots.search import SearchBot, _observation_key
from bots.simple import RandomBot

POSITIONS: dict[str, list[Observation]] = {}


def _observations(variant: str) -> list[Observation]:
    if variant not in POSITIONS:
        POSITIONS[variant] = list(observations(variant, 8))
    return POSITIONS[variant]


def _drawn(draw: Callable[[], State]) -> object:
    """A drawn state's hands and set-aside cards, or the error's text."""
    try:
        state = draw()
    except SampleError as err:
        return str(err)
    return state.seat_cards(), state.set_aside()


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(VARIANTS), index=st.integers(0, 7), seed=st.integers(0, 2**32))
def test_shared_draws_are_fresh_draws(variant: str, index: int, seed: int) -> None:
    observation = _observations(variant)[index]
    game = game_for(observation)
    shared = determinizer(observation, game)
    shared_rng, fresh_rng = random.Random(seed), random.Random(seed)
    for _ in range(3):
        one = _drawn(lambda: shared.sample(shared_rng, 20))
        other = _drawn(lambda: sample_state(observation, fresh_rng, game, 20))
        assert one == other


def test_a_game_without_a_sampler_is_a_clear_error_and_the_search_plays_its_guide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    observation = _observations("sanfu")[0]
    monkeypatch.delitem(determinize._PREPARERS, "sanfu")
    with pytest.raises(SampleError, match="no sampler for game 'sanfu'"):
        determinizer(observation)
    bot = SearchBot(3, samples=2, rollout=RandomBot, reach=0)
    guide = RandomBot(derive_seed(3, "search", _observation_key(observation))).act(observation)
    assert bot.act(observation) == guide
    assert bot.last.rollouts == 0 and bot.last.samples == 0
    assert bot.last.failed_samples == bot.samples


class _CountingRandom(random.Random):
    """A generator of a subclass (its own ``random``): shuffles must use its methods."""

    def random(self) -> float:
        return super().random()


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(0, 1100),
    subclass=st.booleans(),
)
@example(seed=0, size=1023, subclass=False)  # the longest the fast path takes
@example(seed=0, size=1024, subclass=False)  # the shortest left to the generator
def test_the_fast_shuffle_is_the_generators_shuffle(seed: int, size: int, subclass: bool) -> None:
    """The same order and the same generator state after as ``rng.shuffle``."""
    make: Callable[[int], random.Random] = _CountingRandom if subclass else random.Random
    ours, theirs = make(seed), make(seed)
    items, expected = list(range(size)), list(range(size))
    shuffle(ours, items)
    theirs.shuffle(expected)
    assert items == expected
    assert ours.getstate() == theirs.getstate()
