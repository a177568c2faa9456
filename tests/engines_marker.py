"""Tests that plant a fault in an engine's Python code run on the interpreted engines.

Such a test patches a method of an engine class (a leak planted in ``_give_tribute``) or
turns a state into a broken subclass of its class, and expects the engine to call the
planted code. Compiled engines call their own methods natively, never the planted ones,
so these tests (marked ``interpreted_engines``) are left out of a run on the compiled
engines, and ``make test`` runs them in its second pass, with ``ARENA_ENGINES=python``.
The run's summary names how many were left out and where they run.

That second pass runs the engines' tests again for what compiling can change, and only
that. mypyc compiles the same typed sources: an engine's rules are the same code either
way, so an input that takes a path through them is as good as another for comparing the
two builds. What differs is how the code runs: native classes (no patched method, no
interpreted subclass, no instance ``__dict__``), runtime checks of annotated types,
``Final`` constants bound at compile time, generator comprehensions built as lists,
dataclasses' equality, hashing, pickling and copying. Every rule's worked examples reach
those paths as the compiled pass does, and a few examples of each property do too; the
hundreds more that hunt for rare inputs found them already on the compiled engines. So
under the Hypothesis profile ``interpreted-engines`` (``make test``'s second pass) each
property test runs at most :data:`EXAMPLES` examples, its own ``@settings`` capped.
"""

from __future__ import annotations

import pytest
from hypothesis import is_hypothesis_test, settings

from arena.compiled import engines

MARK = "interpreted_engines"
_LEFT_OUT = pytest.StashKey[int]()
PROFILE = "interpreted-engines"
"""The Hypothesis profile of the pass on the interpreted engines (``--hypothesis-profile``)."""
EXAMPLES = 10
"""The most examples a property test runs under :data:`PROFILE`."""

settings.register_profile(PROFILE, max_examples=EXAMPLES)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARK}: plants a fault in an engine's Python code, which compiled engines never "
        "call: runs only on the interpreted engines (ARENA_ENGINES=python)",
    )


def cap_examples(items: list[pytest.Item], most: int) -> None:
    """Run each property test among ``items`` for at most ``most`` examples (the
    settings its ``@settings`` gave it, capped; what Hypothesis' own pytest plugin
    changes too)."""
    for item in items:
        function = getattr(item, "obj", None)
        if function is None or not is_hypothesis_test(function):
            continue
        test = getattr(function, "__func__", function)
        own = test._hypothesis_internal_use_settings
        if own.max_examples > most:
            test._hypothesis_internal_use_settings = settings(own, max_examples=most)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if settings.get_current_profile_name() == PROFILE:
        cap_examples(items, EXAMPLES)
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
