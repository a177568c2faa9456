"""A server process's collector settings (arena/server/tuning.py)."""

from __future__ import annotations

import gc

from arena.server.tuning import YOUNG_THRESHOLD, tune_collector


def test_the_collector_is_tuned_for_many_short_lived_objects() -> None:
    """What exists is frozen out of the collector's sight, the youngest generation is
    collected less often, the older ones as before."""
    before = gc.get_threshold()
    try:
        kept = [object() for _ in range(1000)]
        tune_collector()
        assert gc.get_freeze_count() >= len(kept)
        assert gc.get_threshold() == (YOUNG_THRESHOLD, before[1], before[2])
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
