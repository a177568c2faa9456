"""``arena replay FILE|ID``: re-play a record (a file, or a stored match) and check it
as a whole; ``--log`` prints the match's readable log, as ``arena play`` does."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.commands import Subcommands, add_db_argument
from arena.commands.play import Narrator, print_match_end, print_match_start
from arena.errors import ConfigError
from arena.games import make
from arena.inputs import shown
from arena.plural import counted
from arena.record import MatchRecord
from arena.replay import ReplayReport, verify, verify_stored
from arena.store import Store
from arena.store.postgres import is_url

MAX_SHOWN = 300
"""A name longer than this is quoted shortened in messages."""


def add_parser(sub: Subcommands) -> None:
    """``arena replay FILE|ID``: re-play a record and check it."""
    parser = sub.add_parser(
        "replay",
        help="re-play a match record and check it",
        description="Re-play a record through the rules and check it as a whole: every "
        "action legal, every result the same, deals following each other from the match "
        "seed, clock marks where a clock was; a stored match's record also against the "
        "store (game, options, seed, players).",
    )
    parser.add_argument(
        "file", help="a record written by 'arena play --record', or the id of a stored match"
    )
    parser.add_argument(
        "--log", action="store_true", help="print the match's readable log (as 'arena play')"
    )
    add_db_argument(parser)
    parser.set_defaults(handler=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    record, report = _checked(args.file, args.db)
    if args.log:
        _print_log(record, report)
    print(f"{args.file}: {_verdict(record, report)}")
    return 0


def _checked(source: str, db: str) -> tuple[MatchRecord, ReplayReport]:
    """The record named by ``source`` (a file, else a stored match) and its replay."""
    if _is_path(source):
        record = MatchRecord.load(source)
        return record, verify(record)
    named = repr(source) if len(source) <= MAX_SHOWN else shown(source)
    missing = f"cannot read record {named}: no such file"
    if not is_url(db) and not Path(db).exists():
        raise ConfigError(f"{missing}, and no store {db} to find a match of that id in")
    with Store.open(db, read_only=True) as store:
        match = store.match(source)
        if match is None:
            raise ConfigError(f"{missing}, and no match of that id in the store {store.path}")
    return verify_stored(match)


def _is_path(source: str) -> bool:
    """Whether ``source`` names something on disk (else it may be a match id)."""
    try:
        return Path(source).exists()
    except (OSError, ValueError):  # a name too long for a path, a NUL byte
        return False


def _print_log(record: MatchRecord, report: ReplayReport) -> None:
    """The log ``arena play`` prints while playing, from the checked record."""
    game = make(record.game, **record.options)
    narrator = Narrator(game, record.players, quiet=False)
    print_match_start(game, record.seed, record.players)
    verify(record, on_event=narrator.on_event)
    narrator.flush()
    print_match_end(game, record.players, report.outcomes, report.result)
    if record.aborted is not None:
        print(f"cut short: {record.aborted}")
    print()


def _verdict(record: MatchRecord, report: ReplayReport) -> str:
    winner = report.result["match_winner"]
    if record.aborted is not None:
        ending = f"cut short ({record.aborted})"
    elif winner is not None:
        ending = f"team {winner} won the match"
    else:
        ending = "no match winner"
    return (
        f"{record.game}, {counted(report.deals, 'deal')}, {counted(report.actions, 'action')}, "
        f"all legal, same results; {ending}"
    )
