"""The store's one interface: :class:`Store`, every concern over one connection."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from arena.store.balance import BalanceRuns
from arena.store.bots import Bots
from arena.store.database import Backend, error_text
from arena.store.listings import Listings
from arena.store.matches import Matches
from arena.store.people import People
from arena.store.postgres import PostgreSQL, is_url
from arena.store.ratings import Ratings
from arena.store.sqlite import SQLite
from arena.store.tournaments import Tournaments
from arena.store.values import StoreError


class Store(Bots, People, Tournaments, Matches, Listings, Ratings, BalanceRuns):
    """An open arena store. Use :meth:`Store.open`; close it, or use it as a context manager."""

    @classmethod
    def open(cls, path: str | Path, *, timeout: float = 30.0, read_only: bool = False) -> Store:
        """Open (creating if needed) the store at ``path``: an SQLite file (``":memory:"``
        for a private one), or a PostgreSQL URL (``postgresql://…``).

        ``timeout`` is how long, in seconds, a write waits for another writer. With
        ``read_only`` the store must already exist, and nothing is ever written to it
        (no schema is created or upgraded): what commands that only read use.
        """
        target = str(path)
        backend = _backend(target)
        name = backend.shown(target)
        engine = backend.connect(target, timeout, read_only)
        try:
            conn = engine.connect()
        except SQLAlchemyError as err:
            engine.dispose()
            raise StoreError(f"cannot open store {name}: {error_text(err)}") from None
        store = cls(engine, conn, name, backend)
        try:
            backend.prepare(store, timeout, read_only)
        except BaseException:
            store.close()
            raise
        return store

    @staticmethod
    def shown(path: str | Path) -> str:
        """How messages name the store at ``path``: a PostgreSQL URL without its
        password (as :attr:`path` of the open store)."""
        target = str(path)
        return _backend(target).shown(target)


def _backend(target: str) -> Backend:
    return PostgreSQL() if is_url(target) else SQLite()
