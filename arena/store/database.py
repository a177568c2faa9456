"""The one connection of an open store: its lock, its transactions and its errors.

Every concern of the store (bots, matches, ratings …) is a class over :class:`Database`
and reads and writes through :meth:`Database._read` and :meth:`Database._write` alone:
SQL text with named parameters (``:name``), written once for every database.

SQLAlchemy Core is the dialect layer: the :class:`Backend` of the store's path or URL
makes its engine and connection, names its dialect, and Alembic migrates through it.
Statements themselves run on the driver's own cursor, given ``:name`` parameters in the
driver's style: SQLAlchemy's work per statement would double what a read or a stored
match costs, for nothing a store of fixed SQL needs. The connection is in autocommit
mode and a write is one explicit transaction, committed when its block ends normally and
rolled back on any error. Writes to one store take turns on every database: ``BEGIN
IMMEDIATE`` on SQLite, ``BEGIN`` then the store's transaction-scoped advisory lock on
PostgreSQL (:attr:`Backend.serialize`), so that a write that reads before it writes
reads what the write before it committed.
"""

from __future__ import annotations

import re
import threading
from abc import ABC, abstractmethod
from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from types import TracebackType
from typing import Any, Self

from sqlalchemy import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from arena.metrics import observe_store_write
from arena.store.values import StoreError

AnyRow = Any
"""A row read back: a named tuple of its columns."""


@lru_cache(maxsize=256)
def _row_type(columns: tuple[str, ...]) -> Any:
    """The named tuple of a query's rows (a column named by an expression gets ``_n``)."""
    return namedtuple("Row", columns, rename=True)


_NAMED = re.compile(r"(?<![:\w]):(\w+)")


@lru_cache(maxsize=1024)
def pyformat(statement: str) -> str:
    """``statement`` with its ``:name`` parameters as ``%(name)s`` (psycopg's style)."""
    return _NAMED.sub(r"%(\1)s", statement.replace("%", "%%"))


class Result:
    """What a statement of a write gave: its rows (plain tuples) and ``rowcount``."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor

    @property
    def rowcount(self) -> int:
        count: int = self._cursor.rowcount
        return count

    def first(self) -> Any:
        """The first row, or None."""
        return self._cursor.fetchone()

    def scalar(self) -> Any:
        """The first column of the first row, or None."""
        row = self._cursor.fetchone()
        return None if row is None else row[0]

    def all(self) -> list[Any]:
        rows: list[Any] = self._cursor.fetchall()
        return rows

    def mappings(self) -> list[dict[str, Any]]:
        """The rows, each by column name."""
        names = [column[0] for column in self._cursor.description]
        return [dict(zip(names, row, strict=True)) for row in self._cursor.fetchall()]


class Write:
    """One write transaction. Its statements run on the driver's own cursor: SQL text
    with ``:name`` parameters, given in the driver's style (the hot path of a store,
    without SQLAlchemy's work per statement); :attr:`connection` is SQLAlchemy's, for
    Alembic."""

    def __init__(self, connection: Connection, style: Callable[[str], str] | None) -> None:
        self.connection = connection
        self._cursor: Any = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        self._style = style

    def execute(self, statement: str, params: Mapping[str, object] | None = None) -> Result:
        if self._style is not None:
            statement = self._style(statement)
        self._cursor.execute(statement, {} if params is None else params)
        return Result(self._cursor)

    def many(self, statement: str, rows: Sequence[Mapping[str, object]]) -> None:
        """Run ``statement`` once for each of ``rows`` (none: not at all)."""
        if rows:
            if self._style is not None:
                statement = self._style(statement)
            self._cursor.executemany(statement, rows)


def run(conn: Write, statement: str, params: Mapping[str, object] | None = None) -> Result:
    """Run ``statement`` inside a write."""
    return conn.execute(statement, params)


def rollback(conn: Write) -> None:
    """End the current write without keeping anything of it."""
    conn.execute("ROLLBACK")


def error_text(err: BaseException) -> str:
    """What a database error says, without SQLAlchemy's statement and parameters."""
    return str(err.orig) if isinstance(err, DBAPIError) else str(err)


class Backend(ABC):
    """What differs between the databases a store lives in."""

    begin: str = "BEGIN"
    """The statement that opens a write transaction."""
    serialize: str | None = None
    """The statement, run first in a write transaction, that waits until no other write
    to the store is open and keeps others waiting until this one ends (None: ``begin``
    does so already)."""
    errors: tuple[type[Exception], ...] = ()
    """The driver's errors (a write runs on the driver's own cursor)."""
    style: Callable[[str], str] | None = None
    """How a statement's ``:name`` parameters are given to the driver (None: as they are)."""

    def shown(self, name: str) -> str:
        """How messages name the store ``name`` (never with a password)."""
        return name

    def read_params(self, params: Mapping[str, object]) -> Mapping[str, object]:
        """A query's parameters as the database can take them (the values a store's
        queries compare with ``=``, ``IN`` and ``LIKE`` alone)."""
        return params

    @abstractmethod
    def connect(self, name: str, timeout: float, read_only: bool) -> Engine:
        """An engine on the store ``name`` (a path or a URL)."""

    @abstractmethod
    def prepare(self, store: Database, timeout: float, read_only: bool) -> None:
        """Check the opened database is an arena store; unless ``read_only``, bring its
        schema up to date."""

    @abstractmethod
    def in_transaction(self, conn: Connection) -> bool:
        """Whether a transaction is open on the connection (on a lost one: no)."""

    def lost(self, conn: Connection) -> bool:
        """Whether the connection is lost (the server ended it): nothing to roll back."""
        return False

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
                if self._backend.lost(conn):
                    conn.invalidate()  # closed without the rollback closing does
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
        errors: tuple[type[Exception], ...] = (SQLAlchemyError, *self._backend.errors)
        try:
            yield
        except errors as err:
            raise StoreError(f"{doing} {self.path}: {error_text(err)}") from None

    @contextmanager
    def _write(self, doing: str, operation: str) -> Iterator[Write]:
        """One write transaction: committed if the block ends normally, else rolled back;
        timed (and failures counted) in the metrics under ``operation``."""
        with observe_store_write(operation), self._lock, self._errors(doing):
            conn = self._sa()
            write = Write(conn, self._backend.style)
            write.execute(self._backend.begin)
            try:
                if self._backend.serialize is not None:
                    write.execute(self._backend.serialize)
                yield write
                if self._backend.in_transaction(conn):  # the block may have rolled back
                    write.execute("COMMIT")
            except BaseException:
                if self._backend.in_transaction(conn):
                    rollback(write)
                raise

    def _update(
        self, operation: str, statement: str, params: Mapping[str, object], missing: str
    ) -> None:
        """Change one row, in a write of its own; a StoreError saying ``no {missing}`` if
        the statement changed none."""
        with self._write("cannot update store", operation) as conn:
            if conn.execute(statement, params).rowcount == 0:
                raise StoreError(f"store {self.path}: no {missing}")

    def _read(self, statement: str, params: Mapping[str, object] | None = None) -> list[Any]:
        """The rows of a query, each a named tuple of its columns."""
        with self._lock, self._errors("cannot read store"):
            cursor = self._connection().cursor()
            style = self._backend.style
            statement = statement if style is None else style(statement)
            cursor.execute(statement, self._backend.read_params(params or {}))
            rows: list[Any] = cursor.fetchall()
            if rows:
                make = _row_type(tuple(column[0] for column in cursor.description))._make
                rows = [make(row) for row in rows]
            cursor.close()
            return rows
