"""``arena leaderboard``: ratings of a variant, as a table or JSON."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from typing import Any

from rich.console import Console
from rich.table import Table

from arena.commands import Subcommands, add_db_argument
from arena.rating import wilson_interval
from arena.sim.league import ELO, OPENSKILL, ROOM
from arena.store import Store


def leaderboard(store: Store, variant: str) -> list[dict[str, Any]]:
    """One row per bot, best Elo first: Elo, OpenSkill μ−3σ, matches, win rate (95% CI)."""
    scores: dict[str, list[float]] = defaultdict(list)
    for match in store.matches(variant=variant):
        score = float(match.outcome["team_score"])
        team_a = {match.seating[0], match.seating[2]}
        team_b = {match.seating[1], match.seating[3]}
        for bot in team_a - team_b:  # a bot on both sides learns nothing from the result
            scores[bot].append(score)
        for bot in team_b - team_a:
            scores[bot].append(1.0 - score)
    ratings: dict[str, dict[str, Any]] = defaultdict(dict)
    for rating in store.ratings(variant):
        if rating.system == ELO:
            ratings[rating.bot]["elo"] = rating.value
        elif rating.system == OPENSKILL and rating.sigma is not None:
            ratings[rating.bot]["mu"] = rating.value
            ratings[rating.bot]["sigma"] = rating.sigma
        elif rating.system == ROOM:
            ratings[rating.bot]["room"] = rating.value
    rows = []
    for bot in sorted(set(scores) | set(ratings)):
        results = scores.get(bot, [])
        wins = sum(results)
        low, high = wilson_interval(wins, len(results)) if results else (0.0, 1.0)
        r = ratings.get(bot, {})
        mu, sigma = r.get("mu"), r.get("sigma")
        rows.append(
            {
                "bot": bot,
                "elo": r.get("elo"),
                "openskill": None if mu is None or sigma is None else mu - 3 * sigma,
                "room": r.get("room"),
                "mu": mu,
                "sigma": sigma,
                "matches": len(results),
                "win_rate": wins / len(results) if results else None,
                "win_rate_95": [low, high],
            }
        )
    rows.sort(key=_by_elo)
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


def _by_elo(row: dict[str, Any]) -> float:
    elo = row["elo"]
    return -float(elo) if elo is not None else float("inf")


def print_leaderboard(db: str, variant: str, as_json: bool) -> None:
    with Store.open(db) as store:
        rows = leaderboard(store, variant)
    if as_json:
        print(json.dumps({"variant": variant, "bots": rows}, ensure_ascii=False))
        return
    table = Table(title=f"{variant} leaderboard")
    room = any(row["room"] is not None for row in rows)  # Shengji leagues (SJ-32)
    columns = ["rank", "bot", "Elo", "OpenSkill μ−3σ", *(["room points"] if room else [])]
    for column in (*columns, "matches", "win rate (95%)"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in rows:
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
        table.add_row(*cells)
    Console().print(table)


def add_parser(sub: Subcommands) -> None:
    """``arena leaderboard --variant V``: the ratings table."""
    parser = sub.add_parser("leaderboard", help="ratings of a variant")
    parser.add_argument("--variant", required=True, help="game variant, e.g. guandan")
    add_db_argument(parser)
    parser.add_argument("--json", action="store_true", help="JSON for machines")
    parser.set_defaults(handler=run_leaderboard)


def run_leaderboard(args: argparse.Namespace) -> int:
    print_leaderboard(args.db, args.variant, args.json)
    return 0
