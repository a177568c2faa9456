"""``arena bench scale``: deals/s on Ray with 1 worker and with N, in the same run.

Three timings of the same matches (built-in random bots, a few deals each):
a plain single process (the baseline), local Ray with one worker, and local Ray
with N workers (N = cores). Printed: the efficiency ``rate_N / (N · rate_1)`` and
Ray's overhead against the plain process.
"""

from __future__ import annotations

import argparse
import time

from arena.errors import ConfigError
from arena.sim import MatchJob, RayOptions, Runner, cores, play_jobs, team_players

TARGET_EFFICIENCY = 0.85
TARGET_OVERHEAD = 0.10


def scale_jobs(variant: str, matches: int, deals: int, seed: int) -> list[MatchJob]:
    return [
        MatchJob(
            id=f"scale:{m}",
            variant=variant,
            options={},
            seed=seed * 1_000_003 + m,
            players=team_players(["random", "random"], ["random", "random"]),
            max_deals=deals,
        )
        for m in range(matches)
    ]


def ray_rate(jobs: list[MatchJob], workers: int, batch: int) -> float:
    """Deals/s on a fresh local Ray of ``workers`` CPUs, its start-up not counted."""
    with Runner(RayOptions(num_cpus=workers)) as runner:
        list(runner.run(jobs[: workers * batch], batch_size=batch))  # start the workers
        started = time.perf_counter()
        deals = sum(r.deals for r in runner.run(jobs, batch_size=batch))
        return deals / (time.perf_counter() - started)


def run_scale(args: argparse.Namespace) -> int:
    if args.matches < 1 or args.deals < 1:
        raise ConfigError("--matches and --deals must be at least 1")
    workers = args.workers or cores()
    jobs = scale_jobs(args.variant, args.matches, args.deals, args.seed)
    batch = max(1, len(jobs) // (4 * workers))
    started = time.perf_counter()
    plain = sum(r.deals for r in play_jobs(jobs)) / (time.perf_counter() - started)
    one = ray_rate(jobs, 1, batch)
    many = ray_rate(jobs, workers, batch)
    efficiency = many / (workers * one)
    overhead = plain / one - 1
    print(f"{args.variant}: {len(jobs)} matches of {args.deals} deals, random bots")
    print(f"  plain single process (baseline): {plain:10.1f} deals/s")
    print(f"  Ray, 1 worker:                   {one:10.1f} deals/s  (overhead {overhead:+.1%})")
    print(f"  Ray, {workers} workers:                  {many:10.1f} deals/s  ({many / plain:.2f}x)")
    print(
        f"  efficiency rate_N / (N·rate_1) = {efficiency:.2f} (target ≥ {TARGET_EFFICIENCY}: "
        f"{_verdict(efficiency >= TARGET_EFFICIENCY)}); Ray overhead {overhead:+.1%} "
        f"(target ≤ {TARGET_OVERHEAD:.0%}: {_verdict(overhead <= TARGET_OVERHEAD)})"
    )
    return 0


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"
