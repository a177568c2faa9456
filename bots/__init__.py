"""Built-in strategies. ``make("random", seed=3)`` gives a policy by name."""

from __future__ import annotations

from collections.abc import Callable

from arena.errors import ConfigError
from arena.match import Policy
from bots.heuristic import HeuristicBot
from bots.search import SearchBot
from bots.simple import FirstBot, RandomBot

__all__ = ["FirstBot", "HeuristicBot", "RandomBot", "SearchBot", "make", "names"]

_FACTORIES: dict[str, Callable[[int], Policy]] = {
    "random": RandomBot,
    "first": lambda seed: FirstBot(),
    "heuristic": HeuristicBot,
    "search": SearchBot,  # its default budget: DEFAULT_SAMPLES deals × DEFAULT_CANDIDATES
}


def names() -> list[str]:
    return sorted(_FACTORIES)


def make(name: str, seed: int = 0) -> Policy:
    """The built-in bot called ``name``, seeded (bots that draw at random use the seed)."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ConfigError(f"unknown bot {name!r}; built-in bots: {', '.join(names())}") from None
    return factory(seed)
