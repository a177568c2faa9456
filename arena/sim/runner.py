"""Running many matches on Ray: a local instance of our own by default, or an existing cluster.

Start-up
    Without an address the runner always starts a local Ray of its own, sized to
    the machine (``ray.init(address="local")``): never a cluster that ``ray
    start`` left running or recorded on the machine, nor ``RAY_ADDRESS``. It says
    in one log line what it starts; Ray's own start-up lines are kept back. The
    local Ray listens on 127.0.0.1 only and starts neither the dashboard nor the
    parts a run does not use (:mod:`arena.sim.local_ray`). Ray protects a local
    instance with a token (read from, or written to, ``~/.ray/auth_token``); unless Ray's token
    variables are set, the runner gives its instance a token of its own in
    ``RAY_AUTH_TOKEN`` instead (one per process), so the home directory is
    neither read nor needed. While the runner is entered, Ctrl-C, SIGTERM and SIGHUP
    stop the run alike (:mod:`arena.sim.stopping`; Ray's own handlers for SIGTERM are
    kept out of the driver); one while a local Ray starts is held until it is up and
    then shuts it down, so no Ray process outlives it (joining a cluster starts none:
    a stop ends the attempt at once). With an
    address (``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``) it joins that
    cluster; what Ray's core writes to stderr while it tries is kept back, and a
    failure to join is one line naming the address and, for a cluster with token
    authentication, the variables that carry its token.

Streaming
    Jobs go out in batches (one Ray task per batch), at most ``max_in_flight``
    batches at a time (``ray.wait``), and results stream back as batches finish.
    A batch whose worker or node dies is submitted again (up to
    :data:`MAX_RETRIES` times; each retry is counted in
    ``arena_ray_tasks_retried_total`` and logged); storing results under their
    deterministic match ids keeps each counted once. If the node of the driver
    itself dies (its raylet), a local Ray is started afresh and the batches in
    flight are submitted again, like those of a dead worker; on a joined cluster
    the run ends with a :class:`RayError` (one line; what was stored is kept and
    the same command resumes). The driver publishes each finished batch's counts
    to the metrics. Interrupting the run cancels the batches in flight; what came
    back is kept.
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
import tempfile
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, TypeVar

from arena import metrics
from arena.errors import ArenaError
from arena.log import get_logger
from arena.plural import counted
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.local_ray import kept_sigterm_handler, local_head
from arena.sim.stopping import Stopped, StopSignals, stop_signals
from arena.sim.worker import BatchResult, batch_counts, remote_batch

T = TypeVar("T")

MAX_RETRIES: Final = 3
"""Times a batch is submitted again after its worker or node died."""
CANCEL_SETTLE_S: Final = 5.0
"""How long an interrupted run waits for Ray to settle the batches it cancelled."""

TOKEN_VARIABLES: Final = (
    "set RAY_AUTH_MODE=token and RAY_AUTH_TOKEN (or RAY_AUTH_TOKEN_PATH, a file) "
    "to the cluster's token"
)
"""What a driver needs to join a cluster with token authentication (Ray's
``RAY_AUTH_MODE``, ``RAY_AUTH_TOKEN``, ``RAY_AUTH_TOKEN_PATH``; default file
``~/.ray/auth_token``)."""


AUTH_VARIABLES: Final = ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH")
"""Ray's token authentication settings: set by the user, they are left alone."""


class RayError(ArenaError):
    """Ray could not be started or reached, or the run lost its Ray node."""


@dataclass(frozen=True)
class RayOptions:
    """``address`` None starts a local Ray sized to the machine (or to ``num_cpus``);
    ``auto``, ``HOST:PORT`` or ``ray://HOST:PORT`` joins an existing cluster."""

    address: str | None = None
    num_cpus: int | None = None


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def first_line(err: BaseException) -> str:
    """An exception as one line: its type and the first line of its message."""
    lines = str(err).strip().splitlines()
    return f"{type(err).__name__}: {lines[0]}" if lines else type(err).__name__


@contextmanager
def ray_quiet() -> Iterator[None]:
    """Keep Ray's own log lines below errors back while Ray starts."""
    ray_logger = logging.getLogger("ray")
    level = ray_logger.level
    ray_logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        ray_logger.setLevel(level)


@contextmanager
def held_stderr() -> Iterator[Callable[[], str]]:
    """Keep back what is written to file descriptor 2 (Ray's core writes there itself,
    a line a second while it retries a connection); the block can read it."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)

        def held() -> str:
            sink.seek(0)
            return sink.read().decode(errors="replace")

        try:
            yield held
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)


AUTH_REFUSED: Final = ("InvalidAuthToken", "Unauthenticated", "AuthenticationError")
"""What Ray says when a cluster refuses a driver's token (or its lack of one)."""


def own_token() -> None:
    """A token for the local Rays of this process, unless Ray's token variables are
    set (by the user, or by an earlier start: Ray keeps the token it read, so one
    process keeps one token)."""
    if not any(name in os.environ for name in AUTH_VARIABLES):
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_urlsafe(32)


class Runner:
    """A Ray session: started (or joined) on enter, shut down on exit if we started it."""

    def __init__(self, options: RayOptions | None = None) -> None:
        self.options = options or RayOptions()
        self._started = False
        self._signals = ExitStack()
        self._stops = StopSignals()

    @property
    def local(self) -> bool:
        """Whether the runner starts its own local Ray (no address given)."""
        return self.options.address is None

    def __enter__(self) -> Runner:
        import ray

        self._stops = self._signals.enter_context(stop_signals())
        try:
            if not ray.is_initialized():
                self._start()
        except BaseException as err:
            self._signals.__exit__(type(err), err, err.__traceback__)
            raise
        metrics.SIM_WORKERS.set(self.workers)
        get_logger(__name__).info(
            "ray_connected", address=self.options.address or "local", workers=self.workers
        )
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None = None,
        error: BaseException | None = None,
        trace: TracebackType | None = None,
    ) -> None:
        if self._started:
            import ray

            get_logger(__name__).info("ray_shutdown")
            ray.shutdown()
            self._started = False
        self._signals.__exit__(kind, error, trace)

    def _start(self) -> None:
        import ray

        log = get_logger(__name__)
        if self.local:
            cpus = self.options.num_cpus or cores()
            log.info("ray_starting", address="local", cpus=cpus, note="a local Ray for this run")
            kwargs: dict[str, Any] = {"address": "local", "num_cpus": cpus}
            own_token()
        else:
            log.info("ray_joining", address=self.options.address)
            kwargs = {"address": self.options.address}
        head: AbstractContextManager[dict[str, Any]] = (
            local_head() if self.local else nullcontext({})
        )
        signals = self._stops.came
        # a local start is held against a stop: cut short, Ray's processes would live on
        with (
            self._stops.held() if self.local else nullcontext(),
            kept_sigterm_handler(),
            head as local,
            ray_quiet(),
            self._held_output() as held,
        ):
            try:
                ray.init(
                    **kwargs,
                    **local,
                    include_dashboard=False,
                    log_to_driver=False,
                    configure_logging=False,
                )
            except Exception as err:  # Ray raises many kinds; the user needs one line
                ray.shutdown()
                if signals:
                    raise Stopped(signals[0]) from None
                raise RayError(self._failure(err, held())) from None
            except BaseException:
                ray.shutdown()
                raise
        self._started = True
        if signals:
            ray.shutdown()
            self._started = False
            raise Stopped(signals[0])

    @contextmanager
    def _held_output(self) -> Iterator[Callable[[], str]]:
        """While joining a cluster, Ray's core output is held back (starting a local
        Ray starts processes that would inherit the hold: nothing is held then)."""
        if self.local:
            yield lambda: ""
            return
        with held_stderr() as held:
            yield held

    def _failure(self, err: Exception, output: str) -> str:
        if self.local:
            return f"cannot start a local Ray: {first_line(err)}"
        where = f"cannot join the Ray cluster at {self.options.address}"
        if any(word in output or word in str(err) for word in AUTH_REFUSED):
            return (
                f"{where}: it refused this driver's token (or its lack of one); {TOKEN_VARIABLES}"
            )
        return (
            f"{where}: {first_line(err)}; check the address, and if the cluster uses token "
            f"authentication, {TOKEN_VARIABLES}"
        )

    def _restart(self, err: BaseException) -> None:
        """Our local Ray lost its node: start a fresh one. A joined cluster's node
        is not ours to restart: the run ends, resumable."""
        import ray

        if not self._started or not self.local:
            raise RayError(
                f"the Ray node of this driver died ({first_line(err)}); the results stored "
                "so far are kept: run the same command again to resume"
            ) from None
        get_logger(__name__).warning("ray_restarted", error=type(err).__name__)
        ray.shutdown()
        self._started = False
        self._start()

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
        times (``name`` labels the retries); if the driver's own node died, every item
        in flight is. Closing the iterator (or an interrupt while it waits) cancels
        what is in flight."""
        import ray
        from ray.exceptions import (
            LocalRayletDiedError,
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

        def again(item: T, retries: int, err: BaseException) -> None:
            if retries >= MAX_RETRIES:
                log.error("task_failed", retries=retries, error=type(err).__name__)
                raise RayError(
                    f"a {name} task failed {counted(retries + 1, 'time')}: {first_line(err)}"
                ) from None
            metrics.RAY_TASKS_RETRIED.labels(name).inc()
            log.warning("task_retried", attempt=retries + 1, error=type(err).__name__)
            in_flight[task.remote(item)] = (item, retries + 1)

        try:
            while True:
                for item in waiting:
                    in_flight[task.remote(item)] = (item, 0)
                    if len(in_flight) >= limit:
                        break
                if not in_flight:
                    return
                try:
                    done, _ = ray.wait(list(in_flight), num_returns=1)
                    ref = done[0]
                    result = ray.get(ref)
                except KeyboardInterrupt as interrupt:  # Ray's calls drop which signal it was
                    raise self._stops.stopped(interrupt) from None
                except LocalRayletDiedError as err:
                    orphans = list(in_flight.values())
                    in_flight.clear()
                    self._restart(err)
                    for item, retries in orphans:
                        again(item, retries, err)
                    continue
                except lost as err:
                    item, retries = in_flight.pop(ref)
                    again(item, retries, err)
                    continue
                item, _ = in_flight.pop(ref)
                yield item, result
        finally:
            if ray.is_initialized() and in_flight:
                refs = list(in_flight)
                # only the batches still running: Ray may abort the process when a task it
                # has just finished is cancelled (force) as it completes
                with suppress(Exception):
                    _, refs = ray.wait(refs, num_returns=len(refs), timeout=0)
                for ref in refs:
                    ray.cancel(ref, force=True)
                with suppress(Exception):  # settled before anything shuts Ray down
                    ray.wait(refs, num_returns=len(refs), timeout=CANCEL_SETTLE_S)

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
