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

from engine_trace import observation_text, probe

from arena.games.base import Action, Game
from arena.record import outcome_to_dict

CLONE_EVERY = 7
PROBE_EVERY = 5


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
        digest.update(observation_text(state, seat).encode())
        digest.update(observation_text(state, (seat + 1) % 4).encode())
        if decisions % PROBE_EVERY == 0:
            digest.update(probe(state, Action("play", (rng.randrange(54),))).encode())
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
