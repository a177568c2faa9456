"""Text compared by bytes on PostgreSQL: every text column collated ``"C"``.

SQLite compares text by its characters' codes; PostgreSQL by the database's locale
unless told otherwise. The store's lists name ``COLLATE "C"`` in their ``ORDER BY``
(:func:`arena.store.rows.in_bytes`) so that both databases list alike, but a key's index
in another collation cannot serve that order: each page of a table read in key order
(``arena store copy``) sorted the whole table. With every text column in ``"C"``, the
indexes are in that order. SQLite: nothing to do.

Revision ID: schema_9
Revises: schema_8
"""

from __future__ import annotations

from alembic import op

revision = "schema_9"
down_revision = "schema_8"
branch_labels = None
depends_on = None


def _collate(collation: str) -> None:
    """Every text column of the store's tables in ``collation`` (PostgreSQL only)."""
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    columns = bind.exec_driver_sql(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND data_type = 'text' "
        "AND table_name <> 'alembic_version' ORDER BY table_name, ordinal_position"
    ).all()
    by_table: dict[str, list[str]] = {}
    for table, column in columns:
        by_table.setdefault(table, []).append(column)
    for table, names in by_table.items():
        changes = ", ".join(
            f'ALTER COLUMN "{name}" TYPE text COLLATE "{collation}"' for name in names
        )
        op.execute(f'ALTER TABLE "{table}" {changes}')


def upgrade() -> None:
    _collate("C")


def downgrade() -> None:
    _collate("default")
