"""Playing jobs: in this process (:func:`play_jobs`) or as a Ray task (:func:`play_batch`).

A task plays a whole batch of matches, never one tiny deal, so that the work of a
task (tens of milliseconds or more) dwarfs Ray's per-task cost.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import bots
from arena.chance import derive_seed
from arena.games import make
from arena.match import play_match
from arena.sim.jobs import MatchJob, MatchReport


def play_job(job: MatchJob) -> MatchReport:
    """Play one match of built-in bots (each seeded from the match seed and its seat)."""
    started = time.perf_counter()
    game = make(job.variant, **job.options)
    policies = [
        bots.make(name, derive_seed(job.seed, "bot", p)) for p, name in enumerate(job.players)
    ]
    result = play_match(
        game, policies, seed=job.seed, players=list(job.players), max_deals=job.max_deals
    )
    return MatchReport(
        job=job,
        winner=result.winner,
        totals=tuple(result.totals),
        deals=len(result.outcomes),
        decisions=result.decisions,
        record=result.record.to_dict(),
        seconds=time.perf_counter() - started,
    )


def play_jobs(jobs: Sequence[MatchJob]) -> list[MatchReport]:
    return [play_job(job) for job in jobs]


def remote_batch() -> Any:
    """The Ray task that plays a batch (built on first use, so importing needs no Ray)."""
    import ray

    return ray.remote(max_retries=3, retry_exceptions=False)(play_jobs)
