"""Storing match results and rating them: each result once, ratings with it.

Elo (partnerships: a team is the mean of its two bots), OpenSkill
(Plackett–Luce, μ and σ, the conservative μ−3σ) and, for Shengji, room points
(SJ-32), per variant. With paired deals
only complete pairs are stored and rated, so both halves count together or not
at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from arena import metrics
from arena.games.shengji.scoring import LevelChange, room_points_change
from arena.rating import EloConfig, SkillRating, update_skill, update_teams
from arena.sim.jobs import MatchReport
from arena.store import RatingUpdate, Store

ELO, OPENSKILL, ROOM = "elo", "openskill", "room"


@dataclass
class League:
    """The ratings of one variant, kept in step with the store."""

    store: Store
    variant: str
    elo_config: EloConfig = field(default_factory=EloConfig)
    elo: dict[str, float] = field(default_factory=dict)
    skill: dict[str, SkillRating] = field(default_factory=dict)
    room: dict[str, float] = field(default_factory=dict)
    pending: dict[str, MatchReport] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for rating in self.store.ratings(self.variant):
            if rating.system == ELO:
                self.elo[rating.bot] = rating.value
            elif rating.system == OPENSKILL and rating.sigma is not None:
                self.skill[rating.bot] = SkillRating(rating.value, rating.sigma)
            elif rating.system == ROOM:
                self.room[rating.bot] = rating.value
            metrics.set_rating(self.variant, rating.bot, rating.system, rating.value, rating.sigma)

    def add(self, report: MatchReport, tournament_id: str | None) -> int:
        """Store and rate a result (a paired one once its twin is in); returns matches stored."""
        pair = report.job.pair
        if pair is None:
            return int(self._store(report, tournament_id))
        twin = self.pending.pop(pair, None)
        if twin is None:
            self.pending[pair] = report
            return 0
        return int(self._store(twin, tournament_id)) + int(self._store(report, tournament_id))

    def add_all(self, reports: Iterable[MatchReport], tournament_id: str | None) -> Iterator[int]:
        for report in reports:
            yield self.add(report, tournament_id)

    def _store(self, report: MatchReport, tournament_id: str | None) -> bool:
        job = report.job
        team_a, team_b = [job.players[0], job.players[2]], [job.players[1], job.players[3]]
        score = report.team_score()
        elo = update_teams(self.elo, team_a, team_b, score, self.elo_config)
        ranks = [0, 0] if score == 0.5 else [0, 1] if score == 1.0 else [1, 0]
        skill = update_skill(self.skill, [team_a, team_b], ranks)
        updates = [RatingUpdate(bot, self.variant, ELO, value) for bot, value in elo.items()]
        updates += [
            RatingUpdate(bot, self.variant, OPENSKILL, r.mu, r.sigma) for bot, r in skill.items()
        ]
        room = room_points(self.room, job.players, report.record) if self._uses_room() else {}
        updates += [RatingUpdate(bot, self.variant, ROOM, value) for bot, value in room.items()]
        stored = self.store.add_match(report.stored(tournament_id), updates)
        if stored:  # a duplicate (a retried batch, a rerun) changes no rating
            self.elo.update(elo)
            self.skill.update(skill)
            self.room.update(room)
            for update in updates:
                metrics.set_rating(
                    self.variant, update.bot, update.system, update.after, update.sigma
                )
        return stored

    def _uses_room(self) -> bool:
        return self.variant.startswith("shengji-")


def room_points(
    current: dict[str, float], players: tuple[str, ...], record: dict[str, Any]
) -> dict[str, float]:
    """SJ-32 room points after a Shengji match, deal by deal, for each bot that played.

    A bot sitting in both seats of a team counts each deal's change once.
    """
    points = {bot: current.get(bot, 0.0) for bot in players}
    for deal in record["deals"]:
        details = deal["result"]["details"]
        if "forfeit" in details:
            continue
        gain = int(details["gain"])
        change = (
            LevelChange(0, gain, take_over=True)
            if details["take_over"]
            else LevelChange(gain, 0, take_over=False)
        )
        seats = [int(points[bot]) for bot in players]
        deltas = room_points_change(change, seats, int(details["declarer_team"]))
        for bot in set(players):
            seat = players.index(bot)
            points[bot] += deltas[seat]
    return points
