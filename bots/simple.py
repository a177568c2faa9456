"""The simplest policies: uniform random, and always the first legal action.

Compiled with the engines (``arena/compiled.py``) when they are: a policy's observation
is read through :class:`Legal`, so any object with legal actions is taken, as before.
A bot author's class may subclass them (``class Mine(RandomBot)``) either way.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import ClassVar, Protocol

from mypy_extensions import mypyc_attr

from arena.games.base import Action


class Legal(Protocol):
    """What these policies read of an observation."""

    @property
    def legal_actions(self) -> Sequence[Action]: ...


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded generator: the
    choice ``random.Random(seed).randrange`` makes, drawn the way it draws it."""

    name: ClassVar[str] = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Legal) -> Action:
        actions = observation.legal_actions
        count = len(actions)
        if not count:
            raise ValueError("no legal action to choose from")
        # randrange(count) without its argument checks: the lowest bits that can hold
        # count - 1, drawn again until they are below count
        bits = count.bit_length()
        draw = self._rng.getrandbits
        index = draw(bits)
        while index >= count:
            index = draw(bits)
        return actions[index]


@mypyc_attr(allow_interpreted_subclasses=True)
class FirstBot:
    """Always plays the first legal action (the lowest, as legal actions are sorted)."""

    name: ClassVar[str] = "first"

    def act(self, observation: Legal) -> Action:
        return observation.legal_actions[0]
