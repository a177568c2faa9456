"""Running many matches on Ray: a local instance by default, or an existing cluster.

Jobs go out in batches (one Ray task per batch), at most ``max_in_flight`` batches
at a time (``ray.wait``), and results stream back as batches finish. A worker that
dies mid-batch makes Ray run the batch again (``max_retries``); storing results
under their deterministic match ids keeps each counted once. Interrupting the
run cancels the batches in flight; what came back is kept.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.errors import ArenaError
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.worker import remote_batch

T = TypeVar("T")


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
        return self

    def __exit__(self, *exc: object) -> None:
        if self._started:
            import ray

            ray.shutdown()

    @property
    def workers(self) -> int:
        import ray

        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        return int(resources.get("CPU", 1))

    def stream(
        self, items: Iterable[T], task: Any, max_in_flight: int | None = None
    ) -> Iterator[tuple[T, Any]]:
        """Run ``task.remote(item)`` for each item, at most ``max_in_flight`` at a time
        (default: twice the cluster's CPUs); yield ``(item, result)`` as each finishes.
        Closing the iterator (or an interrupt while it waits) cancels what is in flight."""
        import ray

        limit = max_in_flight or 2 * self.workers
        waiting = iter(items)
        in_flight: dict[Any, T] = {}
        try:
            while True:
                for item in waiting:
                    in_flight[task.remote(item)] = item
                    if len(in_flight) >= limit:
                        break
                if not in_flight:
                    return
                done, _ = ray.wait(list(in_flight), num_returns=1)
                for ref in done:
                    yield in_flight.pop(ref), ray.get(ref)
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
        """Play ``jobs`` in batches; yield each report as its batch finishes.

        ``task`` is the Ray remote function playing a batch (default: built-in bots).
        """
        batches = [list(jobs[i : i + batch_size]) for i in range(0, len(jobs), batch_size)]
        for _, reports in self.stream(batches, task or remote_batch(), max_in_flight):
            yield from reports
