"""Every Prometheus metric of the arena, and the small helpers that update them.

All metrics live in one registry, :data:`REGISTRY`, exposed on ``/metrics`` by
:func:`start_metrics_server` (``arena serve``, and the driver of ``arena
tournament`` / ``arena balance`` with ``--metrics-port``). Names follow the
Prometheus conventions: an ``arena_`` prefix, counters ending in ``_total``,
durations in seconds.

Simulation stays out of the per-decision hot path: a Ray worker counts what its
batch did in a :class:`BatchCounts` (plain numbers, returned with the results)
and the driver publishes each batch once (:func:`publish_batch`). There is no
multiprocess mode: only the driver process exports simulation metrics.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from threading import Thread
from typing import TYPE_CHECKING, Any, Final, Protocol

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    start_http_server,
)

from arena import games

if TYPE_CHECKING:
    from wsgiref.simple_server import WSGIServer

__all__ = [
    "AUTOMATIC_PLAYS",
    "BATCH_SECONDS",
    "CONNECTED_BOTS",
    "DEALS_FINISHED",
    "DEAL_OUTCOMES",
    "DECISIONS",
    "DECISION_SECONDS",
    "DECISION_TIMEOUTS",
    "EXPORTED",
    "FORFEITS",
    "ILLEGAL_ACTIONS",
    "MATCHES_FINISHED",
    "MATCHES_IN_FLIGHT",
    "MATCH_OUTCOMES",
    "QUEUE_LENGTH",
    "RATING_ELO",
    "RATING_OPENSKILL",
    "RAY_TASKS",
    "RAY_TASKS_RETRIED",
    "REGISTRY",
    "SIM_BATCHES",
    "SIM_WORKERS",
    "STORE_OPERATIONS",
    "STORE_WRITE_ERRORS",
    "STORE_WRITE_SECONDS",
    "WEB_METHODS",
    "WEB_REQUESTS",
    "WEB_REQUEST_SECONDS",
    "BatchCounts",
    "MetricsServer",
    "bot_seated",
    "decision_recorder",
    "match_in_flight",
    "match_outcome",
    "metric_names",
    "observe_store_write",
    "publish_batch",
    "publish_ratings",
    "record_automatic_play",
    "record_decision",
    "record_forfeit",
    "record_illegal_action",
    "record_match",
    "record_timeout",
    "record_web_request",
    "set_connected_bots",
    "set_queue_length",
    "set_rating",
    "start_metrics_server",
]

# No ``*_created`` series: every counter starts with the process.
disable_created_metrics()  # type: ignore[no-untyped-call]

REGISTRY: Final = CollectorRegistry()
"""The registry every arena metric (and the process's own) is registered in."""
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

MATCH_OUTCOMES: Final = ("complete", "deal_limit", "forfeit", "failed")
"""``outcome`` of a match: played to its end, stopped after its deals, forfeited, failed."""
DEAL_OUTCOMES: Final = ("played", "forfeit")
"""``outcome`` of a deal: played to its end, or ended by a seat that fled."""
STORE_OPERATIONS: Final = (
    "schema",
    "add_bot",
    "add_builtin_bots",
    "set_bot_profile",
    "set_bot_games",
    "add_person",
    "set_password_hash",
    "add_token",
    "revoke_tokens",
    "add_tournament",
    "set_tournament_status",
    "add_match",
    "fix_round",
    "add_balance_run",
    "add_balance_batch",
    "set_balance_status",
    "copy",
)
"""``operation`` of a store write: one per kind of write transaction of the store."""
RAY_TASKS: Final = ("match_batch", "balance_batch")
"""``task`` of a Ray task submitted again: a batch of matches, or of balance deals."""

DECISION_BUCKETS: Final = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0,
)  # fmt: skip
BATCH_BUCKETS: Final = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
STORE_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0)
WEB_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 10.0, 60.0)
WEB_METHODS: Final = ("GET", "HEAD", "POST", "OTHER")
"""``method`` of a web request (any other method counts as ``OTHER``)."""

EXPORTED: dict[str, frozenset[str]] = {}
"""Sample name → label names of every arena metric (filled as they are defined below)."""


def _counter(name: str, documentation: str, labels: Sequence[str] = ()) -> Counter:
    EXPORTED[f"{name}_total"] = frozenset(labels)
    return Counter(name, documentation, labels, registry=REGISTRY)


def _gauge(name: str, documentation: str, labels: Sequence[str] = ()) -> Gauge:
    EXPORTED[name] = frozenset(labels)
    return Gauge(name, documentation, labels, registry=REGISTRY)


def _histogram(
    name: str, documentation: str, labels: Sequence[str], buckets: Sequence[float]
) -> Histogram:
    EXPORTED[f"{name}_bucket"] = frozenset([*labels, "le"])
    EXPORTED[f"{name}_sum"] = EXPORTED[f"{name}_count"] = frozenset(labels)
    return Histogram(name, documentation, labels, buckets=buckets, registry=REGISTRY)


MATCHES_FINISHED: Final = _counter(
    "arena_matches_finished",
    "Matches finished, by variant and outcome (complete, deal_limit, forfeit, failed).",
    ["variant", "outcome"],
)
DEALS_FINISHED: Final = _counter(
    "arena_deals_finished",
    "Deals finished, by variant and outcome (played, forfeit).",
    ["variant", "outcome"],
)
MATCHES_IN_FLIGHT: Final = _gauge(
    "arena_matches_in_flight",
    "Matches being played now, by variant.",
    ["variant"],
)
DECISIONS: Final = _counter(
    "arena_decisions",
    "Decisions made (actions applied), by variant.",
    ["variant"],
)
DECISION_SECONDS: Final = _histogram(
    "arena_decision_seconds",
    "Time a bot took to answer a decision request, by variant and bot.",
    ["variant", "bot"],
    buckets=DECISION_BUCKETS,
)
DECISION_TIMEOUTS: Final = _counter(
    "arena_decision_timeouts",
    "Decisions not answered in time, by variant and bot.",
    ["variant", "bot"],
)
AUTOMATIC_PLAYS: Final = _counter(
    "arena_automatic_plays",
    "Decisions made by automatic play for a bot (after a timeout), by variant and bot.",
    ["variant", "bot"],
)
ILLEGAL_ACTIONS: Final = _counter(
    "arena_illegal_actions",
    "Illegal answers refused, by variant and bot.",
    ["variant", "bot"],
)
FORFEITS: Final = _counter(
    "arena_forfeits",
    "Matches or deals a bot forfeited by fleeing, by variant and bot.",
    ["variant", "bot"],
)
CONNECTED_BOTS: Final = _gauge(
    "arena_connected_bots",
    "Bots connected to the server now.",
)
QUEUE_LENGTH: Final = _gauge(
    "arena_queue_length",
    "Bots waiting to be seated, by variant.",
    ["variant"],
)
RATING_ELO: Final = _gauge(
    "arena_rating_elo",
    "Current Elo rating, by variant (or people:VARIANT, the people's pool) and bot.",
    ["variant", "bot"],
)
RATING_OPENSKILL: Final = _gauge(
    "arena_rating_openskill_ordinal",
    "Current conservative OpenSkill rating (mu - 3 sigma), by variant and bot.",
    ["variant", "bot"],
)
SIM_BATCHES: Final = _counter(
    "arena_sim_batches",
    "Simulation batches (Ray tasks, or local batches) whose results reached the driver.",
    ["variant"],
)
BATCH_SECONDS: Final = _histogram(
    "arena_sim_batch_seconds",
    "Time a worker spent playing one simulation batch, by variant.",
    ["variant"],
    buckets=BATCH_BUCKETS,
)
SIM_WORKERS: Final = _gauge(
    "arena_sim_workers",
    "Worker CPUs of the Ray cluster the driver is using.",
)
RAY_TASKS_RETRIED: Final = _counter(
    "arena_ray_tasks_retried",
    "Ray tasks submitted again after a worker or node failure, by task.",
    ["task"],
)
STORE_WRITE_SECONDS: Final = _histogram(
    "arena_store_write_seconds",
    "Duration of a store write transaction, by operation.",
    ["operation"],
    buckets=STORE_BUCKETS,
)
STORE_WRITE_ERRORS: Final = _counter(
    "arena_store_write_errors",
    "Store write transactions that failed, by operation.",
    ["operation"],
)
WEB_REQUESTS: Final = _counter(
    "arena_web_requests",
    "Web requests answered, by route template, method and status.",
    ["route", "method", "status"],
)
WEB_REQUEST_SECONDS: Final = _histogram(
    "arena_web_request_seconds",
    "Time to answer a web request (an event stream: its whole life), by route template, "
    "method and status.",
    ["route", "method", "status"],
    buckets=WEB_BUCKETS,
)


def _start_known_series_at_zero() -> None:
    """Create, at 0, every series whose labels are known in advance (each variant with
    each outcome, each store operation, each Ray task): a panel shows 0 rather than
    "No data" before the first event, and ``increase()`` sees the first one."""
    for variant in games.names():
        for outcome in MATCH_OUTCOMES:
            MATCHES_FINISHED.labels(variant, outcome)
        for outcome in DEAL_OUTCOMES:
            DEALS_FINISHED.labels(variant, outcome)
        for metric in (MATCHES_IN_FLIGHT, DECISIONS, QUEUE_LENGTH, SIM_BATCHES, BATCH_SECONDS):
            metric.labels(variant)
    for operation in STORE_OPERATIONS:
        STORE_WRITE_SECONDS.labels(operation)
        STORE_WRITE_ERRORS.labels(operation)
    for task in RAY_TASKS:
        RAY_TASKS_RETRIED.labels(task)


_start_known_series_at_zero()


# -- per-batch counts (what a worker returns) -----------------------------------


class Tally(dict[str, int]):
    """Counts by label (made without a Python-level constructor: one per batch); ``+``
    adds two tallies label by label."""

    def __add__(self, other: Mapping[str, int]) -> Tally:
        total = Tally(self)
        for label, n in other.items():
            total[label] = total.get(label, 0) + n
        return total


@dataclass
class BatchCounts:
    """What one simulation batch did, as plain numbers (picklable, cheap to merge).

    A worker fills it once per match or per batch — never per decision — and the
    driver publishes it with :func:`publish_batch`.
    """

    variant: str
    matches: Tally = field(default_factory=Tally)
    deals: Tally = field(default_factory=Tally)
    decisions: int = 0
    seconds: float = 0.0

    def add_match(self, record: Mapping[str, Any], decisions: int) -> None:
        """Count a finished match from its record (its deals and how it ended)."""
        deals = record.get("deals", [])
        forfeits = 0
        for deal in deals:
            if "forfeit" in deal["result"].get("details", ()):
                forfeits += 1
        tally, matches = self.deals, self.matches
        tally["played"] = tally.get("played", 0) + len(deals) - forfeits
        if forfeits:
            tally["forfeit"] = tally.get("forfeit", 0) + forfeits
        outcome = match_outcome(record)
        matches[outcome] = matches.get(outcome, 0) + 1
        self.decisions += decisions

    def add_deals(self, deals: int, decisions: int) -> None:
        """Count deals played outside a match record (balance batches)."""
        self.deals["played"] = self.deals.get("played", 0) + deals
        self.decisions += decisions

    def __add__(self, other: BatchCounts) -> BatchCounts:
        if other.variant != self.variant:
            raise ValueError(f"cannot add counts of {other.variant} to {self.variant}")
        return BatchCounts(
            self.variant,
            self.matches + other.matches,
            self.deals + other.deals,
            self.decisions + other.decisions,
            self.seconds + other.seconds,
        )


def match_outcome(record: Mapping[str, Any]) -> str:
    """A record's :data:`MATCH_OUTCOMES` label."""
    deals = record.get("deals", [])
    if deals and "forfeit" in deals[-1]["result"].get("details", {}):
        return "forfeit"
    return "complete" if record.get("result", {}).get("complete") else "deal_limit"


def publish_batch(counts: BatchCounts) -> None:
    """Add one batch's counts to the metrics (called by the driver, once per batch)."""
    series = _variant_series(counts.variant)
    for outcome, n in counts.matches.items():
        if n:
            series.outcome(MATCHES_FINISHED, outcome).inc(n)
    for outcome, n in counts.deals.items():
        if n:
            series.outcome(DEALS_FINISHED, outcome).inc(n)
    series.decisions.inc(counts.decisions)
    series.batches.inc()
    series.seconds.observe(counts.seconds)


class _VariantSeries:
    """A variant's simulation series, each looked up once (series are never removed)."""

    def __init__(self, variant: str) -> None:
        self.variant = variant
        self.decisions = DECISIONS.labels(variant)
        self.batches = SIM_BATCHES.labels(variant)
        self.seconds = BATCH_SECONDS.labels(variant)
        self._outcomes: dict[tuple[int, str], Counter] = {}

    def outcome(self, metric: Counter, outcome: str) -> Counter:
        """``metric``'s series of this variant and ``outcome``."""
        key = (id(metric), outcome)
        found = self._outcomes.get(key)
        if found is None:
            found = self._outcomes[key] = metric.labels(self.variant, outcome)
        return found


def _variant_series(variant: str) -> _VariantSeries:
    found = _SERIES.get(variant)
    if found is None:
        found = _SERIES[variant] = _VariantSeries(variant)
    return found


_SERIES: dict[str, _VariantSeries] = {}


# -- server-side helpers ------------------------------------------------------------


def bot_seated(variant: str, bot: str) -> None:
    """A bot took a seat: its per-bot series exist from now on, at 0 until it answers,
    times out, plays illegally, is played for or flees (a panel shows 0, not "No data")."""
    DECISION_SECONDS.labels(variant, bot)
    for counter in (DECISION_TIMEOUTS, AUTOMATIC_PLAYS, ILLEGAL_ACTIONS, FORFEITS):
        counter.labels(variant, bot)


_DECISION_LISTENERS: list[Callable[[float], None]] = []


@contextmanager
def decisions_heard(listener: Callable[[float], None]) -> Iterator[None]:
    """Within the block, ``listener`` hears every remote decision's round trip in
    seconds as :func:`record_decision` records it (what a bench times)."""
    _DECISION_LISTENERS.append(listener)
    try:
        yield
    finally:
        _DECISION_LISTENERS.remove(listener)


def record_decision(variant: str, bot: str, seconds: float) -> None:
    """A bot answered a decision request after ``seconds`` (from sending the request to
    the action applied)."""
    decision_recorder(variant, bot)(seconds)


def decision_recorder(variant: str, bot: str) -> Callable[[float], None]:
    """:func:`record_decision` for one seat, its series looked up once."""
    decisions = DECISIONS.labels(variant)
    durations = DECISION_SECONDS.labels(variant, bot)

    def record(seconds: float) -> None:
        decisions.inc()
        durations.observe(seconds)
        for listener in _DECISION_LISTENERS:
            listener(seconds)

    return record


def record_timeout(variant: str, bot: str) -> None:
    """A bot's decision ran out of time; automatic play answers for it."""
    DECISION_TIMEOUTS.labels(variant, bot).inc()
    AUTOMATIC_PLAYS.labels(variant, bot).inc()


def record_automatic_play(variant: str, bot: str) -> None:
    """A decision was made by automatic play for a reason other than a timeout."""
    AUTOMATIC_PLAYS.labels(variant, bot).inc()


def record_illegal_action(variant: str, bot: str) -> None:
    """A bot's answer was refused as illegal."""
    ILLEGAL_ACTIONS.labels(variant, bot).inc()


def record_forfeit(variant: str, bot: str) -> None:
    """A bot fled: its team forfeited the match (or, in sanfu, it paid for the deal)."""
    FORFEITS.labels(variant, bot).inc()


def record_match(variant: str, record: Mapping[str, Any]) -> None:
    """A match finished outside the simulation (the server): its deals and its outcome."""
    counts = BatchCounts(variant)
    counts.add_match(record, 0)
    for outcome, n in counts.matches.items():
        MATCHES_FINISHED.labels(variant, outcome).inc(n)
    for outcome, n in counts.deals.items():
        DEALS_FINISHED.labels(variant, outcome).inc(n)


def record_failed_match(variant: str) -> None:
    """A match failed on the server before it could be played (counted once)."""
    MATCHES_FINISHED.labels(variant, "failed").inc()


@contextmanager
def match_in_flight(variant: str) -> Iterator[None]:
    """Count a match as in flight for the duration of the block; a failure counts as
    a ``failed`` match."""
    gauge = MATCHES_IN_FLIGHT.labels(variant)
    gauge.inc()
    try:
        yield
    except BaseException:
        MATCHES_FINISHED.labels(variant, "failed").inc()
        raise
    finally:
        gauge.dec()


def set_connected_bots(count: int) -> None:
    CONNECTED_BOTS.set(count)


def set_queue_length(variant: str, length: int) -> None:
    QUEUE_LENGTH.labels(variant).set(length)


class RatingRow(Protocol):
    """A bot's current rating in one system (what the store keeps)."""

    @property
    def bot(self) -> str: ...
    @property
    def system(self) -> str: ...
    @property
    def value(self) -> float: ...
    @property
    def sigma(self) -> float | None: ...


class RatingSource(Protocol):
    """Where the current ratings are read (the store): the metrics sit below the store
    and name only what they read from it."""

    def ratings(self, variant: str) -> Sequence[RatingRow]: ...


def publish_ratings(store: RatingSource, variant: str) -> None:
    """Set the Elo and OpenSkill μ−3σ gauges of every rated bot of ``variant`` from the
    store (call after matches are stored, or at start-up)."""
    for rating in store.ratings(variant):
        set_rating(variant, rating.bot, rating.system, rating.value, rating.sigma)


def set_rating(variant: str, bot: str, system: str, value: float, sigma: float | None) -> None:
    """Set one bot's rating gauge: ``elo``, or ``openskill`` (μ, σ) as μ−3σ; others ignored."""
    if system == "elo":
        RATING_ELO.labels(variant, bot).set(value)
    elif system == "openskill" and sigma is not None:
        RATING_OPENSKILL.labels(variant, bot).set(value - 3 * sigma)


def record_web_request(route: str, method: str, status: int, seconds: float) -> None:
    """A web request was answered: ``route`` is its route template (``/bots/{name}``)."""
    shown = method if method in WEB_METHODS else "OTHER"
    WEB_REQUESTS.labels(route, shown, str(status)).inc()
    WEB_REQUEST_SECONDS.labels(route, shown, str(status)).observe(seconds)


@contextmanager
def observe_store_write(operation: str) -> Iterator[None]:
    """Time a store write transaction; count it as an error if the block raises."""
    started = time.perf_counter()
    try:
        yield
    except BaseException:
        STORE_WRITE_ERRORS.labels(operation).inc()
        raise
    finally:
        STORE_WRITE_SECONDS.labels(operation).observe(time.perf_counter() - started)


# -- exposition --------------------------------------------------------------------


@dataclass
class MetricsServer:
    """A running ``/metrics`` endpoint: where it listens, and how to stop it."""

    host: str
    port: int
    _server: WSGIServer = field(repr=False)
    _thread: Thread = field(repr=False)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def start_metrics_server(port: int, host: str = "127.0.0.1") -> MetricsServer:
    """Serve :data:`REGISTRY` on ``http://host:port/metrics`` from a daemon thread
    (port 0: any free port; the bound one is in the result)."""
    server, thread = start_http_server(port, addr=host, registry=REGISTRY)
    return MetricsServer(host, int(server.server_port), server, thread)


def metric_names(registry: CollectorRegistry = REGISTRY) -> dict[str, frozenset[str]]:
    """Every sample name exported, with the label names it carries: the arena's metrics
    (histograms as ``_bucket`` with ``le``, ``_sum``, ``_count``) and the process's."""
    names = dict(EXPORTED)
    for family in registry.collect():
        for sample in family.samples:
            names.setdefault(sample.name, frozenset(sample.labels))
    return names
