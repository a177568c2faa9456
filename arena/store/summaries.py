"""What lists read without opening records: a stored match's row of ``match_summaries``,
its rows of ``match_players`` and its count in ``bot_results``, written with the match."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.store.database import Write, run
from arena.store.rows import SUMMARY_COLUMNS, dumps, loads
from arena.store.values import AUTO_ENTRY, FLED_ENTRY, StoredMatch, StoreError, match_result

_SUMMARY_PARAMS = ", ".join(f":{column}" for column in SUMMARY_COLUMNS.split(", "))


def _entries(record: dict[str, Any], mark: str) -> int:
    """How many of the record's entries are the clock mark ``mark``."""
    deals = record.get("deals")
    count = 0
    for deal in deals if isinstance(deals, list) else ():
        actions = deal.get("actions") if isinstance(deal, dict) else None
        for entry in actions if isinstance(actions, list) else ():
            if isinstance(entry, str) and (entry == mark or entry.startswith(mark + " ")):
                count += 1
    return count


def _summary_row(match: StoredMatch, rated: bool, finished_at: str) -> dict[str, Any]:
    """The ``match_summaries`` row of a match (without its number)."""
    given = match.outcome.get("totals")
    totals = [t for t in given if isinstance(t, int)] if isinstance(given, list) else []
    return {
        "id": match.id,
        "variant": match.variant,
        "tournament_id": match.tournament_id,
        "options_json": dumps(match.options, f"match {match.id!r}: options"),
        "players_json": dumps(list(match.seating), f"match {match.id!r}: seating"),
        "result": match_result(match.outcome),
        "winner_team": match.winner_team,
        "totals_json": dumps(totals, f"match {match.id!r}: totals"),
        "deals": match.deals,
        "end_reason": match.end_reason,
        "rated": int(rated),
        "auto_plays": _entries(match.record, AUTO_ENTRY),
        "flights": _entries(match.record, FLED_ENTRY),
        "finished_at": finished_at,
    }


def _player_rows(number: int, match: StoredMatch, result: str) -> list[dict[str, Any]]:
    """The ``match_players`` rows of a match: each bot's result on its first seat."""
    teams: dict[str, set[int]] = {}
    for seat, bot in enumerate(match.seating):
        teams.setdefault(bot, set()).add(seat % 2)
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    for seat, bot in enumerate(match.seating):
        team = seat % 2
        score: float | None = None
        if result != "aborted" and len(teams[bot]) == 1 and bot not in seen:
            score = 0.5 if result == "draw" else 1.0 if result == f"team{team}" else 0.0
        seen.add(bot)
        rows.append(
            {
                "number": number,
                "seat": seat,
                "bot": bot,
                "variant": match.variant,
                "team": team,
                "score": score,
            }
        )
    return rows


def insert_summary(conn: Write, match: StoredMatch, rated: bool, at: str) -> None:
    """Add a stored match's summary and players (inside the caller's transaction)."""
    row = _summary_row(match, rated, at)
    number: int = run(
        conn,
        f"INSERT INTO match_summaries ({SUMMARY_COLUMNS}) VALUES ({_SUMMARY_PARAMS}) "
        "RETURNING number",
        row,
    ).scalar()
    players = _player_rows(number, match, row["result"])
    conn.many(
        "INSERT INTO match_players (number, seat, bot, variant, team, score) "
        "VALUES (:number, :seat, :bot, :variant, :team, :score)",
        players,
    )
    results: dict[str, tuple[int, int, int]] = {}  # each seated bot once
    for player in players:
        score = player["score"]
        counted = (int(score == 1), int(score == 0.5), int(score == 0))
        bot = player["bot"]
        results[bot] = counted if score is not None else results.get(bot, (0, 0, 0))
    conn.many(
        "INSERT INTO bot_results (variant, bot, wins, draws, losses) "
        "VALUES (:variant, :bot, :wins, :draws, :losses) "
        "ON CONFLICT (variant, bot) DO UPDATE SET wins = bot_results.wins + excluded.wins, "
        "draws = bot_results.draws + excluded.draws, "
        "losses = bot_results.losses + excluded.losses",
        [
            {"variant": match.variant, "bot": bot, "wins": w, "draws": d, "losses": lost}
            for bot, (w, d, lost) in results.items()
        ],
    )


def summarised(row: Mapping[str, Any]) -> StoredMatch:
    """A stored match as its summary reads it: JSON that cannot be read (a row changed
    by hand) counts as empty, so that the store still opens with every row listed."""

    def read(column: str, kind: type[dict[str, Any]] | type[list[Any]]) -> Any:
        try:
            value = loads(row[column])
        except StoreError:
            return kind()
        return value if isinstance(value, kind) else kind()

    seating = read("seating_json", list)
    return StoredMatch(
        id=row["id"],
        tournament_id=row["tournament_id"],
        variant=row["variant"],
        options=read("options_json", dict),
        seed=row["seed"],
        seating=tuple(name for name in seating if isinstance(name, str) and name),
        outcome=read("outcome_json", dict),
        record=read("record_json", dict),
        deals=row["deals"],
        decisions=row["decisions"],
        finished_at=row["finished_at"],
    )
