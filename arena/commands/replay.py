"""``arena replay FILE``: re-play a record and check every action and result."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.commands import Subcommands, add_db_argument
from arena.replay import MatchRecord, verify
from arena.store import Store


def add_parser(sub: Subcommands) -> None:
    """``arena replay FILE|ID``: re-play a record and check it."""
    parser = sub.add_parser("replay", help="re-play a match record and check it")
    parser.add_argument(
        "file", help="a record written by 'arena play --record', or the id of a stored match"
    )
    add_db_argument(parser)
    parser.set_defaults(handler=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    record = _stored(args.file, args.db) or MatchRecord.load(args.file)
    report = verify(record)
    winner = report.result["match_winner"]
    ending = f"team {winner} won the match" if winner is not None else "no match winner"
    print(
        f"{args.file}: {record.game}, {report.deals} deal(s), {report.actions} actions, "
        f"all legal, same results; {ending}"
    )
    return 0


def _stored(match_id: str, db: str) -> MatchRecord | None:
    """The record of a stored match, if ``match_id`` names one (and is not a file)."""
    if Path(match_id).exists() or not Path(db).exists():
        return None
    with Store.open(db) as store:
        match = store.match(match_id)
    return None if match is None else MatchRecord.from_dict(match.record)
