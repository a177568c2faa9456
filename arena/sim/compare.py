"""Comparing two bots: paired matches on Ray until an SPRT decides.

Team A is two copies of bot A, team B two of bot B. Each seed is played twice
with the partnerships swapped (duplicate deals), and the pair's score — the mean
of its two matches from A's side — feeds a sequential probability ratio test.
Partners sit at seats 0 and 2 (C-2), except in sanfu, where the deal's turned cards
make the partnerships (SF-3): in one-deal matches the copies of a bot are seated on
the players the seed's deal makes partners, so that every deal pits A and A against
B and B (seated at 0 and 2 regardless, half the deals would partner A with B).

Batches are sized for the bots at hand (:func:`pairs_per_batch`): the first round
plays one pair per batch on every worker and times the bots; later batches hold as
many pairs as take about :data:`BATCH_SECONDS`, but never so many that a round of
pairs in flight leaves a worker idle. Slow bots thus get one pair per batch, and
the test can stop after any pair; fast bots get batches long enough to dwarf Ray's
per-task cost. Only the batching adapts: the pairs and the test are the same.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.chance import derive_seed
from arena.games import make
from arena.games.base import NUM_SEATS, Game
from arena.match import deal_seed
from arena.rating import (
    Sprt,
    SprtConfig,
    elo_difference,
    elo_interval,
    likelihood_of_superiority,
)
from arena.sim.jobs import MatchJob, MatchReport

BATCH_SECONDS = 2.0
"""About how long a batch of pairs should take on a worker, once the bots are timed."""


class PairRunner(Protocol):
    """What :func:`compare` needs of a runner (:class:`arena.sim.Runner` has it)."""

    @property
    def workers(self) -> int: ...

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]: ...


@dataclass
class Comparison:
    """The running result: pair scores from A's side, match wins and losses, the test."""

    bot_a: str
    bot_b: str
    sprt: Sprt
    pair_scores: list[float] = field(default_factory=list)
    match_scores: list[float] = field(default_factory=list)
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def add_pair(self, first: MatchReport, second: MatchReport) -> None:
        scores = [_score_for_a(first, self.bot_a), _score_for_a(second, self.bot_a)]
        self.match_scores.extend(scores)
        for score in scores:
            self.wins += score == 1.0
            self.losses += score == 0.0
            self.draws += score == 0.5
        self.pair_scores.append(sum(scores) / 2)
        self.sprt.add(self.pair_scores[-1])

    def narrowing(self) -> dict[str, float] | None:
        """How much pairing narrowed the score interval, against the same matches unpaired.

        The half-width of the 95% interval of the mean score from the pair scores, and
        from the same matches taken one by one as if independent (the unpaired
        estimate on the same budget); ``ratio`` < 1 means pairing helped.
        """
        if len(self.pair_scores) < 2:
            return None
        paired = 1.96 * _stdev(self.pair_scores) / len(self.pair_scores) ** 0.5
        unpaired = 1.96 * _stdev(self.match_scores) / len(self.match_scores) ** 0.5
        return {
            "paired_half_width": paired,
            "unpaired_half_width": unpaired,
            "ratio": paired / unpaired if unpaired else 1.0,
        }

    def summary(self) -> dict[str, Any]:
        """The comparison so far. ``elo`` is None before the first pair; an interval end
        (and ``elo``, when one bot won every pair) may be infinite: with fewer than two
        pairs the interval is unbounded."""
        elo: float | None
        if len(self.pair_scores) >= 2:
            elo, low, high = elo_interval(self.pair_scores)
        else:
            low, high = -math.inf, math.inf
            elo = elo_difference(self.pair_scores[0]) if self.pair_scores else None
        return {
            "narrowing": self.narrowing(),
            "bot_a": self.bot_a,
            "bot_b": self.bot_b,
            "pairs": len(self.pair_scores),
            "wins": self.wins,
            "losses": self.losses,
            "draws": self.draws,
            "decision": self.sprt.decision,
            "llr": self.sprt.llr,
            "bounds": list(self.sprt.bounds),
            "elo": elo,
            "elo_95": [low, high],
            "los": likelihood_of_superiority(self.wins, self.losses),
        }


def _stdev(values: list[float]) -> float:
    return statistics.stdev(values)


def _score_for_a(report: MatchReport, bot_a: str) -> float:
    score = report.team_score()
    return score if report.job.players[report.job.side[0]] == bot_a else 1.0 - score


def first_partners(game: Game, match_seed: int) -> tuple[int, int]:
    """The two players (as numbered in a match, 0 … 3) that the first deal of the match
    seeded ``match_seed`` seats as partners: 0 and 2, or as sanfu's turned cards say."""
    state = game.new_deal(game.first_setup(), seed=deal_seed(match_seed, 0))
    first, second = sorted((state.player_at(0), state.player_at(2)))
    return first, second


def pair_jobs(
    bot_a: str,
    bot_b: str,
    variant: str,
    options: Mapping[str, Any],
    deals: int | None,
    seed: int,
    start: int,
    count: int,
) -> list[MatchJob]:
    """Pairs ``start`` … ``start + count - 1``: each seed with A, then B, as partners
    (seats 0 and 2, or in a one-deal match the first deal's partners)."""
    game = make(variant, **options)
    jobs = []
    for n in range(start, start + count):
        match_seed = derive_seed(seed, "compare", variant, n)
        side = first_partners(game, match_seed) if deals == 1 else (0, 2)
        pair = f"compare:{bot_a}:{bot_b}:{n}"
        for name, (x, y) in (("a", (bot_a, bot_b)), ("b", (bot_b, bot_a))):
            players = tuple(x if p in side else y for p in range(NUM_SEATS))
            jobs.append(
                MatchJob(
                    id=f"{pair}:{name}",
                    variant=variant,
                    options=dict(options),
                    seed=match_seed,
                    players=(players[0], players[1], players[2], players[3]),
                    max_deals=deals,
                    pair=pair,
                    side=side,
                )
            )
    return jobs


def pairs_per_batch(
    pairs: int, workers: int, seconds_per_pair: float | None, target: float = BATCH_SECONDS
) -> int:
    """How many of ``pairs`` pairs (a round) to put in one batch for ``workers`` workers.

    Untimed bots (``seconds_per_pair`` is ``None``) get one pair per batch; timed ones
    as many as take about ``target`` seconds. Either way a round is split into at
    least two batches per worker, so every worker is busy and a decision can stop
    the round early.
    """
    spread = max(1, pairs // (2 * max(1, workers)))
    if seconds_per_pair is None:
        return 1
    return max(1, min(spread, int(target / max(seconds_per_pair, 1e-6))))


def compare(
    runner: PairRunner,
    bot_a: str,
    bot_b: str,
    variant: str,
    options: Mapping[str, Any],
    config: SprtConfig,
    *,
    deals: int | None = 1,
    seed: int = 0,
    max_pairs: int = 20_000,
    chunk: int = 64,
    on_pair: Callable[[Comparison], None] | None = None,
) -> Comparison:
    """Play pairs round by round until the SPRT decides or ``max_pairs`` are played.

    The first round is one pair per batch on twice as many batches as workers (it
    times the bots); later rounds hold ``chunk`` pairs, batched by
    :func:`pairs_per_batch`.
    """
    result = Comparison(bot_a, bot_b, Sprt(config))
    waiting: dict[str, MatchReport] = {}
    workers = max(1, runner.workers)
    played, seconds, timed = 0, 0.0, 0
    while result.sprt.decision is None and played < max_pairs:
        first_round = timed == 0
        count = min(2 * workers if first_round else chunk, max_pairs - played)
        per_pair = None if first_round else 2 * seconds / timed
        size = pairs_per_batch(count, workers, per_pair)
        jobs = pair_jobs(bot_a, bot_b, variant, options, deals, seed, played, count)
        played += count
        for report in runner.run(jobs, batch_size=2 * size):
            seconds += report.seconds
            timed += 1
            pair = report.job.pair
            assert pair is not None
            twin = waiting.pop(pair, None)
            if twin is None:
                waiting[pair] = report
                continue
            first, second = sorted((twin, report), key=lambda r: r.job.id)
            result.add_pair(first, second)
            if on_pair is not None:
                on_pair(result)
            if result.sprt.decision is not None:
                break  # the runner cancels what is still in flight
    return result
