"""The SQLite schema's history before Alembic: versions 1 to 8 (``PRAGMA user_version``),
each the statements that took a store from the version before to it.

A store an older arena left at version 1 to 7 is brought to version 8 by them on open,
every row kept, in the same transaction that then hands it to Alembic (whose first
revision is version 8). The statements are history: they never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from arena.store.database import Write
from arena.store.rows import MATCH_COLUMNS
from arena.store.summaries import insert_summary, summarised
from arena.store.values import PAGE

SCHEMA_V1: Final = (
    """CREATE TABLE bots (
        name TEXT PRIMARY KEY NOT NULL CHECK (name <> ''),
        kind TEXT NOT NULL,
        owner TEXT,
        version TEXT,
        created_at TEXT NOT NULL
    )""",
    """CREATE TABLE tournaments (
        id TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
        name TEXT NOT NULL,
        variant TEXT NOT NULL,
        options_json TEXT NOT NULL,
        config_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('pending', 'running', 'finished', 'aborted'))
    )""",
    """CREATE TABLE matches (
        id TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
        tournament_id TEXT REFERENCES tournaments (id),
        variant TEXT NOT NULL,
        options_json TEXT NOT NULL,
        seed INTEGER,
        seating_json TEXT NOT NULL,
        outcome_json TEXT NOT NULL,
        record_json TEXT NOT NULL,
        deals INTEGER NOT NULL CHECK (deals >= 0),
        decisions INTEGER NOT NULL CHECK (decisions >= 0),
        finished_at TEXT NOT NULL
    )""",
    "CREATE INDEX matches_tournament ON matches (tournament_id)",
    "CREATE INDEX matches_variant ON matches (variant)",
    """CREATE TABLE ratings (
        bot TEXT NOT NULL REFERENCES bots (name),
        variant TEXT NOT NULL,
        system TEXT NOT NULL CHECK (system IN ('elo', 'openskill', 'room')),
        value REAL NOT NULL,
        sigma REAL,
        matches INTEGER NOT NULL CHECK (matches >= 0),
        updated_at TEXT NOT NULL,
        PRIMARY KEY (bot, variant, system)
    )""",
    """CREATE TABLE rating_history (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id TEXT NOT NULL REFERENCES matches (id),
        bot TEXT NOT NULL,
        variant TEXT NOT NULL,
        system TEXT NOT NULL,
        "before" REAL,
        after REAL NOT NULL,
        sigma REAL,
        at TEXT NOT NULL,
        FOREIGN KEY (bot, variant, system) REFERENCES ratings (bot, variant, system)
    )""",
    "CREATE INDEX rating_history_key ON rating_history (bot, variant, system, id)",
    "CREATE INDEX rating_history_match ON rating_history (match_id)",
)

SCHEMA_V2: Final = (
    """CREATE TABLE tokens (
        token_id TEXT PRIMARY KEY NOT NULL CHECK (token_id <> ''),
        bot TEXT REFERENCES bots (name),
        hash TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('bot', 'admin')),
        created_at TEXT NOT NULL,
        revoked_at TEXT,
        CHECK ((kind = 'bot') = (bot IS NOT NULL))
    )""",
    "CREATE INDEX tokens_bot ON tokens (bot)",
)

SCHEMA_V3: Final = ("ALTER TABLE bots ADD COLUMN games_json TEXT",)

SCHEMA_V4: Final = (
    """CREATE TABLE rounds (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        number INTEGER NOT NULL CHECK (number >= 0),
        pairings_json TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (tournament_id, number)
    )""",
)

SCHEMA_V5: Final = (
    "ALTER TABLE bots ADD COLUMN description TEXT",
    "ALTER TABLE bots ADD COLUMN owner_name TEXT",
)

SCHEMA_V6: Final = (
    """CREATE TABLE match_summaries (
        number INTEGER PRIMARY KEY,
        id TEXT NOT NULL REFERENCES matches (id),
        variant TEXT NOT NULL,
        tournament_id TEXT,
        options_json TEXT NOT NULL,
        players_json TEXT NOT NULL,
        result TEXT NOT NULL CHECK (result IN ('team0', 'team1', 'draw', 'aborted')),
        winner_team INTEGER,
        totals_json TEXT NOT NULL,
        deals INTEGER NOT NULL,
        end_reason TEXT NOT NULL,
        rated INTEGER NOT NULL,
        auto_plays INTEGER NOT NULL,
        flights INTEGER NOT NULL,
        finished_at TEXT NOT NULL
    )""",
    "CREATE UNIQUE INDEX match_summaries_id ON match_summaries (id)",
    "CREATE INDEX match_summaries_variant ON match_summaries (variant, number)",
    "CREATE INDEX match_summaries_tournament ON match_summaries (tournament_id, number)",
    "CREATE INDEX match_summaries_result ON match_summaries (result, number)",
    "CREATE INDEX match_summaries_finished ON match_summaries (finished_at)",
    """CREATE TABLE match_players (
        number INTEGER NOT NULL REFERENCES match_summaries (number),
        seat INTEGER NOT NULL CHECK (seat >= 0),
        bot TEXT NOT NULL,
        variant TEXT NOT NULL,
        team INTEGER NOT NULL CHECK (team IN (0, 1)),
        score REAL CHECK (score IN (0, 0.5, 1)),
        PRIMARY KEY (number, seat)
    ) WITHOUT ROWID""",
    "CREATE INDEX match_players_bot ON match_players (bot, number)",
    """CREATE TABLE bot_results (
        variant TEXT NOT NULL,
        bot TEXT NOT NULL,
        wins INTEGER NOT NULL CHECK (wins >= 0),
        draws INTEGER NOT NULL CHECK (draws >= 0),
        losses INTEGER NOT NULL CHECK (losses >= 0),
        PRIMARY KEY (variant, bot)
    ) WITHOUT ROWID""",
    "CREATE INDEX bot_results_bot ON bot_results (bot)",
    "CREATE INDEX ratings_rank ON ratings (variant, system, value)",
)

SCHEMA_V7: Final = (
    """CREATE TABLE balance_runs (
        id TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
        definition_json TEXT NOT NULL,
        command TEXT NOT NULL,
        status TEXT NOT NULL
            CHECK (status IN ('running', 'interrupted', 'failed', 'finished')),
        report_json TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    )""",
    """CREATE TABLE balance_batches (
        run_id TEXT NOT NULL REFERENCES balance_runs (id),
        variant INTEGER NOT NULL CHECK (variant >= 0),
        number INTEGER NOT NULL CHECK (number >= 0),
        deals INTEGER NOT NULL CHECK (deals >= 0),
        counts_json TEXT NOT NULL,
        stored_at TEXT NOT NULL,
        PRIMARY KEY (run_id, variant, number)
    ) WITHOUT ROWID""",
)

SCHEMA_V8: Final = (
    """CREATE TABLE people (
        player TEXT PRIMARY KEY NOT NULL REFERENCES bots (name),
        password_hash TEXT NOT NULL CHECK (password_hash <> ''),
        created_at TEXT NOT NULL
    )""",
)

MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    1: SCHEMA_V1,
    2: SCHEMA_V2,
    3: SCHEMA_V3,
    4: SCHEMA_V4,
    5: SCHEMA_V5,
    6: SCHEMA_V6,
    7: SCHEMA_V7,
    8: SCHEMA_V8,
}
"""Statements taking the schema from version ``n - 1`` to version ``n``."""


def _fill_summaries(conn: Write) -> None:
    """Schema 6: a summary and players for every match stored before, in stored order."""
    last = 0
    while True:
        rows = conn.execute(
            f"SELECT rowid, {MATCH_COLUMNS}, EXISTS (SELECT 1 FROM rating_history h "
            "WHERE h.match_id = matches.id) AS rated FROM matches WHERE rowid > :last "
            f"ORDER BY rowid LIMIT {PAGE}",
            {"last": last},
        ).mappings()
        for row in rows:
            insert_summary(conn, summarised(row), bool(row["rated"]), row["finished_at"])
        if len(rows) < PAGE:
            return
        last = rows[-1]["rowid"]


FILLS: Final[dict[int, Callable[[Write], None]]] = {6: _fill_summaries}
"""What fills the tables version ``n`` adds from the rows stored before."""


def upgrade(conn: Write, version: int, target: int) -> None:
    """Take the store from ``version`` to ``target`` (inside the caller's transaction)."""
    for step in range(version + 1, target + 1):
        for statement in MIGRATIONS[step]:
            conn.execute(statement)
        fill = FILLS.get(step)
        if fill is not None:
            fill(conn)
