"""``arena replay FILE``: re-play a record and check every action and result."""

from __future__ import annotations

import argparse

from arena.replay import MatchRecord, verify


def run_replay(args: argparse.Namespace) -> int:
    record = MatchRecord.load(args.file)
    report = verify(record)
    winner = report.result["match_winner"]
    ending = f"team {winner} won the match" if winner is not None else "no match winner"
    print(
        f"{args.file}: {record.game}, {report.deals} deal(s), {report.actions} actions, "
        f"all legal, same results; {ending}"
    )
    return 0
