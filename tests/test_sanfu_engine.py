"""The sanfu engine against recorded outputs of the reference engine, and its copies
against fresh deals.

``fixtures/sanfu_engine.json`` holds digests (``sanfu_trace.py``) of whole deals
played by the reference engine: every listed action in order (complete and brief
listings), observations, refusals, events, their text and outcomes must come out
the same here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sanfu_trace import trace_deal

from arena.games import Action, State, make

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "sanfu_engine.json").read_text()
)
BATCH = 25


@pytest.mark.parametrize("start", range(0, len(RECORDS), BATCH))
def test_deals_show_exactly_what_the_reference_engine_showed(start: int) -> None:
    game = make("sanfu")
    for record in RECORDS[start : start + BATCH]:
        setup = game.setup_from_dict(record["setup"])
        digest, decisions, _ = trace_deal(game, setup, record["seed"])
        assert decisions == record["decisions"], record["seed"]
        assert digest == record["digest"], record["seed"]


Step = Action | tuple[str, int]
"""An action, or ("auto", seat) for an automatic play noted, ("flee", seat) for a flight."""


def _take(state: State, step: Step) -> None:
    if isinstance(step, Action):
        state.apply(step)
    elif step[0] == "auto":
        state.note_automatic(step[1])
    else:
        state.flee(step[1])


def _replayed(seed: int, brief: bool, history: list[Step]) -> State:
    """A fresh deal with ``history`` taken."""
    state = make("sanfu").new_deal(seed=seed)
    state.list_briefly(brief)
    for step in history:
        _take(state, step)
    return state


@given(
    seed=st.integers(0, 2**32 - 1),
    before=st.integers(0, 150),
    choices=st.lists(st.integers(0, 10**6), min_size=1, max_size=30),
    flees=st.booleans(),
)
@settings(max_examples=25, deadline=None)
def test_clones_and_their_original_part_ways(
    seed: int, before: int, choices: list[int], flees: bool
) -> None:
    """Copies share what they hold until one of them changes (copy on write): whatever
    the original, its copies and a copy of a copy then do, each shows exactly what a
    fresh deal given its own history shows, and none sees another's actions."""
    state = make("sanfu").new_deal(seed=seed)
    played: list[Step] = []
    for step in range(before):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        played.append(legal[(step * 7919 + seed) % len(legal)])
        state.apply(played[-1])
    state.hand(0)  # something read and kept before the copies are made
    first, brief = state.clone(), state.clone()
    brief.list_briefly()
    branches = [state, first, brief, first.clone()]
    histories = [list(played) for _ in branches]
    for index, kind in ((2, "auto"), (3, "flee" if flees else "auto")):
        if not branches[index].is_terminal():  # before any other copy changes anything
            histories[index].append((kind, branches[index].to_act))
            _take(branches[index], histories[index][-1])
    for step, choice in enumerate(choices):
        for index in [(k - step) % 4 for k in range(4)]:  # each goes first in turn
            branch = branches[index]
            if branch.is_terminal():
                continue
            legal = branch.legal_actions()
            histories[index].append(legal[(choice + 31 * index) % len(legal)])
            branch.apply(histories[index][-1])
    for index, (branch, history) in enumerate(zip(branches, histories, strict=True)):
        fresh = _replayed(seed, index == 2, history)
        assert branch.legal_actions() == fresh.legal_actions()
        for seat in range(4):
            assert branch.observe(seat) == fresh.observe(seat)
        if branch.is_terminal():
            assert branch.outcome() == fresh.outcome()


@given(seed=st.integers(0, 2**32 - 1), copy_at=st.integers(0, 120))
@settings(max_examples=20, deadline=None)
def test_observations_handed_out_never_change(seed: int, copy_at: int) -> None:
    """Observations share the public pieces that did not change since the last one:
    whatever the deal (and a copy of it) does next, every observation handed out
    still shows exactly what it showed when it was made."""
    state = make("sanfu").new_deal(seed=seed)
    states = [state]
    held: list[tuple[Any, str]] = []
    step = 0
    while not all(s.is_terminal() for s in states):
        if step == copy_at:
            states.append(state.clone())
        for index, current in enumerate(states):
            if current.is_terminal():
                continue
            for seat in range(4):
                observation = current.observe(seat)
                held.append((observation, json.dumps(observation.to_dict())))
            legal = current.legal_actions()
            current.apply(legal[(step * 7919 + seed + index) % len(legal)])
        step += 1
    for seat in range(4):
        observation = state.observe(seat)
        held.append((observation, json.dumps(observation.to_dict())))
    for observation, shown in held:
        assert json.dumps(observation.to_dict()) == shown
