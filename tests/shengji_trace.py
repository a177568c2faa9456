"""Reproducible random Shengji deals digested (the differential test's recorder and player).

A deal is played with seeded random choices among the listed actions and, now and
then, an unlisted play of the hand tried on a copy (kept when the rules accept it).
The digest covers every legal action list (order included), whether it is complete
and its description, the observations of the seat to act and of one other seat,
what ``apply`` says of each unlisted play, the events and the outcome.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from arena.chance import derive_seed
from arena.errors import IllegalActionError
from arena.games import make
from arena.games.base import Action, Game, State

CASES: list[tuple[str, dict[str, Any], int]] = [
    ("shengji-1", {}, 60),
    ("shengji-1", {"two_colour": True, "no_declaration": "flip_kitty"}, 60),
    ("shengji-2", {}, 60),
    ("shengji-2", {"constant_twos": True, "throw_penalty": 10}, 40),
    ("shengji-3", {}, 40),
    ("shengji-4", {}, 30),
]
"""Variant, options and how many consecutive deals (of matches) are recorded."""


def case_key(variant: str, options: dict[str, Any]) -> str:
    return variant + json.dumps(options, sort_keys=True)


def _unlisted_play(state: State, rng: random.Random) -> Action:
    """Some cards of the hand of the seat to act, as many as the trick asks (or 1–3)."""
    plays = [e for e in state.events if e.kind in ("lead", "play")]
    size = len(plays[-1].cards) if plays[-1].kind == "play" else 1 + rng.randrange(3)
    hand = list(state.hand(state.to_act))
    return Action("play", tuple(sorted(rng.sample(hand, min(size, len(hand))))))


def play_deal(game: Game, setup: Any, seed: int) -> tuple[str, Any]:
    """The digest of one deal played with random choices drawn from ``seed``, and the
    setup of the next deal (``None`` when the match is over)."""
    state = game.new_deal(setup, seed=seed)
    rng = random.Random(seed)
    digest = hashlib.sha256()

    def note(value: Any) -> None:
        digest.update(json.dumps(value, sort_keys=True, default=str).encode())

    while not state.is_terminal():
        seat = state.to_act
        actions = state.legal_actions()
        note([str(a) for a in actions])
        note(state.observe(seat).to_dict())
        note(state.observe((seat + 1 + rng.randrange(3)) % 4).to_dict())
        if state.phase == "play" and rng.random() < 0.3:
            trial, tried = state.clone(), _unlisted_play(state, rng)
            try:
                trial.apply(tried)
            except IllegalActionError as err:
                note(["refused", str(tried), str(err)])
            else:
                note(["accepted", str(tried)])
                if rng.random() < 0.5:
                    state = trial
                    continue
        state.apply(actions[rng.randrange(len(actions))])
    outcome = state.outcome()
    note([outcome.scores, outcome.summary, outcome.details, outcome.match_winner])
    note([e.to_dict() for e in state.events])
    return digest.hexdigest(), outcome.next_setup


def play_case(variant: str, options: dict[str, Any], count: int) -> list[list[Any]]:
    """``count`` consecutive deals (a new match when one ends): [seed, digest] each."""
    game = make(variant, **options)
    setup = game.first_setup()
    found: list[list[Any]] = []
    for n in range(count):
        seed = derive_seed(16, case_key(variant, options), n)
        digest, next_setup = play_deal(game, setup, seed)
        found.append([seed, digest])
        setup = next_setup if next_setup is not None else game.first_setup()
    return found
