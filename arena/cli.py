"""The ``arena`` command line: each command module adds its parser; ``main`` runs the
chosen command's handler and turns the arena's errors into one line and exit status 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from arena.commands import (
    DEFAULT_DB,
    Subcommands,
    admin,
    balance,
    bench,
    bot,
    compare,
    guandan_ws,
    leaderboard,
    matches,
    people,
    play,
    refuse,
    replay,
    rules,
    serve,
    store,
    tournament,
    web,
)
from arena.commands.arguments import ArenaParser
from arena.errors import ArenaError

__all__ = ["DEFAULT_DB", "build_parser", "main"]

COMMANDS: tuple[Callable[[Subcommands], None], ...] = (
    play.add_parser,
    replay.add_parser,
    tournament.add_parser,
    compare.add_parser,
    leaderboard.add_parser,
    matches.add_parser,
    rules.add_parser,
    bench.add_parser,
    balance.add_parser,
    serve.add_parser,
    web.add_parser,
    bot.add_parser,
    guandan_ws.add_parser,
    admin.add_parser,
    people.add_parser,
    store.add_parser,
)
"""Each command's ``add_parser``, in the order ``arena --help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = ArenaParser(
        prog="arena",
        description="Bots play Chinese partnership card games: rules engines, matches, replays.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add_parser in COMMANDS:
        add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        from arena.log import configure as configure_logging

        # In a terminal, a command's info events would repeat what it shows people;
        # a command whose output is its log (serve) sets ``terminal_log_level`` to None.
        configure_logging(terminal_level=getattr(args, "terminal_log_level", "warning"))
        return handler(args)
    except ArenaError as err:
        return refuse(str(err))
    except BrokenPipeError:
        sys.stderr.close()  # the reader went away (e.g. `| head`): nothing more to say
        return 0
    except KeyboardInterrupt as interrupt:  # Ctrl-C, or SIGTERM/SIGHUP during a run on Ray
        from arena.sim.stopping import stopped

        stop = stopped(interrupt)
        print(f"arena: interrupted by {stop.name}", file=sys.stderr)
        return stop.exit_code


if __name__ == "__main__":
    sys.exit(main())
