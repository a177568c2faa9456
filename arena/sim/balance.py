"""Balance testing: many consecutive match deals of a variant, reduced to statistics.

Deals are played by the bots asked, one per player (``arena balance`` plays heuristic
bots unless told otherwise), as consecutive match deals (the next deal starts from the
previous deal's ``next_setup``, a new match from ``first_setup()``), so that later-deal
situations occur: Guandan's tribute, Shengji's dealers, sanfu's
one-card reveals after a sweep.

* :func:`deal_facts` — the facts of one finished deal, per game family (pure);
* :class:`Summary` — counts and sums of those facts; summaries merge (``a + b``), so
  batches played anywhere add up, in any grouping;
* :func:`play_balance_batch` — a batch of deals (a Ray task, or run in this process);
* :func:`run_local` / :func:`run_on_ray` — play a plan of batches, yielding summaries
  (and the seconds each took);
* :func:`report` — a summary as JSON-ready statistics with 95% intervals (Wilson for
  rates, normal for means).

A batch starts a fresh match and plays a fixed number of consecutive deals, so the
totals are exact and every result is determined by the seed and the batch size.
Batch ``i`` of every variant uses the same seeds (common random numbers: variants of
the same game are compared on the same shuffles).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import bots
from arena import metrics
from arena.cards import parse_cards
from arena.chance import derive_seed
from arena.errors import ConfigError
from arena.games import make
from arena.games.base import NUM_SEATS, Outcome, State, team_of
from arena.games.guandan.state import GuandanState
from arena.games.sanfu.state import SanfuState
from arena.games.shengji.scoring import (
    kitty_multiplier,
    level_change,
    points_in,
    room_points_change,
)
from arena.games.shengji.state import ShengjiState
from arena.games.shengji.trick import largest_unit_cards, widest_set
from arena.games.usage import rule_key, rules_applied
from arena.match import deal_seed, play_deal
from arena.rating import wilson_interval
from arena.sim.runner import Runner

__all__ = [
    "DEFAULT_BATCH",
    "TRIBUTE_KINDS",
    "BalanceJob",
    "Played",
    "Summary",
    "VariantSpec",
    "balance_counts",
    "change_order",
    "deal_facts",
    "family",
    "mean_interval",
    "plan_jobs",
    "play_balance_batch",
    "play_balance_task",
    "rate",
    "remote_balance_batch",
    "report",
    "run_local",
    "run_on_ray",
]

DEFAULT_BATCH = 500
"""Deals per batch: seconds of work per Ray task, and few truncated matches per batch."""
Z95 = 1.959963984540054
"""Two-sided normal quantile of 95%."""
TRIBUTE_KINDS = ("first", "single", "double", "refused_single", "refused_double")
"""Guandan deals by what happened before play: the first deal of a match (no tribute),
one or two tributes paid, or the tribute refused (GD-15) by one or two givers."""
TRIBUTE_LABELS = {
    "first": "first deal (no tribute)",
    "single": "single tribute",
    "double": "double tribute",
    "refused_single": "single tribute refused",
    "refused_double": "double tribute refused",
}


def family(game_name: str) -> str:
    """``guandan``, ``shengji`` or ``sanfu`` for a variant's name."""
    if game_name == "guandan" or game_name == "sanfu":
        return game_name
    if game_name.startswith("shengji"):
        return "shengji"
    raise ConfigError(f"no balance statistics for game {game_name!r}")


# ------------------------------------------------------------------ facts of one deal


def deal_facts(
    game_name: str, state: State, outcome: Outcome, decisions: int = 0
) -> dict[str, Any]:
    """The facts of a finished deal that balance statistics count (JSON-ready).

    Every family gives ``decisions`` (as passed: the deal's length), ``forfeit``,
    ``match_over``, ``winner_team``, ``dealer_team`` (None when the deal has none),
    ``first_out`` (the seat out first, climbing games), ``change`` (the result as a
    label: levels gained, or the stake), ``gain`` (levels or stake won) and ``points``
    (None in Guandan), ``rules`` (the rule ids and uses the deal applied, in rule order:
    :func:`arena.games.usage.rules_applied`; a forfeit deal's too), plus family facts:
    Shengji ``kitty_multiplier``, ``defenders_won_last``, ``last_bonus``; Guandan
    ``tribute`` (one of :data:`TRIBUTE_KINDS`), ``receiver_team`` and ``receiver_gain``;
    sanfu ``turned``,
    ``same_receiver``, ``receiver_was_first``, ``swapped``, ``sweep``, ``stake``,
    ``joker_bonus`` and ``transferred``.
    """
    kind = family(game_name)
    facts: dict[str, Any] = {
        "game": game_name,
        "decisions": decisions,
        "match_over": outcome.next_setup is None,
        "forfeit": "forfeit" in outcome.details or "fled" in outcome.details,
        "rules": sorted(rules_applied(state, outcome), key=rule_key),
    }
    if facts["forfeit"]:
        return facts
    if kind == "guandan":
        facts.update(_guandan_facts(state, outcome))
    elif kind == "shengji":
        facts.update(_shengji_facts(state, outcome))
    else:
        facts.update(_sanfu_facts(state, outcome))
    return facts


def _guandan_facts(state: State, outcome: Outcome) -> dict[str, Any]:
    if not isinstance(state, GuandanState):
        raise TypeError(f"expected a Guandan deal, got {type(state).__name__}")
    details = outcome.details
    winner, gain = int(details["winner_team"]), int(details["gain"])
    previous = state.setup.previous_order
    tributes = sum(1 for e in state.events if e.kind == "tribute")
    refusals = [e for e in state.events if e.kind == "refuse_tribute"]
    if not previous:
        tribute = "first"
    elif refusals:
        tribute = "refused_double" if refusals[0].tag == "double" else "refused_single"
    else:
        tribute = "double" if tributes == 2 else "single"
    # the team that won the previous deal: it receives the tribute and plays its level
    receiver = team_of(previous[0]) if previous else None
    change = "wins the match" if details.get("match_winner") is not None else f"+{gain}"
    order = [int(seat) for seat in details["order"]]
    return {
        "winner_team": winner,
        "dealer_team": receiver,
        "first_out": order[0],
        "double_down": team_of(order[0]) == team_of(order[1]),
        "change": change,
        "gain": gain,
        "points": None,
        "tribute": tribute,
        "receiver_team": receiver,
        "receiver_gain": (gain if winner == receiver else -gain) if receiver is not None else 0,
    }


def _shengji_facts(state: State, outcome: Outcome) -> dict[str, Any]:
    if not isinstance(state, ShengjiState):
        raise TypeError(f"expected a Shengji deal, got {type(state).__name__}")
    details = outcome.details
    declarers = int(details["declarer_team"])
    take_over = bool(details["take_over"])
    gain = int(details["gain"])
    winner = 1 - declarers if take_over else declarers
    last_winner, winning_play = _last_trick(state)
    defenders_last = team_of(last_winner) != declarers
    multiplier: int | None = None
    assert state.order is not None
    if state.rules.decks == 4:  # SJ-30: the widest set multiplies, whoever wins the trick
        multiplier = widest_set(winning_play, state.order)
    elif defenders_last:  # SJ-25: the kitty counts only for the defenders
        multiplier = kitty_multiplier(largest_unit_cards(winning_play, state.order))
    points = int(details["defender_points"])
    rules = state.rules
    result = level_change(points, rules.decks, rules.two_colour)
    room = room_points_change(result, (0,) * NUM_SEATS, declarers)[declarers]
    failed = [e for e in state.events if e.kind == "throw_failed"]
    return {
        "winner_team": winner,
        "dealer_team": team_of(int(details["dealer"])),
        "first_out": None,
        "failed_throws": len(failed),
        "declarers_failed_throws": sum(1 for e in failed if team_of(e.seat) == declarers),
        "room_points": room,
        "change": f"{'defenders' if take_over else 'declarers'} +{gain}",
        "gain": gain,
        "points": points,
        "kitty_multiplier": multiplier,
        "defenders_won_last": defenders_last,
        "last_bonus": int(details["last_bonus"]),
        "kitty_points": points_in(parse_cards(str(details["kitty"]))),
    }


def _last_trick(state: ShengjiState) -> tuple[int, tuple[int, ...]]:
    """The winner of the last trick and the cards they played in it (from the events)."""
    events = state.events
    last = max(i for i, e in enumerate(events) if e.kind == "trick")
    winner = events[last].seat
    plays = [e for e in events[:last] if e.kind == "play"][-NUM_SEATS:]
    return winner, next(e.cards for e in plays if e.seat == winner)


def _sanfu_facts(state: State, outcome: Outcome) -> dict[str, Any]:
    if not isinstance(state, SanfuState):
        raise TypeError(f"expected a sanfu deal, got {type(state).__name__}")
    details = outcome.details
    seating = list(details["seating"])
    winner = int(details["winner_team"])
    stake = int(details["stake"])
    sweep = bool(details["sweep"])
    turns = [e for e in state.events if e.kind == "turn"]
    leader = next(e.seat for e in state.events if e.kind == "lead")
    same = len(turns) == 2 and turns[0].seat == turns[1].seat
    was_first = (
        turns[0].value == state.setup.previous_first if len(turns) == 1 else None
    )  # SF-5: the previous first finisher received the one turned card
    change = f"sweep ×{stake}" if sweep else f"×{stake}"
    return {
        "winner_team": winner,
        "dealer_team": team_of(leader),
        "first_out": seating.index(details["order"][0]),
        "change": change,
        "gain": stake,
        "points": int(details["team_points"][winner]),
        "turned": len(turns),
        "same_receiver": same,
        "same_receiver_won": same and team_of(turns[0].seat) == winner,
        "receiver_was_first": was_first,
        "swapped": any(e.kind == "swap" for e in state.events),
        "sweep": sweep,
        "stake": stake,
        "joker_bonus": any(details["joker_bonus"]),
        "transferred": sum(details["transferred"]),
    }


# ------------------------------------------------------------------ summaries


@dataclass
class Summary:
    """Counts and sums of deal facts of one variant; ``a + b`` merges (associative).

    ``counts`` maps a key to an integer: a count (``deals``, ``seat_wins/2``,
    ``change/+3``, ``tribute/single/receiver_wins``, ``rules/SJ-17/failed``: the deals
    in which a rule id or use applied, forfeit deals included …) or a sum (``decisions``,
    ``points``) with its sum of squares (``decisions_sq``) for the intervals.
    """

    game: str
    counts: dict[str, int] = field(default_factory=dict)

    def __getitem__(self, key: str) -> int:
        return self.counts.get(key, 0)

    def add(self, key: str, value: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + value

    def add_sum(self, key: str, value: int) -> None:
        """A value of a mean: its sum and its sum of squares."""
        self.add(key, value)
        self.add(f"{key}_sq", value * value)

    def __add__(self, other: Summary) -> Summary:
        if other.game != self.game:
            raise ValueError(f"cannot merge a {other.game} summary into a {self.game} one")
        counts = dict(self.counts)
        for key, value in other.counts.items():
            counts[key] = counts.get(key, 0) + value
        return Summary(self.game, counts)

    def add_facts(self, facts: Mapping[str, Any]) -> None:
        """Count one deal's facts (from :func:`deal_facts`)."""
        self.add("deals")
        self.add_sum("decisions", int(facts["decisions"]))
        for rule in facts.get("rules", ()):  # every deal, a forfeit too: out of "deals"
            self.add(f"rules/{rule}")
        if facts["match_over"]:
            self.add("matches")
        if facts["forfeit"]:
            self.add("forfeits")
            return
        self.add("scored")
        winner = int(facts["winner_team"])
        for seat in range(NUM_SEATS):
            if team_of(seat) == winner:
                self.add(f"seat_wins/{seat}")
        dealer = facts["dealer_team"]
        if dealer is not None:
            self.add("dealer_deals")
            if dealer == winner:
                self.add("dealer_wins")
        if facts["first_out"] is not None:
            self.add(f"first_out/{facts['first_out']}")
        self.add(f"change/{facts['change']}")
        self.add_sum("gain", int(facts["gain"]))
        if facts["points"] is not None:
            self.add("points_n")
            self.add_sum("points", int(facts["points"]))
        kind = family(self.game)
        if kind == "shengji":
            self._add_shengji(facts)
        elif kind == "guandan":
            self._add_guandan(facts)
        else:
            self._add_sanfu(facts)

    def _add_shengji(self, facts: Mapping[str, Any]) -> None:
        failed = int(facts["failed_throws"])
        if failed:
            self.add("play/failed_throw_deals")
        self.add_sum("play/failed_throws", failed)
        self.add_sum("play/declarers_failed_throws", int(facts["declarers_failed_throws"]))
        self.add_sum("play/room_points", int(facts["room_points"]))
        if facts["defenders_won_last"]:
            self.add("kitty/defenders_last")
        multiplier = facts["kitty_multiplier"]
        self.add(f"kitty/x{multiplier}" if multiplier is not None else "kitty/none")
        self.add_sum("kitty/bonus", int(facts["last_bonus"]))

    def _add_guandan(self, facts: Mapping[str, Any]) -> None:
        if facts["double_down"]:
            self.add("double_down")
        kind = facts["tribute"]
        self.add(f"tribute/{kind}/deals")
        if facts["receiver_team"] is not None:
            if facts["receiver_team"] == facts["winner_team"]:
                self.add(f"tribute/{kind}/receiver_wins")
            self.add_sum(f"tribute/{kind}/receiver_gain", int(facts["receiver_gain"]))

    def _add_sanfu(self, facts: Mapping[str, Any]) -> None:
        if facts["turned"] == 2:
            self.add("reveal/two_cards")
            if facts["same_receiver"]:
                self.add("reveal/same_receiver")
                if facts["same_receiver_won"]:
                    self.add("reveal/same_receiver_won")
        else:
            self.add("reveal/one_card")
            if facts["receiver_was_first"]:
                self.add("reveal/receiver_was_first")
        if facts["swapped"]:
            self.add("reveal/swapped")
        if facts["sweep"]:
            self.add("sweep")
            if facts["stake"] == 6:
                self.add("sweep_all_points")
        if facts["joker_bonus"]:
            self.add("joker_bonus")
        self.add_sum("transferred", int(facts["transferred"]))


# ------------------------------------------------------------------ playing batches


@dataclass(frozen=True)
class VariantSpec:
    """A variant to test: the game's name, its options as given, and a label."""

    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    @property
    def name(self) -> str:
        return self.label or self.game


@dataclass(frozen=True)
class BalanceJob:
    """One batch: ``deals`` consecutive match deals of a variant (a fresh match first)."""

    variant: int
    """Index of the variant in the plan."""
    game: str
    options: Mapping[str, Any]
    seed: int
    deals: int
    index: int
    bots: tuple[str, ...] = ("random",) * NUM_SEATS
    """The bot of each player (:func:`bots.lineup`)."""


def plan_jobs(
    specs: Sequence[VariantSpec],
    deals: int,
    batch: int = DEFAULT_BATCH,
    seed: int = 0,
    players: Sequence[str] = ("random",) * NUM_SEATS,
) -> list[BalanceJob]:
    """The batches of every variant, interleaved (an interrupted run stays balanced),
    played by the bots ``players`` (one per player)."""
    if deals < 1:
        raise ConfigError(f"--deals must be at least 1, got {deals}")
    if batch < 1:
        raise ConfigError(f"--batch must be at least 1, got {batch}")
    if len(players) != NUM_SEATS:
        raise ConfigError(f"a bot for each of the {NUM_SEATS} players, not {len(players)}")
    lineup = tuple(players)
    sizes = [min(batch, deals - start) for start in range(0, deals, batch)]
    return [
        BalanceJob(
            v, spec.game, dict(spec.options), derive_seed(seed, "balance", i), size, i, lineup
        )
        for i, size in enumerate(sizes)
        for v, spec in enumerate(specs)
    ]


def play_balance_batch(job: BalanceJob, on_deal: Callable[[], None] | None = None) -> Summary:
    """Play a batch with the job's bots; ``on_deal`` is called after each deal."""
    game = make(job.game, **job.options)
    policies = [bots.make(bot, derive_seed(job.seed, "bot", p)) for p, bot in enumerate(job.bots)]
    summary = Summary(job.game)
    setup = game.first_setup()
    for number in range(job.deals):
        state = game.new_deal(setup, seed=deal_seed(job.seed, number))
        decisions = len(play_deal(state, policies))
        outcome = state.outcome()
        summary.add_facts(deal_facts(job.game, state, outcome, decisions))
        setup = outcome.next_setup
        if setup is None:
            setup = game.first_setup()
        if on_deal is not None:
            on_deal()
    return summary


Played = tuple[BalanceJob, Summary, float]
"""A finished batch: its job, its summary and the seconds its worker took."""


def run_local(
    jobs: Sequence[BalanceJob], on_deal: Callable[[BalanceJob], None] | None = None
) -> Generator[Played, None, None]:
    """Play the batches one after another in this process (each published to the metrics)."""
    for job in jobs:
        started = time.perf_counter()
        summary = play_balance_batch(job, None if on_deal is None else partial(on_deal, job))
        seconds = time.perf_counter() - started
        metrics.publish_batch(balance_counts(job, summary, seconds))
        yield job, summary, seconds


def balance_counts(job: BalanceJob, summary: Summary, seconds: float) -> metrics.BatchCounts:
    """A batch's counts for the metrics, read from its summary."""
    counts = metrics.BatchCounts(job.game, seconds=seconds)
    counts.add_deals(summary["deals"], summary["decisions"])
    return counts


def play_balance_task(job: BalanceJob) -> tuple[Summary, metrics.BatchCounts]:
    """The body of the Ray task: a batch's summary and its counts for the metrics."""
    started = time.perf_counter()
    summary = play_balance_batch(job)
    return summary, balance_counts(job, summary, time.perf_counter() - started)


def remote_balance_batch() -> Any:
    """The Ray task that plays a batch (built on first use, so importing needs no Ray).
    The runner, not Ray, submits a batch again whose worker died."""
    import ray

    return ray.remote(max_retries=0, retry_exceptions=False)(play_balance_task)


def run_on_ray(
    jobs: Sequence[BalanceJob], runner: Runner, max_in_flight: int | None = None
) -> Generator[Played, None, None]:
    """Play the batches on Ray, at most ``max_in_flight`` at a time (default: twice the
    cluster's CPUs); yield each as it finishes, after publishing its counts to the
    metrics. Closing the iterator (or an interrupt while it waits) cancels the
    batches in flight."""
    tasks = runner.stream(jobs, remote_balance_batch(), max_in_flight, "balance_batch")
    with closing(tasks):
        for job, (summary, counts) in tasks:
            metrics.publish_batch(counts)
            yield job, summary, counts.seconds


# ------------------------------------------------------------------ statistics


def rate(count: int, n: int) -> dict[str, Any]:
    """A rate with its 95% Wilson interval: ``{count, n, rate, low, high}``."""
    low, high = wilson_interval(count, n)
    return {"count": count, "n": n, "rate": count / n if n else None, "low": low, "high": high}


def mean_interval(total: int, squares: int, n: int) -> dict[str, Any]:
    """A mean with its 95% normal interval, from the sum and the sum of squares; with one
    value there is no spread to measure: no interval (None), not a zero-width one."""
    if n == 0:
        return {"n": 0, "mean": None, "sd": None, "low": None, "high": None}
    mean = total / n
    if n == 1:
        return {"n": 1, "mean": mean, "sd": None, "low": None, "high": None}
    variance = max(0.0, (squares - n * mean * mean) / (n - 1))
    sd = math.sqrt(variance)
    margin = Z95 * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "low": mean - margin, "high": mean + margin}


def _mean(summary: Summary, key: str, n: int) -> dict[str, Any]:
    return mean_interval(summary[key], summary[f"{key}_sq"], n)


def change_order(label: str) -> tuple[int, int, str]:
    """Sort key of level-change labels: the defenders' take-overs (largest first), then
    the declarers' or winners' gains, ascending; sanfu stakes ascending, sweeps last."""
    number = int("".join(ch for ch in label if ch.isdigit()) or 0)
    if label.startswith("defenders"):
        return (0, -number, label)
    if label.startswith("sweep"):
        return (2, number, label)
    if not any(ch.isdigit() for ch in label):
        return (3, 0, label)
    return (1, number, label)


DEALER_LABELS = {
    "guandan": "the team whose level is played (the previous deal's winners)",
    "shengji": "the dealer's team (declarers)",
    "sanfu": "the team of the first leader (the first turned card's receiver)",
}
POINTS_LABELS = {
    "shengji": "defenders' points (kitty and last trick included)",
    "sanfu": "winning team's points",
}
GAIN_LABELS = {
    "guandan": "levels gained by the winners",
    "shengji": "levels gained by the winners",
    "sanfu": "stake won (× base)",
}


def report(summary: Summary, spec: VariantSpec, options: Mapping[str, Any]) -> dict[str, Any]:
    """The statistics of a variant, JSON-ready, every rate with a 95% Wilson interval.

    Sections: ``dealer_team``, ``seats``, ``first_out`` (climbing games),
    ``level_changes``, ``gain``, ``points`` (Shengji, sanfu), ``length`` and one
    family section: ``kitty`` (Shengji), ``tribute`` (Guandan) or ``reveal`` (sanfu);
    ``rules``: each rule id or use seen (:mod:`arena.games.usage`) → its rate per deal.
    """
    kind = family(summary.game)
    scored = summary["scored"]
    data: dict[str, Any] = {
        "name": spec.name,
        "game": summary.game,
        "options": dict(options),
        "deals": summary["deals"],
        "matches_completed": summary["matches"],
        "forfeits": summary["forfeits"],
        "dealer_team": {
            "label": DEALER_LABELS[kind],
            **rate(summary["dealer_wins"], summary["dealer_deals"]),
        },
        "seats": [
            {"seat": seat, **rate(summary[f"seat_wins/{seat}"], scored)}
            for seat in range(NUM_SEATS)
        ],
    }
    if kind != "shengji":
        data["first_out"] = [
            {"seat": seat, **rate(summary[f"first_out/{seat}"], scored)}
            for seat in range(NUM_SEATS)
        ]
    changes = sorted(
        (key.removeprefix("change/") for key in summary.counts if key.startswith("change/")),
        key=change_order,
    )
    data["level_changes"] = {
        "label": "stake of the deal" if kind == "sanfu" else "levels gained, by whom",
        "buckets": [
            {"change": label, **rate(summary[f"change/{label}"], scored)} for label in changes
        ],
    }
    data["gain"] = {"label": GAIN_LABELS[kind], **_mean(summary, "gain", scored)}
    if kind in POINTS_LABELS:
        data["points"] = {
            "label": POINTS_LABELS[kind],
            **_mean(summary, "points", summary["points_n"]),
        }
    data["length"] = {
        "label": "decisions per deal",
        **_mean(summary, "decisions", summary["deals"]),
    }
    if kind == "shengji":
        data["kitty"] = _kitty_section(summary)
        data["play"] = _play_section(summary)
    elif kind == "guandan":
        data["tribute"] = _tribute_section(summary)
    else:
        data["reveal"] = _reveal_section(summary)
    data["rules"] = _rules_section(summary)
    return data


def _rules_section(summary: Summary) -> dict[str, Any]:
    """Every rule id and use seen, in rule order: the share of all deals it applied in."""
    seen = sorted(
        (key.removeprefix("rules/") for key in summary.counts if key.startswith("rules/")),
        key=rule_key,
    )
    return {rule: rate(summary[f"rules/{rule}"], summary["deals"]) for rule in seen}


def _kitty_section(summary: Summary) -> dict[str, Any]:
    scored = summary["scored"]
    four_decks = summary.game == "shengji-4"
    multipliers = sorted(
        int(key.removeprefix("kitty/x")) for key in summary.counts if key.startswith("kitty/x")
    )
    buckets = [] if four_decks else [{"multiplier": None, **rate(summary["kitty/none"], scored)}]
    buckets += [{"multiplier": m, **rate(summary[f"kitty/x{m}"], scored)} for m in multipliers]
    return {
        "label": (
            "last-trick multiplier: the widest set of the winning play (SJ-30, no kitty)"
            if four_decks
            else "kitty multiplier when the defenders win the last trick (SJ-25); "
            "none: the declarers won it"
        ),
        "defenders_won_last": rate(summary["kitty/defenders_last"], scored),
        "multipliers": buckets,
        "bonus": {
            "label": "defenders' points from the last trick's settlement",
            **_mean(summary, "kitty/bonus", scored),
        },
    }


def _play_section(summary: Summary) -> dict[str, Any]:
    scored = summary["scored"]
    return {
        "label": "failed throws (SJ-17) and room points (SJ-32)",
        "failed_throw": rate(summary["play/failed_throw_deals"], scored),
        "failed_throws": {
            "label": "failed throws per deal",
            **_mean(summary, "play/failed_throws", scored),
        },
        "declarers_failed_throws": {
            "label": "failed throws of the declarers per deal",
            **_mean(summary, "play/declarers_failed_throws", scored),
        },
        "room_points": {
            "label": "room points of each declarer per deal (SJ-32, before the room's factor)",
            **_mean(summary, "play/room_points", scored),
        },
    }


def _tribute_section(summary: Summary) -> dict[str, Any]:
    scored = summary["scored"]
    kinds = []
    for kind in TRIBUTE_KINDS:
        deals = summary[f"tribute/{kind}/deals"]
        entry: dict[str, Any] = {
            "kind": kind,
            "label": TRIBUTE_LABELS[kind],
            "share": rate(deals, scored),
        }
        if kind != "first":
            entry["receiver_wins"] = rate(summary[f"tribute/{kind}/receiver_wins"], deals)
            entry["receiver_gain"] = _mean(summary, f"tribute/{kind}/receiver_gain", deals)
        kinds.append(entry)
    later = sum(summary[f"tribute/{k}/deals"] for k in TRIBUTE_KINDS if k != "first")
    refused = sum(summary[f"tribute/{k}/deals"] for k in ("refused_single", "refused_double"))
    return {
        "label": "the next deal after tribute: how often the previous winners (who receive "
        "the tribute) win again, and their levels gained (lost: negative)",
        "kinds": kinds,
        "refused": rate(refused, later),
        "double_down": rate(summary["double_down"], scored),
    }


def _reveal_section(summary: Summary) -> dict[str, Any]:
    scored = summary["scored"]
    two, one = summary["reveal/two_cards"], summary["reveal/one_card"]
    same = summary["reveal/same_receiver"]
    return {
        "label": "partners found by turned cards (SF-2 … SF-5), sweeps (SF-14)",
        "two_cards": rate(two, scored),
        "same_receiver": rate(same, two),
        "same_receiver_won": rate(summary["reveal/same_receiver_won"], same),
        "one_card": rate(one, scored),
        "receiver_was_first": rate(summary["reveal/receiver_was_first"], one),
        "swapped": rate(summary["reveal/swapped"], scored),
        "sweep": rate(summary["sweep"], scored),
        "sweep_all_points": rate(summary["sweep_all_points"], scored),
        "joker_bonus": rate(summary["joker_bonus"], scored),
        "transferred": {
            "label": "points transferred from last players (SF-13)",
            **_mean(summary, "transferred", scored),
        },
    }
