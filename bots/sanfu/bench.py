"""Benchmark: the cost of a whole sanfu deal with four heuristic bots against four random bots.

``python -m bots.sanfu.bench --deals 200`` plays the same deal seeds with both tables,
alternating the two in rounds so that both see the same machine load, and prints the
time per deal and per decision of each and their ratio (the baseline is the random
table, measured in the same run).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import bots
from arena.chance import derive_seed
from arena.games import make
from arena.match import Policy, play_match

Table = Callable[[int], list[Policy]]


def _table(name: str) -> Table:
    def policies(seed: int) -> list[Policy]:
        return [bots.make(name, derive_seed(seed, "bench", p)) for p in range(4)]

    return policies


def _time(table: Table, seeds: range) -> tuple[float, int]:
    game = make("sanfu")
    decisions = 0
    started = time.perf_counter()
    for seed in seeds:
        decisions += play_match(game, table(seed), seed=seed, max_deals=1).decisions
    return time.perf_counter() - started, decisions


def run(deals: int, rounds: int) -> dict[str, float]:
    """Seconds and decisions per table over ``deals`` deals, in ``rounds`` alternations."""
    seconds_of = {"random": 0.0, "heuristic": 0.0}
    decisions_of = {"random": 0, "heuristic": 0}
    per_round = max(1, deals // rounds)
    for r in range(rounds):
        seeds = range(r * per_round, (r + 1) * per_round)
        for name in ("random", "heuristic") if r % 2 == 0 else ("heuristic", "random"):
            seconds, decisions = _time(_table(name), seeds)
            seconds_of[name] += seconds
            decisions_of[name] += decisions
    played = per_round * rounds
    result = {"deals": float(played)}
    for name, seconds in seconds_of.items():
        decisions = decisions_of[name]
        result[f"{name}_ms_per_deal"] = 1000 * seconds / played
        result[f"{name}_us_per_decision"] = 1e6 * seconds / decisions
        result[f"{name}_decisions_per_deal"] = decisions / played
    result["ratio"] = result["heuristic_ms_per_deal"] / result["random_ms_per_deal"]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200, help="deals per table (default 200)")
    parser.add_argument("--rounds", type=int, default=4, help="alternations (default 4)")
    args = parser.parse_args(argv)
    r = run(args.deals, args.rounds)
    print(f"sanfu, {r['deals']:.0f} deals per table (same seeds), alternated {args.rounds}×")
    for name in ("random", "heuristic"):
        print(
            f"  4× {name:<9} {r[f'{name}_ms_per_deal']:7.2f} ms/deal  "
            f"{r[f'{name}_decisions_per_deal']:6.1f} decisions/deal  "
            f"{r[f'{name}_us_per_decision']:6.1f} µs/decision"
        )
    print(f"  heuristic / random deal cost: {r['ratio']:.2f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
