"""``arena bench grpc``: remote SDK bots over Play.Connect against the same matches in process.

One run, three phases, all with random bots and the server's deal limit (``--deals``):

* *latency* — four SDK bots play :data:`LATENCY_MATCHES` matches in a row, one at a
  time, on an otherwise idle server: the decision round trip's p50 and p99;
* *concurrent* — ``--matches`` matches at once (four SDK bots each): remote decisions/s
  (the decisions accepted from the first DecisionRequest read to the last answer's
  ActionResult read) and the round trip under load;
* *in process* — the same matches (the seeds the server drew, read back from its store)
  played again by :func:`arena.match.play_match`, one after another: the baseline of
  the slowdown ratio.

CPU time per decision (server, bots, in process) is printed too: unlike wall time it
hardly moves when other work shares the machine.

A decision's *round trip* is measured by the SDK (``run_bot_async(on_decision=…)``):
from reading the DecisionRequest to reading the ActionResult that accepts the answer.
It covers the bot's reply, both wire directions, the hand-off to the match thread, the
engine applying the action and the server's answer. The server runs in this process;
the bots run in a second process (``--one-process``: in this one), all on one loop, their
``act`` called inline (``run_bot_async(inline=True)``; ``--threads``: in worker threads,
the SDK's default).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import multiprocessing
import os
import secrets
import tempfile
import threading
import time
from collections.abc import Coroutine, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final, TypeVar

from arena.chance import derive_seed
from arena.commands import print_json
from arena.errors import ArenaError, ConfigError
from arena.games import make, names
from arena.match import play_match
from arena.store import Store
from bots.simple import RandomBot

__all__ = [
    "BenchError",
    "ClientReport",
    "Phase",
    "measure",
    "percentile",
    "play_phase",
    "run_grpc_bench",
]

TARGET_P50_MS: Final = 0.5
TARGET_P99_MS: Final = 1.5
TARGET_DECISIONS_PER_SECOND: Final = 5000.0
LATENCY_MATCHES: Final = 4
"""Matches the latency phase plays in a row, one at a time."""
ROUND_TRIP: Final = (
    "round trip = SDK reads DecisionRequest -> SDK reads the ActionResult accepting its answer"
)
PHASE_TIMEOUT: Final = 600.0
"""Seconds a phase may take before the bench gives up."""

T = TypeVar("T")


class BenchError(ArenaError):
    """The bench could not finish: the bots' side failed or went away."""


@dataclass(frozen=True)
class Phase:
    """What the bots' side plays: ``streams`` SDK bots (one token each), ``matches``
    matches each."""

    address: str
    tokens: tuple[str, ...]
    variant: str
    streams: int
    matches: int
    seed: int
    inline: bool = True


@dataclass
class ClientReport:
    """What the bots saw: round trips (seconds), the time span they cover, the matches."""

    round_trips: list[float] = field(default_factory=list)
    first_request: float = math.inf
    last_accepted: float = -math.inf
    match_ids: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    """CPU time of the process running the bots (every thread) while they played."""

    @property
    def seconds(self) -> float:
        return max(self.last_accepted - self.first_request, 1e-9)


async def play_phase(phase: Phase) -> ClientReport:
    """Run ``phase.streams`` random SDK bots on one event loop until their matches end."""
    from arena.client.runner import PlayedMatch, run_bot_async

    report = ClientReport()

    def on_decision(seconds: float) -> None:
        now = time.perf_counter()
        report.round_trips.append(seconds)
        report.first_request = min(report.first_request, now - seconds)
        report.last_accepted = max(report.last_accepted, now)

    def on_match(played: PlayedMatch) -> None:
        if played.player == 0:
            report.match_ids.append(played.match_id)

    cpu = time.process_time()
    await asyncio.gather(
        *(
            run_bot_async(
                RandomBot(derive_seed(phase.seed, "bot", i)),
                phase.address,
                phase.tokens[i],
                [phase.variant],
                False,
                phase.matches,
                on_match=on_match,
                on_decision=on_decision,
                max_retries=0,
                inline=phase.inline,
            )
            for i in range(phase.streams)
        )
    )
    report.cpu_seconds = time.process_time() - cpu
    return report


def _bots_process(conn: Connection) -> None:
    """The bots' process: play each Phase received, send back its ClientReport."""
    while True:
        phase = conn.recv()
        if phase is None:
            return
        try:
            conn.send(asyncio.run(play_phase(phase)))
        except Exception as err:  # reported in the bench's process
            conn.send(BenchError(f"{type(err).__name__}: {err}"))


class _Bots:
    """Where the bots run: a second process (spawned), or this process."""

    def __init__(self, separate: bool) -> None:
        self._process: multiprocessing.process.BaseProcess | None = None
        self._conn: Connection | None = None
        if separate:
            context = multiprocessing.get_context("spawn")
            self._conn, child = context.Pipe()
            self._process = context.Process(target=_bots_process, args=(child,), daemon=True)
            self._process.start()
            child.close()

    def play(self, phase: Phase) -> ClientReport:
        if self._conn is None:
            return asyncio.run(asyncio.wait_for(play_phase(phase), PHASE_TIMEOUT))
        try:
            self._conn.send(phase)
            if not self._conn.poll(PHASE_TIMEOUT):
                raise BenchError(f"the bots gave no report within {PHASE_TIMEOUT:.0f} s")
            answer = self._conn.recv()
        except (EOFError, OSError) as err:
            raise BenchError(f"the bots' process ended: {err or type(err).__name__}") from None
        if isinstance(answer, BenchError):
            raise BenchError(f"the bots failed: {answer}")
        assert isinstance(answer, ClientReport)
        return answer

    def close(self) -> None:
        if self._conn is not None and self._process is not None:
            with contextlib.suppress(OSError):
                self._conn.send(None)
            self._process.join(10)
            if self._process.is_alive():
                self._process.terminate()
            self._conn.close()


class _Server:
    """An arena server on its own event loop in a background thread."""

    def __init__(self, store: Store, deals: int, bots: int) -> None:
        from arena.server.app import RunningServer, start_server
        from arena.server.play import PlayConfig
        from arena.server.services import REGISTRATIONS_PER_MINUTE

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        # owners enough to register every bot at once within the registration rate limit
        per_owner = max(1, int(REGISTRATIONS_PER_MINUTE))
        self.owner_keys = [f"ok_{secrets.token_urlsafe(16)}" for _ in range(0, bots, per_owner)]
        self.per_owner = per_owner
        self.running: RunningServer = self._run(
            start_server(
                store,
                port=0,
                owner_keys={_hash(key): f"bench-{i}" for i, key in enumerate(self.owner_keys)},
                play=PlayConfig(max_deals=deals),
            )
        )
        self.address = f"127.0.0.1:{self.running.port}"

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(30)

    def register(self, count: int) -> tuple[str, ...]:
        """Register ``count`` bots (one a stream: a server caps connections per bot);
        their tokens."""
        import grpc

        from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc

        with grpc.insecure_channel(self.address) as channel:
            stub = arena_pb2_grpc.RegistryStub(channel)
            return tuple(
                stub.Register(
                    arena_pb2.RegisterRequest(name=f"bench-bot-{i}"),
                    metadata=(("authorization", f"Bearer {self.owner_keys[i // self.per_owner]}"),),
                ).token
                for i in range(count)
            )

    def close(self) -> None:
        self._run(self.running.stop(0))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """The logger ``name`` says only warnings and errors for a while (no line per match)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


def _hash(secret: str) -> str:
    from arena.server.auth import hash_secret

    return hash_secret(secret)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q ≤ 1) of ``values``; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _remote(report: ClientReport, matches: int, cpu: float, one_process: bool) -> dict[str, Any]:
    """A phase's figures; ``cpu`` is this process's CPU time during it (the server's, or
    with ``one_process`` the server's and the bots')."""
    decisions = len(report.round_trips)
    per = 1e6 / max(decisions, 1)
    return {
        "matches": matches,
        "decisions": decisions,
        "seconds": report.seconds,
        "decisions_per_second": decisions / report.seconds,
        "p50_ms": percentile(report.round_trips, 0.5) * 1000,
        "p99_ms": percentile(report.round_trips, 0.99) * 1000,
        "cpu_us_per_decision": (
            {"server and bots": cpu * per}
            if one_process
            else {"server": cpu * per, "bots": report.cpu_seconds * per}
        ),
    }


class _Timed:
    """Wall and CPU time (this process, every thread) of a block."""

    def __enter__(self) -> _Timed:
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall = max(time.perf_counter() - self.wall, 1e-9)
        self.cpu = time.process_time() - self.cpu


def _in_process(store: Store, variant: str, match_ids: list[str], deals: int) -> dict[str, Any]:
    """The stored matches' seeds played again in process with random bots."""
    game = make(variant)
    seeds = []
    for match_id in match_ids:
        stored = store.match(match_id)
        if stored is None or stored.seed is None:
            raise BenchError(f"match {match_id!r} is not in the bench's store")
        seeds.append(stored.seed)
    decisions = 0
    with _Timed() as timed:
        for seed in seeds:
            policies = [RandomBot(derive_seed(seed, seat)) for seat in range(4)]
            decisions += play_match(game, policies, seed=seed, max_deals=deals).decisions
    return {
        "matches": len(seeds),
        "decisions": decisions,
        "seconds": timed.wall,
        "decisions_per_second": decisions / timed.wall,
        "cpu_us_per_decision": timed.cpu * 1e6 / max(decisions, 1),
    }


def measure(
    variant: str,
    matches: int,
    deals: int,
    seed: int,
    *,
    one_process: bool = False,
    inline: bool = True,
) -> dict[str, Any]:
    """Run the three phases; the report (JSON-ready)."""
    load = os.getloadavg()[0]
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-grpc-") as folder,
        Store.open(Path(folder) / "bench.sqlite") as store,
        _quiet("arena.server"),
    ):
        server = _Server(store, deals, 4 * matches)
        bots = _Bots(separate=not one_process)
        try:
            tokens = server.register(4 * matches)
            address = server.address
            with _Timed() as alone:
                latency = bots.play(
                    Phase(address, tokens[:4], variant, 4, LATENCY_MATCHES, seed, inline)
                )
            many = Phase(
                address, tokens, variant, 4 * matches, 1, derive_seed(seed, "many"), inline
            )
            with _Timed() as together:
                concurrent = bots.play(many)
        finally:
            bots.close()
            server.close()
        baseline = _in_process(store, variant, concurrent.match_ids, deals)
    remote = _remote(concurrent, matches, together.cpu, one_process)
    slowdown = baseline["decisions_per_second"] / remote["decisions_per_second"]
    cpu_slowdown = sum(remote["cpu_us_per_decision"].values()) / baseline["cpu_us_per_decision"]
    single = _remote(latency, LATENCY_MATCHES, alone.cpu, one_process)
    return {
        "variant": variant,
        "deals_per_match": deals,
        "layout": "one process" if one_process else "server and bots in two processes",
        "act": "inline" if inline else "in worker threads",
        "round_trip": ROUND_TRIP,
        "load_average": load,
        "cores": os.cpu_count(),
        "latency": single,
        "concurrent": remote,
        "in_process": baseline,
        "slowdown": slowdown,
        "cpu_slowdown": cpu_slowdown,
        "targets": {
            "p50_ms": TARGET_P50_MS,
            "p99_ms": TARGET_P99_MS,
            "decisions_per_second": TARGET_DECISIONS_PER_SECOND,
        },
        "met": {
            "p50_ms": single["p50_ms"] <= TARGET_P50_MS,
            "p99_ms": single["p99_ms"] <= TARGET_P99_MS,
            "decisions_per_second": remote["decisions_per_second"] >= TARGET_DECISIONS_PER_SECOND,
        },
    }


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _print(report: dict[str, Any]) -> None:
    single, remote, local = report["latency"], report["concurrent"], report["in_process"]
    met = report["met"]
    print(
        f"{report['variant']}: random SDK bots over gRPC, {report['deals_per_match']} deals a "
        f"match; {report['layout']}, act {report['act']}; {report['cores']} cores, load average "
        f"{report['load_average']:.2f} at start"
    )
    print(f"  {report['round_trip']}")
    print(
        f"  1 match at a time ({single['matches']} matches, {single['decisions']} decisions): "
        f"p50 {single['p50_ms']:.3f} ms (target ≤ {TARGET_P50_MS}: {_verdict(met['p50_ms'])}), "
        f"p99 {single['p99_ms']:.3f} ms (target ≤ {TARGET_P99_MS}: {_verdict(met['p99_ms'])})"
    )
    print(
        f"  {remote['matches']} matches at once ({remote['decisions']} decisions): "
        f"{remote['decisions_per_second']:.0f} remote decisions/s "
        f"(target ≥ {TARGET_DECISIONS_PER_SECOND:.0f}: {_verdict(met['decisions_per_second'])}); "
        f"p50 {remote['p50_ms']:.3f} ms, p99 {remote['p99_ms']:.3f} ms"
    )
    print(
        f"  the same {local['matches']} matches in process (baseline, one thread): "
        f"{local['decisions_per_second']:.0f} decisions/s ({local['decisions']} decisions)"
    )
    print(f"  slowdown remote vs in process: {report['slowdown']:.1f}x per decision")
    cpu = ", ".join(f"{who} {us:.0f}" for who, us in remote["cpu_us_per_decision"].items())
    print(
        f"  CPU µs per decision ({remote['matches']} at once): {cpu}; in process "
        f"{local['cpu_us_per_decision']:.0f} ({report['cpu_slowdown']:.1f}x the CPU; "
        "steadier than wall time on a busy machine)"
    )


def run_grpc_bench(args: argparse.Namespace) -> int:
    """``arena bench grpc``."""
    if args.matches < 1 or args.deals < 1:
        raise ConfigError("--matches and --deals must be at least 1")
    if args.variant not in names():
        raise ConfigError(f"unknown variant {args.variant!r}; variants: {', '.join(names())}")
    report = measure(
        args.variant,
        args.matches,
        args.deals,
        args.seed,
        one_process=args.one_process,
        inline=not args.threads,
    )
    if args.json:
        print_json(report)
    else:
        _print(report)
    return 0
