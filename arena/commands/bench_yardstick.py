"""A peer engine timed beside ours: RLCard's Dou Dizhu game core (``--yardstick``).

RLCard (an optional dependency: the ``bench`` and ``dev`` extras) has no Guandan or
Shengji, but its Dou Dizhu core is the best known pure-Python engine of a climbing card
game. It plays whole games here the way ``arena bench GAME`` plays our deals: the game's
own legal actions, a uniform random choice, apply, until the game is over, the deal
shuffled from a seed (the choosing generators made before the clock, as ours). Games
and decisions per second are measured in the same run as ours, and as many times (the
fastest counting), so their ratio holds on any machine.
"""

from __future__ import annotations

import gc
import random
import time
from typing import Any

from arena.errors import ConfigError

__all__ = ["YARDSTICK", "time_doudizhu"]

YARDSTICK = "RLCard doudizhu (game core, random legal actions)"


def _doudizhu_game() -> Any:
    try:
        from rlcard.games.doudizhu.game import DoudizhuGame
    except ImportError:
        raise ConfigError(
            "--yardstick needs RLCard: pip install -e '.[bench]' (or pip install rlcard)"
        ) from None
    return DoudizhuGame(allow_step_back=False)


def time_doudizhu(games: int, seed: int) -> dict[str, float]:
    """``games`` whole Dou Dizhu games with random legal actions: seconds, games,
    decisions, legal actions, and the rates."""
    import numpy as np  # RLCard's own dependency: the game shuffles with it

    game = _doudizhu_game()
    decisions = legal = 0
    choosers = [random.Random(seed + index) for index in range(games)]  # as for ours
    gc.collect()
    start = time.perf_counter()
    for index, rng in enumerate(choosers):
        game.np_random = np.random.RandomState(seed + index)  # its shuffle, as our deal's
        state, _ = game.init_game()
        while not game.is_over():
            actions = state["actions"]
            legal += len(actions)
            decisions += 1
            state, _ = game.step(actions[rng.randrange(len(actions))])
    seconds = time.perf_counter() - start
    return {
        "seconds": seconds,
        "games": games,
        "decisions": decisions,
        "legal_actions": legal,
        "games_per_second": games / seconds,
        "decisions_per_second": decisions / seconds,
    }
