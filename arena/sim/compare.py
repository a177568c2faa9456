"""Comparing two bots: paired matches on Ray until an SPRT decides.

Team A is two copies of bot A, team B two of bot B. Each seed is played twice
with the partnerships swapped (duplicate deals), and the pair's score — the mean
of its two matches from A's side — feeds a sequential probability ratio test.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from arena.chance import derive_seed
from arena.rating import Sprt, SprtConfig, elo_interval, likelihood_of_superiority
from arena.sim.jobs import MatchJob, MatchReport, team_players
from arena.sim.runner import Runner


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
        elo, low, high = (
            elo_interval(self.pair_scores) if len(self.pair_scores) >= 2 else (0.0, -1e9, 1e9)
        )
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
    return score if report.job.players[0] == bot_a else 1.0 - score


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
    """Pairs ``start`` … ``start + count - 1``: each seed with A, then B, at seats 0 and 2."""
    jobs = []
    for n in range(start, start + count):
        match_seed = derive_seed(seed, "compare", variant, n)
        pair = f"compare:{bot_a}:{bot_b}:{n}"
        for side, (x, y) in (("a", (bot_a, bot_b)), ("b", (bot_b, bot_a))):
            jobs.append(
                MatchJob(
                    id=f"{pair}:{side}",
                    variant=variant,
                    options=dict(options),
                    seed=match_seed,
                    players=team_players([x, x], [y, y]),
                    max_deals=deals,
                    pair=pair,
                )
            )
    return jobs


def compare(
    runner: Runner,
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
    """Play pairs chunk by chunk until the SPRT decides or ``max_pairs`` are played."""
    result = Comparison(bot_a, bot_b, Sprt(config))
    waiting: dict[str, MatchReport] = {}
    played = 0
    while result.sprt.decision is None and played < max_pairs:
        count = min(chunk, max_pairs - played)
        jobs = pair_jobs(bot_a, bot_b, variant, options, deals, seed, played, count)
        played += count
        for report in runner.run(jobs, batch_size=max(2, 40 // (deals or 30) * 2)):
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
