"""``arena matches``: the stored matches, newest first, as a table or JSON.

Each row names the match (its id is what ``arena replay ID`` and the Admin and
Leaderboard services take; a tournament's match ids start with the tournament's),
when it ended, its variant, the players by index (players 0 and 2 are a team, 1 and 3
the other; in sanfu each deal makes its own partnerships), its result, its deals and
why it ended.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.commands import Subcommands, add_db_argument, arguments, print_json
from arena.sim.tournament import find_stored
from arena.store import Store, StoredMatch

DEFAULT_LIMIT = 50
WIDTH_NOT_A_TERMINAL = 160


def add_parser(sub: Subcommands) -> None:
    """``arena matches [--tournament ID] [--variant V] [--bot NAME] [--limit N]``."""
    parser = sub.add_parser(
        "matches",
        help="the stored matches, newest first: ids, players, results",
        description="List the stored matches, newest first. Filters combine.",
    )
    parser.add_argument(
        "--tournament", metavar="ID|NAME", help="only this tournament's matches (its id or name)"
    )
    parser.add_argument("--variant", type=arguments.variant, help="only this variant's")
    parser.add_argument("--bot", type=arguments.bot, help="only those this bot played in")
    parser.add_argument(
        "--limit",
        type=arguments.count,
        default=DEFAULT_LIMIT,
        help=f"at most this many (default {DEFAULT_LIMIT})",
    )
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="JSON for machines")
    parser.set_defaults(handler=run_matches)


def row(match: StoredMatch) -> dict[str, Any]:
    """A match as JSON-ready data."""
    totals = match.outcome.get("totals")
    return {
        "id": match.id,
        "finished_at": match.finished_at,
        "variant": match.variant,
        "tournament": match.tournament_id,
        "players": list(match.seating),
        "winner_team": match.winner_team,
        "totals": totals if isinstance(totals, list) else [],
        "deals": match.deals,
        "end": match.end_reason,
    }


def result_text(data: dict[str, Any]) -> str:
    """The result for people: the winning team, else each player's total."""
    team = data["winner_team"]
    players = data["players"]
    if team is not None:
        return f"team {team} ({players[team]} & {players[team + 2]}) won"
    totals = data["totals"]
    if not totals:
        return "—"
    return "no winner; totals " + " ".join(f"{total:+d}" for total in totals)


def _when(text: str | None) -> str:
    if not text:
        return "—"
    return datetime.fromisoformat(text).strftime("%Y-%m-%d %H:%M")


def render(rows: list[dict[str, Any]], title: str) -> Table:
    """The rows as a table; with a status column when they have a status."""
    statuses = any("status" in data for data in rows)
    table = Table(title=title)
    table.add_column("id", no_wrap=True)  # whole, to be copied into other commands
    if statuses:
        table.add_column("status", no_wrap=True)
    table.add_column("ended", no_wrap=True)
    table.add_column("variant", no_wrap=True)
    for column in ("players 0 1 2 3", "result"):
        table.add_column(column, overflow="fold")
    table.add_column("deals", justify="right")
    table.add_column("end")
    for data in rows:
        table.add_row(
            data["id"],
            *([data.get("status", "")] if statuses else []),
            _when(data["finished_at"]),
            data["variant"],
            " · ".join(data["players"]),
            result_text(data),
            str(data["deals"]),
            data["end"] or "—",
        )
    return table


def print_table(rows: list[dict[str, Any]], title: str, limit: int) -> None:
    """The rows for people (whole lines when not a terminal, for a pager or a file)."""
    if not rows:
        print(f"{title}: none")
        return
    wide = None if sys.stdout.isatty() else WIDTH_NOT_A_TERMINAL
    Console(width=wide).print(render(rows, title))
    if len(rows) == limit:
        print(f"the latest {limit} shown; --limit N for more")


def run_matches(args: argparse.Namespace) -> int:
    with Store.open(args.db, read_only=True) as store:
        where = store.path
        tournament = None if args.tournament is None else find_stored(store, args.tournament).id
        found = store.latest_matches(
            variant=args.variant, tournament_id=tournament, bot=args.bot, limit=args.limit
        )
    rows = [row(match) for match in found]
    if args.json:
        print_json({"matches": rows})
        return 0
    print_table(rows, f"matches stored in {where}, newest first (times UTC)", args.limit)
    return 0
