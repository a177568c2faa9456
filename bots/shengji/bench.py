"""Benchmark: whole Shengji deals played by four heuristic bots against four random bots.

``python -m bots.shengji.bench [--deals N] [--variant shengji-2 ...]`` plays the same
seeded deals with four ``random`` bots (the baseline) and with four ``heuristic``
bots, alternating the two so that both see the same machine load, and prints the
time per deal of each and their ratio for every variant. Times are the process's
CPU time (engine and bots), so that other work on a shared machine does not count.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from arena.games import make
from arena.match import Policy, play_deal
from bots.heuristic import HeuristicBot
from bots.simple import RandomBot

VARIANTS = ("shengji-1", "shengji-2", "shengji-3", "shengji-4")


def time_deal(variant: str, seed: int, factory: Callable[[int], Policy]) -> tuple[float, int]:
    """CPU seconds to play one whole deal (engine and bots), and the decisions it took."""
    game = make(variant)
    policies = [factory(seed * 4 + k) for k in range(4)]
    started = time.process_time()
    state = game.new_deal(game.first_setup(), seed=seed)
    actions = play_deal(state, policies)
    return time.process_time() - started, len(actions)


def bench(variant: str, deals: int) -> tuple[float, float]:
    """Mean seconds per deal for random and heuristic bots on the same seeds."""
    spent = {"random": 0.0, "heuristic": 0.0}
    factories: dict[str, Callable[[int], Policy]] = {
        "random": RandomBot,
        "heuristic": HeuristicBot,
    }
    for seed in range(deals):
        order = ("random", "heuristic") if seed % 2 == 0 else ("heuristic", "random")
        for name in order:
            seconds, _ = time_deal(variant, seed, factories[name])
            spent[name] += seconds
    return spent["random"] / deals, spent["heuristic"] / deals


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=50, help="deals per variant (default 50)")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="default: all four")
    args = parser.parse_args(argv)
    print(f"{'variant':<10} {'random ms/deal':>15} {'heuristic ms/deal':>18} {'ratio':>6}")
    for variant in args.variant or VARIANTS:
        random_s, heuristic_s = bench(variant, args.deals)
        print(
            f"{variant:<10} {random_s * 1e3:>15.1f} {heuristic_s * 1e3:>18.1f} "
            f"{heuristic_s / random_s:>6.2f}"
        )


if __name__ == "__main__":
    main()
