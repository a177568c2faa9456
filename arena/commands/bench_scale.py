"""``arena bench scale``: deals/s on Ray with 1 worker and with N, in the same run.

Three timings of the same work: a plain single process (the baseline), local Ray with
one worker, and local Ray with N workers (N = cores). The work is a tournament's
matches (built-in random bots, a few deals each), or with ``--balance`` the batches
``arena balance`` plays (consecutive deals, heuristic bots unless ``--bots``).
Printed: the efficiency ``rate_N / (N · rate_1)`` and Ray's overhead against the plain
process; ``--json``: the deals and seconds of each timing too.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, replace
from typing import Any

import bots
from arena.commands import arguments, print_json
from arena.errors import ConfigError
from arena.plural import counted
from arena.sim import MatchJob, RayOptions, Runner, cores, play_jobs, team_players
from arena.sim.balance import BalanceJob, VariantSpec, plan_jobs, run_local, run_on_ray

TARGET_EFFICIENCY = 0.85
TARGET_BALANCE_EFFICIENCY = 0.9
TARGET_OVERHEAD = 0.10
BALANCE_TASKS_PER_WORKER = 8
"""Batches per worker in the balance timing (equal batches: the last ones end together)."""


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


@dataclass(frozen=True)
class Run:
    """Deals played and the seconds they took."""

    deals: int
    seconds: float

    @property
    def rate(self) -> float:
        return self.deals / self.seconds

    def to_dict(self) -> dict[str, float]:
        return {"deals": self.deals, "seconds": self.seconds, "deals_per_second": self.rate}


def plain_run(jobs: list[MatchJob]) -> Run:
    """The matches played one after another in this process."""
    started = time.perf_counter()
    deals = sum(r.deals for r in play_jobs(jobs))
    return Run(deals, time.perf_counter() - started)


def ray_run(jobs: list[MatchJob], workers: int, batch: int) -> Run:
    """The matches on a fresh local Ray of ``workers`` CPUs, its start-up not counted."""
    with Runner(RayOptions(num_cpus=workers)) as runner:
        list(runner.run(jobs[: workers * batch], batch_size=batch))  # start the workers
        started = time.perf_counter()
        deals = sum(r.deals for r in runner.run(jobs, batch_size=batch))
        return Run(deals, time.perf_counter() - started)


def measure(variant: str, matches: int, deals: int, seed: int, workers: int) -> dict[str, Any]:
    """The three timings of the same matches; the report (JSON-ready)."""
    jobs = scale_jobs(variant, matches, deals, seed)
    batch = max(1, len(jobs) // (4 * workers))
    plain = plain_run(jobs)
    one = ray_run(jobs, 1, batch)
    many = ray_run(jobs, workers, batch)
    report = {"matches": len(jobs), "deals_per_match": deals}
    what = f"{counted(len(jobs), 'match')} of {counted(deals, 'deal')}, random bots"
    return _report(variant, what, workers, (plain, one, many), TARGET_EFFICIENCY) | report


def balance_scale_jobs(
    variant: str, deals: int, workers: int, players: str, seed: int
) -> list[BalanceJob]:
    """``deals`` of a variant as ``arena balance`` plays them, in equal batches, enough
    for :data:`BALANCE_TASKS_PER_WORKER` per worker."""
    batch = max(1, deals // (BALANCE_TASKS_PER_WORKER * workers))
    lineup = bots.lineup(arguments.bot_names(players, "--bots"))
    return plan_jobs([VariantSpec(variant)], deals, batch, seed, lineup)


def balance_plain_run(jobs: list[BalanceJob]) -> Run:
    """The batches played one after another in this process."""
    started = time.perf_counter()
    deals = sum(summary["deals"] for _, summary, _ in run_local(jobs))
    return Run(deals, time.perf_counter() - started)


def balance_ray_run(jobs: list[BalanceJob], workers: int) -> Run:
    """The batches on a fresh local Ray of ``workers`` CPUs, its start-up and each
    worker's first batch (loading the engines and bots) not counted."""
    with Runner(RayOptions(num_cpus=workers)) as runner:
        warm = [replace(job, deals=1) for job in jobs[: 2 * workers]]
        list(run_on_ray(warm, runner))
        started = time.perf_counter()
        deals = sum(summary["deals"] for _, summary, _ in run_on_ray(jobs, runner))
        return Run(deals, time.perf_counter() - started)


def measure_balance(
    variant: str, deals: int, players: str, seed: int, workers: int
) -> dict[str, Any]:
    """The three timings of the same balance batches; the report (JSON-ready)."""
    jobs = balance_scale_jobs(variant, deals, workers, players, seed)
    runs = (balance_plain_run(jobs), balance_ray_run(jobs, 1), balance_ray_run(jobs, workers))
    batches = counted(len(jobs), "batch")
    what = f"{deals} balance deals in {batches} of {jobs[0].deals}, {players} bots"
    extra = {"balance": True, "bots": players, "batches": len(jobs), "batch": jobs[0].deals}
    return _report(variant, what, workers, runs, TARGET_BALANCE_EFFICIENCY) | extra


def _report(
    variant: str, what: str, workers: int, runs: tuple[Run, Run, Run], target: float
) -> dict[str, Any]:
    plain, one, many = runs
    efficiency = many.rate / (workers * one.rate)
    overhead = plain.rate / one.rate - 1
    return {
        "variant": variant,
        "played": what,
        "workers": workers,
        "plain": plain.to_dict(),
        "ray_1": one.to_dict(),
        "ray_n": many.to_dict(),
        "speedup": many.rate / plain.rate,
        "efficiency": efficiency,
        "overhead": overhead,
        "target_efficiency": target,
        "target_overhead": TARGET_OVERHEAD,
        "met": {
            "efficiency": efficiency >= target,
            "overhead": overhead <= TARGET_OVERHEAD,
        },
    }


def run_scale(args: argparse.Namespace) -> int:
    if args.matches < 1 or args.deals < 1:
        raise ConfigError("--matches and --deals must be at least 1")
    workers = args.workers or cores()
    if args.balance:
        report = measure_balance(args.variant, args.deals, args.bots, args.seed, workers)
    else:
        report = measure(args.variant, args.matches, args.deals, args.seed, workers)
    if args.json:
        print_json(report)
    else:
        print_report(report)
    return 0


def print_report(report: dict[str, Any]) -> None:
    """The report as text."""
    plain, one, many = report["plain"], report["ray_1"], report["ray_n"]
    workers, met = report["workers"], report["met"]
    print(f"{report['variant']}: {report['played']}")
    print(f"  plain single process (baseline): {plain['deals_per_second']:10.1f} deals/s")
    print(
        f"  Ray, 1 worker:                   {one['deals_per_second']:10.1f} deals/s  "
        f"(overhead {report['overhead']:+.1%})"
    )
    print(
        f"  Ray, {counted(workers, 'worker')}:                  {many['deals_per_second']:10.1f} "
        f"deals/s  "
        f"({report['speedup']:.2f}x)"
    )
    print(
        f"  efficiency rate_N / (N·rate_1) = {report['efficiency']:.2f} "
        f"(target ≥ {report['target_efficiency']}: {_verdict(met['efficiency'])}); "
        f"Ray overhead {report['overhead']:+.1%} "
        f"(target ≤ {report['target_overhead']:.0%}: {_verdict(met['overhead'])})"
    )


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"
