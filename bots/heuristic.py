"""The ``heuristic`` built-in bot: one rule-based strategy per game family.

The family comes from ``observation.game`` (``guandan``, ``shengji-N``, ``sanfu``); each
family's strategy lives in its own module and is created on first use with this bot's
seed and style (:mod:`bots.style`: ``heuristic:risk=0.6,points=0.2``), so one
``HeuristicBot`` can sit at any table.
"""

from __future__ import annotations

import importlib
from typing import Final, Protocol

from arena.games.base import Action, Observation
from bots.style import DEFAULT_POINTS, DEFAULT_RISK, Style

__all__ = ["HeuristicBot", "family_of"]

_STRATEGIES: Final = {
    "guandan": ("bots.guandan_bot", "GuandanHeuristic"),
    "shengji": ("bots.shengji_bot", "ShengjiHeuristic"),
    "sanfu": ("bots.sanfu_bot", "SanfuHeuristic"),
}


class _Strategy(Protocol):
    def act(self, observation: Observation) -> Action: ...


def family_of(game: str) -> str:
    """``shengji-3`` → ``shengji``; other names are their own family."""
    return game.split("-", 1)[0]


class HeuristicBot:
    """Plays each game by its family's explicit rules of thumb, in a style: ``risk``
    (cautious 0 ↔ aggressive 1) and ``points`` (tempo-first 0 ↔ points-first 1)."""

    name = "heuristic"

    def __init__(
        self, seed: int = 0, risk: float = DEFAULT_RISK, points: float = DEFAULT_POINTS
    ) -> None:
        self._seed = seed
        self.style = Style(risk, points)
        self._strategies: dict[str, _Strategy] = {}
        self._by_game: dict[str, _Strategy] = {}

    def act(self, observation: Observation) -> Action:
        strategy = self._by_game.get(observation.game)
        if strategy is None:
            strategy = self._by_game[observation.game] = self.strategy(observation.game)
        return strategy.act(observation)

    def strategy(self, game: str) -> _Strategy:
        """The strategy for ``game``'s family (created once)."""
        family = family_of(game)
        strategy = self._strategies.get(family)
        if strategy is None:
            module, cls = _STRATEGIES[family]
            strategy = getattr(importlib.import_module(module), cls)(self._seed, self.style)
            self._strategies[family] = strategy
        return strategy
