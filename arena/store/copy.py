"""A whole store copied into a new one (``arena store copy``): SQLite or PostgreSQL on
either side, checked row for row.

The tables are the source's own, read from the database (every table but Alembic's
``alembic_version``, which the target's open has set), copied parents first (the order
of their foreign keys) with every column as stored: primary keys and the numbers
counted by the database (``match_summaries.number``, ``rating_history.id``) included.
The source is read in one read transaction, so that every page is of the same state;
the target is written in one transaction, committed only once every table is copied and
checked: a failure anywhere leaves it as empty as it was.

Tables are read in pages of :data:`PAGE` rows in the order of their primary keys, text
keys ordered by their bytes on both databases (PostgreSQL's ``COLLATE "C"``, SQLite's
own order), so that the source and the copy are compared row by row, a page of each at
a time, whatever their sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain, zip_longest
from typing import Any, Final

from sqlalchemy import Connection, Integer, MetaData, String

from arena.store import migrate
from arena.store.database import Database, Write
from arena.store.rows import in_bytes
from arena.store.values import StoreError

PAGE: Final = 500
"""Rows read at a time from a table (a page of matches holds their whole records)."""

SKIPPED: Final = frozenset({"alembic_version"})
"""Tables the target's open has filled already."""

Read = Callable[[str, Mapping[str, object]], Sequence[Sequence[Any]]]
"""Runs a query, gives its rows."""


@dataclass(frozen=True)
class Table:
    """A table to copy: its columns in order, its primary key, which key columns are text."""

    name: str
    columns: tuple[str, ...]
    keys: tuple[str, ...]
    text_keys: frozenset[str]
    serial_keys: tuple[str, ...]
    """Integer key columns: on PostgreSQL, a sequence may number them."""


@dataclass(frozen=True)
class Copied:
    """A table copied, and its rows (the same number in both stores)."""

    table: str
    rows: int


def tables(conn: Connection) -> list[Table]:
    """The store's tables, each after the tables its foreign keys name."""
    metadata = MetaData()
    metadata.reflect(bind=conn)
    found = []
    for table in metadata.sorted_tables:
        if table.name in SKIPPED:
            continue
        keys = tuple(column.name for column in table.primary_key.columns)
        if not keys:
            raise StoreError(f"table {table.name} has no primary key: it cannot be paged")
        found.append(
            Table(
                name=table.name,
                columns=tuple(column.name for column in table.columns),
                keys=keys,
                text_keys=frozenset(
                    c.name for c in table.primary_key.columns if isinstance(c.type, String)
                ),
                serial_keys=tuple(
                    c.name for c in table.primary_key.columns if isinstance(c.type, Integer)
                ),
            )
        )
    return found


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Pages:
    """The queries that read a table page by page, in key order, on one database."""

    def __init__(self, table: Table, dialect: str) -> None:
        key_at = {column: index for index, column in enumerate(table.columns)}
        self._key_at = [key_at[key] for key in table.keys]
        order = ", ".join(
            in_bytes(_quote(key), dialect) if key in table.text_keys else _quote(key)
            for key in table.keys
        )
        select = f"SELECT {', '.join(map(_quote, table.columns))} FROM {_quote(table.name)}"
        after = ", ".join(f":k{index}" for index in range(len(table.keys)))
        self._first = f"{select} ORDER BY {order} LIMIT {PAGE}"
        self._next = f"{select} WHERE ({order}) > ({after}) ORDER BY {order} LIMIT {PAGE}"

    def key(self, row: Sequence[Any]) -> tuple[Any, ...]:
        """A row's primary key."""
        return tuple(row[index] for index in self._key_at)

    def read(self, read: Read) -> Iterator[Sequence[Sequence[Any]]]:
        """Every page of the table, in key order."""
        rows = read(self._first, {})
        while rows:
            yield rows
            if len(rows) < PAGE:
                return
            last = self.key(rows[-1])
            rows = read(self._next, {f"k{index}": value for index, value in enumerate(last)})


def _target_read(write: Write) -> Read:
    return lambda statement, params: write.execute(statement, params).all()


@contextmanager
def _snapshot(source: Database) -> Iterator[None]:
    """One read transaction on the source for the whole copy: one state read throughout."""
    begin = (
        "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        if source.dialect == "postgresql"
        else "BEGIN"
    )
    with source._lock:
        driver = source._connection()
        with source._errors("cannot read store"):
            driver.execute(begin)
        try:
            yield
        finally:
            with source._errors("cannot read store"):
                driver.execute("ROLLBACK")


def _check_revisions(source: Database, target: Database) -> None:
    head = migrate.head()
    for store in (source, target):
        with store._errors("cannot read store"):
            revision = migrate.current(store._sa())
        if revision != head:
            raise StoreError(
                f"store {store.path} has schema revision {revision!r}, not this arena's "
                f"{head!r}: open it once for writing with this arena to bring it up to date"
            )


def _refuse_rows(write: Write, target: Database, table: Table) -> None:
    if write.execute(f"SELECT 1 FROM {_quote(table.name)} LIMIT 1").first() is not None:
        raise StoreError(
            f"store {target.path} is not empty (its table {table.name} has rows): "
            "copy into a new or empty store; nothing was copied"
        )


def _insert(write: Write, table: Table, source: Database) -> None:
    names = [f"c{index}" for index in range(len(table.columns))]
    statement = (
        f"INSERT INTO {_quote(table.name)} ({', '.join(map(_quote, table.columns))}) "
        f"VALUES ({', '.join(':' + name for name in names)})"
    )
    for page in Pages(table, source.dialect).read(source._read):
        write.many(statement, [dict(zip(names, row, strict=True)) for row in page])


def _reset_sequences(write: Write, table: Table) -> None:
    """Set each sequence numbering the table's keys past the largest key copied."""
    for key in table.serial_keys:
        sequence = write.execute(
            "SELECT pg_get_serial_sequence(:table, :column)",
            {"table": _quote(table.name), "column": key},
        ).scalar()
        if sequence is not None:
            write.execute(
                f"SELECT setval(:sequence, (SELECT coalesce(max({_quote(key)}), 0) + 1 "
                f"FROM {_quote(table.name)}), false)",
                {"sequence": sequence},
            )


def _compare(write: Write, table: Table, source: Database, target: Database) -> int:
    """The table's rows, checked equal in both stores, row by row in key order."""
    theirs = Pages(table, source.dialect)
    ours = Pages(table, target.dialect)
    rows = zip_longest(
        chain.from_iterable(theirs.read(source._read)),
        chain.from_iterable(ours.read(_target_read(write))),
    )
    count = 0
    for original, copy in rows:
        if original is None or copy is None or tuple(original) != tuple(copy):
            key = theirs.key(original) if original is not None else ours.key(copy)
            raise StoreError(
                f"the copy of store {source.path} in {target.path} differs from it in table "
                f"{table.name} at key {key!r}: nothing was copied"
            )
        count += 1
    return count


def copy_store(source: Database, target: Database) -> list[Copied]:
    """Copy every row of ``source`` into ``target``, an empty store of the same schema, and
    check them equal; committed only if all is copied and checked (a StoreError else)."""
    _check_revisions(source, target)
    with source._errors("cannot read store"):
        copied = tables(source._sa())
    with target._errors("cannot read store"):
        schema = {table.name: set(table.columns) for table in tables(target._sa())}
    # the columns are named in every statement: their order may differ, not their names
    odd = sorted(t.name for t in copied if schema.pop(t.name, None) != set(t.columns))
    odd += sorted(schema)
    if odd:
        raise StoreError(
            f"the tables of store {source.path} are not those of store {target.path}: "
            f"{', '.join(odd)} differ (a table added or changed by hand?); nothing was copied"
        )
    with _snapshot(source), target._write("cannot copy into store", "copy") as write:
        for table in copied:
            _refuse_rows(write, target, table)
        for table in copied:
            _insert(write, table, source)
            if target.dialect == "postgresql":
                # statistics, so that the foreign key checks of the tables after it find
                # its rows by index (unanalyzed, its rows cost a scan each: 5 times slower)
                write.execute(f"ANALYZE {_quote(table.name)}")
        if target.dialect == "postgresql":
            for table in copied:
                _reset_sequences(write, table)
        return [Copied(table.name, _compare(write, table, source, target)) for table in copied]
