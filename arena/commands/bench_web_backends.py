"""The stores ``arena bench web`` measures on: SQLite and PostgreSQL, side by side.

The SQLite store is a file: ``--db FILE`` (kept for the next run) or a temporary one.
The PostgreSQL store is the database of ``--postgres URL`` (an empty one, or one the
bench filled earlier with the same sizes: reused, as a kept SQLite file is), or else a
cluster of the bench's own (:mod:`arena.store.throwaway`: in a temporary directory, on
127.0.0.1, with PostgreSQL's defaults, so that every commit reaches the disk as
SQLite's ``synchronous=FULL`` has it; stopped and removed at the end).
``--backends sqlite`` measures SQLite alone.

This module is light (no web face): the command line's argument types are here too.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import psycopg

from arena.errors import ConfigError
from arena.store.postgres import PostgreSQL, is_url
from arena.store.throwaway import throwaway_cluster, unavailable

SQLITE: Final = "sqlite"
POSTGRESQL: Final = "postgresql"
BACKENDS: Final = (SQLITE, POSTGRESQL)
"""Every backend, in the order measured and printed (SQLite: the ratios' baseline)."""
NAMES: Final = {SQLITE: "SQLite", POSTGRESQL: "PostgreSQL"}


def backends(text: str) -> tuple[str, ...]:
    """``--backends``: ``sqlite``, ``postgresql`` or both, comma-separated."""
    asked = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [part for part in asked if part not in BACKENDS]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(
            f"not a backend: {', '.join(unknown) or repr(text)} "
            f"(sqlite, postgresql, or both comma-separated)"
        )
    return tuple(backend for backend in BACKENDS if backend in asked)


def postgres_url(text: str) -> str:
    """``--postgres``: a PostgreSQL database's URL."""
    if not is_url(text):
        raise argparse.ArgumentTypeError(
            f"not a PostgreSQL URL: {text!r} (postgresql://user@host:port/database)"
        )
    return text


@dataclass(frozen=True)
class Place:
    """Where one backend's store is."""

    backend: str
    location: str
    """The SQLite file's path, or the PostgreSQL database's URL."""
    described: str
    """What the report says of it."""


def server_version(url: str) -> str:
    """The PostgreSQL server's version at ``url`` (e.g. ``16.4``)."""
    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(plain, connect_timeout=10) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]).split()[0] if row else "?"


@contextmanager
def places(asked: Sequence[str], db: Path | None, postgres: str | None) -> Iterator[list[Place]]:
    """The stores' places while the block runs (temporary ones removed afterwards).

    A :class:`ConfigError` when PostgreSQL is asked for and neither ``postgres`` is
    given nor a cluster can be started here, or ``postgres`` is given without it."""
    if postgres is not None and POSTGRESQL not in asked:
        raise ConfigError(
            f"--postgres is given but --backends {','.join(asked)} leaves PostgreSQL out"
        )
    if db is not None and SQLITE not in asked:
        raise ConfigError(f"--db is given but --backends {','.join(asked)} leaves SQLite out")
    why = unavailable() if POSTGRESQL in asked and postgres is None else None
    if why is not None:
        raise ConfigError(
            f"PostgreSQL is asked for (--backends {','.join(asked)}) but no --postgres URL is "
            f"given and no cluster can be started here: {why}; give --postgres URL, or "
            "--backends sqlite to measure SQLite alone"
        )
    with ExitStack() as stack:
        found: list[Place] = []
        for backend in asked:
            if backend == SQLITE and db is not None:
                found.append(Place(SQLITE, str(db), str(db)))
            elif backend == SQLITE:
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="arena-bench-"))
                found.append(Place(SQLITE, str(Path(folder) / "bench.sqlite"), "a temporary file"))
            elif postgres is not None:
                found.append(Place(POSTGRESQL, postgres, PostgreSQL().shown(postgres)))
            else:
                url = stack.enter_context(throwaway_cluster(durable=True))
                found.append(Place(POSTGRESQL, url, "a cluster of its own, removed at the end"))
        yield found
