"""The embedded store: one SQLite file (or ``:memory:``).

``journal_mode=WAL`` so that readers read while the writer writes; ``synchronous=FULL``
so that a commit is on disk before the write returns; ``foreign_keys=ON``; a busy
timeout lets a second writer wait for the first. ``PRAGMA application_id`` marks an
arena store and ``PRAGMA user_version`` keeps its schema version (8 and up: Alembic's
``alembic_version`` says the revision).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.pool import NullPool

from arena.store import legacy, migrate
from arena.store.database import Backend, Database
from arena.store.values import APPLICATION_ID, SCHEMA_VERSION, StoreError

MIN_SQLITE: Final = (3, 35, 0)  # RETURNING


def check_version(store: Database, version: int) -> None:
    """A schema newer than this arena's is an error naming the store."""
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"store {store.path} has schema version {version}, newer than this arena "
            f"understands ({SCHEMA_VERSION}): upgrade arena to use it"
        )


def check_revision(store: Database, revision: str | None) -> None:
    """An Alembic revision this arena does not know is a newer arena's."""
    if revision is not None and not migrate.known(revision):
        raise StoreError(
            f"store {store.path} has schema revision {revision!r}, newer than this arena "
            f"understands ({migrate.head()!r}): upgrade arena to use it"
        )


class SQLite(Backend):
    """A store in an SQLite file: one writer process at a time, readers alongside."""

    begin = "BEGIN IMMEDIATE"
    errors = (sqlite3.Error,)

    def connect(self, name: str, timeout: float, read_only: bool) -> Engine:
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            raise StoreError(
                f"store {name}: SQLite {sqlite3.sqlite_version} is too old "
                f"(need {'.'.join(map(str, MIN_SQLITE))} or newer)"
            )
        if read_only and not Path(name).exists():
            raise StoreError(f"no store at {name}: the file does not exist")
        target = Path(name).resolve().as_uri() + "?mode=ro" if read_only else name

        def connection() -> sqlite3.Connection:
            return sqlite3.connect(
                target,
                timeout=timeout,
                isolation_level=None,
                check_same_thread=False,
                uri=read_only,
            )

        return create_engine(
            "sqlite+pysqlite://",
            creator=connection,
            poolclass=NullPool,
            isolation_level="AUTOCOMMIT",
        )

    def in_transaction(self, conn: Connection) -> bool:
        return bool(conn.connection.dbapi_connection.in_transaction)  # type: ignore[union-attr]

    def schema_version(self, conn: Connection) -> int:
        version: int = conn.exec_driver_sql("PRAGMA user_version").scalar_one()
        return version

    def prepare(self, store: Database, timeout: float, read_only: bool) -> None:
        conn = store._sa()
        with store._errors("cannot open store"):
            conn.exec_driver_sql(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            version = self.schema_version(conn)
            app_id = conn.exec_driver_sql("PRAGMA application_id").scalar_one()
            tables = conn.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar_one()
        if (tables or version) and app_id != APPLICATION_ID:
            raise StoreError(f"store {store.path}: an SQLite file, but not an arena store")
        check_version(store, version)
        if read_only:
            if not version:
                raise StoreError(f"store {store.path} is empty: not an arena store yet")
            return
        with store._errors("cannot open store"):
            mode = conn.exec_driver_sql("PRAGMA journal_mode = WAL").scalar_one()
            if mode.lower() not in ("wal", "memory"):
                raise StoreError(
                    f"store {store.path}: cannot use write-ahead logging here "
                    f"(journal mode stays {mode!r}; a network file system?)"
                )
            conn.exec_driver_sql("PRAGMA synchronous = FULL")
            conn.exec_driver_sql("PRAGMA foreign_keys = ON")
            revision = migrate.current(conn) if version else None
        check_revision(store, revision)
        if version < SCHEMA_VERSION or revision != migrate.head():
            self._upgrade(store)

    def _upgrade(self, store: Database) -> None:
        """Bring the schema up to date in one transaction: the hand-written migrations
        up to version 8, then Alembic's revisions."""
        with store._write("cannot create the schema of store", "schema") as write:
            version = self.schema_version(write.connection)
            check_version(store, version)
            if version:
                legacy.upgrade(write, version, SCHEMA_VERSION)
            migrate.upgrade(write.connection, stamp_first=version > 0)
            write.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            write.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
