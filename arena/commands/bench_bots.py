"""``arena bench bots --variant V``: the cost of the built-in bots against random bots.

The same consecutive match deals (so Guandan's tribute, every level, every Shengji
dealer occur) are played to their end by four random bots (the baseline) and by four
copies of each named bot, deal by deal in alternating order so that both see the same
machine load, after one deal each to warm up (imports, caches). Times are the process's
CPU time (engine and bots). Printed per bot: milliseconds per deal, decisions per deal,
the slowest decision, the ratio of its deal time to the random bots' (the heuristic
bot's target: at most 3x) and the mean milliseconds per decision, every decision of the
deals counted, forced ones too (the search bot's target: at most 20 ms).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import bots
from arena.chance import derive_seed
from arena.commands.bench_deals import match_setups
from arena.errors import ConfigError
from arena.games import make
from arena.games.base import Action, Game, Observation
from arena.match import Policy, play_deal

BASELINE: Final = "random"
TARGET_RATIO: Final = {"heuristic": 3.0}
"""Most a bot's deal may cost, in random-bot deals."""
TARGET_MS: Final = {"search": 20.0}
"""Most a bot's decision may cost on average, in milliseconds of CPU time."""


@dataclass
class Cost:
    """CPU time spent playing deals with one kind of bot."""

    seconds: float = 0.0
    decisions: int = 0
    slowest: float = 0.0
    deals: int = 0
    per_deal: list[float] = field(default_factory=list)


class _Timed:
    """A policy that notes how long each of its decisions takes."""

    def __init__(self, inner: Policy, cost: Cost) -> None:
        self.inner, self.cost = inner, cost

    def act(self, observation: Observation) -> Action | str:
        started = time.process_time()
        action = self.inner.act(observation)
        self.cost.slowest = max(self.cost.slowest, time.process_time() - started)
        return action


def play_deals(
    game: Game, deals: list[tuple[int, Any]], make_bot: Callable[[int], Policy], cost: Cost
) -> None:
    """Play one deal of ``deals`` (the next one for ``cost``) and add its CPU time."""
    seed, setup = deals[cost.deals]
    policies = [_Timed(make_bot(derive_seed(seed, "bot", p)), cost) for p in range(4)]
    started = time.process_time()
    state = game.new_deal(setup, seed=seed)
    cost.decisions += len(play_deal(state, policies))
    spent = time.process_time() - started
    cost.seconds += spent
    cost.per_deal.append(spent)
    cost.deals += 1


def _factory(name: str) -> Callable[[int], Policy]:
    def make_bot(seed: int) -> Policy:
        return bots.make(name, seed)

    return make_bot


def measure(variant: str, names: list[str], deals: int, seed: int) -> dict[str, Cost]:
    """Each named bot's cost and the random bots', on the same deals, interleaved."""
    game = make(variant)
    seeds = [derive_seed(seed, "bench-bots", i) for i in range(deals)]
    plays = list(zip(seeds, match_setups(game, seeds), strict=True))
    costs = {name: Cost() for name in [BASELINE, *names]}
    order = list(costs)
    for name in order:  # warm up (imports, caches) on a first deal, not counted
        play_deals(game, plays, _factory(name), Cost())
    for i in range(deals):
        for name in order if i % 2 == 0 else reversed(order):
            play_deals(game, plays, _factory(name), costs[name])
    return costs


def run_bench_bots(args: argparse.Namespace) -> int:
    if args.deals < 1:
        raise ConfigError(f"--deals must be at least 1, got {args.deals}")
    names = [n for n in (args.bots or "heuristic").split(",") if n]
    for name in names:
        bots.make(name)  # unknown: ConfigError naming the built-in bots
    costs = measure(args.variant, names, args.deals, args.seed)
    base = costs[BASELINE]
    rows = []
    for name, cost in costs.items():
        ratio = cost.seconds / base.seconds
        per_decision = cost.seconds / cost.decisions * 1e3
        target, target_ms = TARGET_RATIO.get(name), TARGET_MS.get(name)
        checks = [ratio <= target] if target is not None else []
        checks += [per_decision <= target_ms] if target_ms is not None else []
        rows.append(
            {
                "bot": name,
                "deals": cost.deals,
                "decisions": cost.decisions,
                "seconds": cost.seconds,
                "ms_per_deal": cost.seconds / cost.deals * 1e3,
                "decisions_per_deal": cost.decisions / cost.deals,
                "slowest_decision_ms": cost.slowest * 1e3,
                "ms_per_decision": per_decision,
                "ratio_to_random": ratio,
                "target_ratio": target,
                "target_ms_per_decision": target_ms,
                "met": all(checks) if checks else None,
            }
        )
    if args.json:
        print(json.dumps({"variant": args.variant, "deals": args.deals, "bots": rows}))
        return 0
    print(f"{args.variant}: {args.deals} consecutive match deals per bot, CPU time, one process")
    for row in rows:
        verdict = ""
        if row["met"] is not None:
            met = "met" if row["met"] else "NOT met"
            limit = row["target_ratio"]
            wanted = (
                f"{limit:.0f}x" if limit is not None else f"{row['target_ms_per_decision']:.0f} ms"
            )
            verdict = f"  target ≤ {wanted}: {met}"
        print(
            f"  {row['bot']:<10} {row['ms_per_deal']:9.2f} ms/deal "
            f"{row['decisions_per_deal']:7.1f} decisions/deal  slowest "
            f"{row['slowest_decision_ms']:8.2f} ms  {row['ratio_to_random']:6.2f}x random "
            f"{row['ms_per_decision']:8.3f} ms/decision{verdict}"
        )
    return 0
