"""A store in a PostgreSQL database (psycopg 3), named by URL:
``postgresql://user:password@host:port/database``.

Several processes may write (each write is one transaction; a second writer waits on
the rows the first holds, up to the timeout). The schema is Alembic's alone; the first
process to open an empty database creates it, under an advisory lock.
"""

from __future__ import annotations

from typing import Any, Final

import psycopg
from sqlalchemy import Connection, Engine, create_engine, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import NullPool

from arena.store import migrate
from arena.store.database import Backend, Database, pyformat, run
from arena.store.sqlite import check_revision
from arena.store.values import APPLICATION_ID, SCHEMA_VERSION, StoreError

SCHEMES: Final = ("postgresql://", "postgresql+psycopg://", "postgres://")
"""How a store URL on PostgreSQL begins."""


def is_url(name: str) -> bool:
    """Whether ``name`` names a PostgreSQL store (else it is an SQLite file)."""
    return name.startswith(SCHEMES)


class PostgreSQL(Backend):
    """A store in a PostgreSQL database."""

    begin = "BEGIN"
    errors = (psycopg.Error,)
    style = staticmethod(pyformat)

    def shown(self, name: str) -> str:
        try:
            return make_url(name).render_as_string(hide_password=True)
        except ArgumentError:
            return name

    def connect(self, name: str, timeout: float, read_only: bool) -> Engine:
        try:
            url = make_url(name.replace("postgres://", "postgresql://", 1))
        except ArgumentError as err:
            raise StoreError(f"store {name}: not a database URL ({err})") from None
        options = f"-c lock_timeout={int(timeout * 1000)}"
        if read_only:
            options += " -c default_transaction_read_only=on"
        return create_engine(
            url.set(drivername="postgresql+psycopg"),
            poolclass=NullPool,
            isolation_level="AUTOCOMMIT",
            connect_args={"connect_timeout": max(1, int(timeout)), "options": options},
        )

    def in_transaction(self, conn: Connection) -> bool:
        dbapi: Any = conn.connection.dbapi_connection
        return bool(dbapi.info.transaction_status != psycopg.pq.TransactionStatus.IDLE)

    def schema_version(self, conn: Connection) -> int:
        return SCHEMA_VERSION if migrate.current(conn) is not None else 0

    def prepare(self, store: Database, timeout: float, read_only: bool) -> None:
        conn = store._sa()
        with store._errors("cannot open store"):
            tables = conn.exec_driver_sql(
                "SELECT count(*) FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            ).scalar_one()
            revision = migrate.current(conn)
        if tables and revision is None:
            raise StoreError(f"store {store.path}: a database, but not an arena store")
        check_revision(store, revision)
        if read_only:
            if revision is None:
                raise StoreError(f"store {store.path} is empty: not an arena store yet")
            return
        if revision != migrate.head():
            with store._write("cannot create the schema of store", "schema") as write:
                run(write, "SELECT pg_advisory_xact_lock(:key)", {"key": APPLICATION_ID})
                migrate.upgrade(write.connection, stamp_first=False)
