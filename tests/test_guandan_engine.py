"""The Guandan engine against recorded outputs of the reference engine, and its
incremental listing of plays against a listing made afresh.

``fixtures/guandan_engine.json`` holds digests (``guandan_trace.py``) of whole
deals played by the reference engine: every listed action in order, observations,
refusals, events and outcomes must come out the same here.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from guandan_trace import trace_deal
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import deck, to_counts
from arena.errors import ArenaError
from arena.games import make
from arena.games.base import Action, State
from arena.games.guandan.combos import Kind, wild_card
from arena.games.guandan.moves import BOMBS, HandPlays

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "fixtures" / "guandan_engine.json").read_text()
)


@pytest.mark.parametrize("start", range(0, len(RECORDS), 25))
def test_deals_show_exactly_what_the_reference_engine_showed(start: int) -> None:
    for record in RECORDS[start : start + 25]:
        game = make("guandan", **record["options"])
        setup = game.setup_from_dict(record["setup"])
        digest, decisions, _ = trace_deal(game, setup, record["seed"])
        assert decisions == record["decisions"], record["seed"]
        assert digest == record["digest"], record["seed"]


def _play_randomly(state: State, rng: random.Random, moves: int) -> list[Action]:
    played = []
    while moves and not state.is_terminal():
        actions = state.legal_actions()
        action = actions[rng.randrange(len(actions))]
        state.apply(action)
        played.append(action)
        moves -= 1
    return played


def _snapshot(state: State) -> list[Any]:
    seats = range(4)
    return [state.legal_actions() if not state.is_terminal() else []] + [
        state.observe(seat) for seat in seats
    ]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), before=st.integers(0, 120), deal=st.integers(0, 3))
def test_a_clone_and_its_original_never_change_each_other(
    seed: int, before: int, deal: int
) -> None:
    """Clones share what neither changes in place (counts, the trick until one of them
    writes): whatever one of them plays leaves the other exactly as it was."""
    game = make("guandan")
    setup = game.first_setup()
    for index in range(deal):  # later deals start with tribute and another wild card
        state = game.new_deal(setup, seed=seed + index)
        _play_randomly(state, random.Random(seed), 10_000)
        setup = state.outcome().next_setup or game.first_setup()
    state = game.new_deal(setup, seed=seed)
    rng = random.Random(seed)
    played = _play_randomly(state, rng, before)
    copy = state.clone()
    before_copy = _snapshot(state)
    if not copy.is_terminal():
        copy.note_automatic(copy.to_act)
        state.clone().flee(copy.to_act)
    _play_randomly(copy, random.Random(seed + 1), 10_000)
    assert _snapshot(state) == before_copy
    later = copy.clone()
    played += _play_randomly(state, rng, 10_000)
    assert _snapshot(later) == _snapshot(copy)
    fresh = game.new_deal(setup, seed=seed)
    for action in played:
        fresh.apply(action)
    assert _snapshot(fresh) == _snapshot(state)
    assert fresh.events == state.events


GROUPS = [*(kind for kind in Kind if kind < Kind.STRAIGHT_FLUSH), BOMBS]


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(0, 12), size=st.integers(5, 27))
def test_plays_kept_after_a_play_are_the_plays_listed_afresh(
    seed: int, level: int, size: int
) -> None:
    """A hand's groups after a play, kept from the groups listed before it (or from an
    earlier hand's), are exactly and in the same order the groups of that hand listed
    from nothing."""
    rng = random.Random(seed)
    cards = rng.sample(deck(2), size)
    if rng.random() < 0.5:  # the wild cards: often held, sometimes both
        cards += [wild_card(level)] * (2 - cards.count(wild_card(level)))
    counts = to_counts(cards)
    plays = HandPlays(counts, level)
    while any(counts):
        for key in rng.sample(GROUPS, rng.randrange(len(GROUPS) + 1)):
            plays.group(key)  # listed now, or left for a later hand to list afresh
        actions, _ = plays.options(None)
        played = actions[rng.randrange(len(actions))].cards
        for card in played:
            counts[card] -= 1
        plays = plays.after_play(counts)
        fresh = HandPlays(counts, level)
        for key in rng.sample(GROUPS, len(GROUPS)):
            kept, listed = plays.group(key), fresh.group(key)
            assert (kept.actions, kept.readings) == (listed.actions, listed.readings), key


def _answer(state: State, action: Action) -> Any:
    """What applying ``action`` to a copy of ``state`` gives: the refusal, or the copy's
    events and observations."""
    copy = state.clone()
    try:
        copy.apply(action)
    except ArenaError as err:
        return f"{type(err).__name__}: {err}"
    return list(copy.events), [copy.observe(seat) for seat in range(4)]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), deal=st.integers(0, 2))
def test_a_play_applied_before_any_listing_is_the_listed_play(seed: int, deal: int) -> None:
    """Replaying actions without listing them first (as a replay or a determinized
    draw does) reads each play by itself: the same plays are accepted, at the same
    readings, and the same refusals name the same rule."""
    game = make("guandan")
    setup = game.first_setup()
    for index in range(deal):
        state = game.new_deal(setup, seed=seed + index)
        _play_randomly(state, random.Random(seed), 10_000)
        setup = state.outcome().next_setup or game.first_setup()
    listed = game.new_deal(setup, seed=seed)
    replayed = game.new_deal(setup, seed=seed)
    rng = random.Random(seed)
    while not listed.is_terminal():
        seat = listed.to_act
        hand = listed.hand(seat)
        tries = [Action("play", tuple(rng.sample(hand, min(len(hand), rng.randint(1, 6)))))]
        tries.append(Action("play", tuple(sorted(tries[0].cards)), "pair_run"))
        for attempt in tries:  # ``replayed`` has listed nothing yet, ``listed`` has
            listed.legal_actions()
            assert _answer(replayed, attempt) == _answer(listed, attempt)
        actions = listed.legal_actions()
        action = actions[rng.randrange(len(actions))]
        listed.apply(action)
        replayed.apply(Action(action.verb, action.cards[::-1], action.tag))
        assert replayed.events == listed.events
    assert replayed.outcome() == listed.outcome()
