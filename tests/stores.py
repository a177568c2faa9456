"""Where a test's store lives, for the tests whose behaviour depends on the database:
``store_target`` runs a test once on a fresh SQLite file and once on a fresh PostgreSQL
database (tests/postgres.py's cluster), giving the path or the URL that ``Store.open``
and every ``--db`` take; ``module_store_target`` does the same for a store that a
module's tests share (a played store, a served site), on the database of
``module_backend`` (a module with several stores makes each with
:func:`new_store_target`). A URL holds :data:`PASSWORD` (the cluster trusts its clients:
it is never checked), which nothing may print.

A test of such a module that reads nothing the database decides (a health check, a
page's headers) stays on SQLite alone: ``@on_sqlite_only``. The real server of
tests/conftest.py (``server``) is on SQLite; ``@on_both_servers`` puts a test's on each.

:func:`execute` changes a store behind its back (rows planted or broken by hand), in
either database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

import pytest
from postgres import fresh_database
from sqlalchemy import create_engine, make_url, text

from arena.store.postgres import is_url

BACKENDS: Final = ("sqlite", "postgresql")
PASSWORD: Final = "never-shown-password"
"""The password in every URL of a store here: no command's output or message holds it."""

on_sqlite_only = pytest.mark.parametrize("module_backend", ["sqlite"], indirect=True)
"""For a test of a module whose shared store is on both databases that reads nothing the
database decides."""
on_both_servers = pytest.mark.parametrize("server", BACKENDS, indirect=True)
"""For a test of the ``server`` fixture (tests/conftest.py: on SQLite) whose behaviour
depends on the database: run on each."""


def new_store_target(request: pytest.FixtureRequest, backend: str, folder: Path | None) -> str:
    """A new, empty store's path (``folder/arena.sqlite``; no folder: ``:memory:``) or URL
    (a fresh database)."""
    if backend == "sqlite":
        return ":memory:" if folder is None else str(folder / "arena.sqlite")
    assert backend == "postgresql", backend
    url = make_url(fresh_database(request.getfixturevalue("postgres_url")))
    return url.set(password=PASSWORD).render_as_string(hide_password=False)


@pytest.fixture(params=BACKENDS)
def store_target(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A new store for one test: an SQLite file's path, then a PostgreSQL database's URL."""
    return new_store_target(request, request.param, tmp_path)


@pytest.fixture(scope="module", params=BACKENDS)
def module_backend(request: pytest.FixtureRequest) -> str:
    """The database of a module's shared stores: ``sqlite``, then ``postgresql`` (a module
    with several makes each with :func:`new_store_target`)."""
    backend: str = request.param
    return backend


@pytest.fixture(scope="module")
def module_store_target(
    module_backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """A new store for a module's tests together: on SQLite, then on PostgreSQL."""
    return new_store_target(request, module_backend, tmp_path_factory.mktemp(module_backend))


def execute(
    target: str, statement: str, rows: Sequence[Mapping[str, object]] | None = None
) -> None:
    """Run ``statement`` (``:name`` parameters; once per row of ``rows`` if given) on the
    store at ``target`` in one transaction, as a hand or another program would."""
    url = (
        target.replace("postgresql://", "postgresql+psycopg://", 1)
        if is_url(target)
        else f"sqlite:///{target}"
    )
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text(statement), list(rows) if rows is not None else {})
    finally:
        engine.dispose()
