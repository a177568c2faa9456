"""Deals for the benchmarks: consecutive match deals, so a benchmark covers the whole rules."""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import Game

__all__ = ["match_setups"]


def match_setups(game: Game, seeds: list[int]) -> list[Any]:
    """The setups of consecutive match deals (levels, tribute) that the seeds lead to.

    Benchmarked deals then cover the whole rules — e.g. Guandan's tribute and
    every level (so every wild card), Shengji's every dealer — not only first deals.
    """
    setups, setup = [], game.first_setup()
    for seed in seeds:
        setups.append(setup)
        state = game.new_deal(setup, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply(actions[rng.randrange(len(actions))])
        setup = state.outcome().next_setup
        if setup is None:
            setup = game.first_setup()
    return setups
