"""What the engines' differential tests hash of a position (``tests/*_trace.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from arena.chance import derive_seed
from arena.errors import ArenaError
from arena.games.base import Action, Game, State


def observation_text(state: State, seat: int) -> str:
    """A seat's observation as canonical JSON."""
    return json.dumps(state.observe(seat).to_dict(), sort_keys=True)


def probe(state: State, action: Action) -> str:
    """The answer to ``action`` tried on a copy: its refusal, or the copy's next
    observation."""
    copy = state.clone()
    try:
        copy.apply(action)
    except ArenaError as err:
        return f"{type(err).__name__}: {err}"
    return "ok " + observation_text(copy, copy.to_act if copy.to_act >= 0 else 0)


Trace = Callable[[Game, Any, int], tuple[str, int, Any]]
"""A game's ``trace_deal``: a deal's digest, its decisions and the next deal's setup."""


def record_match_deals(
    game: Game, label: str, deals: int, trace: Trace, first: int = 0
) -> list[dict[str, Any]]:
    """The digests of ``deals`` consecutive match deals of ``game`` (a new match when one
    ends), seeded from ``label`` and each deal's index counted from ``first``: one entry
    per deal with its seed, setup, digest and number of decisions."""
    setup = game.first_setup()
    entries: list[dict[str, Any]] = []
    for index in range(first, first + deals):
        seed = derive_seed(16, label, index)
        digest, decisions, next_setup = trace(game, setup, seed)
        entries.append(
            {
                "seed": seed,
                "setup": game.setup_to_dict(setup),
                "digest": digest,
                "decisions": decisions,
            }
        )
        setup = next_setup if next_setup is not None else game.first_setup()
    return entries
