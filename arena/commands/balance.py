"""``arena balance``: many bot deals of one or more variants, compared side by side.

``--variant NAME`` starts a variant and each ``--option KEY=VALUE`` after it applies
to it, so ``--variant shengji-2 --variant shengji-2 --option constant_twos=true``
compares two variants. The report (text; ``--json FILE``; ``--html FILE`` with plots)
gives every rate with its 95% Wilson interval and every mean with its 95% interval.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import sys
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from typing import Any, Final, cast

import arena
import bots
from arena.chance import derive_seed
from arena.commands import Subcommands, add_db_argument, arguments, refuse
from arena.commands.balance_exercise import (
    margin_line,
)
from arena.commands.balance_report import (
    comparison,
    difference_records,
    publish,
)
from arena.commands.balance_runs import (
    DEFAULT_BOTS,
    again_words,
    definition,
    list_lines,
    rerun_command,
    restore,
    run_name,
    stored_batch,
    stored_progress,
)
from arena.commands.balance_until import (
    DEFAULT_ASKED,
    DEFAULT_MARGIN,
    check_asked,
    check_compared,
    looks,
    margin_deals,
    verdicts,
)
from arena.commands.metrics_endpoint import add_metrics_arguments, metrics_endpoint
from arena.commands.numbers import json_ready
from arena.commands.play import parse_options
from arena.compiled import engines_description
from arena.errors import ArenaError, ConfigError
from arena.games import make
from arena.plural import counted
from arena.sim.balance import (
    DEFAULT_BATCH,
    BalanceJob,
    Played,
    Summary,
    VariantSpec,
    family,
    plan_jobs,
    play_balance_batch,
    report,
    run_local,
    run_on_ray,
)
from arena.sim.exercise import exercise, never_used
from arena.sim.stopping import stopped
from arena.store import BalanceRun, Store

DEFAULT_DEALS = 10_000


# ------------------------------------------------------------------ arguments


def _variant_item(text: str) -> tuple[str, str]:
    return ("variant", text)


def _option_item(text: str) -> tuple[str, str]:
    return ("option", text)


def _sweep_item(text: str) -> tuple[str, str]:
    return ("sweep", text)


def sweep_values(text: str) -> tuple[str, list[str]]:
    """``KEY=V1,V2,…`` → the option and its values (at least one, none twice)."""
    key, equals, values = text.partition("=")
    listed = [value.strip() for value in values.split(",")]
    if not equals or not key.strip() or not all(listed):
        raise ConfigError(f"--sweep {text}: not KEY=VALUE,VALUE,… (e.g. throw_penalty=0,10,20)")
    repeated = sorted({value for value in listed if listed.count(value) > 1})
    if repeated:
        raise ConfigError(f"--sweep {text}: {', '.join(repeated)} given twice")
    return key.strip(), listed


def add_parser(sub: Subcommands) -> None:
    """Add ``arena balance`` to the command line's subcommands."""
    parser = sub.add_parser(
        "balance",
        help="balance testing: many bot deals of variants, compared side by side",
        description="Play many consecutive match deals of each variant with the bots of "
        "--bots (heuristic ones by default) "
        "(on Ray, a local instance unless --address, or --local in this process) and report "
        "win rates of the dealer's team and of each seat, level changes, points, deal "
        "length and the game's own effects (Shengji kitty, Guandan tribute, sanfu partner "
        "reveal), with 95%% intervals. Each --variant starts a variant; --option and --sweep "
        "apply to the variant before it, e.g. --variant shengji-2 --variant shengji-2 "
        "--option constant_twos=true, or --variant shengji-2 --sweep throw_penalty=0,10,20. "
        "The first variant is the baseline the others are compared with. "
        "Every run is stored (--db) batch by batch: the same command again, or --resume "
        "NAME, plays only what is missing; --list and --open NAME show stored runs.",
    )
    parser.add_argument(
        "--variant",
        dest="balance_items",
        action="append",
        type=_variant_item,
        metavar="NAME",
        help="a variant to test, e.g. guandan or shengji-2 (repeatable)",
    )
    parser.add_argument(
        "--option",
        dest="balance_items",
        action="append",
        type=_option_item,
        metavar="KEY=VALUE",
        help="a game option of the variant named before it (repeatable)",
    )
    parser.add_argument(
        "--sweep",
        dest="balance_items",
        action="append",
        type=_sweep_item,
        metavar="KEY=V1,V2,…",
        help="one variant per value of a game option, for the variant named before it; "
        "several --sweep give one variant per combination (repeatable)",
    )
    parser.add_argument(
        "--deals",
        type=arguments.many_deals,
        default=DEFAULT_DEALS,
        help=f"deals per variant (default {DEFAULT_DEALS})",
    )
    parser.add_argument(
        "--bots",
        action="append",
        metavar="BOTS",
        help="the players' bots, comma-separated: one for all (e.g. heuristic, "
        "search:samples=8), one per team (players 0 and 2, then 1 and 3: heuristic,random) "
        f"or one per player (default {DEFAULT_BOTS}); repeatable: each --bots is a "
        "population, played as a run of its own, and the report says whether each "
        "difference holds in every population or depends on the style",
    )
    parser.add_argument(
        "--seed", type=arguments.seed, default=0, help="seed of the deals (default 0)"
    )
    parser.add_argument(
        "--until-resolved",
        action="store_true",
        help="play a batch per variant at a time until every question asked (--ask) is "
        "significant or within --margin, with --deals per variant at most (the error rate "
        "spent over the rounds: 5%% over the whole run)",
    )
    parser.add_argument(
        "--ask",
        dest="asked",
        action="append",
        metavar="ROW",
        help=f"a row of the comparison to answer with --until-resolved, e.g. means.length "
        f"(repeatable; default {', '.join(DEFAULT_ASKED)})",
    )
    parser.add_argument(
        "--margin",
        type=arguments.margin,
        default=DEFAULT_MARGIN,
        help="with --until-resolved, a difference whose 95%% interval's half-width is at most "
        "this is answered: percentage points for rates, the row's unit for means "
        f"(default {DEFAULT_MARGIN})",
    )
    parser.add_argument(
        "--batch",
        type=arguments.count,
        default=None,
        help="consecutive deals per batch (a task), each batch starting a new match "
        "(default: sized for the bots' speed, about 10 s of play, from 10 to "
        f"{DEFAULT_BATCH} deals, with two batches or more for every worker)",
    )
    parser.add_argument(
        "--json",
        type=arguments.output_file,
        metavar="FILE",
        help="write the statistics as JSON here",
    )
    parser.add_argument(
        "--html",
        type=arguments.output_file,
        metavar="FILE",
        help="write an HTML report with plots here",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--name",
        type=arguments.name,
        help="the name the run is stored under (default: one made from the variants, bots, "
        "deals, seed and batch size, so the same command resumes the same run)",
    )
    stored = parser.add_mutually_exclusive_group()
    stored.add_argument(
        "--resume",
        type=arguments.name,
        metavar="NAME",
        help="play the batches a stored run is missing, with its own variants and settings",
    )
    stored.add_argument(
        "--list", action="store_true", help="list the balance runs of the store, newest first"
    )
    stored.add_argument(
        "--open",
        type=arguments.name,
        metavar="NAME",
        help="print a stored run's report (and write it with --json, --html) without playing",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--address",
        type=arguments.name,
        default=None,
        help="Ray cluster: 'auto' or ray://HOST:PORT (default: local)",
    )
    where.add_argument("--local", action="store_true", help="no Ray: play in this process")
    add_metrics_arguments(parser)
    parser.set_defaults(handler=run_balance)


def variant_specs(items: Sequence[tuple[str, str]] | None) -> list[VariantSpec]:
    """The variants named by ``--variant`` / ``--option`` / ``--sweep`` items, in order,
    each labelled; a variant with sweeps is one variant per combination of their values,
    in the order given (the first value of each first)."""
    groups: list[tuple[str, list[str], list[tuple[str, list[str]]]]] = []
    for kind, text in items or ():
        if kind == "variant":
            groups.append((text, [], []))
        elif not groups:
            raise ConfigError(f"--{kind} {text} comes before any --variant")
        elif kind == "option":
            groups[-1][1].append(text)
        else:
            groups[-1][2].append(sweep_values(text))
    if not groups:
        raise ConfigError("name at least one variant: --variant NAME [--option KEY=VALUE ...]")
    specs: list[VariantSpec] = []
    seen: dict[str, int] = {}
    for game, options, sweeps in groups:
        keys = [key for key, _ in sweeps]
        for combination in product(*(values for _, values in sweeps)):
            chosen = [*options, *(f"{k}={v}" for k, v in zip(keys, combination, strict=True))]
            label = " ".join([game, *chosen])
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:
                label = f"{label} (#{seen[label]})"
            specs.append(VariantSpec(game, parse_options(chosen), label))
    return specs


# ------------------------------------------------------------------ running


def run_balance(args: argparse.Namespace) -> int:
    """``arena balance``: 0 when done, 2 on bad input, 128 + the signal when stopped by
    Ctrl-C, SIGTERM or SIGHUP (partial report)."""
    try:
        if (args.list or args.open) and args.balance_items:
            shown = "--list" if args.list else f"--open {args.open}"
            raise ConfigError(f"{shown} shows stored runs: give no --variant with it")
        if args.list:
            with Store.open(args.db, read_only=True) as store:
                print("\n".join(list_lines(store.balance_runs())))
            return 0
        # imported here: that module renders with this one's functions
        from arena.commands import balance_populations as populations

        if args.open:
            with Store.open(args.db, read_only=True) as store:
                group = populations.stored_group(store, args.open)
                run = None if group else _stored_run(store, args.open)
            if run is None:
                populations.open_group(group, args, _parse_balance)
                return 0
            if run.report is None:
                raise ConfigError(
                    f"balance run {run.id} has no report yet ({run.status}, "
                    f"{counted(run.deals, 'deal', spec=',')} "
                    f"stored): play the rest with {again_words(run)}"
                )
            publish(run.report, args)
            return 0
        with Store.open(args.db) as store:
            if args.resume:
                group = populations.stored_group(store, args.resume)
                restore(
                    args, group[0] if group else _stored_run(store, args.resume), _parse_balance
                )
                populations.restore_group(args, group, _parse_balance)
            runs = populations.population_runs(args)
            if len(runs) == 1:
                exit_code, data = _run(runs[0], store)
                publish(data, args)
                return exit_code
            return populations.play_populations(runs, partial(_run, store=store), args)
    except ArenaError as err:
        return refuse(str(err))


def _parse_balance(words: list[str]) -> argparse.Namespace:
    """``arena balance``'s arguments ``words``, read as the command line reads them."""
    parser = arguments.ArenaParser(prog="arena")
    add_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["balance", *words])


def _stored_run(store: Store, name: str) -> BalanceRun:
    run = store.balance_run(name)
    if run is None:
        raise ConfigError(f"no balance run {name!r} in {store.path} (arena balance --list)")
    return run


def _run(args: argparse.Namespace, store: Store) -> tuple[int, dict[str, Any]]:
    """Play (or resume) the run of one population (``args.bots`` one lineup): its exit
    code (0, or 128 + the signal that stopped it) and its report."""
    specs = variant_specs(args.balance_items)
    players = bots.lineup(arguments.bot_names(args.bots, "--bots"))
    games = []
    for spec in specs:
        game = make(spec.game, **spec.options)  # checks the options
        family(game.name)
        games.append(game)
    summaries = [Summary(spec.game) for spec in specs]
    asked = args.asked or DEFAULT_ASKED

    def variant_reports() -> list[dict[str, Any]]:
        return [
            report(summary, spec, game.options)
            for summary, spec, game in zip(summaries, specs, games, strict=True)
        ]

    def exercised() -> list[dict[str, Any]]:
        return exercise(
            [
                (spec.name, spec.game, game.options, summary)
                for summary, spec, game in zip(summaries, specs, games, strict=True)
            ]
        )

    if args.until_resolved:  # a difference to resolve, and the rows asked: checked first
        check_compared(len(specs))
        check_asked(comparison({"variants": variant_reports()}), asked)
    name = run_name(args.name, definition(args, specs, players))  # before the batch is sized
    stored = store.balance_run(name)
    if args.batch is None and stored is not None:
        args.batch = stored.definition.get("batch")  # as it was sized when it started
    if (
        stored is not None
        and stored.status == "finished"
        and stored.report is not None
        and stored.definition == json.loads(json.dumps(definition(args, specs, players)))
    ):
        print(f"balance run {name} is finished: its stored report", file=sys.stderr)
        return 0, stored.report
    started = time.perf_counter()
    interrupted = False
    exit_code = 0
    questions: list[dict[str, Any]] = []
    never: list[dict[str, Any]] = []  # options that differ and came into play nowhere
    needed: int | None = None  # the deals per variant the margin needs, after a round
    speed = Speed()
    estimate: dict[str, Any] = {"probe_deals": PROBE_DEALS}
    rounds = 0
    status = "failed"
    kept = False  # the run is in the store (a failure before that leaves nothing to update)
    from arena.commands.progress import progress_bar

    progress = progress_bar()
    try:
        with metrics_endpoint(args), progress, ExitStack() as stack:
            runner = None
            if not args.local:
                from arena.sim.runner import RayOptions, Runner

                runner = stack.enter_context(Runner(RayOptions(address=args.address)))
            workers = 1 if runner is None else runner.workers
            per_deal = probe_seconds(specs, players, args.seed)
            estimate["seconds_per_deal"] = per_deal
            if args.batch is None:
                args.batch = sized_batch(per_deal, args.deals, len(specs), workers, args)
            store.add_balance_run(name, definition(args, specs, players), rerun_command(args))
            kept = True
            jobs = plan_jobs(specs, args.deals, args.batch, args.seed, players)
            done = stored_progress(store, name, summaries)
            progress.console.print(
                f"balance run {name}: {len(done)} of {counted(len(jobs), 'batch')} stored already"
                if done
                else f"balance run {name}, stored in {store.path}, {counted(args.batch, 'deal')} "
                f"per batch"
            )
            left = [job for job in jobs if (job.variant, job.index) not in done]
            rounds = looks(args.deals, args.batch)
            # without --until-resolved, every batch at once; with it, a round at a time
            plan = (
                [left]
                if not args.until_resolved
                else [[job for job in left if job.index == index] for index in range(rounds)]
            )
            estimate["workers"] = min(workers, max(len(batches) for batches in plan) or 1)
            estimate["seconds"] = (
                sum(per_deal[job.variant] * job.deals for job in left) / estimate["workers"]
            )
            speed.workers = estimate["workers"]
            progress.console.print(estimate_line(estimate, args.deals, len(specs)))
            bars = [
                progress.add_task(spec.name, total=args.deals, completed=s["deals"], rate="")
                for spec, s in zip(specs, summaries, strict=True)
            ]

            def advance(job: BalanceJob, deals: int) -> None:
                progress.update(bars[job.variant], advance=deals, rate=speed.shown(deals))

            def keep(job: BalanceJob, summary: Summary, seconds: float) -> None:
                store.add_balance_batch(name, stored_batch(job, summary))
                speed.busy += seconds
                if runner is not None:  # played here, the bars advanced deal by deal
                    advance(job, job.deals)

            speed.started = time.perf_counter()
            try:
                for look, batches in enumerate(plan, start=1):
                    if runner is None:
                        results = run_local(batches, lambda job: advance(job, 1))
                    else:
                        results = run_on_ray(batches, runner)
                    _collect(results, summaries, keep)
                    if args.until_resolved:
                        sections = comparison({"variants": variant_reports()})
                        names = [spec.name for spec in specs]
                        questions = verdicts(sections, names, asked, args.margin, look, rounds)
                        never = never_used(exercised())
                        if look == 1:
                            needed = margin_deals(sections, asked, args.margin)
                            played = min(s["deals"] for s in summaries)
                            line = margin_line(needed, args.margin, args.deals, played)
                            progress.console.print(line)
                        if never or all(q["status"] != "open" for q in questions):
                            break
            except KeyboardInterrupt as interrupt:  # Ctrl-C, SIGTERM, SIGHUP
                interrupted = True
                exit_code = stopped(interrupt).exit_code
        status = "interrupted" if interrupted else "finished"
    finally:
        data = _report_data(args, players, started, estimate, variant_reports(), interrupted)
        data["speed"] = speed.record()
        data["exercise"] = exercised()
        if args.until_resolved:
            until = _until_record(args, rounds, questions, interrupted, never)
            data["until_resolved"] = {**until, "deals_needed": needed}
        data["differences"] = difference_records(data)
        if kept:
            store.set_balance_status(name, status, cast(dict[str, Any], json_ready(data)))
    if interrupted:
        done_deals = sum(s["deals"] for s in summaries)
        print(
            f"interrupted: reporting the {counted(done_deals, 'deal')} that finished "
            f"of {args.deals * len(specs)} asked; "
            f"{counted(len(store.balance_batches(name)), 'batch')} "
            f"are stored: play the rest with arena balance --resume {name}",
            file=sys.stderr,
        )
    return exit_code, data


@dataclass
class Speed:
    """How fast this session played: its deals per second, and how busy its workers were
    (the seconds the batches took on them, over the workers' wall time)."""

    workers: int = 1
    busy: float = 0.0
    deals: int = 0
    started: float = field(default_factory=time.perf_counter)

    def shown(self, deals: int) -> str:
        """Count ``deals`` more; the rate for a progress bar."""
        self.deals += deals
        return f"{self.deals / max(time.perf_counter() - self.started, 1e-9):,.0f} deals/s"

    def record(self) -> dict[str, Any]:
        wall = time.perf_counter() - self.started
        return {
            "deals": self.deals,
            "seconds": round(wall, 3),
            "deals_per_second": self.deals / wall if wall > 0 else None,
            "workers": self.workers,
            "busy": self.busy / (self.workers * wall) if self.deals and wall > 0 else None,
        }


BATCH_SECONDS: Final = 10.0
"""About how long a batch should take to play, when --batch is not given."""
LOOKS: Final = 10
"""With --until-resolved and no --batch, the looks the batches give at least."""
BATCH_SIZES: Final = (10, 20, 50, 100, 200, DEFAULT_BATCH)
"""The sizes a batch is chosen from (a few round ones: a slightly faster or slower probe
gives the same size, so runs of the same command line up)."""


def sized_batch(
    per_deal: Sequence[float], deals: int, variants: int, workers: int, args: argparse.Namespace
) -> int:
    """Deals per batch for these bots' speed: the largest of :data:`BATCH_SIZES` whose
    batches of the slowest variant take at most :data:`BATCH_SECONDS`, and small enough
    to give every worker two batches or, with ``--until-resolved`` (one batch per variant
    at a time), to give :data:`LOOKS` looks; never more than ``deals``."""
    slowest = max(per_deal, default=0.0)
    fitting = [size for size in BATCH_SIZES if size * slowest <= BATCH_SECONDS]
    chosen = fitting[-1] if fitting else BATCH_SIZES[0]
    if args.until_resolved:
        enough = [s for s in BATCH_SIZES if -(-deals // s) >= LOOKS]
    else:
        enough = [s for s in BATCH_SIZES if variants * -(-deals // s) >= 2 * workers]
    return min(chosen, enough[-1] if enough else BATCH_SIZES[0], deals)


def _report_data(
    args: argparse.Namespace,
    players: Sequence[str],
    started: float,
    estimate: dict[str, Any],
    variants: list[dict[str, Any]],
    interrupted: bool,
) -> dict[str, Any]:
    return {
        "command": rerun_command(args),
        "versions": versions(local=args.local),
        "bots": list(players),
        "seed": args.seed,
        "deals_per_variant": args.deals,
        "batch": args.batch,
        "complete": not interrupted,
        "seconds": round(time.perf_counter() - started, 3),
        "estimate": estimate,
        "variants": variants,
    }


def _until_record(
    args: argparse.Namespace,
    rounds: int,
    questions: list[dict[str, Any]],
    interrupted: bool,
    never: list[dict[str, Any]],
) -> dict[str, Any]:
    resolved = bool(questions) and all(q["status"] != "open" for q in questions)
    stopped = "interrupted" if interrupted else "not_exercised" if never else "maximum"
    return {
        "margin": args.margin,
        "rounds": rounds,
        "deals_allowed": args.deals,
        "stopped": "resolved" if resolved and not interrupted else stopped,
        "never_used": [{"option": o["option"], "use": o["use"]} for o in never],
        "questions": questions,
    }


PROBE_DEALS: Final = 3
"""Deals of each variant played before a run to estimate its time."""


def probe_seconds(specs: Sequence[VariantSpec], players: Sequence[str], seed: int) -> list[float]:
    """Each variant's seconds per deal with these bots, from :data:`PROBE_DEALS` deals
    played here (on their own seed: the run's deals are not among them)."""
    timed = []
    for spec in specs:
        job = BalanceJob(
            0,
            spec.game,
            dict(spec.options),
            derive_seed(seed, "probe"),
            PROBE_DEALS,
            0,
            tuple(players),
        )
        start = time.perf_counter()
        play_balance_batch(job)
        timed.append((time.perf_counter() - start) / PROBE_DEALS)
    return timed


def estimate_line(estimate: Mapping[str, Any], deals: int, variants: int) -> str:
    """The estimate in words, printed before the run starts (the workers: those the
    batches can keep busy at once)."""
    minutes, seconds = divmod(round(estimate["seconds"]), 60)
    took = f"{minutes} min {seconds} s" if minutes else f"{seconds} s"
    workers = estimate["workers"]
    return (
        f"estimate: about {took} for {variants} × {counted(deals, 'deal', spec=',')} on "
        f"{counted(workers, 'worker')} ({counted(estimate['probe_deals'], 'deal')} of each "
        f"timed first)"
    )


def versions(local: bool) -> dict[str, str]:
    """What produced the figures: this program, Python, the engines (compiled or not)
    and, for a run on Ray, Ray's version."""
    found = {
        "arena": arena.__version__,
        "python": platform.python_version(),
        "engines": engines_description(),
    }
    if not local:
        found["ray"] = importlib.metadata.version("ray")
    return found


def _collect(
    results: Generator[Played, None, None],
    summaries: list[Summary],
    on_batch: Callable[[BalanceJob, Summary, float], None],
) -> None:
    """Merge each finished batch into its variant's summary and hand it to ``on_batch``
    (which stores it); an interrupt closes the iterator, which cancels what is still in
    flight."""
    with closing(results):
        for job, summary, seconds in results:
            summaries[job.variant] = summaries[job.variant] + summary
            on_batch(job, summary, seconds)
