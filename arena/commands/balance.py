"""``arena balance``: many bot deals of one or more variants, compared side by side.

``--variant NAME`` starts a variant and each ``--option KEY=VALUE`` after it applies
to it, so ``--variant shengji-2 --variant shengji-2 --option constant_twos=true``
compares two variants. The report (text; ``--json FILE``; ``--html FILE`` with plots)
gives every rate with its 95% Wilson interval and every mean with its 95% interval.
"""

from __future__ import annotations

import argparse
import html
import importlib.metadata
import json
import platform
import re
import shlex
import sys
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from functools import partial
from itertools import product
from pathlib import Path
from typing import Any, Final, cast

from markupsafe import Markup

import arena
import bots
from arena.chance import derive_seed
from arena.commands import Subcommands, add_db_argument, arguments, refuse
from arena.commands.balance_exercise import (
    EXERCISE_TITLE,
    exercise_rows,
    margin_line,
    stopped_line,
)
from arena.commands.balance_runs import (
    again_words,
    defining_words,
    definition,
    list_lines,
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
    TRIBUTE_KINDS,
    BalanceJob,
    Played,
    Summary,
    VariantSpec,
    change_order,
    family,
    plan_jobs,
    play_balance_batch,
    rate,
    report,
    run_local,
    run_on_ray,
)
from arena.sim.differences import FAMILY_ERROR, holm, mean_difference, rate_difference
from arena.sim.exercise import exercise, never_used, not_exercised
from arena.sim.stopping import stopped
from arena.store import BalanceRun, Store
from arena.web.plots import Dot, interval_dots

DEFAULT_DEALS = 10_000
DEFAULT_BOTS = "heuristic"
NO_VALUE = "—"


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
            _publish(run.report, args)
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
                _publish(data, args)
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


def _publish(data: dict[str, Any], args: argparse.Namespace) -> None:
    """The report as text, and as JSON and HTML files when asked."""
    print(render_text(data), end="")
    if args.json:
        text = json.dumps(json_ready(data), ensure_ascii=False, indent=2, allow_nan=False)
        Path(args.json).write_text(text + "\n")
        print(f"statistics written to {args.json}")
    if args.html:
        Path(args.html).write_text(render_html(data), encoding="utf-8")
        print(f"report written to {args.html}")


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


def rerun_command(args: argparse.Namespace) -> str:
    """The command line that plays this run again: every variant, option and sweep as
    given, and every setting the figures depend on spelled out (defaults included)."""
    return shlex.join(["arena", "balance", *defining_words(args), *(["--local"] * args.local)])


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


# ------------------------------------------------------------------ comparison table

Cell = dict[str, Any] | None


@dataclass(frozen=True)
class Label:
    """A section title or row label of the comparison: a stable ``key`` (the web face
    looks its words up by it, ``balance.<key>`` in its catalogs), the ``fields`` its
    text is filled with (numbers, or labels of their own), and the English ``text`` the
    command line prints."""

    key: str
    text: str
    fields: Mapping[str, Label | int | str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.text


Row = tuple[Label, list[Cell], str]
"""A row: its label, one cell per variant (a rate, a mean, or None), and its kind."""


def _pct(value: float, digits: int) -> str:
    return f"{100 * value:.{digits}f}"


def format_cell(cell: Cell, kind: str = "rate") -> str:
    """``51.2% [49.9, 52.5]`` for a rate, ``106.1 [96.4, 115.8]`` for a mean."""
    if cell is None:
        return NO_VALUE
    if kind == "rate":
        if cell.get("rate") is None:
            return "n/a"
        digits = 2 if cell["high"] < 0.01 else 1  # rare events stay visible
        low, high = _pct(cell["low"], digits), _pct(cell["high"], digits)
        return f"{_pct(cell['rate'], digits)}% [{low}, {high}]"
    if cell.get("mean") is None:
        return "n/a"
    if cell.get("low") is None:
        return f"{cell['mean']:.2f} [one value: no interval]"
    return f"{cell['mean']:.2f} [{cell['low']:.2f}, {cell['high']:.2f}]"


def format_difference(cell: Cell, kind: str = "rate") -> str:
    """A difference from the baseline: ``+2.3 [+0.5, +4.1] *`` for rates (percentage
    points), ``-1.20 [-2.31, -0.09]`` for means; ``*`` when it is significant."""
    if cell is None:
        return NO_VALUE
    if cell.get("not_exercised"):
        return f"not exercised: {', '.join(cell['not_exercised'])}"
    mark = " *" if cell.get("significant") else ""
    if kind == "rate":
        diff, low, high = (100 * cell[key] for key in ("diff", "low", "high"))
        return f"{diff:+.1f} [{low:+.1f}, {high:+.1f}]{mark}"
    return f"{cell['diff']:+.2f} [{cell['low']:+.2f}, {cell['high']:+.2f}]{mark}"


def shown_cell(cell: Cell, kind: str, column: int) -> str:
    """A cell of :func:`against_baseline`: the baseline's figure in the first column,
    a difference from it in the others."""
    return format_cell(cell, kind) if column == 0 else format_difference(cell, kind)


Step = str | int | Callable[[Any], Any]
"""A step into a variant's report: a key, a list index, or a lookup function."""


def _dig(data: Any, path: Sequence[Step]) -> Cell:
    try:
        for step in path:
            data = step(data) if callable(step) else data[step]
    except (KeyError, IndexError, TypeError):
        return None
    cell: dict[str, Any] | None = data
    return cell


def _find(key: str, value: object, items: list[dict[str, Any]]) -> dict[str, Any]:
    """The item of a list whose ``key`` is ``value``; a zero count if there is none."""
    for item in items:
        if item[key] == value:
            return item
    n = int(items[0]["n"]) if items else 0
    return {"count": 0, "n": n, **rate(0, n)} if n else rate(0, 0)


def _multiplier_name(group: str, multiplier: int | None) -> Label:
    if multiplier is None:
        return Label("kitty.none", "no kitty count (declarers took it)")
    if group == "4 decks":
        return Label("kitty.widest", f"4 decks: widest set ×{multiplier}", {"n": multiplier})
    return Label("kitty.multiplier", f"kitty multiplier ×{multiplier}", {"n": multiplier})


CHANGE_LABELS: Final = (
    ("change.defenders", re.compile(r"defenders \+(\d+)")),
    ("change.declarers", re.compile(r"declarers \+(\d+)")),
    ("change.sweep", re.compile(r"sweep ×(\d+)")),
    ("change.stake", re.compile(r"×(\d+)")),
    ("change.gain", re.compile(r"\+(\d+)")),
)
"""The level-change buckets a deal's facts name (:func:`arena.sim.balance.deal_facts`)
and their keys; ``wins the match`` is ``change.match``, anything else ``change.other``."""


def _change_name(_: str, change: Any) -> Label:
    text = str(change)
    if text == "wins the match":
        return Label("change.match", text)
    for key, pattern in CHANGE_LABELS:
        found = pattern.fullmatch(text)
        if found:
            return Label(key, text, {"n": int(found.group(1))})
    return Label("change.other", text, {"text": text})


REVEAL_ROWS: Final = (
    ("two_cards", "two cards turned"),
    ("same_receiver", "one player got both (of two-card deals)"),
    ("same_receiver_won", "… and that player's team won"),
    ("one_card", "one card turned (after a sweep)"),
    ("receiver_was_first", "… the previous first finisher got it"),
    ("swapped", "seats changed"),
    ("sweep", "sweep (one team first and second)"),
    ("sweep_all_points", "sweep with all 300 points"),
    ("joker_bonus", "joker bonus paid"),
)
"""sanfu's partner-reveal rows: the report's key and the row's English label."""


_FAMILY_WORDS: Final[dict[str, dict[str, Label]]] = {
    "changes": {
        "guandan": Label("section.changes_levels", "Level change, share of deals"),
        "shengji": Label("section.changes_levels", "Level change, share of deals"),
        "sanfu": Label("section.changes_stakes", "Stake, share of deals"),
        "": Label(
            "section.changes", "Level change (Guandan, Shengji) / stake (sanfu), share of deals"
        ),
    },
    "gain": {
        "guandan": Label("means.gain_levels", "levels gained"),
        "shengji": Label("means.gain_levels", "levels gained"),
        "sanfu": Label("means.gain_stake", "stake won"),
        "": Label("means.gain", "levels gained (stake in sanfu)"),
    },
    "points": {
        "shengji": Label("means.points_defenders", "defenders' points"),
        "sanfu": Label("means.points_winners", "winners' points"),
        "guandan": Label("means.points", "points (Shengji defenders, sanfu winners)"),
        "": Label("means.points", "points (Shengji defenders, sanfu winners)"),
    },
}
"""Labels in the words of the report's game when all its variants are of one family
(``""``: of several)."""


def comparison(data: dict[str, Any]) -> list[tuple[Label, list[Row]]]:
    """The report as sections of rows, one cell per variant (None: not in this game)."""
    variants: list[dict[str, Any]] = data["variants"]

    def row(label: Label, *path: Step, kind: str = "rate") -> Row:
        return (label, [_dig(v, path) for v in variants], kind)

    def has(key: str) -> bool:
        return any(key in v for v in variants)

    def bucket_rows(
        section: str,
        items: str,
        key: str,
        name: Callable[[str, Any], Label],
        group: Callable[[str], str],
        order: Callable[[Any], Any],
    ) -> list[Row]:
        """A row per bucket seen in any variant, grouped (e.g. by game family) and sorted;
        a variant of another group has no cell there, one of the same group a zero count."""
        seen: list[tuple[str, Any]] = []
        for v in variants:
            for item in v.get(section, {}).get(items, []):
                if (group(v["game"]), item[key]) not in seen:
                    seen.append((group(v["game"]), item[key]))
        groups = list(dict.fromkeys(where for where, _ in seen))
        seen.sort(key=lambda bucket: (groups.index(bucket[0]), order(bucket[1])))
        rows: list[Row] = []
        for where, value in seen:
            cells = [
                _dig(v, (section, items, partial(_find, key, value)))
                if section in v and group(v["game"]) == where
                else None
                for v in variants
            ]
            rows.append((name(where, value), cells, "rate"))
        return rows

    families = {family(v["game"]) for v in variants}
    only = families.pop() if len(families) == 1 else ""
    sections: list[tuple[Label, list[Row]]] = []
    wins = [row(Label("wins.dealer_team", "dealer's team (see notes)"), "dealer_team")]
    wins += [  # partners sit opposite: a seat's team is its partner's
        row(Label("wins.team", f"seats {s} and {s + 2}", {"seat": s, "partner": s + 2}), "seats", s)
        for s in range(2)
    ]
    sections.append((Label("section.wins", "Win rate of the deal"), wins))
    if has("first_out"):
        first = [
            row(Label("first_out.seat", f"seat {s}", {"seat": s}), "first_out", s) for s in range(4)
        ]
        sections.append((Label("section.first_out", "First out (climbing games)"), first))
    changes = bucket_rows("level_changes", "buckets", "change", _change_name, family, change_order)
    sections.append((_FAMILY_WORDS["changes"][only], changes))
    means = [row(_FAMILY_WORDS["gain"][only], "gain", kind="mean")]
    if has("points"):
        means.append(row(_FAMILY_WORDS["points"][only], "points", kind="mean"))
    means.append(row(Label("means.length", "decisions per deal"), "length", kind="mean"))
    sections.append((Label("section.means", "Means"), means))
    if has("kitty"):
        last = Label("kitty.defenders_won_last", "defenders took the last trick")
        kitty = [row(last, "kitty", "defenders_won_last")]
        kitty += bucket_rows(
            "kitty",
            "multipliers",
            "multiplier",
            _multiplier_name,
            lambda game: "4 decks" if game == "shengji-4" else "kitty",
            lambda m: 0 if m is None else int(m),
        )
        bonus = Label("kitty.bonus", "defenders' points from it")
        kitty.append(row(bonus, "kitty", "bonus", kind="mean"))
        sections.append(
            (Label("section.kitty", "Shengji: kitty / last trick (share of deals)"), kitty)
        )
    if has("play"):
        play = [
            row(Label("play.failed_throw", "deals with a failed throw"), "play", "failed_throw"),
            *(
                row(Label(f"play.{key}", text), "play", key, kind="mean")
                for key, text in (
                    ("failed_throws", "failed throws per deal"),
                    ("declarers_failed_throws", "the declarers' failed throws per deal"),
                    ("room_points", "room points of each declarer per deal"),
                )
            ),
        ]
        sections.append((Label("section.play", "Shengji: throws and room points"), play))
    if has("tribute"):
        double = Label("tribute.double_down", "double-down: the winners out first and second")
        tribute: list[Row] = [row(double, "tribute", "double_down")]
        for kind in TRIBUTE_KINDS:
            name = Label(f"tribute_kind.{kind}", kind.replace("_", " "))
            entry = ("tribute", "kinds", partial(_find, "kind", kind))
            fields = {"kind": name}
            share = Label("tribute.share", f"{name}: share of deals", fields)
            tribute.append(row(share, *entry, "share"))
            if kind != "first":
                wins_after = Label("tribute.receiver_wins", f"{name}: previous winners win", fields)
                tribute.append(row(wins_after, *entry, "receiver_wins"))
                gain = Label("tribute.receiver_gain", f"{name}: their levels gained", fields)
                tribute.append(row(gain, *entry, "receiver_gain", kind="mean"))
        refused = Label("tribute.refused", "tribute refused (after a first deal)")
        tribute.append(row(refused, "tribute", "refused"))
        sections.append((Label("section.tribute", "Guandan: tribute and the next deal"), tribute))
    if has("reveal"):
        reveal = [row(Label(f"reveal.{key}", text), "reveal", key) for key, text in REVEAL_ROWS]
        moved = Label("reveal.transferred", "points transferred")
        reveal.append(row(moved, "reveal", "transferred", kind="mean"))
        sections.append((Label("section.reveal", "sanfu: partner reveal and sweeps"), reveal))
    return sections


def against_baseline(data: dict[str, Any]) -> list[tuple[Label, list[Row]]]:
    """The comparison with the first variant as the baseline: its own figures in the
    first column, and in every other column that variant's difference from it
    (:mod:`arena.sim.differences`: ``diff``, ``low``, ``high``, ``p`` and
    ``significant``, by Holm's procedure over every difference in the report; None
    where either has no figure). A variant whose differing options came into play in
    neither it nor the baseline measures none of them: its differences name those
    options (``not_exercised``) and are left out of Holm's procedure, never significant."""
    found: list[dict[str, Any]] = []
    shown: list[tuple[Label, list[Row]]] = []
    variants = data["variants"]
    unused = [not_exercised(data.get("exercise", []), variants[0], other) for other in variants]
    for title, rows in comparison(data):
        compared: list[Row] = []
        for label, cells, kind in rows:
            base = cells[0]
            differences: list[Cell] = [base]
            for cell in cells[1:]:
                difference = None
                if base is not None and cell is not None:
                    measure = rate_difference if kind == "rate" else mean_difference
                    difference = measure(base, cell)
                column = len(differences)
                if difference is not None and unused[column]:
                    difference = {**difference, "significant": False}
                    difference["not_exercised"] = unused[column]
                elif difference is not None:
                    found.append(difference)
                differences.append(difference)
            compared.append((label, differences, kind))
        shown.append((title, compared))
    for difference, significant in zip(found, holm([d["p"] for d in found]), strict=True):
        difference["significant"] = significant
    return shown


def difference_records(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Every difference of :func:`against_baseline` as a flat record (for notebooks):
    its section and row (key and English words), the variant, and the figures."""
    names = [v["name"] for v in data["variants"]]
    return [
        {
            "section": title.key,
            "section_text": title.text,
            "row": label.key,
            "row_text": label.text,
            "kind": kind,
            "baseline": names[0],
            "variant": names[column],
            **cell,
        }
        for title, rows in against_baseline(data)
        for label, cells, kind in rows
        for column, cell in enumerate(cells)
        if column > 0 and cell is not None
    ]


def _compared_names(data: dict[str, Any]) -> list[str]:
    """The columns' headings: the baseline, then each variant's difference from it."""
    names = [v["name"] for v in data["variants"]]
    if len(names) == 1:
        return names
    return [f"{names[0]} (baseline)", *(f"{name} − baseline" for name in names[1:])]


def _difference_note(data: dict[str, Any]) -> list[str]:
    if len(data["variants"]) == 1:
        return []
    return [
        "Columns after the first: the difference from the baseline (rates in percentage "
        "points) with its 95% interval; * marks a difference significant at a "
        f"{FAMILY_ERROR:.0%} family-wise error rate over all the report's differences "
        "(Holm's procedure)."
    ]


def until_lines(data: dict[str, Any]) -> list[str]:
    """With ``--until-resolved``: why the run stopped, and each question's answer."""
    until = data.get("until_resolved")
    if not until:
        return []
    variants = data["variants"]
    lines = [stopped_line(until, min(v["deals"] for v in variants))]
    unused = {v["name"]: not_exercised(data.get("exercise", []), variants[0], v) for v in variants}
    for q in until["questions"]:
        if unused.get(q["variant"]):
            options = ", ".join(unused[q["variant"]])
            lines.append(f"  {q['row_text']}, {q['variant']}: unanswered, {options} not exercised")
            continue
        shown = format_difference(q if q["diff"] is not None else None, q["kind"])
        lines.append(
            f"  {q['row_text']}, {q['variant']}: {q['status']} ({shown.removesuffix(' *')}; "
            f"tested at {q['level']:.3%} after round {q['look']} of {until['rounds']})"
        )
    return lines


def provenance(
    data: dict[str, Any], again: str = "again: {command}", made_by: str = "made by {versions}"
) -> list[str]:
    """The command that plays the run again and the versions that made it, in the words
    of ``again`` and ``made_by`` (a report written before they were recorded has
    neither)."""
    lines = []
    if "command" in data:
        lines.append(again.format(command=data["command"]))
    if "versions" in data:
        made = ", ".join(f"{k} {v}" for k, v in dict(data["versions"]).items())
        lines.append(made_by.format(versions=made))
    return lines


def _notes(data: dict[str, Any]) -> list[str]:
    notes: dict[str, str] = {}
    for v in data["variants"]:
        kind = family(v["game"])
        notes.setdefault(kind, f"dealer's team in {kind}: {v['dealer_team']['label']}")
    return list(notes.values())


def lineup_label(players: str | Sequence[str]) -> Label:
    """Who played, as a label: one bot for all, one per team, or each player's (a report
    written before the bots could be chosen names one bot, as text)."""
    if isinstance(players, str) or len(set(players)) == 1:
        bot = players if isinstance(players, str) else players[0]
        return Label("bots.all", f"{bot} bots", {"bot": bot})
    if len(players) == 4 and players[0] == players[2] and players[1] == players[3]:
        first, second = players[0], players[1]
        text = f"{first} (players 0 and 2) against {second} (1 and 3)"
        return Label("bots.teams", text, {"first": first, "second": second})
    text = ", ".join(f"player {p}: {bot}" for p, bot in enumerate(players))
    return Label("bots.each", text, {f"p{p}": bot for p, bot in enumerate(players)})


def render_text(data: dict[str, Any]) -> str:
    """The comparison as a plain-text table (95% intervals in brackets, percentages)."""
    variants = data["variants"]
    names = [v["name"] for v in variants]
    lines = [
        f"balance: {lineup_label(data['bots'])}, {counted(data['deals_per_variant'], 'deal')} per "
        "variant asked, "
        f"seed {data['seed']}" + ("" if data["complete"] else " (interrupted)"),
        *until_lines(data),
    ]
    table: list[list[str]] = [["", *_compared_names(data)]]
    table.append(["deals played", *(str(v["deals"]) for v in variants)])
    table.append(["matches completed", *(str(v["matches_completed"]) for v in variants)])
    heads: set[int] = set()
    for title, rows in against_baseline(data):
        heads.add(len(table))
        table.append([title.text])
        for label, values, kind in rows:
            shown = [shown_cell(c, kind, column) for column, c in enumerate(values)]
            table.append([f"  {label.text}", *shown])
    width = max(len(r[0]) for r in table if len(r) > 1)
    cols = [max(len(r[i]) for r in table if len(r) > i) for i in range(1, len(names) + 1)]
    for i, r in enumerate(table):
        if i in heads:
            lines.append("")
            lines.append(r[0])
            continue
        cells = "  ".join(c.rjust(w) for c, w in zip(r[1:], cols, strict=True))
        lines.append(f"{r[0].ljust(width)}  {cells}".rstrip())
    lines.extend(_exercise_text(data))
    lines.append("")
    lines.append("Rates in %, 95% Wilson intervals in brackets; means with 95% intervals.")
    lines.extend(_difference_note(data))
    lines.extend(_notes(data))
    lines.extend(speed_lines(data))
    lines.extend(provenance(data))
    return "\n".join(lines) + "\n"


def _exercise_text(data: dict[str, Any]) -> list[str]:
    """The rules in play as a text table (a report from before they were counted, or
    with no option to show, has none)."""
    shown = exercise_rows(data.get("exercise", []), format_cell)
    if not shown:
        return []
    lines = ["", f"{EXERCISE_TITLE} (rates in %, 95% Wilson intervals)"]
    cells = [row for _, rows in shown for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(4)]
    for heading, rows in shown:
        lines.append(f"  {heading}")
        for row in rows:
            fixed = "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
            lines.append(f"    {fixed}  {row[4]}")
    return lines


def speed_lines(data: dict[str, Any]) -> list[str]:
    """How fast the run played (a report written before it was recorded says nothing)."""
    speed = data.get("speed")
    if not speed or not speed["deals"]:
        return []
    workers = speed["workers"]
    busy = "" if speed["busy"] is None else f", busy {speed['busy']:.0%} of the time"
    return [
        f"played {counted(speed['deals'], 'deal', spec=',')} in {speed['seconds']:.1f} s: "
        f"{speed['deals_per_second']:,.0f} deals/s on "
        f"{counted(workers, 'worker')}{busy}"
    ]


# ------------------------------------------------------------------ HTML with plots


AXES: Final = {
    "rate_difference": "difference from the baseline, percentage points (95% interval)",
    "mean_difference": "difference from the baseline (95% interval)",
    "rate": "% of deals (95% Wilson interval)",
    "mean": "mean (95% interval)",
}
"""The figures' axis titles, in English (the site has them in its catalogs)."""


@dataclass(frozen=True)
class Figure:
    """A figure of a report: its title, dots (a line per row, a dot per variant),
    the variants' names (its legend), its axis title, and whether 0 is drawn."""

    title: str
    dots: list[Dot]
    series: list[str]
    axis: str
    zero: bool

    def svg(self) -> Markup:
        return interval_dots(self.title, self.dots, self.axis, self.series, self.zero)


def figures(
    data: dict[str, Any], words: Callable[[Label], str], axes: Mapping[str, str] = AXES
) -> list[Figure]:
    """One figure per question: a section's rates together, each mean alone. With a
    baseline, the dots are the other variants' differences from it (significant ones
    filled, none for a difference that measures no option: not exercised); with one
    variant, its figures. ``words`` gives a label's words."""
    names = [v["name"] for v in data["variants"]]
    compared = len(names) > 1
    shown = against_baseline(data) if compared else comparison(data)
    series = names[1:] if compared else names
    drawn: list[Figure] = []
    for title, rows in shown:
        for kind in ("rate", "mean"):
            chosen = [(label, cells) for label, cells, k in rows if k == kind]
            groups = [chosen] if kind == "rate" else [[one] for one in chosen]
            for group in groups:
                dots = [
                    _dot(words(label), cell, kind, compared, index)
                    for label, cells in group
                    for index, cell in enumerate(cells[1:] if compared else cells)
                    if cell is not None
                    and cell.get("diff" if compared else kind) is not None
                    and not cell.get("not_exercised")
                ]
                if not dots:
                    continue
                caption = (
                    words(title) if kind == "rate" else f"{words(title)}: {words(group[0][0])}"
                )
                axis = axes[f"{kind}_difference" if compared else kind]
                drawn.append(Figure(caption, dots, series, axis, compared))
    return drawn


def _dot(label: str, cell: dict[str, Any], kind: str, compared: bool, series: int) -> Dot:
    scale = 100.0 if kind == "rate" else 1.0
    centre = cell["diff"] if compared else cell[kind]
    low, high = cell.get("low"), cell.get("high")
    return Dot(
        label,
        scale * centre,
        None if low is None else scale * low,
        None if high is None else scale * high,
        series,
        bool(cell.get("significant")),
    )


STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th.section { background: #eee; text-align: left; }
figure { margin: 1em 0; max-width: 48em; }
"""


def _exercise_html(data: dict[str, Any]) -> list[str]:
    """The rules in play as an HTML table (nothing when there is none to show)."""
    shown = exercise_rows(data.get("exercise", []), format_cell)
    if not shown:
        return []
    esc = html.escape
    parts = [f"<h2>{esc(EXERCISE_TITLE)}</h2>", "<table>"]
    heads = ("variant", "value", "deals", "share (95% Wilson)", "status")
    parts.append("<tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr>")
    for heading, rows in shown:
        parts.append(f'<tr><th class="section" colspan="5">{esc(heading)}</th></tr>')
        for row in rows:
            parts.append("<tr>" + "".join(f"<td>{esc(cell)}</td>" for cell in row) + "</tr>")
    parts.append("</table>")
    return parts


def render_html(data: dict[str, Any]) -> str:
    """A self-contained HTML report: the comparison table and its figures (inline SVG)."""
    names = [v["name"] for v in data["variants"]]
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Balance: {esc(' vs '.join(names))}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>Balance: {esc(' vs '.join(names))}</h1>",
        f"<p>Bots: {esc(lineup_label(data['bots']).text)}; consecutive match deals; "
        f"{counted(data['deals_per_variant'], 'deal')} per "
        f"variant asked, seed {data['seed']}, batches of {counted(data['batch'], 'deal')}"
        + ("" if data["complete"] else " — <strong>interrupted: partial results</strong>")
        + ". Rates in %, 95% Wilson intervals in brackets; means with 95% intervals.</p>",
        *(f"<p>{esc(line)}</p>" for line in until_lines(data)),
        "<ul>",
    ]
    for v in data["variants"]:
        options = ", ".join(f"{k}={val}" for k, val in sorted(v["options"].items()))
        parts.append(
            f"<li><b>{esc(v['name'])}</b>: {counted(v['deals'], 'deal')}, "
            f"{counted(v['matches_completed'], 'match')} completed; options "
            f"{esc(options) or 'none'}</li>"
        )
    parts.append("</ul>")
    heads = "".join(f"<th>{esc(n)}</th>" for n in _compared_names(data))
    parts.append(f"<table><tr><th></th>{heads}</tr>")
    for title, rows in against_baseline(data):
        head = esc(title.text)
        parts.append(f'<tr><th class="section" colspan="{len(names) + 1}">{head}</th></tr>')
        for label, cells, kind in rows:
            tds = "".join(
                f"<td>{esc(shown_cell(c, kind, column))}</td>" for column, c in enumerate(cells)
            )
            parts.append(f"<tr><td>{esc(label.text)}</td>{tds}</tr>")
    parts.append("</table>")
    parts.extend(_exercise_html(data))
    notes = [*_difference_note(data), *_notes(data), *speed_lines(data)]
    parts.extend(f"<p>{esc(note)}</p>" for note in notes)
    parts.extend(f"<p><code>{esc(line)}</code></p>" for line in provenance(data))
    parts.append("<h2>Plots</h2>")
    parts.extend(f"<figure>{figure.svg()}</figure>" for figure in figures(data, str))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
