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

from arena import metrics
from arena.chance import derive_seed
from arena.commands import print_json
from arena.commands.bench_echo import EchoPhase, EchoServer, EchoTimes, ping_pong
from arena.errors import ArenaError, ConfigError
from arena.games import make, names
from arena.match import play_match
from arena.plural import counted
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

TARGETS: Final = {
    "p50": 1.3,
    "p99": 2.0,
    "throughput": 0.6,
    "server_cpu_us": 150.0,
    "sdk_cpu_us": 100.0,
}
"""Round trip p50 and p99 at most these times the bare echo's (one match or stream at a
time); remote decisions/s at least this share of the echo's round trips/s (as many
streams as matches); CPU µs per decision of the server and of the SDK's random bots."""
LATENCY_MATCHES: Final = 4
"""Matches the latency phase plays in a row, one at a time."""
ROUND_TRIP: Final = (
    "round trip = the server sends a DecisionRequest -> the answer is applied "
    "(echo: the server writes a message -> it reads the answer)"
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
    """The bots' process: play each Phase received and send back its ClientReport, or
    run each EchoPhase's clients and send back their CPU seconds."""
    while True:
        phase = conn.recv()
        if phase is None:
            return
        try:
            conn.send(asyncio.run(_client_side(phase)))
        except Exception as err:  # reported in the bench's process
            conn.send(BenchError(f"{type(err).__name__}: {err}"))


async def _client_side(phase: Phase | EchoPhase) -> ClientReport | float:
    return await (ping_pong(phase) if isinstance(phase, EchoPhase) else play_phase(phase))


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
        answer = self._run(phase)
        assert isinstance(answer, ClientReport)
        return answer

    def echo(self, phase: EchoPhase) -> float:
        """The echo clients' phase; their CPU seconds."""
        answer = self._run(phase)
        assert isinstance(answer, float)
        return answer

    def _run(self, phase: Phase | EchoPhase) -> ClientReport | float:
        if self._conn is None:
            return asyncio.run(asyncio.wait_for(_client_side(phase), PHASE_TIMEOUT))
        try:
            self._conn.send(phase)
            if not self._conn.poll(PHASE_TIMEOUT):
                raise BenchError(f"the bots gave no report within {PHASE_TIMEOUT:.0f} s")
            answer = self._conn.recv()
        except (EOFError, OSError) as err:
            raise BenchError(f"the bots' process ended: {err or type(err).__name__}") from None
        if isinstance(answer, BenchError):
            raise BenchError(f"the bots failed: {answer}")
        return answer  # type: ignore[no-any-return]

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
        from arena.server.tuning import tune_collector

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
        tune_collector()  # as `arena serve` does

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
        """Stop the server (idempotent)."""
        if self._loop.is_closed():
            return
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


def _remote(
    report: ClientReport, trips: list[float], matches: int, cpu: float, one_process: bool
) -> dict[str, Any]:
    """A phase's figures: ``trips`` are the server's round trips; ``cpu`` is this
    process's CPU time during it (the server's, or with ``one_process`` the server's and
    the bots')."""
    decisions = len(report.round_trips)
    per = 1e6 / max(decisions, 1)
    return {
        "matches": matches,
        "decisions": decisions,
        "seconds": report.seconds,
        "decisions_per_second": decisions / report.seconds,
        "p50_ms": percentile(trips, 0.5) * 1000,
        "p99_ms": percentile(trips, 0.99) * 1000,
        "sdk_p50_ms": percentile(report.round_trips, 0.5) * 1000,
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


@dataclass(frozen=True)
class MessageSizes:
    """The mean sizes in bytes of a decision's two messages, as the arena sends them."""

    request: int
    reply: int


def message_sizes(variant: str, seed: int, deals: int) -> MessageSizes:
    """The mean size of the DecisionRequests and of the ActionReplies of a match of
    random bots, played here, in the SDK's protocol (2: events inside the requests,
    compact observations, answers by index)."""
    from arena._proto.arena.v1 import arena_pb2
    from arena.client.wire import LegalTexts, reply_message
    from arena.server.remote import event_to_proto, observation_to_proto

    game = make(variant)
    events: list[arena_pb2.Event] = []
    sent = [0] * 4
    requests: list[int] = []
    replies: list[int] = []

    def heard(state: Any, event: Any) -> None:
        if event.kind == "deal":
            events.clear()
            sent[:] = [0] * 4
        events.append(event_to_proto(event, len(events) + 1, 1, game.describe_event(event, state)))

    class Measured:
        def __init__(self, seed: int) -> None:
            self.bot = RandomBot(seed)

        def act(self, observation: Any) -> Any:
            request = arena_pb2.DecisionRequest(
                request_id="r-12345",
                match_id=f"casual-{variant}-0123abcd",
                deal=1,
                observation=observation_to_proto(observation, len(events), compact=True),
                decision_ms=30_000,
                time_bank_ms=60_000,
                accepted="r-12344",
            )
            request.deadline.GetCurrentTime()
            request.observation.events.extend(events[sent[observation.seat] :])
            sent[observation.seat] = len(events)
            requests.append(arena_pb2.ServerMessage(decision=request).ByteSize())
            action = self.bot.act(observation)
            texts = LegalTexts(request.observation.legal.texts)
            replies.append(reply_message("r-12345", action, texts).ByteSize())
            return action

    policies = [Measured(derive_seed(seed, seat)) for seat in range(4)]
    play_match(game, policies, seed=seed, max_deals=deals, on_event=heard)
    return MessageSizes(round(sum(requests) / len(requests)), round(sum(replies) / len(replies)))


def _echo(times: EchoTimes, streams: int, cpu: float, client_cpu: float) -> dict[str, Any]:
    """An echo phase's figures (``cpu``: the server's process, ``client_cpu``: the clients')."""
    trips = len(times.round_trips)
    per = 1e6 / max(trips, 1)
    return {
        "streams": streams,
        "round_trips": trips,
        "seconds": times.seconds,
        "round_trips_per_second": trips / times.seconds,
        "p50_ms": percentile(times.round_trips, 0.5) * 1000,
        "p99_ms": percentile(times.round_trips, 0.99) * 1000,
        "cpu_us_per_round_trip": {"server": cpu * per, "clients": client_cpu * per},
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
    """Run the arena's phases, the bare echo's and the in-process baseline; the report
    (JSON-ready)."""
    load = os.getloadavg()[0]
    sizes = message_sizes(variant, seed, deals)
    alone_trips: list[float] = []
    together_trips: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-grpc-") as folder,
        Store.open(Path(folder) / "bench.sqlite") as store,
        _quiet("arena.server"),
    ):
        server = _Server(store, deals, 4 * matches)
        bots = _Bots(separate=not one_process)
        echo: EchoServer | None = None
        try:
            tokens = server.register(4 * matches)
            address = server.address
            with _Timed() as alone, metrics.decisions_heard(alone_trips.append):
                latency = bots.play(
                    Phase(address, tokens[:4], variant, 4, LATENCY_MATCHES, seed, inline)
                )
            many = Phase(
                address, tokens, variant, 4 * matches, 1, derive_seed(seed, "many"), inline
            )
            with _Timed() as together, metrics.decisions_heard(together_trips.append):
                concurrent = bots.play(many)
            server.close()
            echo = EchoServer()
            rounds = max(len(alone_trips), 1)
            with _Timed() as echo_alone:
                clients_alone = bots.echo(
                    EchoPhase(echo.address, 1, rounds, sizes.request, sizes.reply)
                )
            echo_one = _echo(echo.take(), 1, echo_alone.cpu, clients_alone)
            rounds = max(1, math.ceil(len(together_trips) / matches))
            with _Timed() as echo_together:
                clients_together = bots.echo(
                    EchoPhase(echo.address, matches, rounds, sizes.request, sizes.reply)
                )
            echo_many = _echo(echo.take(), matches, echo_together.cpu, clients_together)
        finally:
            bots.close()
            server.close()
            if echo is not None:
                echo.close()
        baseline = _in_process(store, variant, concurrent.match_ids, deals)
    remote = _remote(concurrent, together_trips, matches, together.cpu, one_process)
    single = _remote(latency, alone_trips, LATENCY_MATCHES, alone.cpu, one_process)
    ratios = {
        "p50": single["p50_ms"] / echo_one["p50_ms"],
        "p99": single["p99_ms"] / echo_one["p99_ms"],
        "throughput": remote["decisions_per_second"] / echo_many["round_trips_per_second"],
    }
    cpu = remote["cpu_us_per_decision"]
    return {
        "variant": variant,
        "deals_per_match": deals,
        "layout": "one process" if one_process else "server and bots in two processes",
        "act": "inline" if inline else "in worker threads",
        "round_trip": ROUND_TRIP,
        "load_average": load,
        "cores": os.cpu_count(),
        "message_bytes": {"request": sizes.request, "reply": sizes.reply},
        "latency": single,
        "concurrent": remote,
        "echo_latency": echo_one,
        "echo_concurrent": echo_many,
        "ratios": ratios,
        "in_process": baseline,
        "slowdown": baseline["decisions_per_second"] / remote["decisions_per_second"],
        "cpu_slowdown": sum(cpu.values()) / baseline["cpu_us_per_decision"],
        "targets": dict(TARGETS),
        "met": {
            "p50": ratios["p50"] <= TARGETS["p50"],
            "p99": ratios["p99"] <= TARGETS["p99"],
            "throughput": ratios["throughput"] >= TARGETS["throughput"],
            "server_cpu_us": cpu.get("server", math.inf) <= TARGETS["server_cpu_us"],
            "sdk_cpu_us": cpu.get("bots", math.inf) <= TARGETS["sdk_cpu_us"],
        },
    }


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def _print(report: dict[str, Any]) -> None:
    single, remote, local = report["latency"], report["concurrent"], report["in_process"]
    echo_one, echo_many = report["echo_latency"], report["echo_concurrent"]
    ratios, met, size = report["ratios"], report["met"], report["message_bytes"]
    print(
        f"{report['variant']}: random SDK bots over gRPC, "
        f"{counted(report['deals_per_match'], 'deal')} a "
        f"match; {report['layout']}, act {report['act']}; {report['cores']} cores, load average "
        f"{report['load_average']:.2f} at start"
    )
    print(f"  {report['round_trip']}")
    print(
        f"  bare grpc.aio echo (the baseline): {counted(size['request'], 'byte')} out, "
        f"{counted(size['reply'], 'byte')} back, one message each way"
    )
    print(
        f"  1 match at a time ({counted(single['decisions'], 'decision')}): p50 "
        f"{single['p50_ms']:.3f} ms, "
        f"p99 {single['p99_ms']:.3f} ms; echo, 1 stream: p50 {echo_one['p50_ms']:.3f} ms, "
        f"p99 {echo_one['p99_ms']:.3f} ms"
    )
    print(
        f"    p50 {ratios['p50']:.2f}x the echo (target ≤ {TARGETS['p50']}: "
        f"{_verdict(met['p50'])}), p99 {ratios['p99']:.2f}x (target ≤ {TARGETS['p99']}: "
        f"{_verdict(met['p99'])})"
    )
    print(
        f"  {counted(remote['matches'], 'match')} at once "
        f"({counted(remote['decisions'], 'decision')}): "
        f"{remote['decisions_per_second']:.0f} remote decisions/s; echo, "
        f"{counted(echo_many['streams'], 'stream')}: "
        f"{echo_many['round_trips_per_second']:.0f} round trips/s; "
        f"{ratios['throughput']:.2f}x (target ≥ {TARGETS['throughput']}: "
        f"{_verdict(met['throughput'])})"
    )
    print(
        f"  the same {counted(local['matches'], 'match')} in process (one thread): "
        f"{local['decisions_per_second']:.0f} decisions/s "
        f"({counted(local['decisions'], 'decision')}); "
        f"remote is {report['slowdown']:.1f}x slower per decision"
    )
    cpu = remote["cpu_us_per_decision"]
    shown = ", ".join(f"{who} {us:.0f}" for who, us in cpu.items())
    echo_cpu = ", ".join(
        f"{who} {us:.0f}" for who, us in echo_many["cpu_us_per_round_trip"].items()
    )
    print(
        f"  CPU µs per decision ({remote['matches']} at once): {shown} (targets: server ≤ "
        f"{TARGETS['server_cpu_us']:.0f}: {_verdict(met['server_cpu_us'])}, SDK ≤ "
        f"{TARGETS['sdk_cpu_us']:.0f}: {_verdict(met['sdk_cpu_us'])}); echo per round trip: "
        f"{echo_cpu}; in process {local['cpu_us_per_decision']:.0f}"
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
