"""``arena leaderboard``: ratings of a variant, or of one tournament's matches, as a table
or JSON.

A variant's leaderboard shows the ratings the store keeps (every rated match of the
variant) for its bots; ``--people`` shows its people's pool instead: the people's rated
tables, and the bots that sat at them (:mod:`arena.rating.pools`). A tournament's is
rated afresh from that tournament's matches alone, in the order they were stored, so it
does not depend on what the bots did elsewhere. Matches cut short (cancelled, server
shut down) count in neither.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.commands import Subcommands, add_db_argument, arguments, print_json
from arena.errors import ConfigError
from arena.rating import wilson_interval
from arena.rating.pools import is_person, people_pool
from arena.sim.league import Ratings
from arena.sim.tournament import find_stored
from arena.store import Store, StoredMatch


def add_parser(sub: Subcommands) -> None:
    """``arena leaderboard --variant V | --tournament ID``."""
    parser = sub.add_parser(
        "leaderboard",
        help="ratings of a variant, or of one tournament's matches",
        description="The bots' ratings in a variant (as stored), or rated afresh from one "
        "tournament's matches only (--tournament; 'arena matches' shows the ids).",
    )
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--variant", type=arguments.variant, help="game variant, e.g. guandan")
    which.add_argument(
        "--tournament", metavar="ID|NAME", help="a tournament's id or its definition's name"
    )
    parser.add_argument(
        "--people",
        action="store_true",
        help="the variant's people's pool: people's rated tables, apart from the bots' league",
    )
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="JSON for machines")
    parser.set_defaults(handler=run_leaderboard)


def counted(matches: Iterable[StoredMatch]) -> Iterable[StoredMatch]:
    """The matches played out (not cut short by an operator or a shutdown)."""
    return (match for match in matches if "aborted" not in match.outcome)


def leaderboard(store: Store, variant: str, people: bool = False) -> list[dict[str, Any]]:
    """One row per bot, best Elo first: Elo, OpenSkill μ−3σ, matches, win rate (95% CI).
    ``people``: the people's pool's rows (its rated matches), else the bots' (no person
    who sat at a casual table among them)."""
    matches = list(counted(store.matches(variant=variant)))
    if people:
        pool = people_pool(variant)
        rated = store.rated_match_ids(pool)
        return rows([m for m in matches if m.id in rated], Ratings.stored(store, pool))
    return rows(matches, Ratings.stored(store, variant), bots_only=True)


def tournament_leaderboard(store: Store, tournament_id: str) -> tuple[str, list[dict[str, Any]]]:
    """The variant of a tournament (by id or name) and its rows, rated from its own
    matches only."""
    tournament = find_stored(store, tournament_id)
    matches = list(counted(store.matches(tournament_id=tournament.id)))
    ratings = Ratings(tournament.variant)
    for match in matches:
        ratings.apply(ratings.rate(match.seating, team_score(match), match.record))
    return tournament.variant, rows(matches, ratings)


def team_score(match: StoredMatch) -> float:
    """Team 0's result (players 0 and 2): 1 win, 0 loss, 0.5 even."""
    return float(match.outcome["team_score"])


def rows(
    matches: list[StoredMatch], ratings: Ratings, bots_only: bool = False
) -> list[dict[str, Any]]:
    """The leaderboard's rows: ``ratings`` and each bot's results in ``matches``
    (``bots_only``: no row for a person who sat at a table)."""
    scores: dict[str, list[float]] = defaultdict(list)
    for match in matches:
        score = team_score(match)
        team_a = {match.seating[0], match.seating[2]}
        team_b = {match.seating[1], match.seating[3]}
        for bot in team_a - team_b:  # a bot on both sides learns nothing from the result
            scores[bot].append(score)
        for bot in team_b - team_a:
            scores[bot].append(1.0 - score)
    table = []
    for bot in sorted(set(scores) | set(ratings.elo) | set(ratings.skill) | set(ratings.room)):
        if bots_only and is_person(bot):
            continue
        results = scores.get(bot, [])
        wins = sum(results)
        low, high = wilson_interval(wins, len(results)) if results else (0.0, 1.0)
        skill = ratings.skill.get(bot)
        table.append(
            {
                "bot": bot,
                "elo": ratings.elo.get(bot),
                "openskill": None if skill is None else skill.conservative,
                "room": ratings.room.get(bot),
                "mu": None if skill is None else skill.mu,
                "sigma": None if skill is None else skill.sigma,
                "matches": len(results),
                "win_rate": wins / len(results) if results else None,
                "win_rate_95": [low, high],
            }
        )
    table.sort(key=_by_elo)
    for rank, row in enumerate(table, start=1):
        row["rank"] = rank
    return table


def _by_elo(row: dict[str, Any]) -> float:
    elo = row["elo"]
    return -float(elo) if elo is not None else float("inf")


def print_leaderboard(
    db: str,
    variant: str | None,
    as_json: bool,
    tournament: str | None = None,
    people: bool = False,
) -> None:
    """The leaderboard of ``variant`` (its bots', or ``people``'s), or of ``tournament``
    when given, read from ``db``."""
    if people and tournament is not None:
        raise ConfigError(
            "--people names a variant's people's pool: give --variant, not --tournament"
        )
    with Store.open(db, read_only=True) as store:
        if tournament is not None:
            found = find_stored(store, tournament)
            variant, table = tournament_leaderboard(store, found.id)
            tournament = found.id
            title = f"standings of tournament {found.id} ({variant})"
        elif variant is not None:
            table = leaderboard(store, variant, people)
            title = f"{variant} {'people leaderboard' if people else 'leaderboard'}"
        else:
            raise ConfigError("name a variant (--variant) or a tournament (--tournament)")
    if as_json:
        data = {"variant": variant, "tournament": tournament, "people": people, "bots": table}
        print_json(data)
        return
    if not table:
        print(f"{title}: no matches stored yet")
        return
    Console().print(render(title, table))


def render(title: str, table: list[dict[str, Any]]) -> Table:
    """The rows as a rich table."""
    shown = Table(title=title)
    room = any(row["room"] is not None for row in table)  # Shengji leagues (SJ-32)
    columns = ["rank", "bot", "Elo", "OpenSkill μ−3σ", *(["room points"] if room else [])]
    for column in (*columns, "matches", "win rate (95%)"):
        shown.add_column(column, justify="left" if column == "bot" else "right")
    for row in table:
        win = row["win_rate"]
        low, high = row["win_rate_95"]
        cells = [
            str(row["rank"]),
            row["bot"],
            "—" if row["elo"] is None else f"{row['elo']:.0f}",
            "—" if row["openskill"] is None else f"{row['openskill']:.2f}",
        ]
        if room:
            cells.append("—" if row["room"] is None else f"{row['room']:+.0f}")
        cells += [str(row["matches"]), "—" if win is None else f"{win:.1%} [{low:.1%}, {high:.1%}]"]
        shown.add_row(*cells)
    return shown


def run_leaderboard(args: argparse.Namespace) -> int:
    print_leaderboard(args.db, args.variant, args.json, args.tournament, args.people)
    return 0
