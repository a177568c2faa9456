"""The driver in a coroutine (:func:`arena.match.play_match_async`): the same loop as
:func:`arena.match.play_match`, its questions awaited, so matches share one event loop
and no thread waits for an answer."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_match import NoTime, Wayward

import bots
from arena.chance import derive_seed
from arena.games import Event, Observation, make, names
from arena.match import Clock, play_match, play_match_async


class Awaiting:
    """A policy answering in a coroutine: the inner policy's answer after giving the
    event loop a turn; told what the inner one is told."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.asked = 0

    async def act_async(self, observation: Observation) -> object:
        self.asked += 1
        await asyncio.sleep(0)
        return self.inner.act(observation)

    def act(self, observation: Observation) -> object:
        raise AssertionError("a coroutine's driver awaits act_async")

    def __getattr__(self, name: str) -> Any:  # rejected, malformed, timed_out
        return getattr(self.inner, name)


def _policies(seed: int, wayward: bool, leave_at: int | None) -> list[Any]:
    policies: list[Any] = [bots.RandomBot(derive_seed(seed, s)) for s in range(4)]
    if wayward:
        policies[seed % 4] = Wayward(seed, leave_at)
    return policies


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(names()),
    seed=st.integers(0, 2**32),
    wayward=st.booleans(),
    leave_at=st.none() | st.integers(1, 60),
    listened=st.booleans(),
    timed=st.booleans(),
)
def test_a_match_in_a_coroutine_is_the_match_played_here(
    variant: str, seed: int, wayward: bool, leave_at: int | None, listened: bool, timed: bool
) -> None:
    """The same record, events, refusals told and seat gone, whether the questions are
    answered here (the compiled loop when neither clock nor listener) or awaited."""
    game = make(variant)
    clock = Clock(limit=1.0, now=NoTime()) if timed else None

    def heard_by(into: list[Event]) -> Any:
        return (lambda state, event: into.append(event)) if listened else None

    here_events: list[Event] = []
    here = _policies(seed, wayward, leave_at)
    expected = play_match(
        game, here, seed=seed, max_deals=2, on_event=heard_by(here_events), clock=clock
    )
    awaited_events: list[Event] = []
    inner = _policies(seed, wayward, leave_at)
    awaiting = [Awaiting(policy) for policy in inner]
    got = asyncio.run(
        play_match_async(
            game, awaiting, seed=seed, max_deals=2, on_event=heard_by(awaited_events), clock=clock
        )
    )
    assert got.record.to_dict() | {"players": None} == expected.record.to_dict() | {"players": None}
    assert got.decisions == expected.decisions and awaited_events == here_events
    assert sum(policy.asked for policy in awaiting) >= got.decisions
    for one, other in zip(here, inner, strict=True):
        if isinstance(one, Wayward) and isinstance(other, Wayward):
            assert one.told == other.told and one.gone == other.gone


def test_matches_in_coroutines_take_turns_on_one_loop() -> None:
    """Three matches on one event loop interleave their decisions (no thread) and each
    ends as it would alone."""
    game = make("guandan")
    order: list[int] = []

    class Noted(Awaiting):
        def __init__(self, inner: Any, match: int) -> None:
            super().__init__(inner)
            self.match = match

        async def act_async(self, observation: Observation) -> object:
            order.append(self.match)
            return await super().act_async(observation)

    async def three() -> list[Any]:
        return await asyncio.gather(
            *(
                play_match_async(
                    game,
                    [Noted(bots.RandomBot(derive_seed(m, s)), m) for s in range(4)],
                    seed=m,
                    max_deals=1,
                )
                for m in range(3)
            )
        )

    results = asyncio.run(three())
    for m, result in enumerate(results):
        alone = play_match(
            game, [bots.RandomBot(derive_seed(m, s)) for s in range(4)], seed=m, max_deals=1
        )
        assert result.record.deals[0].actions == alone.record.deals[0].actions
    switches = sum(1 for a, b in itertools.pairwise(order) if a != b)
    assert switches > len(order) // 2, "the matches took turns"


def test_a_policy_without_a_coroutine_is_asked_in_one() -> None:
    game = make("shengji-1")
    policies = [bots.RandomBot(derive_seed(4, s)) for s in range(4)]
    got = asyncio.run(play_match_async(game, policies, seed=4, max_deals=1))
    alone = play_match(
        game, [bots.RandomBot(derive_seed(4, s)) for s in range(4)], seed=4, max_deals=1
    )
    assert got.record.deals[0].actions == alone.record.deals[0].actions


@pytest.mark.parametrize("variant", ["guandan", "sanfu"])
def test_a_seat_gone_in_a_coroutine_flees_as_it_does_here(variant: str) -> None:
    game = make(variant)
    here = [bots.RandomBot(derive_seed(7, s)) for s in range(3)] + [Wayward(7, leave_at=3)]
    inner = [bots.RandomBot(derive_seed(7, s)) for s in range(3)] + [Wayward(7, leave_at=3)]
    expected = play_match(game, here, seed=7, max_deals=1, clock=Clock(limit=1.0, now=NoTime()))
    got = asyncio.run(
        play_match_async(
            game,
            [Awaiting(p) for p in inner],
            seed=7,
            max_deals=1,
            clock=Clock(limit=1.0, now=NoTime()),
        )
    )
    assert got.record.deals[0].actions == expected.record.deals[0].actions
    assert any(text.startswith("!fled") for text in got.record.deals[0].actions)
    assert inner[3].gone == here[3].gone == [None]
