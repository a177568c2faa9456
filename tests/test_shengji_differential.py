"""The Shengji engine against recorded outputs of its reference version.

``tests/fixtures/record_shengji.py`` played consecutive deals of every variant with
seeded random choices (``tests/shengji_trace.py``) and digested every legal action
list, observation, refusal of an unlisted play and outcome; this test plays them
again and compares, so a faster listing or ``apply`` changes nothing a seat can see.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from shengji_trace import CASES, case_key, play_case

from arena.games import make
from arena.games.base import Event, Observation, State

RECORDED: dict[str, list[list[Any]]] = json.loads(
    (Path(__file__).parent / "fixtures" / "shengji_engine.json").read_text()
)


@pytest.mark.parametrize(("variant", "options", "count"), CASES, ids=[c[0] for c in CASES])
def test_deals_play_as_recorded(variant: str, options: dict[str, Any], count: int) -> None:
    played = play_case(variant, options, count)
    recorded = RECORDED[case_key(variant, options)]
    assert len(played) == len(recorded)
    for n, (deal, expected) in enumerate(zip(played, recorded, strict=True)):
        assert deal == expected, f"deal {n} (seed {expected[0]}) differs"


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-4"])
def test_observations_and_events_have_every_field(variant: str) -> None:
    """Observations and play events are built without their constructors (a hot path):
    each still holds one value per field, so a field added later cannot be left out."""
    game = make(variant)
    state = game.new_deal(game.first_setup(), seed=16)
    while not state.is_terminal():
        for seat in range(4):
            observation = state.observe(seat)
            assert len(observation) == len(Observation._fields)
            assert Observation(**observation._asdict()) == observation
        state.apply(state.legal_actions()[-1])
    assert all(len(event) == len(Event._fields) for event in state.events)


def _seen(state: State) -> list[Any]:
    """Everything the seats see and hold, and the outcome if over."""
    seen: list[Any] = [state.observe(seat).to_dict() for seat in range(4)]
    seen.append(state.seat_cards())
    seen.append(state.set_aside())
    if state.is_terminal():
        seen.append(state.outcome().summary)
    return seen


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-2", "shengji-3", "shengji-4"])
def test_a_clone_and_its_original_play_on_apart(variant: str) -> None:
    """A copy shares what has not changed yet (counts, the trick, buried cards): whatever
    either side plays next, in any phase, the other sees nothing of it."""
    game = make(variant)
    rng = random.Random(variant)
    state = game.new_deal(game.first_setup(), seed=rng.randrange(2**32))
    while not state.is_terminal():
        if rng.random() < 0.2:
            copy = state.clone()
            kept, playing = (state, copy) if rng.random() < 0.5 else (copy, state)
            before = _seen(kept)
            for _ in range(rng.randrange(1, 12)):
                if playing.is_terminal():
                    break
                actions = playing.legal_actions()
                playing.apply(actions[rng.randrange(len(actions))])
            assert _seen(kept) == before
            state = kept
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])
