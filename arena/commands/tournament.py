"""``arena tournament``: a league between bots, played on Ray, stored and rated."""

from __future__ import annotations

import argparse
import sys
import time

from arena.commands import Subcommands, add_db_argument, arguments
from arena.commands.metrics_endpoint import add_metrics_arguments, metrics_endpoint
from arena.commands.play import parse_options
from arena.commands.progress import progress_bar
from arena.definitions import FORMATS
from arena.errors import ArenaError, ConfigError
from arena.log import get_logger
from arena.plural import counted
from arena.sim import RayOptions, Runner, TournamentConfig
from arena.sim.driver import expected_matches, play_tournament
from arena.sim.league import League
from arena.sim.stopping import Stopped, StopSignals, stop_signals
from arena.sim.tournament import EXAMPLE
from arena.store import Store


def add_parser(sub: Subcommands) -> None:
    """``arena tournament``: its arguments, or a definition file."""
    parser = sub.add_parser(
        "tournament",
        help="a league between bots, played on Ray, stored and rated",
        description="Play a tournament on Ray (a local instance unless --address), store "
        "every match once, rate the bots (Elo, OpenSkill), and print the leaderboard. "
        "Rerun the same command to resume an interrupted tournament. "
        "A definition file looks like this:\n\n" + EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", nargs="?", help="a tournament definition (TOML)")
    parser.add_argument("--example", action="store_true", help="print an example file")
    parser.add_argument("--name", type=arguments.name, help="tournament name (tournament)")
    parser.add_argument("--variant", type=arguments.name, help="game variant (guandan)")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="game option",
    )
    parser.add_argument(
        "--bots", type=arguments.bot_list, help="bots, each partnered with itself: random,first"
    )
    parser.add_argument(
        "--team",
        type=arguments.team,
        action="append",
        default=[],
        metavar="A,B",
        help="a team of two bots",
    )
    parser.add_argument(
        "--format", choices=FORMATS, help="round_robin (the default), gauntlet or rated"
    )
    parser.add_argument(
        "--reference", type=arguments.team, metavar="A,B", help="the gauntlet's reference team"
    )
    parser.add_argument(
        "--matches", type=arguments.count, help="matches per pairing ('rated': rounds; 10)"
    )
    parser.add_argument("--deals", type=arguments.count, help="deals per match (whole matches)")
    parser.add_argument("--seed", type=arguments.seed, help="tournament seed (0)")
    parser.add_argument(
        "--paired", action="store_true", help="each seed twice, partnerships swapped"
    )
    add_db_argument(parser)
    parser.add_argument(
        "--address",
        type=arguments.name,
        default=None,
        help="join a Ray cluster: 'auto', HOST:PORT or ray://HOST:PORT "
        "(default: start a local Ray for this run)",
    )
    parser.add_argument("--batch", type=arguments.count, default=None, help="matches per Ray task")
    add_metrics_arguments(parser)
    parser.set_defaults(handler=run_tournament)


DEFINING = (
    "name",
    "variant",
    "option",
    "bots",
    "team",
    "format",
    "reference",
    "matches",
    "deals",
    "seed",
    "paired",
)
"""The options that define a tournament (what a definition file says instead)."""


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    given = [dest for dest in DEFINING if getattr(args, dest) not in (None, [], False)]
    if args.file:
        if given:
            flags = ", ".join("--" + dest for dest in given)
            raise ConfigError(f"{flags}: give them in the definition file, not with it")
        return TournamentConfig.load(args.file)
    if not args.bots and not args.team:
        raise ConfigError("name the bots (--bots random,first), teams (--team a,b) or a file")
    data: dict[str, object] = {
        "options": parse_options(args.option),
        "bots": list(args.bots or ()),
        "teams": [list(team) for team in args.team],
        "paired": args.paired,
    }
    for dest in ("name", "variant", "format", "matches", "deals", "seed", "reference"):
        value = getattr(args, dest)
        if value is not None:
            data[dest] = list(value) if dest == "reference" else value
    return TournamentConfig.from_mapping(data)


class Interrupted(Exception):
    """A run stopped by a signal, with the matches it stored."""

    def __init__(self, stop: Stopped, stored: int) -> None:
        super().__init__(stop.name)
        self.stop = stop
        self.stored = stored


def run_tournament(args: argparse.Namespace) -> int:
    if args.example:
        print(EXAMPLE, end="")
        return 0
    config = config_from_args(args)
    with stop_signals() as stops:
        try:
            stored = play_and_store(config, args, stops)
        except KeyboardInterrupt as interrupt:  # before or after the play: nothing stored
            return interrupted(Interrupted(stops.stopped(interrupt), 0))
        except Interrupted as stop:
            return interrupted(stop)
    db = Store.shown(args.db)  # a URL's password is never printed
    if stored is None:
        print(f"tournament {config.id} is finished: its standings")
    else:
        print(f"{counted(stored, 'match')} stored in {db}")
    from arena.commands.leaderboard import print_leaderboard

    print_leaderboard(args.db, None, as_json=False, tournament=config.id)
    print(
        "(rated from this tournament's matches alone; the store's leaderboard, of every "
        f"{config.variant} match: arena leaderboard --variant {config.variant} --db {db})"
    )
    return 0


def interrupted(stop: Interrupted) -> int:
    """Say how to resume a run stopped by Ctrl-C, SIGTERM or SIGHUP; its exit status."""
    print(
        f"interrupted by {stop.stop.name}: {counted(stop.stored, 'match')} stored; "
        "run the same command again to resume",
        file=sys.stderr,
    )
    return stop.stop.exit_code


def play_and_store(
    config: TournamentConfig, args: argparse.Namespace, stops: StopSignals
) -> int | None:
    """Play what the store lacks of the tournament and store it; the matches stored
    (None: the tournament was complete already, and no Ray was started). Stopped by
    a signal, it leaves the tournament resumable and raises :class:`Interrupted`."""
    with metrics_endpoint(args), Store.open(args.db) as store:
        store.add_tournament(
            config.id, config.name, config.variant, dict(config.options), config.definition()
        )
        store.add_builtin_bots(
            {name for team in config.teams for name in team} | set(config.reference or ())
        )
        done = store.match_ids(config.id)
        total = expected_matches(config)
        print(f"tournament {config.id}: {counted(total, 'match')} of {config.variant}, ", end="")
        print(f"{len(done)} already stored")
        if len(done) == total:
            store.set_tournament_status(config.id, "finished")
            return None
        league = League(store, config.variant)
        log = get_logger(__name__, tournament_id=config.id, variant=config.variant)
        stored = played_deals = 0
        log.info("tournament_started", matches=total, already_stored=len(done))
        store.set_tournament_status(config.id, "running")
        try:
            with Runner(RayOptions(address=args.address)) as runner, progress_bar() as progress:
                bar = progress.add_task("matches", total=total, completed=len(done), rate="")
                started = time.perf_counter()  # the rate counts play, not Ray's start-up
                size = args.batch or batch_size(config)
                for reports, added in play_tournament(config, store, league, runner, size):
                    stored += added
                    played_deals += sum(report.deals for report in reports)
                    rate = played_deals / max(time.perf_counter() - started, 1e-9)
                    progress.update(bar, advance=len(reports), rate=f"{rate:,.0f} deals/s")
        except KeyboardInterrupt as interrupt:
            store.set_tournament_status(config.id, "pending")  # resumable, not running
            stop = stops.stopped(interrupt)
            log.warning("tournament_interrupted", stored=stored, signal=stop.name)
            raise Interrupted(stop, stored) from None
        except BaseException:  # failed (Ray, the store): resumable, not running
            store.set_tournament_status(config.id, "pending")
            raise
        kept = len(store.match_ids(config.id))
        if kept != total:  # never expected: a tournament ends with its definition's matches
            raise ArenaError(
                f"tournament {config.id}: {counted(kept, 'match')} stored, the definition has "
                f"{total}"
            )
        store.set_tournament_status(config.id, "finished")
        log.info("tournament_finished", stored=stored, deals=played_deals)
    return stored


def batch_size(config: TournamentConfig) -> int:
    """Matches per Ray task: about a tenth of a second of work or more (~5 ms a deal)."""
    deals = config.deals or 30
    return max(1, 20 // deals)
