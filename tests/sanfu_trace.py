"""A digest of everything a sanfu deal shows, for the differential engine test.

:func:`trace_deal` plays one deal with seeded random choices and hashes every
listed action (in order, with the listing's completeness), the observation of the
seat to act and now and then of another seat, the answer to a random play tried on
a copy, each event's readable text and the outcome. The play goes on through
clones now and then, switches to the brief listing (one play per rank pattern) and
back, applies plays with their cards in another order, and some deals end by a
seat fleeing. ``tests/fixtures/sanfu_record.py`` records these digests from a
reference checkout; ``tests/test_sanfu_engine.py`` replays them against this one.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from engine_trace import observation_text, probe

from arena.games.base import Action, Game, State
from arena.record import outcome_to_dict

CLONE_EVERY = 7
PROBE_EVERY = 3
OTHER_SEAT_EVERY = 4
BRIEF_CHANCE = 0.04
FLEE_CHANCE = 0.002


def _probe_action(state: State, rng: random.Random) -> Action:
    """A random play: one to four cards of the hand to act (often no combination or
    too weak), or a card it may not hold."""
    hand = state.hand(state.to_act)
    if not hand or rng.random() < 0.2:
        return Action("play", (rng.randrange(54),))
    cards = [hand[rng.randrange(len(hand))] for _ in range(rng.randrange(1, 5))]
    return Action("play", tuple(sorted(cards)))


def trace_deal(game: Game, setup: Any, seed: int) -> tuple[str, int, Any]:
    """The digest of one randomly played deal, its number of decisions and the setup
    of the next deal (``None`` when the deal ended the match)."""
    digest = hashlib.sha256()
    state = game.new_deal(setup, seed=seed)
    rng = random.Random(seed)
    decisions = described = 0
    brief = False
    while not state.is_terminal():
        seat = state.to_act
        if rng.random() < BRIEF_CHANCE:
            brief = not brief
            state.list_briefly(brief)
        actions = state.legal_actions()
        digest.update("|".join(map(str, actions)).encode())
        digest.update(observation_text(state, seat).encode())
        if decisions % OTHER_SEAT_EVERY == 1:
            digest.update(observation_text(state, rng.randrange(4)).encode())
        if decisions % PROBE_EVERY == 0:
            digest.update(probe(state, _probe_action(state, rng)).encode())
        if decisions % CLONE_EVERY == 3:
            state = state.clone()
        if rng.random() < FLEE_CHANCE:
            state.note_automatic(seat)
            state.flee(seat)
            break
        action = actions[rng.randrange(len(actions))]
        if len(action.cards) > 1 and rng.random() < 0.3:
            action = Action(action.verb, action.cards[::-1], action.tag)
        state.apply(action)
        decisions += 1
        for event in state.events[described:]:
            digest.update(game.describe_event(event, state).encode())
        described = len(state.events)
    digest.update(json.dumps([e.to_dict() for e in state.events]).encode())
    outcome = state.outcome()
    digest.update(json.dumps(outcome_to_dict(outcome), sort_keys=True).encode())
    digest.update(game.describe_outcome(outcome).encode())
    return digest.hexdigest(), decisions, outcome.next_setup
