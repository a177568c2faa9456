"""``arena bench GAME``: engine speed with random bots, in one process.

Timings in the same run, so the ratios hold on any machine:

* *setup* — shuffling and dealing only (the baseline);
* *engine* — whole deals by the bare engine: ``legal_actions`` → uniform choice
  → ``apply``, each player choosing as its random bot in the driver does;
* *driver* — the same deals, decision for decision, through the match driver with
  random-bot policies, which build an observation for every decision;
* *metrics* — the simulation's metrics bookkeeping for the same deals, in its worst
  case (every deal a batch of its own: counted from its record, then published),
  printed as a fraction of the engine time (target at most 2%).

The engine and the driver time only the deals: their bots (a generator per player, as
a match makes them once for all its deals) are made before the clock starts, and
garbage left from before is collected first. They are timed deal by deal in turns, so
that a slower spell of the machine slows both alike. The engine, the driver and the
metrics are timed three times each, and the fastest of each counts.

Beside them, the memory one state holds (a clone taken halfway through a deal, as a
search keeps many) and, with ``--yardstick``, a peer engine timed in the same run
(:mod:`arena.commands.bench_yardstick`).
"""

from __future__ import annotations

import argparse
import gc
import random
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.chance import derive_seed
from arena.commands import Subcommands, arguments, bench_web_backends, print_json
from arena.commands.bench_deals import match_setups
from arena.compiled import engines_description
from arena.errors import ConfigError
from arena.games import make
from arena.games.base import Action, Game, Outcome, State
from arena.match import play_deal
from arena.metrics import BatchCounts, publish_batch
from arena.replay import outcome_to_dict
from bots.simple import RandomBot

TARGET_DEALS_PER_SECOND = {
    "guandan": 200.0,
    "shengji-1": 600.0,
    "shengji-2": 250.0,
    "shengji-3": 120.0,
    "shengji-4": 60.0,
    "sanfu": 80.0,
}


TARGET_METRICS_OVERHEAD = 0.02
"""The metrics bookkeeping may cost at most this fraction of the engine time."""

TARGET_YARDSTICK_TIMES = 5.0
"""Our engine's decisions/s at least this many times the yardstick's."""

CLONES_MEASURED = 50

TIMINGS = 3
"""The engine, the driver and the metrics are each timed this many times; the fastest of
each counts."""


@dataclass
class Timing:
    seconds: float
    decisions: int = 0
    legal: int = 0


def _seconds(timing: Timing) -> float:
    return timing.seconds


def time_setup(game: Game, deals: list[tuple[int, Any]]) -> Timing:
    start = time.perf_counter()
    for seed, setup in deals:
        game.new_deal(setup, seed=seed)
    return Timing(time.perf_counter() - start)


def _engine_deal(
    game: Game, seed: int, setup: Any, players: list[random.Random]
) -> tuple[int, int]:
    """One deal by the bare engine, each player choosing as its random bot does (the
    same generator, the same draws): its decisions and legal actions listed."""
    decisions = legal = 0
    state = game.new_deal(setup, seed=seed)
    while not state.is_terminal():
        actions = state.legal_actions()
        legal += len(actions)
        decisions += 1
        rng = players[state.player_at(state.to_act)]
        state.apply(actions[rng.randrange(len(actions))])
    state.outcome()
    return decisions, legal


def time_engine_and_driver(
    game: Game, deals: list[tuple[int, Any]], records: list[dict[str, Any]] | None = None
) -> tuple[Timing, Timing]:
    """The deals by the bare engine and through the match driver, the very same deals
    decision for decision, timed deal by deal in turns (each going first every other
    deal), so that a slower spell of the machine slows both alike. With ``records``,
    each deal's result is appended to it in the shape of a one-deal match record (a
    dict per deal, for :func:`time_metrics`)."""
    engine, driver = Timing(0.0), Timing(0.0)
    played: list[tuple[Outcome, int]] = []
    # the bots, made before the clock: a generator per player, a random bot per player
    choosers = [[random.Random(derive_seed(seed, seat)) for seat in range(4)] for seed, _ in deals]
    seated = [[RandomBot(derive_seed(seed, seat)) for seat in range(4)] for seed, _ in deals]
    clock = time.perf_counter
    gc.collect()  # no collection of what came before inside the timings
    for index, (seed, setup) in enumerate(deals):
        for turn in (index % 2, 1 - index % 2):
            start = clock()
            if turn == 0:
                decisions, legal = _engine_deal(game, seed, setup, choosers[index])
                engine.seconds += clock() - start
                engine.decisions += decisions
                engine.legal += legal
            else:
                state = game.new_deal(setup, seed=seed)
                decisions = len(play_deal(state, seated[index]))
                outcome = state.outcome()
                driver.seconds += clock() - start
                driver.decisions += decisions
                played.append((outcome, decisions))
    if records is not None:  # made after the timing: the metrics' own input
        for outcome, made in played:
            records.append(
                {
                    "deals": [{"result": outcome_to_dict(outcome)}],
                    "result": {"complete": outcome.match_over},
                    "decisions": made,
                }
            )
    return engine, driver


def time_metrics(variant: str, records: list[dict[str, Any]]) -> Timing:
    """The metrics work of a simulation for these deals, each as a batch of its own:
    the worker's :class:`BatchCounts` from the record, the driver's publishing."""
    gc.collect()  # as for the deals: garbage from before collected outside the timing
    start = time.perf_counter()
    for record in records:
        counts = BatchCounts(variant)
        counts.add_match(record, record["decisions"])
        publish_batch(counts)
    return Timing(time.perf_counter() - start, len(records))


def state_bytes(game: Game, seed: int, setup: Any) -> dict[str, int]:
    """The memory one state holds, traced over clones of a state halfway through a deal:
    ``clone`` as cloned (engines share what neither side has changed yet), ``moved`` once
    the clone has made a move of its own (as every state a search keeps has)."""
    state = game.new_deal(setup, seed=seed)
    rng = random.Random(seed)
    moves = 0
    probe = state.clone()
    while not probe.is_terminal():
        actions = probe.legal_actions()
        probe.apply(actions[rng.randrange(len(actions))])
        moves += 1
    rng = random.Random(seed)
    for _ in range(moves // 2):
        actions = state.legal_actions()
        state.apply(actions[rng.randrange(len(actions))])
    move = state.legal_actions()[0]
    return {
        "clone": _traced(lambda: state.clone()) // CLONES_MEASURED,
        "moved": _traced(lambda: _moved(state, move)) // CLONES_MEASURED,
    }


def _moved(state: State, move: Action) -> State:
    clone = state.clone()
    clone.apply(move)
    return clone


def _traced(make: Callable[[], object]) -> int:
    """Bytes held by :data:`CLONES_MEASURED` values made by ``make``."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        made = [make() for _ in range(CLONES_MEASURED)]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del made
    return held


def add_parser(sub: Subcommands) -> None:
    """``arena bench GAME`` and its kinds ``scale``, ``grpc`` and ``bots``."""
    parser = sub.add_parser(
        "bench",
        help="measure engine speed with random bots ('bench scale': Ray, 'bench grpc': remote, "
        "'bench bots': the built-in bots' cost, 'bench web': the web face, "
        "'bench env': the RL environment against the bare engine, 'bench tables': a person's "
        "table in a browser, 'bench guandan-ws': the platform's WebSocket gateway against gRPC)",
        description="arena bench GAME: engine speed in one process. "
        "arena bench scale --variant V: deals/s on Ray with 1 and N workers. "
        "arena bench grpc --variant V: remote SDK bots against the same matches in process. "
        "arena bench bots --variant V --bots heuristic: deals by built-in bots against "
        "random bots. arena bench web [--db FILE] [--postgres URL]: the web face's pages on a "
        "store of 1,000 bots and 100,000 matches on SQLite and PostgreSQL side by side, the "
        "matches each stores per second, and a live table's delay. "
        "arena bench env --variant V: the RL environment's vectorised stepping against the "
        "bare engine. arena bench tables "
        "--variant V: how soon a person at a table sees plays drawn (headless Chromium). "
        "arena bench guandan-ws: platform bots through the Guandan WebSocket gateway against "
        "gRPC bots of the same strategy, as ratios. arena bench programs: --exec and --botzone "
        "program seats (both Botzone modes) against gRPC bots of the same strategy, as ratios.",
    )
    parser.add_argument(
        "game",
        help="game name, e.g. guandan, or 'scale', 'grpc', 'bots', 'web', 'env' or 'tables'",
    )
    parser.add_argument(
        "--variant",
        type=arguments.variant,
        default="guandan",
        help="with 'scale'/'grpc'/'bots': the variant",
    )
    parser.add_argument(
        "--bots",
        default=None,
        help="with 'bots' or 'scale --balance': bots, comma-separated (heuristic); "
        "'web': bots in the store (1000)",
    )
    parser.add_argument(
        "--matches",
        type=arguments.count,
        default=None,
        help="with 'scale': matches (96); 'grpc': at once (32); 'web': in the store (100000); "
        "'env': tables stepped together (64)",
    )
    parser.add_argument(
        "--workers",
        type=arguments.integer_in(1, 1024),
        default=None,
        help="with 'scale': N, 1 to 1024 (cores)",
    )
    parser.add_argument(
        "--deals",
        type=arguments.count,
        default=None,
        help="deals (300); per match: 'scale' 5, 'grpc' 2; 'scale --balance' in all (800); "
        "'env' in all (200); 'tables' the table plays (1)",
    )
    parser.add_argument(
        "--seed", type=arguments.seed, default=1, help="first deal seed (default 1)"
    )
    parser.add_argument(
        "--balance",
        action="store_true",
        help="with 'scale': time the batches arena balance plays (--deals in all, 800; "
        "--bots, heuristic) instead of a tournament's matches",
    )
    parser.add_argument(
        "--one-process", action="store_true", help="with 'grpc': the bots in the server's process"
    )
    parser.add_argument(
        "--threads", action="store_true", help="with 'grpc': the bots' act in worker threads"
    )
    parser.add_argument(
        "--db",
        type=Path,
        default=None,
        help="with 'web': the store to build once and reuse (default: a temporary one)",
    )
    parser.add_argument(
        "--requests",
        type=arguments.count,
        default=40,
        help="with 'web': requests per kind of page (40)",
    )
    parser.add_argument(
        "--backends",
        type=bench_web_backends.backends,
        default=bench_web_backends.BACKENDS,
        help="with 'web': the stores measured, side by side: sqlite, postgresql, or both "
        "comma-separated (default both; PostgreSQL's figures as ratios of SQLite's)",
    )
    parser.add_argument(
        "--postgres",
        type=bench_web_backends.postgres_url,
        default=None,
        metavar="URL",
        help="with 'web': the PostgreSQL database to measure on (empty, or filled by the "
        "bench before with the same sizes: reused); default: a cluster of the bench's own "
        "in a temporary directory, removed at the end",
    )
    parser.add_argument(
        "--yardstick",
        action="store_true",
        help="with GAME: RLCard's Dou Dizhu game core timed beside ours (as many games as "
        "deals; needs the 'bench' extra)",
    )
    parser.add_argument(
        "--search",
        action="store_true",
        help="with GAME: the search bot's costs too (a state's clone, a determinized sample, "
        "a decision at its default budget)",
    )
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    parser.set_defaults(handler=run_bench_command)


def run_bench_command(args: argparse.Namespace) -> int:
    """The bench of ``args.game``: ``scale``, ``grpc``, ``bots`` or a game's engine."""
    if args.game == "scale":
        from arena.commands.bench_scale import run_scale

        if args.balance:
            args.deals = 800 if args.deals is None else args.deals  # deals in all here
            args.bots = "heuristic" if args.bots is None else args.bots
        args.deals = 5 if args.deals is None else args.deals  # deals per match here
        args.matches = 96 if args.matches is None else args.matches
        return run_scale(args)
    if args.game == "grpc":
        from arena.commands.bench_grpc import run_grpc_bench  # loads gRPC: only for this one

        args.deals = 2 if args.deals is None else args.deals  # deals per match here
        args.matches = 32 if args.matches is None else args.matches
        return run_grpc_bench(args)
    if args.game == "guandan-ws":
        from arena.commands.bench_guandan_ws import run_guandan_ws_bench  # gRPC, websockets

        args.deals = 2 if args.deals is None else args.deals  # deals per match here
        args.matches = 4 if args.matches is None else args.matches  # one at a time
        return run_guandan_ws_bench(args)
    if args.game == "programs":
        from arena.commands.bench_programs import run_programs_bench  # gRPC, programs

        args.deals = 1 if args.deals is None else args.deals  # deals per match here
        args.matches = 1 if args.matches is None else args.matches  # one at a time
        return run_programs_bench(args)
    if args.game == "bots":
        from arena.commands.bench_bots import run_bench_bots

        args.deals = 50 if args.deals is None else args.deals
        args.bots = "heuristic" if args.bots is None else args.bots
        return run_bench_bots(args)
    if args.game == "env":
        from arena.commands.bench_env import run_env_bench  # loads the RL environments

        args.deals = 200 if args.deals is None else args.deals
        args.matches = 64 if args.matches is None else args.matches
        return run_env_bench(args)
    if args.game == "tables":
        from arena.commands.bench_tables import run_tables_bench  # a browser: only here

        args.deals = 1 if args.deals is None else args.deals
        return run_tables_bench(args)
    if args.game == "web":
        from arena.commands.bench_web import run_web_bench  # loads the web face: only here

        args.matches = 100_000 if args.matches is None else args.matches
        try:
            args.bots = 1000 if args.bots is None else arguments.count(args.bots)
        except argparse.ArgumentTypeError as err:
            raise ConfigError(f"--bots: {err}") from None
        return run_web_bench(args)
    args.deals = 300 if args.deals is None else args.deals
    return run_bench(args)


def measure(game: Game, deals: list[tuple[int, Any]]) -> dict[str, Any]:
    """Time the four kinds of work on ``deals``; the report (JSON-ready): the counts,
    the seconds, and every rate and ratio computed from them."""
    setup = time_setup(game, deals)
    records: list[dict[str, Any]] = []
    engine, driver = time_engine_and_driver(game, deals, records)
    counted = time_metrics(game.name, records)
    for _ in range(TIMINGS - 1):
        again_engine, again_driver = time_engine_and_driver(game, deals)
        engine = min(engine, again_engine, key=_seconds)
        driver = min(driver, again_driver, key=_seconds)
        counted = min(counted, time_metrics(game.name, records), key=_seconds)
    n = len(deals)
    engine_rate = n / engine.seconds
    overhead = counted.seconds / engine.seconds
    target = TARGET_DEALS_PER_SECOND.get(game.name)
    return {
        "game": game.describe(),
        "engines": engines_description(),
        "deals": n,
        "setup": {"seconds": setup.seconds, "deals_per_second": n / setup.seconds},
        "engine": {
            "seconds": engine.seconds,
            "deals_per_second": engine_rate,
            "decisions": engine.decisions,
            "legal_actions": engine.legal,
            "decisions_per_deal": engine.decisions / n,
            "legal_actions_per_decision": engine.legal / engine.decisions,
            "decisions_per_second": engine.decisions / engine.seconds,
            "us_per_decision": engine.seconds / engine.decisions * 1e6,
            "setup_times": engine.seconds / setup.seconds,
        },
        "driver": {
            "seconds": driver.seconds,
            "deals_per_second": n / driver.seconds,
            "decisions": driver.decisions,
            "decisions_per_deal": driver.decisions / n,
            "us_per_decision": driver.seconds / driver.decisions * 1e6,
            "engine_times": driver.seconds / engine.seconds,
        },
        "state_bytes": state_bytes(game, *deals[0]),
        "metrics": {
            "seconds": counted.seconds,
            "us_per_deal": counted.seconds / n * 1e6,
            "engine_fraction": overhead,
            "target_fraction": TARGET_METRICS_OVERHEAD,
            "met": overhead <= TARGET_METRICS_OVERHEAD,
        },
        "target": None
        if target is None
        else {
            "deals_per_second": target,
            "times": engine_rate / target,
            "met": engine_rate >= target,
        },
    }


def run_bench(args: argparse.Namespace) -> int:
    if args.deals < 1:
        raise ConfigError(f"--deals must be at least 1, got {args.deals}")
    game = make(args.game)
    seeds = [derive_seed(args.seed, "bench", i) for i in range(args.deals)]
    report = measure(game, list(zip(seeds, match_setups(game, seeds), strict=True)))
    if args.search:
        from arena.commands.bench_search import bench_search

        report["search"] = bench_search(args.game, seed=args.seed)
    if args.yardstick:
        report["yardstick"] = yardstick(report["engine"], args.deals, args.seed)
    if args.json:
        print_json(report)
    else:
        _print(report)
    return 0


def yardstick(engine: dict[str, Any], games: int, seed: int) -> dict[str, Any]:
    """RLCard's Dou Dizhu core over ``games`` games (timed as often as our engine, the
    fastest counting), and our engine's rates over its."""
    from arena.commands.bench_yardstick import YARDSTICK, time_doudizhu

    timings = [time_doudizhu(games, seed) for _ in range(TIMINGS)]
    peer = min(timings, key=lambda timing: timing["seconds"])
    times = engine["decisions_per_second"] / peer["decisions_per_second"]
    return {
        "name": YARDSTICK,
        **peer,
        "deals_times": engine["deals_per_second"] / peer["games_per_second"],
        "decisions_times": times,
        "target_times": TARGET_YARDSTICK_TIMES,
        "met": times >= TARGET_YARDSTICK_TIMES,
    }


def _met(met: bool) -> str:
    return "met" if met else "NOT met"


def _print(report: dict[str, Any]) -> None:
    setup, engine, driver = report["setup"], report["engine"], report["driver"]
    metrics, target = report["metrics"], report["target"]
    print(f"{report['game']}: {report['deals']} consecutive match deals, random bots, one process")
    print(f"  engines:               {report['engines']}")
    print(f"  setup only (baseline): {setup['deals_per_second']:12.0f} deals/s")
    print(
        f"  engine:                {engine['deals_per_second']:12.1f} deals/s  "
        f"({engine['setup_times']:.1f}x the setup time)"
    )
    print(
        f"  driver + observations: {driver['deals_per_second']:12.1f} deals/s  "
        f"({driver['engine_times']:.2f}x the engine time)"
    )
    print(
        f"  decisions per deal:    {engine['decisions_per_deal']:12.1f} (engine), "
        f"{driver['decisions_per_deal']:.1f} (driver)"
    )
    print(f"  legal actions/decision:{engine['legal_actions_per_decision']:12.1f}")
    print(
        f"  µs per decision:       {engine['us_per_decision']:12.1f} (engine), "
        f"{driver['us_per_decision']:.1f} (driver)"
    )
    print(
        f"  metrics bookkeeping:   {metrics['us_per_deal']:12.1f} µs per deal "
        f"({metrics['engine_fraction']:.3%} of the engine time; "
        f"target ≤ {metrics['target_fraction']:.0%}: {_met(metrics['met'])})"
    )
    memory = report["state_bytes"]
    print(
        f"  memory per state:      {memory['moved'] / 1024:12.1f} kB (a mid-deal clone after a "
        f"move; {memory['clone'] / 1024:.1f} kB as cloned)"
    )
    if target is not None:
        print(
            f"  target ≥ {target['deals_per_second']:.0f} deals/s (engine, one core): "
            f"{_met(target['met'])} ({target['times']:.2f}x the target)"
        )
    search = report.get("search")
    if search is not None:
        from arena.commands.bench_search import describe_search

        print(f"  search bot:            {describe_search(search)}")
    peer = report.get("yardstick")
    if peer is not None:
        print(
            f"  yardstick, {peer['name']}: {peer['games_per_second']:.1f} games/s, "
            f"{peer['decisions_per_second']:.0f} decisions/s"
        )
        print(
            f"  ours against it:       {engine['decisions_per_second']:12.0f} decisions/s  "
            f"({peer['decisions_times']:.2f}x its decisions/s, {peer['deals_times']:.2f}x its "
            f"games/s; target ≥ {peer['target_times']:.0f}x: {_met(peer['met'])})"
        )
