"""Schema 8: bots, people, tokens, tournaments and their rounds, matches and what lists
read of them, ratings and their history, balance runs (the schema ``arena.store``
describes; on SQLite, what the hand-written migrations 1 to 8 built).

Revision ID: schema_8
Revises: none (the first revision)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "schema_8"
down_revision = None
branch_labels = None
depends_on = None

REAL: sa.types.TypeEngine[float] = sa.Double().with_variant(sa.REAL(), "sqlite")
SERIAL: sa.types.TypeEngine[int] = sa.BigInteger().with_variant(
    sa.Integer(), "sqlite"
)  # SQLite: the rowid


def _id(name: str) -> sa.Column[str]:
    """A non-empty text primary key."""
    return sa.Column(name, sa.Text, sa.CheckConstraint(f"{name} <> ''"), primary_key=True)


def _text(name: str, *args: object) -> sa.Column[str]:
    return sa.Column(name, sa.Text, *args, nullable=False)  # type: ignore[arg-type]


def _count(name: str, *args: object) -> sa.Column[int]:
    """A count (0 or more)."""
    check = sa.CheckConstraint(f"{name} >= 0")
    return sa.Column(name, sa.Integer, check, *args, nullable=False)  # type: ignore[arg-type]


def _status(name: str, statuses: tuple[str, ...]) -> sa.Column[str]:
    listed = ", ".join(f"'{status}'" for status in statuses)
    return _text(name, sa.CheckConstraint(f"{name} IN ({listed})"))


def upgrade() -> None:
    op.create_table(
        "bots",
        _id("name"),
        _text("kind"),
        sa.Column("owner", sa.Text),
        sa.Column("version", sa.Text),
        _text("created_at"),
        sa.Column("games_json", sa.Text),
        sa.Column("description", sa.Text),
        sa.Column("owner_name", sa.Text),
    )
    op.create_table(
        "tournaments",
        _id("id"),
        _text("name"),
        _text("variant"),
        _text("options_json"),
        _text("config_json"),
        _text("created_at"),
        _status("status", ("pending", "running", "finished", "aborted")),
    )
    op.create_table(
        "matches",
        _id("id"),
        sa.Column("tournament_id", sa.Text, sa.ForeignKey("tournaments.id")),
        _text("variant"),
        _text("options_json"),
        sa.Column("seed", sa.BigInteger().with_variant(sa.Integer(), "sqlite")),
        _text("seating_json"),
        _text("outcome_json"),
        _text("record_json"),
        _count("deals"),
        _count("decisions"),
        _text("finished_at"),
    )
    op.create_index("matches_tournament", "matches", ["tournament_id"])
    op.create_index("matches_variant", "matches", ["variant"])
    op.create_table(
        "ratings",
        _text("bot", sa.ForeignKey("bots.name")),
        _text("variant"),
        _status("system", ("elo", "openskill", "room")),
        sa.Column("value", REAL, nullable=False),
        sa.Column("sigma", REAL),
        _count("matches"),
        _text("updated_at"),
        sa.PrimaryKeyConstraint("bot", "variant", "system"),
    )
    op.create_index("ratings_rank", "ratings", ["variant", "system", "value"])
    op.create_table(
        "rating_history",
        sa.Column("id", SERIAL, primary_key=True),
        _text("match_id", sa.ForeignKey("matches.id")),
        _text("bot"),
        _text("variant"),
        _text("system"),
        sa.Column("before", REAL),
        sa.Column("after", REAL, nullable=False),
        sa.Column("sigma", REAL),
        _text("at"),
        sa.ForeignKeyConstraint(
            ["bot", "variant", "system"], ["ratings.bot", "ratings.variant", "ratings.system"]
        ),
        sqlite_autoincrement=True,
    )
    op.create_index("rating_history_key", "rating_history", ["bot", "variant", "system", "id"])
    op.create_index("rating_history_match", "rating_history", ["match_id"])
    op.create_table(
        "tokens",
        _id("token_id"),
        sa.Column("bot", sa.Text, sa.ForeignKey("bots.name")),
        sa.Column("hash", sa.Text, nullable=False, unique=True),
        _status("kind", ("bot", "admin")),
        _text("created_at"),
        sa.Column("revoked_at", sa.Text),
        sa.CheckConstraint("(kind = 'bot') = (bot IS NOT NULL)"),
    )
    op.create_index("tokens_bot", "tokens", ["bot"])
    op.create_table(
        "rounds",
        _text("tournament_id", sa.ForeignKey("tournaments.id")),
        _count("number"),
        _text("pairings_json"),
        _text("created_at"),
        sa.PrimaryKeyConstraint("tournament_id", "number"),
    )
    op.create_table(
        "match_summaries",
        sa.Column("number", SERIAL, primary_key=True),
        _text("id", sa.ForeignKey("matches.id")),
        _text("variant"),
        sa.Column("tournament_id", sa.Text),
        _text("options_json"),
        _text("players_json"),
        _status("result", ("team0", "team1", "draw", "aborted")),
        sa.Column("winner_team", sa.Integer),
        _text("totals_json"),
        sa.Column("deals", sa.Integer, nullable=False),
        _text("end_reason"),
        sa.Column("rated", sa.Integer, nullable=False),
        sa.Column("auto_plays", sa.Integer, nullable=False),
        sa.Column("flights", sa.Integer, nullable=False),
        _text("finished_at"),
    )
    op.create_index("match_summaries_id", "match_summaries", ["id"], unique=True)
    op.create_index("match_summaries_variant", "match_summaries", ["variant", "number"])
    op.create_index("match_summaries_tournament", "match_summaries", ["tournament_id", "number"])
    op.create_index("match_summaries_result", "match_summaries", ["result", "number"])
    op.create_index("match_summaries_finished", "match_summaries", ["finished_at"])
    op.create_table(
        "match_players",
        sa.Column("number", SERIAL, sa.ForeignKey("match_summaries.number"), nullable=False),
        _count("seat"),
        _text("bot"),
        _text("variant"),
        sa.Column("team", sa.Integer, sa.CheckConstraint("team IN (0, 1)"), nullable=False),
        sa.Column("score", REAL, sa.CheckConstraint("score IN (0, 0.5, 1)")),
        sa.PrimaryKeyConstraint("number", "seat"),
        sqlite_with_rowid=False,
    )
    op.create_index("match_players_bot", "match_players", ["bot", "number"])
    op.create_table(
        "bot_results",
        _text("variant"),
        _text("bot"),
        _count("wins"),
        _count("draws"),
        _count("losses"),
        sa.PrimaryKeyConstraint("variant", "bot"),
        sqlite_with_rowid=False,
    )
    op.create_index("bot_results_bot", "bot_results", ["bot"])
    op.create_table(
        "balance_runs",
        _id("id"),
        _text("definition_json"),
        _text("command"),
        _status("status", ("running", "interrupted", "failed", "finished")),
        sa.Column("report_json", sa.Text),
        _text("created_at"),
        _text("updated_at"),
    )
    op.create_table(
        "balance_batches",
        _text("run_id", sa.ForeignKey("balance_runs.id")),
        _count("variant"),
        _count("number"),
        _count("deals"),
        _text("counts_json"),
        _text("stored_at"),
        sa.PrimaryKeyConstraint("run_id", "variant", "number"),
        sqlite_with_rowid=False,
    )
    op.create_table(
        "people",
        sa.Column("player", sa.Text, sa.ForeignKey("bots.name"), primary_key=True),
        _text("password_hash", sa.CheckConstraint("password_hash <> ''")),
        _text("created_at"),
    )


def downgrade() -> None:
    raise NotImplementedError("schema 8 is the first revision: there is nothing before it")
