"""The suite in parallel workers (pytest-xdist: ``make test`` runs ``-n auto --dist loadgroup``).

Tests go to the workers one at a time, except those that must share a process or must
not overlap, which go to one worker together (an ``xdist_group``):

- ``ray``: the tests of the session's local Ray (``ray_session``), so that one worker
  starts one Ray for them all;
- ``ray-processes``: the tests that start Ray clusters of their own in processes of
  their own (``sessions``, ``ray_tmp``): one cluster at a time on the machine;
- a module's own name: the tests of a module whose fixtures are module-wide (a served
  site, a browser, a played store), so that each is set up once; those of its tests whose
  module-wide store is on PostgreSQL (tests/stores.py's ``module_backend``) are a
  group of their own, ``MODULE:postgresql``, which another worker may run meanwhile.

A test marked ``xdist_group`` by hand keeps its mark. Without ``-n`` nothing changes.
"""

from __future__ import annotations

import pytest

RAY = "ray"
RAY_PROCESSES = "ray-processes"
RAY_FIXTURES = frozenset({"ray_session"})
PROCESS_FIXTURES = frozenset({"sessions", "ray_tmp"})
SHARED_SCOPES = frozenset({"module", "package", "class"})
MODULE_STORE = "module_backend"
"""The database of a module's shared stores (tests/stores.py): SQLite or PostgreSQL."""
EVERY_MODULES = frozenset({"module_garbage_collected"})
"""Module-wide fixtures of every module (garbage.py): they hold no state to share."""


def shares_module_fixtures(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture set up once for its module (or class)."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return False
    return any(
        definitions[-1].scope in SHARED_SCOPES
        for name, definitions in info.name2fixturedefs.items()
        if definitions and name not in EVERY_MODULES
    )


def group_of(item: pytest.Item) -> str | None:
    """The worker group ``item`` belongs to, or ``None`` (any worker)."""
    names = set(getattr(item, "fixturenames", ()))
    if names & RAY_FIXTURES:
        return RAY
    if names & PROCESS_FIXTURES:
        return RAY_PROCESSES
    if shares_module_fixtures(item):
        module = item.nodeid.split("::", 1)[0]
        callspec = getattr(item, "callspec", None)
        on = None if callspec is None else callspec.params.get(MODULE_STORE)
        # not MODULE[postgresql]: xdist takes a group name ending in "]" for no group
        return f"{module}:{on}" if on == "postgresql" else module
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "xdist_group(name): run on the one worker of the group (pytest-xdist)"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            group = group_of(item)
            if group is not None:
                item.add_marker(pytest.mark.xdist_group(group))
