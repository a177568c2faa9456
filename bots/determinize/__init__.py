"""Determinization: full game states consistent with what one seat has seen.

:func:`sample_state` draws, from a seat's :class:`~arena.games.base.Observation`
alone, a complete state of the deal — every hidden hand, kitty and undealt card
filled in at random, but consistent with everything the seat saw (its own hand,
cards played and given, voids, tribute, turned cards, its buried kitty…). The
drawn state is built the engine's own way (a fresh deal from explicit hands, then
the public actions re-applied), and it is kept only if it shows the seat exactly
the observation it was drawn from. Pure and deterministic given the ``rng``.

:func:`determinizer` serves many draws for one observation (a search draws dozens
per decision): what the observation decides — the known cards, the constraints on
the hidden ones, the actions to re-apply — is worked out once, and each draw only
deals the hidden cards and re-runs the deal. Its draws are those of
:func:`sample_state` with the same ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena import games
from arena.games.base import Game, Observation, State
from bots.determinize import guandan, sanfu, shengji
from bots.determinize.assign import Bin, NoAssignment, assign
from bots.determinize.common import Determinizer, Prepare, SampleError

__all__ = [
    "Bin",
    "Determinizer",
    "NoAssignment",
    "SampleError",
    "assign",
    "determinizer",
    "game_for",
    "sample_state",
]

ATTEMPTS = 200
"""Draws tried before giving up on an observation."""

_PREPARERS: dict[str, Prepare] = {
    "guandan": guandan.prepare,
    "shengji": shengji.prepare,
    "sanfu": sanfu.prepare,
}


_INFERRING: dict[str, Prepare] = {"guandan": guandan.prepare_inferring}


def game_for(observation: Observation, options: Mapping[str, Any] | None = None) -> Game:
    """The game of an observation, with ``options`` (the observation does not carry them)."""
    return games.make(observation.game, **dict(options or {}))


def determinizer(
    observation: Observation, game: Game | None = None, *, infer: bool = False
) -> Determinizer:
    """Draws of full states consistent with ``observation`` (what the observation
    decides worked out once for them all); ``game`` gives the rules options (default:
    the variant's defaults); ``infer`` reads the opponents' plays as the heuristic
    bot's where the game's sampler can (Guandan's urgent passes). Raises
    :class:`SampleError` for a game without a sampler."""
    family = observation.game.split("-", 1)[0]
    prepare = _INFERRING.get(family) if infer else None
    prepare = prepare or _PREPARERS.get(family)
    if prepare is None:
        raise SampleError(f"no sampler for game {observation.game!r}")
    return Determinizer(observation, game or game_for(observation), prepare)


def sample_state(
    observation: Observation,
    rng: random.Random,
    game: Game | None = None,
    attempts: int = ATTEMPTS,
) -> State:
    """A full state whose observation for ``observation.seat`` is ``observation``.

    ``game`` gives the rules options (default: the variant's defaults). Raises
    :class:`SampleError` when no consistent state turns up in ``attempts`` draws.
    """
    return determinizer(observation, game).sample(rng, attempts)
