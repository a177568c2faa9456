"""Shared fixtures: one small local Ray instance for the whole test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session")
def ray_session() -> Iterator[None]:
    """A local Ray with two CPUs, started once as every command starts it; tests that
    need Ray ask for it."""
    from arena.sim import RayOptions, Runner

    with Runner(RayOptions(num_cpus=2)):
        yield
