"""Matches to play, as plain data: what a Ray task receives and what it returns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.base import NUM_SEATS, team_of
from arena.match import Conduct, MatchResult
from arena.store import StoredMatch


@dataclass(frozen=True)
class MatchJob:
    """One match to play: its deterministic id, the game, the seed, a bot per player.

    ``pair`` names the pair of a duplicate (paired) run: both matches of a pair use
    the same seed with the partnerships swapped, so the same cards go to the other team.
    ``side`` is the two players :meth:`MatchReport.team_score` scores together: seats 0
    and 2 (C-2), or the partners a sanfu deal's turned cards make (SF-3).
    """

    id: str
    variant: str
    options: Mapping[str, Any]
    seed: int
    players: tuple[str, str, str, str]
    max_deals: int | None = None
    pair: str | None = None
    side: tuple[int, int] = (0, 2)


@dataclass(frozen=True)
class MatchReport:
    """What came back from playing a job: the outcome in brief and the whole record."""

    job: MatchJob
    winner: int | None
    totals: tuple[int, ...]
    deals: int
    decisions: int
    record: dict[str, Any] = field(repr=False)
    seconds: float = 0.0
    conduct: tuple[Conduct, ...] = field(default_factory=lambda: _nothing_refused())
    """Per player: its refused answers and timed-out decisions. None are possible in a
    match between in-process bots without a clock (a refused answer raises)."""

    @classmethod
    def of(
        cls,
        job: MatchJob,
        result: MatchResult,
        seconds: float = 0.0,
        conduct: Sequence[Conduct] | None = None,
    ) -> MatchReport:
        """The report of ``job`` played to ``result``; ``conduct`` per player (none
        given: nothing refused, nothing timed out)."""
        return cls(
            job=job,
            winner=result.winner,
            totals=tuple(result.totals),
            deals=len(result.outcomes),
            decisions=result.decisions,
            record=result.record.to_dict(),
            seconds=seconds,
            conduct=tuple(conduct) if conduct is not None else _nothing_refused(),
        )

    def stored(self, tournament_id: str | None, **outcome: Any) -> StoredMatch:
        """The match as the store keeps it; ``outcome`` adds to its outcome."""
        job = self.job
        return StoredMatch(
            id=job.id,
            tournament_id=tournament_id,
            variant=job.variant,
            options=dict(job.options),
            seed=job.seed,
            seating=tuple(job.players),
            outcome={
                "winner": self.winner,
                "totals": list(self.totals),
                "team_score": self.team_score(),
                "conduct": conduct_outcome(self.conduct),
                **outcome,
            },
            record=self.record,
            deals=self.deals,
            decisions=self.decisions,
        )

    def team_score(self) -> float:
        """The match from the side of the job's :attr:`~MatchJob.side` (team 0 unless
        set otherwise): 1 win, 0 loss, 0.5 even.

        A match without a winner (stopped after ``max_deals``, or a game like sanfu
        that only adds up results) is decided by the two sides' totals.
        """
        side = self.job.side
        if self.winner is not None:
            return 1.0 if self.winner == team_of(side[0]) else 0.0
        ours = sum(self.totals[p] for p in side)
        theirs = sum(self.totals) - ours
        return 1.0 if ours > theirs else 0.0 if ours < theirs else 0.5


def _nothing_refused() -> tuple[Conduct, ...]:
    return tuple(Conduct() for _ in range(NUM_SEATS))


def conduct_outcome(conduct: Sequence[Conduct]) -> dict[str, list[int]]:
    """A stored outcome's ``conduct``: ``illegal``, ``malformed`` and ``timeouts``, each
    a list with one count per player (the order of the seating)."""
    return {
        "illegal": [c.illegal for c in conduct],
        "malformed": [c.malformed for c in conduct],
        "timeouts": [c.timeouts for c in conduct],
    }


def team_players(team_a: Sequence[str], team_b: Sequence[str]) -> tuple[str, str, str, str]:
    """Seats 0 and 2 for ``team_a``, 1 and 3 for ``team_b`` (C-2)."""
    if len(team_a) != 2 or len(team_b) != 2:
        raise ValueError("a team is two bots")
    players = (team_a[0], team_b[0], team_a[1], team_b[1])
    assert len(players) == NUM_SEATS
    return players
