"""A decision of the strategy before it becomes an engine action: the cards, or a pass,
and the name of the rule that chose it (for tests and for reading a match log)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from arena.cards import Card
from bots.sanfu.hand import Group


class Choice(NamedTuple):
    """``cards`` to play (``None`` to pass) and the ``rule`` that decided."""

    cards: tuple[Card, ...] | None
    rule: str

    @classmethod
    def play(cls, group: Group, rule: str) -> Choice:
        return cls(group.cards, rule)

    @classmethod
    def pass_(cls, rule: str) -> Choice:
        return cls(None, rule)


def tiebreak(seed: int, cards: tuple[Card, ...]) -> int:
    """A seeded order between otherwise equal plays (stable across processes)."""
    return hash((seed, cards))


Draw = Callable[[str, float], bool]
"""Whether a choice named ``what`` taken at a rate is taken at this decision
(:func:`bots.style.chance`, bound to the bot's seed and the observation)."""


def never(what: str, rate: float) -> bool:
    """The draw of a bot that takes no chance."""
    return False
