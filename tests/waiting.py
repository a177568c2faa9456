"""Waiting for a count that something running elsewhere (a server, a tournament) moves
towards what a test expects: a count past it fails at once, and a timeout fails with
the last count seen, never as a bare timeout."""

from __future__ import annotations

import time
from collections.abc import Callable

from arena.store import Store


def wait_for_count(
    count: Callable[[], int],
    expected: int,
    what: str,
    seconds: float = 120.0,
    interval: float = 0.05,
) -> None:
    """Poll ``count()`` until it is ``expected``; ``what`` names what is counted."""
    deadline = time.monotonic() + seconds
    while (seen := count()) != expected:
        if seen > expected:
            raise AssertionError(f"{what}: {seen}, expected {expected}")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still {seen} of {expected} after {seconds:g} s")
        time.sleep(interval)


def wait_for_tournament(
    store: Store, tournament_id: str, matches: int, seconds: float = 120.0
) -> None:
    """Wait until ``matches`` matches of the tournament are stored (:func:`wait_for_count`)."""
    wait_for_count(
        lambda: sum(1 for _ in store.matches(tournament_id=tournament_id)),
        matches,
        f"matches of tournament {tournament_id} stored",
        seconds,
    )
