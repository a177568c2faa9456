"""Many deals of one variant stepped together in one process, for batched training.

:class:`VectorEnv` keeps ``count`` tables (each a match played deal after deal) and
gives, for each, the acting player's tensor and action mask as rows of two arrays. One
:meth:`VectorEnv.step` takes one index per table. A table whose deal ends reports the
deal's rewards (by player) and deals its match's next deal at once (the next match's
first once a match is over), so every row always has a decision waiting.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.env.codecs import codec_for
from arena.env.features import View, features_for
from arena.env.table import Table
from arena.games import family_of, make
from arena.games.base import NUM_SEATS

__all__ = ["Step", "VectorEnv"]


@dataclass(frozen=True, slots=True)
class Step:
    """What one step of every table gave: the deals' rewards by player (rows of zeros
    for tables whose deal goes on), which deals ended, and how many engine actions
    were applied (a factored index may complete none)."""

    rewards: npt.NDArray[np.float32]
    done: npt.NDArray[np.bool_]
    actions: int


class VectorEnv:
    """``count`` tables of ``variant``; their decisions as batched arrays."""

    def __init__(
        self,
        variant: str,
        count: int,
        *,
        seed: int = 0,
        game_options: dict[str, Any] | None = None,
        tensors: bool = True,
    ) -> None:
        if count < 1:
            raise ValueError(f"count must be at least 1, not {count}")
        self.tensors = tensors
        """Whether the tensors are made (else :attr:`observations` stays zero: masks only)."""
        self.game = make(variant, **(game_options or {}))
        self.codec = codec_for(self.game)
        self.features = features_for(family_of(self.game.name))
        seeds = np.random.SeedSequence(seed).spawn(count)
        self.tables = [Table(self.game, self.codec, np.random.default_rng(s)) for s in seeds]
        self.observations = np.zeros((count, self.features.size), dtype=np.float32)
        """Row ``i``: the tensor of the player to act at table ``i``."""
        self.masks = np.zeros((count, self.codec.size), dtype=np.int8)
        """Row ``i``: that player's action mask."""
        self.players = np.zeros(count, dtype=np.int64)
        """Entry ``i``: the player (0 … 3) to act at table ``i``."""
        for row, table in enumerate(self.tables):
            table.deal(new_match=True)
            self._refresh(row)

    def __len__(self) -> int:
        return len(self.tables)

    def step(self, indices: Sequence[int] | npt.NDArray[np.integer[Any]]) -> Step:
        """Take one index at every table (each must be in its mask: a
        :class:`~arena.env.codecs.CodecError` names one that is not)."""
        if len(indices) != len(self.tables):
            raise ValueError(
                f"expected {len(self.tables)} indices, one per table, got {len(indices)}"
            )
        rewards = np.zeros((len(self.tables), NUM_SEATS), dtype=np.float32)
        done = np.zeros(len(self.tables), dtype=np.bool_)
        applied = 0
        for row, (table, index) in enumerate(zip(self.tables, indices, strict=True)):
            applied += table.take(int(index))
            outcome = table.outcome
            if outcome is not None:
                for seat, score in enumerate(outcome.scores):
                    rewards[row, table.state.player_at(seat)] = score
                done[row] = True
                table.deal()
            self._refresh(row)
        return Step(rewards, done, applied)

    def _refresh(self, row: int) -> None:
        table = self.tables[row]
        decision, observation = table.decision, table.observation
        assert decision is not None and observation is not None
        if self.tensors:
            view = View(observation, decision.selected_cards, table.tally)
            self.features.vector(view, self.observations[row])
        self.masks[row] = decision.mask
        self.players[row] = table.state.player_at(observation.seat)
