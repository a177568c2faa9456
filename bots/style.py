"""How a built-in heuristic bot plays along the axes designers care about.

A :class:`Style` is two numbers from 0 to 1, given as the ``heuristic`` bot's
parameters (``heuristic:risk=0.6,points=0.2``); each family's strategy reads them
where its own decisions weigh one thing against another (its module says where, with
the rule ids):

* ``risk`` — cautious (0) ↔ aggressive (1): how often a play whose outcome the bot
  cannot be sure of is tried anyway (a Shengji throw its own reading calls risky, a
  contested declaration, an early bomb, a lead of a strong combination to take the
  lead back);
* ``points`` — tempo-first (0) ↔ points-first (1): whether the bot spends its cards to
  keep or take the lead and shed its hand fast, or to capture and save points (and, in
  the climbing games, to help its partner finish well).

The default style is the one the ``heuristic`` bot had before styles existed, with a
small appetite for risk: a bot that never risks a play never shows a designer what
the rules do to a failed one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from arena.chance import derive_seed
from arena.games.base import Observation

__all__ = ["DEFAULT_POINTS", "DEFAULT_RISK", "DEFAULT_STYLE", "Style", "chance"]

DEFAULT_RISK: Final = 0.2
"""The default bot's appetite for risk."""
DEFAULT_POINTS: Final = 0.5
"""The default bot's balance of points against tempo."""


@dataclass(frozen=True)
class Style:
    """A bot's play style: ``risk`` and ``points``, each from 0 to 1 (module docstring)."""

    risk: float = DEFAULT_RISK
    points: float = DEFAULT_POINTS

    def __post_init__(self) -> None:
        for name in ("risk", "points"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a number from 0 to 1, got {value!r}")


DEFAULT_STYLE: Final = Style()
"""The ``heuristic`` bot's style when none is given."""


def chance(seed: int, observation: Observation, what: str, rate: float) -> bool:
    """Whether a choice taken at ``rate`` (0 to 1) is taken at this decision: drawn from
    the bot's seed and the decision itself (its game, seat, hand and the events so far), so
    the same observation always gets the same answer, from any instance of the bot."""
    if rate <= 0:
        return False
    if rate >= 1:
        return True
    key = derive_seed(
        seed, what, observation.game, observation.seat, observation.hand, len(observation.events)
    )
    return random.Random(key).random() < rate
