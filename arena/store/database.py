"""The one connection of an open store: its lock, its transactions and its errors.

Every concern of the store (bots, matches, ratings …) is a class over :class:`Database`
and reads and writes through :meth:`Database._read` and :meth:`Database._write` alone:
SQL text with named parameters (``:name``), run by SQLAlchemy Core on the dialect the
:class:`Backend` of the store's URL gives. The connection is in autocommit mode and a
write is one explicit transaction (``BEGIN IMMEDIATE`` on SQLite), committed when its
block ends normally and rolled back on any error.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Connection, Engine, Row, TextClause, text
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from arena.metrics import observe_store_write
from arena.store.values import StoreError

Params = Mapping[str, object] | Sequence[Mapping[str, object]]


@lru_cache(maxsize=1024)
def sql(statement: str) -> TextClause:
    """The statement as SQLAlchemy runs it (built once per text)."""
    return text(statement)


def run(conn: Connection, statement: str, params: Params | None = None) -> Any:
    """Run ``statement`` inside a write; its result (rows, ``rowcount``)."""
    return conn.execute(sql(statement), params)


def rollback(conn: Connection) -> None:
    """End the current write without keeping anything of it."""
    conn.exec_driver_sql("ROLLBACK")


def error_text(err: BaseException) -> str:
    """What a database error says, without SQLAlchemy's statement and parameters."""
    return str(err.orig) if isinstance(err, DBAPIError) else str(err)


class Backend(ABC):
    """What differs between the databases a store lives in."""

    begin: str = "BEGIN"
    """The statement that opens a write transaction."""

    def shown(self, name: str) -> str:
        """How messages name the store ``name`` (never with a password)."""
        return name

    @abstractmethod
    def connect(self, name: str, timeout: float, read_only: bool) -> Engine:
        """An engine on the store ``name`` (a path or a URL)."""

    @abstractmethod
    def prepare(self, store: Database, timeout: float, read_only: bool) -> None:
        """Check the opened database is an arena store; unless ``read_only``, bring its
        schema up to date."""

    @abstractmethod
    def in_transaction(self, conn: Connection) -> bool:
        """Whether a transaction is open on the connection."""

    @abstractmethod
    def schema_version(self, conn: Connection) -> int:
        """The schema version of the store (0: empty)."""


class Database:
    """An open store's connection; concerns of the store subclass it."""

    def __init__(self, engine: Engine, conn: Connection, path: str, backend: Backend) -> None:
        self._engine = engine
        self._conn: Connection | None = conn
        self._backend = backend
        self._lock = threading.RLock()
        self.path = path

    @property
    def dialect(self) -> str:
        """The database's kind: ``sqlite`` or ``postgresql``."""
        return self._engine.dialect.name

    @property
    def schema_version(self) -> int:
        """The schema version of the store (older than :data:`SCHEMA_VERSION` only when
        opened read-only: opening for writing brings it up to date)."""
        with self._lock, self._errors("cannot read store"):
            return self._backend.schema_version(self._sa())

    def close(self) -> None:
        """Close the store (idempotent)."""
        with self._lock:
            if self._conn is not None:
                conn, self._conn = self._conn, None
                conn.close()
                self._engine.dispose()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"<Store {self.path} ({state})>"

    # -- plumbing --------------------------------------------------------------

    def _sa(self) -> Connection:
        if self._conn is None:
            raise StoreError(f"store {self.path} is closed")
        return self._conn

    def _connection(self) -> Any:
        """The driver's own connection (``sqlite3.Connection`` on SQLite)."""
        return self._sa().connection.dbapi_connection

    @contextmanager
    def _errors(self, doing: str) -> Iterator[None]:
        """Turn database errors into a StoreError naming the path."""
        try:
            yield
        except SQLAlchemyError as err:
            raise StoreError(f"{doing} {self.path}: {error_text(err)}") from None

    @contextmanager
    def _write(self, doing: str, operation: str) -> Iterator[Connection]:
        """One write transaction: committed if the block ends normally, else rolled back;
        timed (and failures counted) in the metrics under ``operation``."""
        with observe_store_write(operation), self._lock, self._errors(doing):
            conn = self._sa()
            conn.exec_driver_sql(self._backend.begin)
            try:
                yield conn
                if self._backend.in_transaction(conn):  # the block may have rolled back
                    conn.exec_driver_sql("COMMIT")
            except BaseException:
                if self._backend.in_transaction(conn):
                    rollback(conn)
                raise

    def _read(self, statement: str, params: Mapping[str, object] | None = None) -> list[Row[Any]]:
        with self._lock, self._errors("cannot read store"):
            return list(self._sa().execute(sql(statement), params).all())
