"""One module per ``arena`` subcommand: its ``add_parser`` declares the arguments and
sets ``handler``, the function that turns the parsed arguments into output."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TypeAlias

from arena.commands import arguments
from arena.commands.arguments import ArenaParser, database
from arena.commands.numbers import json_ready
from arena.inputs import one_line

EXIT_USAGE = 2
"""Exit status for bad input (a one-line message on stderr says what was wrong)."""

DEFAULT_DB = "arena.sqlite"
"""The store of the commands that take ``--db``."""

Subcommands: TypeAlias = "argparse._SubParsersAction[ArenaParser]"
"""What ``add_subparsers`` returns: each command module's ``add_parser`` adds itself to it."""


def refuse(message: str) -> int:
    """Say on stderr, in one line of sane length, why the input was refused; return the
    exit status for it."""
    print(f"arena: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE


def print_json(data: object) -> None:
    """``data`` as one line of standard JSON (an infinite number is null)."""
    print(json.dumps(json_ready(data), ensure_ascii=False, allow_nan=False))


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """``--db FILE``, the store (default ``arena.sqlite``)."""
    parser.add_argument(
        "--db", type=database, default=DEFAULT_DB, help=f"the store (default {DEFAULT_DB})"
    )


def add_clock_arguments(parser: argparse.ArgumentParser) -> None:
    """A seat's clock: ``--decision-seconds``, ``--time-bank`` and ``--grace``."""
    parser.add_argument(
        "--decision-seconds",
        type=arguments.seconds,
        default=10.0,
        help="time per decision (10; sanfu: 30)",
    )
    parser.add_argument(
        "--time-bank",
        type=arguments.seconds_or_zero,
        default=60.0,
        help="seconds of bank a seat (60)",
    )
    parser.add_argument(
        "--grace",
        type=arguments.seconds_or_zero,
        default=30.0,
        help="seconds a lost seat waits for its bot (30)",
    )
