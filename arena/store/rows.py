"""Between values and rows: JSON text, times, and the rows read back as values."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any, Final

from arena.store.database import AnyRow
from arena.store.values import (
    BalanceRun,
    Bot,
    MatchListing,
    StoredMatch,
    StoreError,
    Tournament,
)

MATCH_COLUMNS: Final = (
    "id, tournament_id, variant, options_json, seed, seating_json, outcome_json, "
    "record_json, deals, decisions, finished_at"
)
SUMMARY_COLUMNS: Final = (
    "id, variant, tournament_id, options_json, players_json, result, winner_team, "
    "totals_json, deals, end_reason, rated, auto_plays, flights, finished_at"
)
BOT_COLUMNS: Final = "name, kind, owner, version, created_at, games_json, description, owner_name"
TOURNAMENT_COLUMNS: Final = "id, name, variant, options_json, config_json, status, created_at"


def in_bytes(column: str, dialect: str) -> str:
    """``column`` compared by its characters' codes, as SQLite compares text, whatever
    the database's collation (PostgreSQL's follows its locale by default: a language's
    order of letters, case and punctuation weighed after them)."""
    return f'{column} COLLATE "C"' if dialect == "postgresql" else column


def now() -> str:
    """The current UTC time as stored (ISO 8601, microseconds)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def dumps(value: object, what: str) -> str:
    """Compact JSON text of ``value``; a StoreError naming ``what`` if it is not JSON-ready."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as err:
        raise StoreError(f"{what} is not JSON-ready: {err}") from None


def loads(text: str) -> Any:
    """Stored JSON text; a :class:`StoreError` if it cannot be read back (a store changed
    by hand: numbers of thousands of digits, nesting deeper than Python follows)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        raise StoreError(f"stored JSON cannot be read: {err}") from None


def bot_from_row(row: AnyRow) -> Bot:
    games = row.games_json
    return Bot(
        name=row.name,
        kind=row.kind,
        owner=row.owner,
        version=row.version,
        created_at=row.created_at,
        games=None if games is None else tuple(loads(games)),
        description=row.description,
        owner_name=row.owner_name,
    )


def tournament_from_row(row: AnyRow) -> Tournament:
    return Tournament(
        id=row.id,
        name=row.name,
        variant=row.variant,
        options=loads(row.options_json),
        config=loads(row.config_json),
        status=row.status,
        created_at=row.created_at,
    )


def balance_run_from_row(row: AnyRow) -> BalanceRun:
    report = row.report_json
    return BalanceRun(
        id=row.id,
        definition=loads(row.definition_json),
        command=row.command,
        status=row.status,
        report=None if report is None else loads(report),
        created_at=row.created_at,
        updated_at=row.updated_at,
        batches=row.batches,
        deals=row.deals,
    )


def match_from_row(row: AnyRow) -> StoredMatch:
    return StoredMatch(
        id=row.id,
        tournament_id=row.tournament_id,
        variant=row.variant,
        options=loads(row.options_json),
        seed=row.seed,
        seating=tuple(loads(row.seating_json)),
        outcome=loads(row.outcome_json),
        record=loads(row.record_json),
        deals=row.deals,
        decisions=row.decisions,
        finished_at=row.finished_at,
    )


def listing_from_row(row: AnyRow) -> MatchListing:
    return MatchListing(
        number=row.number,
        id=row.id,
        variant=row.variant,
        tournament_id=row.tournament_id,
        options=loads(row.options_json),
        players=tuple(loads(row.players_json)),
        result=row.result,
        winner_team=row.winner_team,
        totals=tuple(loads(row.totals_json)),
        deals=row.deals,
        end_reason=row.end_reason,
        rated=bool(row.rated),
        auto_plays=row.auto_plays,
        flights=row.flights,
        finished_at=row.finished_at,
    )


def tally(score: str) -> str:
    """The won, drawn and lost matches among rows whose ``score`` column is 1, 0.5, 0."""
    return ", ".join(
        f"sum(CASE WHEN {score} = {value} THEN 1 ELSE 0 END)" for value in ("1", "0.5", "0")
    )
