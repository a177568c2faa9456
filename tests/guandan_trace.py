"""A digest of everything a Guandan deal shows, for the differential engine test.

:func:`trace_deal` plays one deal with seeded random choices and hashes every
listed action (in order), the observation of the seat to act and of the next
seat, the refusal of a random single-card play tried on a copy, the events and
the outcome. The play goes on through clones now and then, and sometimes applies
an action with its cards given in another order. ``tests/fixtures/guandan_record.py``
records these digests from a reference checkout; ``tests/test_guandan_engine.py``
replays them against the engine of this one.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from arena.errors import ArenaError
from arena.games.base import Action, Game, State
from arena.record import outcome_to_dict

CLONE_EVERY = 7
PROBE_EVERY = 5


def _observation_text(state: State, seat: int) -> str:
    return json.dumps(state.observe(seat).to_dict(), sort_keys=True)


def _probe(state: State, rng: random.Random) -> str:
    """The answer to a random single-card play tried on a copy: its refusal, or 'ok'."""
    copy = state.clone()
    try:
        copy.apply(Action("play", (rng.randrange(54),)))
    except ArenaError as err:
        return f"{type(err).__name__}: {err}"
    return "ok " + _observation_text(copy, copy.to_act if copy.to_act >= 0 else 0)


def trace_deal(game: Game, setup: Any, seed: int) -> tuple[str, int, Any]:
    """The digest of one randomly played deal, its number of decisions and the setup
    of the next deal (``None`` when the deal ended the match)."""
    digest = hashlib.sha256()
    state = game.new_deal(setup, seed=seed)
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal():
        seat = state.to_act
        actions = state.legal_actions()
        digest.update("|".join(map(str, actions)).encode())
        digest.update(_observation_text(state, seat).encode())
        digest.update(_observation_text(state, (seat + 1) % 4).encode())
        if decisions % PROBE_EVERY == 0:
            digest.update(_probe(state, rng).encode())
        if decisions % CLONE_EVERY == 3:
            state = state.clone()
        action = actions[rng.randrange(len(actions))]
        if len(action.cards) > 1 and rng.random() < 0.3:
            action = Action(action.verb, action.cards[::-1], action.tag)
        state.apply(action)
        decisions += 1
    digest.update(json.dumps([e.to_dict() for e in state.events]).encode())
    outcome = state.outcome()
    digest.update(json.dumps(outcome_to_dict(outcome), sort_keys=True).encode())
    return digest.hexdigest(), decisions, outcome.next_setup
