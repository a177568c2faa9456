"""Playing jobs: in this process (:func:`play_jobs`) or as a Ray task (:func:`remote_batch`).

A task plays a whole batch of matches, never one tiny deal, so that the work of a
task (tens of milliseconds or more) dwarfs Ray's per-task cost. It returns its
reports together with their counts for the metrics (:class:`BatchResult`): the
driver publishes those, once per batch, and no metric is touched per decision.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import bots
from arena.chance import derive_seed
from arena.games import make
from arena.log import get_logger
from arena.match import play_match
from arena.metrics import BatchCounts
from arena.sim.jobs import MatchJob, MatchReport


@dataclass(frozen=True)
class BatchResult:
    """What a batch task returns: the reports, and their counts for the metrics
    (one :class:`BatchCounts` per variant played)."""

    reports: list[MatchReport]
    counts: list[BatchCounts]


def play_job(job: MatchJob) -> MatchReport:
    """Play one match of built-in bots (each seeded from the match seed and its seat)."""
    log = get_logger(__name__, match_id=job.id, variant=job.variant)
    log.debug("match_started", players=list(job.players), seed=job.seed)
    started = time.perf_counter()
    game = make(job.variant, **job.options)
    policies = [
        bots.make(name, derive_seed(job.seed, "bot", p)) for p, name in enumerate(job.players)
    ]
    result = play_match(
        game, policies, seed=job.seed, players=list(job.players), max_deals=job.max_deals
    )
    report = MatchReport.of(job, result, time.perf_counter() - started)
    log.debug("match_finished", winner=report.winner, deals=report.deals)
    return report


def play_jobs(jobs: Sequence[MatchJob]) -> list[MatchReport]:
    return [play_job(job) for job in jobs]


def batch_counts(reports: Sequence[MatchReport]) -> list[BatchCounts]:
    """The metrics counts of some reports, one :class:`BatchCounts` per variant."""
    counts: dict[str, BatchCounts] = {}
    for report in reports:
        variant = report.job.variant
        tally = counts.setdefault(variant, BatchCounts(variant))
        tally.add_match(report.record, report.decisions)
        tally.seconds += report.seconds
    return list(counts.values())


def play_batch(jobs: Sequence[MatchJob]) -> BatchResult:
    """Play a batch and count it (the body of the Ray task)."""
    reports = play_jobs(jobs)
    return BatchResult(reports, batch_counts(reports))


def remote_batch() -> Any:
    """The Ray task that plays a batch (built on first use, so importing needs no Ray).

    Ray does not retry it itself: the runner resubmits a batch whose worker died, so
    that every retry is counted and logged (:meth:`arena.sim.runner.Runner.stream`).
    """
    import ray

    return ray.remote(max_retries=0, retry_exceptions=False)(play_batch)
