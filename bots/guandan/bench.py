"""``python -m bots.guandan.bench``: what the Guandan heuristic costs, in whole deals.

The same consecutive match deals (tribute and every level included, built as
``arena bench`` builds them) are played through the match driver by four random
bots (the baseline) and by four heuristic bots, in the same run. Rounds alternate
between the two so that a busy machine slows both alike; the best round of each
is compared, and the ratio printed.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena.chance import derive_seed
from arena.commands.bench import match_setups
from arena.games import make
from arena.games.base import Game
from arena.match import Policy, play_deal
from bots.guandan_bot import GuandanHeuristic
from bots.simple import RandomBot

Factory = Callable[[int], Policy]


def time_deals(game: Game, deals: Sequence[tuple[int, Any]], factory: Factory) -> tuple[float, int]:
    """Seconds and decisions to play ``deals`` with four fresh bots from ``factory`` each."""
    decisions = 0
    start = time.perf_counter()
    for seed, setup in deals:
        policies = [factory(derive_seed(seed, seat)) for seat in range(4)]
        decisions += len(play_deal(game.new_deal(setup, seed=seed), policies))
    return time.perf_counter() - start, decisions


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bots.guandan.bench", description=__doc__)
    parser.add_argument("--deals", type=int, default=100, help="deals per round (default 100)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.rounds < 1:
        parser.error("--deals and --rounds must be at least 1")
    game = make("guandan")
    seeds = [derive_seed(args.seed, "bench", i) for i in range(args.deals)]
    deals = list(zip(seeds, match_setups(game, seeds), strict=True))
    bots: dict[str, Factory] = {"random": RandomBot, "heuristic": GuandanHeuristic}
    best = {name: float("inf") for name in bots}
    decisions = dict.fromkeys(bots, 0)
    for _ in range(args.rounds):
        for name, factory in bots.items():
            seconds, decisions[name] = time_deals(game, deals, factory)
            best[name] = min(best[name], seconds)
    n = args.deals
    print(f"guandan: {n} consecutive match deals, four bots of a kind, best of {args.rounds}")
    for name in bots:
        print(
            f"  {name:9}  {best[name] / n * 1e3:8.2f} ms/deal  "
            f"{decisions[name] / n:6.1f} decisions/deal  "
            f"{best[name] / decisions[name] * 1e6:8.1f} µs/decision"
        )
    ratio = best["heuristic"] / best["random"]
    print(f"  heuristic deal / random deal: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
