"""A store in a PostgreSQL database (psycopg 3), named by URL:
``postgresql://user:password@host:port/database``.

Several processes may write, and their writes take turns as on SQLite: each write is one
transaction, ``READ COMMITTED``, that first takes the store's advisory lock
(``pg_advisory_xact_lock``, :data:`WRITE_LOCK`, released when the transaction ends), so a
second writer waits for the first to commit or roll back (up to the store's timeout,
PostgreSQL's ``lock_timeout``: then the write fails naming the store) and each statement
after the lock sees every write committed before it. Readers never wait. A write runs its
statements back to back: a connection idle inside one for the timeout (its process
frozen, its machine cut off) is ended by the server
(``idle_in_transaction_session_timeout``), its write rolled back and the lock released,
so that it holds the others up no longer.

One lock rather than row locks (``SELECT … FOR UPDATE``): a rating that has no row yet
has nothing to lock, so two first matches of a bot would both read "no rating"; a match
rates four bots, whose rows two matches would lock in different orders (a deadlock, one
write failing); and every other write that reads before it writes (a bot, built-in bots,
a person, a tournament, a balance run) is correct as written, now and when one is added.
What it costs: one writer at a time, as on SQLite; a write takes milliseconds, a match
seconds to play. It also gives ``match_summaries.number`` in the order matches are
committed, so a reader paging by number misses none.

``synchronous_commit=on`` for the store's connections, whatever the server's default or
the role's: a commit returns once it is flushed to the server's disk (the server's own
``fsync``, on by default, must not be turned off), so a stored match stays stored.

The schema is Alembic's alone; the first process to open an empty database creates it,
in a write (under the same lock).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import psycopg
from psycopg.pq import TransactionStatus
from sqlalchemy import Connection, Engine, create_engine, make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.pool import NullPool

from arena.store import migrate
from arena.store.database import Backend, Database, pyformat
from arena.store.sqlite import check_revision
from arena.store.values import APPLICATION_ID, SCHEMA_VERSION, StoreError

SCHEMES: Final = ("postgresql://", "postgresql+psycopg://", "postgres://")
"""How a store URL on PostgreSQL begins."""


WRITE_LOCK: Final = APPLICATION_ID
"""The key of the advisory lock every write takes (schema creation included)."""


_PASSWORD: Final = re.compile(r"(://[^:/@]*:).*@")
"""The password of a URL (to its last ``@``)."""


def is_url(name: str) -> bool:
    """Whether ``name`` names a PostgreSQL store (else it is an SQLite file)."""
    return name.startswith(SCHEMES)


class PostgreSQL(Backend):
    """A store in a PostgreSQL database."""

    begin = "BEGIN ISOLATION LEVEL READ COMMITTED"
    serialize = f"SELECT pg_advisory_xact_lock({WRITE_LOCK})"
    errors = (psycopg.Error,)
    style = staticmethod(pyformat)

    def shown(self, name: str) -> str:
        try:
            return make_url(name).render_as_string(hide_password=True)
        except (ArgumentError, ValueError):  # no URL: what may be a password hidden still
            return _PASSWORD.sub(r"\1***@", name)

    def read_params(self, params: Mapping[str, object]) -> Mapping[str, object]:
        """Text holding NUL, which PostgreSQL refuses and no row holds (an id asked by
        a web page or a gRPC call), is asked as NULL: it equals and matches nothing, as
        on SQLite."""
        if not any(isinstance(value, str) and "\0" in value for value in params.values()):
            return params
        return {
            name: None if isinstance(value, str) and "\0" in value else value
            for name, value in params.items()
        }

    def connect(self, name: str, timeout: float, read_only: bool) -> Engine:
        try:
            url = make_url(name.replace("postgres://", "postgresql://", 1))
        except (ArgumentError, ValueError) as err:  # ValueError: a port that is no number
            raise StoreError(f"store {self.shown(name)}: not a database URL ({err})") from None
        wait = int(timeout * 1000)
        options = (
            f"-c lock_timeout={wait} -c idle_in_transaction_session_timeout={wait} "
            "-c synchronous_commit=on"
        )
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
        status = dbapi.info.transaction_status
        return bool(status not in (TransactionStatus.IDLE, TransactionStatus.UNKNOWN))

    def lost(self, conn: Connection) -> bool:
        dbapi: Any = conn.connection.dbapi_connection
        return bool(dbapi.closed)

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
                migrate.upgrade(write.connection, stamp_first=False)
