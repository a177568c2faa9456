"""``arena tournament``: a league between bots, played on Ray, stored and rated."""

from __future__ import annotations

import argparse
import sys
import time

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from arena.commands.play import parse_options
from arena.errors import ConfigError
from arena.sim import RayOptions, Runner, TournamentConfig, plan
from arena.sim.league import League
from arena.sim.tournament import EXAMPLE
from arena.store import Store

EXIT_INTERRUPTED = 130


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    if args.file:
        config = TournamentConfig.load(args.file)
        return config
    if not args.bots and not args.team:
        raise ConfigError("name the bots (--bots random,first), teams (--team a,b) or a file")
    data: dict[str, object] = {
        "name": args.name,
        "variant": args.variant,
        "options": parse_options(args.option),
        "bots": [b for b in (args.bots or "").split(",") if b],
        "teams": [t.split(",") for t in args.team],
        "format": args.format,
        "matches": args.matches,
        "seed": args.seed,
        "paired": args.paired,
    }
    if args.deals is not None:
        data["deals"] = args.deals
    if args.reference:
        data["reference"] = args.reference.split(",")
    return TournamentConfig.from_mapping(data)


def run_tournament(args: argparse.Namespace) -> int:
    if args.example:
        print(EXAMPLE, end="")
        return 0
    config = config_from_args(args)
    jobs = plan(config)
    with Store.open(args.db) as store:
        store.add_tournament(config.id, config.name, config.variant, dict(config.options), {})
        for bot in sorted({name for job in jobs for name in job.players}):
            store.add_bot(bot, "builtin")
        done = store.match_ids(config.id)
        todo = [job for job in jobs if job.id not in done]
        league = League(store, config.variant)
        print(
            f"tournament {config.id}: {len(jobs)} matches of {config.variant}, "
            f"{len(jobs) - len(todo)} already stored"
        )
        stored = played_deals = 0
        started = time.perf_counter()
        try:
            with Runner(RayOptions(address=args.address)) as runner, _progress() as progress:
                bar = progress.add_task(
                    "matches", total=len(jobs), completed=len(jobs) - len(todo), rate=""
                )
                for report in runner.run(todo, batch_size=args.batch or batch_size(config)):
                    stored += league.add(report, config.id)
                    played_deals += report.deals
                    rate = played_deals / max(time.perf_counter() - started, 1e-9)
                    progress.update(bar, advance=1, rate=f"{rate:,.0f} deals/s")
        except KeyboardInterrupt:
            print(
                f"interrupted: {stored} matches stored; run the same command again to resume",
                file=sys.stderr,
            )
            return EXIT_INTERRUPTED
        store.set_tournament_status(config.id, "finished")
    print(f"{stored} matches stored in {args.db}")
    from arena.commands.leaderboard import print_leaderboard

    print_leaderboard(args.db, config.variant, as_json=False)
    return 0


def batch_size(config: TournamentConfig) -> int:
    """Matches per Ray task: about a tenth of a second of work or more (~5 ms a deal)."""
    deals = config.deals or 30
    return max(1, 20 // deals)


def _progress() -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
    )
