"""The registry of games: ``make("guandan", a_fail_limit=3)``."""

from __future__ import annotations

from typing import Any

from arena.errors import ConfigError, quoted
from arena.games.base import (
    NOBODY,
    NUM_SEATS,
    PASS,
    Action,
    Event,
    Game,
    Observation,
    Outcome,
    Seat,
    State,
    next_seat,
    partner_of,
    previous_seat,
    team_of,
)
from arena.games.guandan import GuandanGame
from arena.games.sanfu import SanfuGame
from arena.games.shengji import variants

__all__ = [
    "NOBODY",
    "NUM_SEATS",
    "PASS",
    "Action",
    "Event",
    "Game",
    "Observation",
    "Outcome",
    "Seat",
    "State",
    "family_of",
    "make",
    "names",
    "next_seat",
    "partner_of",
    "previous_seat",
    "register",
    "team_of",
    "turn_of",
]

_REGISTRY: dict[str, type[Game]] = {}


def register(game: type[Game]) -> type[Game]:
    """Make a game class available by its ``name``."""
    _REGISTRY[game.name] = game
    return game


def names() -> list[str]:
    return sorted(_REGISTRY)


def family_of(name: str) -> str:
    """Whose rules a variant plays: ``guandan``, ``shengji`` (``shengji-1`` … ``-4``) or
    ``sanfu``."""
    return name.split("-", 1)[0]


def turn_of(name: str) -> str | None:
    """Where the turn goes round the table in the variant ``name`` (:attr:`Game.turn`);
    ``None`` for a name no game has."""
    game = _REGISTRY.get(name)
    return None if game is None else game.turn


def make(name: str, **options: Any) -> Game:
    """The game called ``name`` with ``options`` (checked; unknown ones are an error)."""
    try:
        game = _REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown game {quoted(name)}; known: {', '.join(names())}") from None
    return game(**options)


register(GuandanGame)
for _variant in variants():
    register(_variant)
register(SanfuGame)
