"""The simplest policies: uniform random, and always the first legal action."""

from __future__ import annotations

import random

from arena.games.base import Action, Observation


class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        actions = observation.legal_actions
        return actions[self._rng.randrange(len(actions))]


class FirstBot:
    """Always plays the first legal action (the lowest, as legal actions are sorted)."""

    name = "first"

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions[0]
