"""Running many matches on Ray: a local instance by default, or an existing cluster.

Jobs go out in batches (one Ray task per batch), at most ``max_in_flight`` batches
at a time (``ray.wait``), and results stream back as batches finish. A batch
whose worker or node dies is submitted again (up to :data:`MAX_RETRIES` times;
each retry is counted in ``arena_ray_tasks_retried_total`` and logged); storing
results under their deterministic match ids keeps each counted once. The driver
publishes each finished batch's counts to the metrics. Interrupting the run
cancels the batches in flight; what came back is kept.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from arena import metrics
from arena.errors import ArenaError
from arena.log import get_logger
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.worker import BatchResult, batch_counts, remote_batch

T = TypeVar("T")

MAX_RETRIES: Final = 3
"""Times a batch is submitted again after its worker or node died."""


class RayError(ArenaError):
    """Ray could not be started or reached."""


@dataclass(frozen=True)
class RayOptions:
    """``address`` None starts a local Ray sized to the machine; ``auto`` or
    ``ray://HOST:PORT`` joins an existing cluster."""

    address: str | None = None
    num_cpus: int | None = None


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Runner:
    """A Ray session: started (or joined) on enter, shut down on exit if we started it."""

    def __init__(self, options: RayOptions | None = None) -> None:
        self.options = options or RayOptions()
        self._started = False

    def __enter__(self) -> Runner:
        import ray

        if not ray.is_initialized():
            local = self.options.address is None
            try:
                ray.init(
                    address=self.options.address,
                    num_cpus=(self.options.num_cpus or cores()) if local else None,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            except Exception as err:  # Ray raises many kinds; the user needs one line
                where = self.options.address or "a local instance"
                raise RayError(f"cannot start or reach Ray at {where}: {err}") from None
            self._started = True
        metrics.SIM_WORKERS.set(self.workers)
        get_logger(__name__).info(
            "ray_connected", address=self.options.address or "local", workers=self.workers
        )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._started:
            import ray

            get_logger(__name__).info("ray_shutdown")
            ray.shutdown()

    @property
    def workers(self) -> int:
        import ray

        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        return int(resources.get("CPU", 1))

    def stream(
        self,
        items: Iterable[T],
        task: Any,
        max_in_flight: int | None = None,
        name: str = "batch",
    ) -> Generator[tuple[T, Any], None, None]:
        """Run ``task.remote(item)`` for each item, at most ``max_in_flight`` at a time
        (default: twice the cluster's CPUs); yield ``(item, result)`` as each finishes.
        An item whose worker or node died is submitted again, up to :data:`MAX_RETRIES`
        times (``name`` labels the retries). Closing the iterator (or an interrupt
        while it waits) cancels what is in flight."""
        import ray
        from ray.exceptions import (
            NodeDiedError,
            ObjectLostError,
            OutOfMemoryError,
            WorkerCrashedError,
        )

        lost = (WorkerCrashedError, NodeDiedError, ObjectLostError, OutOfMemoryError)
        log = get_logger(__name__, task=name)
        limit = max_in_flight or 2 * self.workers
        waiting = iter(items)
        in_flight: dict[Any, tuple[T, int]] = {}
        try:
            while True:
                for item in waiting:
                    in_flight[task.remote(item)] = (item, 0)
                    if len(in_flight) >= limit:
                        break
                if not in_flight:
                    return
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in done:
                    item, retries = in_flight.pop(ref)
                    try:
                        result = ray.get(ref)
                    except lost as err:
                        if retries >= MAX_RETRIES:
                            log.error("task_failed", retries=retries, error=type(err).__name__)
                            raise RayError(
                                f"a {name} task failed {retries + 1} times: {err}"
                            ) from None
                        metrics.RAY_TASKS_RETRIED.labels(name).inc()
                        log.warning("task_retried", attempt=retries + 1, error=type(err).__name__)
                        in_flight[task.remote(item)] = (item, retries + 1)
                        continue
                    yield item, result
        finally:
            for ref in in_flight:
                ray.cancel(ref, force=True)

    def run(
        self,
        jobs: Sequence[MatchJob],
        batch_size: int,
        max_in_flight: int | None = None,
        task: Any = None,
    ) -> Iterator[MatchReport]:
        """Play ``jobs`` in batches; yield each report as its batch finishes, after
        publishing the batch's counts to the metrics.

        ``task`` is the Ray remote function playing a batch (default: built-in bots,
        :func:`arena.sim.worker.play_batch`); it returns a
        :class:`~arena.sim.worker.BatchResult` or a plain list of reports.
        """
        log = get_logger(__name__)
        batches = [list(jobs[i : i + batch_size]) for i in range(0, len(jobs), batch_size)]
        results = self.stream(batches, task or remote_batch(), max_in_flight, "match_batch")
        for batch, result in results:
            if isinstance(result, BatchResult):
                reports, counts = result.reports, result.counts
            else:
                reports, counts = list(result), batch_counts(result)
            for tally in counts:
                metrics.publish_batch(tally)
            log.debug("batch_finished", matches=[job.id for job in batch])
            yield from reports
