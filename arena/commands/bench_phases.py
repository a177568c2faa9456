"""What the gateway benches share: a phase's decision round trips, the fixtures each
phase plays on the bench's server, and the phase run to its end on a loop of its own."""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Coroutine, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from arena.chance import derive_seed
from arena.commands import print_json
from arena.commands.bench_grpc import _quiet, _Server, percentile
from arena.errors import ConfigError
from arena.store import Store

__all__ = [
    "ROUND_TRIP",
    "Phase",
    "Times",
    "play_phases",
    "report_head",
    "run_gateway_bench",
    "run_phase",
    "schedule",
]

ROUND_TRIP: Final = (
    "round trip = the server's DecisionRequest read by the seat's SDK -> its acceptance read"
)


@dataclass
class Times:
    """A phase's round trips (seconds), the span they cover, the programs it started
    (program seats)."""

    round_trips: list[float] = field(default_factory=list)
    first: float = float("inf")
    last: float = float("-inf")
    programs: int = 0

    def heard(self, seconds: float) -> None:
        """One decision's round trip, heard as it ends (``run_bot_async(on_decision=…)``)."""
        now = time.perf_counter()
        self.round_trips.append(seconds)
        self.first = min(self.first, now - seconds)
        self.last = max(self.last, now)

    def figures(self) -> dict[str, Any]:
        decisions = len(self.round_trips)
        span = max(self.last - self.first, 1e-9)
        return {
            "decisions": decisions,
            "seconds": span,
            "decisions_per_second": decisions / span,
            "p50_ms": percentile(self.round_trips, 0.5) * 1000,
            "p99_ms": percentile(self.round_trips, 0.99) * 1000,
            "mean_ms": statistics.fmean(self.round_trips) * 1000 if decisions else 0.0,
        }


def schedule(
    server: _Server,
    variant: str,
    names: tuple[str, ...],
    seeds: list[int],
    deals: int,
    tag: str,
) -> None:
    """The phase ``tag``'s fixtures on ``server``: a casual match of ``deals`` deals per
    seed, between the bots ``names`` in their seats."""
    from arena.server.session import MatchPlan

    plans = [
        MatchPlan(variant, names, False, match_id=f"{tag}-{n}", seed=seed, max_deals=deals)
        for n, seed in enumerate(seeds)
    ]

    async def scheduled() -> None:
        server.running.play.schedule(plans)

    server._run(scheduled())


def run_phase(phase: Coroutine[Any, Any, Times], seconds: float) -> Times:
    """``phase`` run to its end on a loop of its own, given at most ``seconds``."""
    result: Times = asyncio.run(asyncio.wait_for(phase, seconds))
    return result


Phase = Callable[[str, tuple[str, ...]], Coroutine[Any, Any, Times]]
"""A phase: its bots played against the server's address with the four seats' tokens."""


def play_phases(
    label: str,
    variant: str,
    matches: int,
    deals: int,
    seed: int,
    phases: Callable[[Path], Mapping[str, Phase]],
    seconds: float,
    quiet: tuple[str, ...] = ("arena.server",),
) -> dict[str, Times]:
    """Each phase of ``phases(folder)`` (``folder``: a scratch folder of the bench's) in
    turn on one server over a new store, every phase on matches of the same seeds, each
    given at most ``seconds``; the loggers ``quiet`` silenced meanwhile."""
    seeds = [derive_seed(seed, label, n) for n in range(matches)]
    names = tuple(f"bench-bot-{n}" for n in range(4))
    played: dict[str, Times] = {}
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=f"arena-{label}-")))
        store = stack.enter_context(Store.open(folder / "bench.sqlite"))
        for logger in quiet:
            stack.enter_context(_quiet(logger))
        server = _Server(store, deals, 4)
        try:
            tokens = server.register(4)
            for tag, phase in phases(folder).items():
                schedule(server, variant, names, seeds, deals, tag)
                played[tag] = run_phase(phase(server.address, tokens), seconds)
        finally:
            server.close()
    return played


def report_head(
    variant: str, matches: int, deals: int, strategy: str, load: float
) -> dict[str, Any]:
    """What a gateway bench's report opens with: what was played, and on what machine."""
    return {
        "variant": variant,
        "matches": matches,
        "deals_per_match": deals,
        "strategy": strategy,
        "round_trip": ROUND_TRIP,
        "load_average": load,
        "cores": os.cpu_count(),
    }


def run_gateway_bench(
    args: argparse.Namespace,
    measure: Callable[[int, int, int], dict[str, Any]],
    show: Callable[[dict[str, Any]], None],
) -> int:
    """A gateway bench's command: ``measure(matches, deals, seed)``, printed by ``show``
    or as JSON (``--json``)."""
    if args.matches < 1 or args.deals < 1:
        raise ConfigError("--matches and --deals must be at least 1")
    figures = measure(args.matches, args.deals, args.seed)
    if args.json:
        print_json(figures)
    else:
        show(figures)
    return 0
