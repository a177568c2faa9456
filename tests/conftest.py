"""Shared fixtures: one small local Ray for the whole test session; processes run in
sessions of their own (killed by pid at the end); a short temp dir for Ray."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

# On CI (CI=true) a skipped test fails, naming itself and its reason (tests/ci_skips.py);
# the web face's browser, stores and servers are fixtures of tests/browser.py, a person at
# a table one of tests/seated.py, a PostgreSQL cluster one of tests/postgres.py, a store
# on SQLite and on PostgreSQL in turn one of tests/stores.py; tests that plant faults in
# the engines' Python code run on the interpreted ones (engines_marker.py); under
# pytest-xdist, tests sharing Ray or a module's fixtures go to one worker together
# (parallel.py).
pytest_plugins = (
    "ci_skips",
    "garbage",
    "browser",
    "seated",
    "postgres",
    "stores",
    "engines_marker",
    "parallel",
)

# Helper modules of several test modules: their asserts explain themselves too. Marked
# here, before any test module imports them.
pytest.register_assert_rewrite("game_suite", "printed", "raykill")

if TYPE_CHECKING:
    from raykill import Sessions
    from test_server_seats import Arena

    from arena.store import Store


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """A local Ray with two CPUs, started once as every command starts it; tests that
    need Ray ask for it."""
    from arena.sim import RayOptions, Runner

    with Runner(RayOptions(num_cpus=2)):
        yield


@pytest.fixture
def sessions(tmp_path: Path) -> Iterator[Sessions]:
    """Processes started in sessions of their own (tests/raykill.py); what is left of
    them at the end is killed, by pid."""
    from raykill import Sessions

    started = Sessions(tmp_path)
    yield started
    started.close()


@pytest.fixture
def ray_tmp() -> Iterator[Path]:
    """A short temp dir of Ray's own for one test (socket paths must stay short)."""
    with tempfile.TemporaryDirectory(prefix="arena-ray-", dir="/tmp") as path:
        yield Path(path)


@pytest.fixture
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Store, Arena]]:
    """A real server on 127.0.0.1 (any free port) over a fresh store, 20 s a decision: on
    SQLite, or on each database for a test marked ``@on_both_servers`` (tests/stores.py)."""
    from stores import new_store_target
    from test_server_seats import Arena, clock

    from arena.server.play import PlayConfig
    from arena.store import Store

    backend = getattr(request, "param", "sqlite")
    with Store.open(new_store_target(request, backend, tmp_path)) as store:
        arena = Arena(store, PlayConfig(clock=clock(decision=20.0)))
        try:
            yield store, arena
        finally:
            arena.close()
