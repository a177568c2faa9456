"""Tests that plant a fault in an engine's Python code run on the interpreted engines.

Such a test patches a method of an engine class (a leak planted in ``_give_tribute``) or
turns a state into a broken subclass of its class, and expects the engine to call the
planted code. Compiled engines call their own methods natively, never the planted ones,
so these tests (marked ``interpreted_engines``) are left out of a run on the compiled
engines, and ``make test`` runs them in its second pass, with ``ARENA_ENGINES=python``.
The run's summary names how many were left out and where they run.
"""

from __future__ import annotations

import pytest

from arena.compiled import engines

MARK = "interpreted_engines"
_LEFT_OUT = pytest.StashKey[int]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARK}: plants a fault in an engine's Python code, which compiled engines never "
        "call: runs only on the interpreted engines (ARENA_ENGINES=python)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not engines().compiled:
        return
    planted = [item for item in items if item.get_closest_marker(MARK)]
    if planted:
        config.hook.pytest_deselected(items=planted)
        items[:] = [item for item in items if not item.get_closest_marker(MARK)]
        config.stash[_LEFT_OUT] = len(planted)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    left_out = terminalreporter.config.stash.get(_LEFT_OUT, 0)
    if left_out:
        terminalreporter.write_line(
            f"{left_out} tests planting a fault in the engines' Python code left out: "
            "the compiled engines ran; they run with ARENA_ENGINES=python (make test)"
        )
