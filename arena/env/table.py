"""One table of an environment: a match's deals played through an action codec.

Both the AEC environment and the vectorised one keep their deals here: the engine's
state, the decision in progress in codec indices, and the setup that carries the match
from one deal to the next.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from arena.env.codecs import ActionCodec, Decision
from arena.env.features import EventTally
from arena.games.base import Game, Observation, Outcome, State

__all__ = ["SEED_BOUND", "Table"]

SEED_BOUND: Final = 2**63
"""Deal seeds are drawn below this."""


class Table:
    """A match played deal by deal, one codec index at a time."""

    def __init__(self, game: Game, codec: ActionCodec, rng: np.random.Generator) -> None:
        self.game = game
        self.codec = codec
        self.rng = rng
        self.setup: Any = None
        self.state: State
        self.observation: Observation | None = None
        """The observation of the seat to act (``None`` once the deal is over)."""
        self.decision: Decision | None = None
        self.outcome: Outcome | None = None
        self.tally = EventTally()
        """The deal's events read so far, for the tensors of its seats."""

    def deal(self, new_match: bool = False) -> None:
        """The match's next deal (its first after ``new_match`` or after the last deal)."""
        if new_match or self.setup is None:
            self.setup = self.game.first_setup()
        self.state = self.game.new_deal(self.setup, seed=int(self.rng.integers(SEED_BOUND)))
        self.outcome = None
        self.tally.reset()
        self._next_decision()

    def take(self, index: int) -> bool:
        """Take one index of the decision; whether the engine's state moved (a factored
        action may need more). Raises :class:`~arena.env.codecs.CodecError` for an index
        masked out."""
        assert self.decision is not None, "the deal is over"
        action = self.decision.choose(index)
        if action is None:
            return False
        self.state.apply(action)
        self._next_decision()
        return True

    def _next_decision(self) -> None:
        if self.state.is_terminal():
            self.outcome = self.state.outcome()
            self.setup = self.outcome.next_setup
            self.observation = self.decision = None
        else:
            self.observation = self.state.observe(self.state.to_act)
            self.decision = self.codec.decision(self.observation)
