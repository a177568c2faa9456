"""How a server process is set up for many small messages: the garbage collector.

A server allocates a few dozen short-lived objects per decision (messages, futures,
observations) beside long-lived ones (its modules, the store, running matches). With
CPython's default thresholds the youngest generation is collected every 700 allocations
and the older ones with it now and then, walking every long-lived object: about 5% of
the server's CPU per decision (``arena bench grpc``). Objects made before the server
starts are moved out of the collector's sight, and the youngest generation is collected
less often.
"""

from __future__ import annotations

import gc
from typing import Final

__all__ = ["YOUNG_THRESHOLD", "tune_collector"]

YOUNG_THRESHOLD: Final = 50_000
"""Allocations between two collections of the youngest generation (CPython's: 700)."""


def tune_collector() -> None:
    """Freeze the objects made so far and raise the youngest generation's threshold (the
    older generations keep theirs)."""
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, oldest)
