"""Storing match results and rating them: each result once, ratings with it.

Elo (partnerships: a team is the mean of its two bots), OpenSkill
(Plackett–Luce, μ and σ, the conservative μ−3σ) and, for Shengji, room points
(SJ-32), per variant. With paired deals
only complete pairs are stored and rated, so both halves count together or not
at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
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
    ratings: Ratings = field(init=False)
    pending: dict[str, MatchReport] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ratings = Ratings.stored(self.store, self.variant)
        for update in self.ratings.updates():
            metrics.set_rating(self.variant, update.bot, update.system, update.after, update.sigma)

    @property
    def elo(self) -> dict[str, float]:
        """Each bot's Elo in the variant."""
        return self.ratings.elo

    @property
    def skill(self) -> dict[str, SkillRating]:
        """Each bot's OpenSkill rating in the variant."""
        return self.ratings.skill

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
        changed = self.ratings.rate(report.job.players, report.team_score(), report.record)
        stored = self.store.add_match(report.stored(tournament_id), changed)
        if stored:  # a duplicate (a retried batch, a rerun) changes no rating
            self.ratings.apply(changed)
            for update in changed:
                metrics.set_rating(
                    self.variant, update.bot, update.system, update.after, update.sigma
                )
        return stored


@dataclass
class Ratings:
    """Every bot's ratings in one variant (Elo, OpenSkill, Shengji room points), and what
    a match does to them; no store: :class:`League` keeps it in step with one."""

    variant: str
    elo_config: EloConfig = field(default_factory=EloConfig)
    elo: dict[str, float] = field(default_factory=dict)
    skill: dict[str, SkillRating] = field(default_factory=dict)
    room: dict[str, float] = field(default_factory=dict)

    def rate(
        self, players: Sequence[str], team_score: float, record: dict[str, Any]
    ) -> list[RatingUpdate]:
        """The new ratings of the match's bots (players 0 and 2 against 1 and 3), not applied.

        ``team_score`` is team 0's result: 1 win, 0 loss, 0.5 even.
        """
        team_a, team_b = [players[0], players[2]], [players[1], players[3]]
        elo = update_teams(self.elo, team_a, team_b, team_score, self.elo_config)
        ranks = [0, 0] if team_score == 0.5 else [0, 1] if team_score == 1.0 else [1, 0]
        skill = update_skill(self.skill, [team_a, team_b], ranks)
        shengji = self.variant.startswith("shengji-")
        room = room_points(self.room, tuple(players), record) if shengji else {}
        return self._as_updates(elo, skill, room)

    @classmethod
    def stored(cls, store: Store, variant: str) -> Ratings:
        """The ratings ``store`` keeps for ``variant``."""
        ratings = cls(variant)
        ratings.apply(
            RatingUpdate(r.bot, r.variant, r.system, r.value, r.sigma)
            for r in store.ratings(variant)
        )
        return ratings

    def updates(self) -> list[RatingUpdate]:
        """Every bot's every rating, as updates to it."""
        return self._as_updates(self.elo, self.skill, self.room)

    def _as_updates(
        self, elo: dict[str, float], skill: dict[str, SkillRating], room: dict[str, float]
    ) -> list[RatingUpdate]:
        return [
            *(RatingUpdate(bot, self.variant, ELO, value) for bot, value in elo.items()),
            *(
                RatingUpdate(bot, self.variant, OPENSKILL, r.mu, r.sigma)
                for bot, r in skill.items()
            ),
            *(RatingUpdate(bot, self.variant, ROOM, value) for bot, value in room.items()),
        ]

    def apply(self, updates: Iterable[RatingUpdate]) -> None:
        for update in updates:
            if update.system == ELO:
                self.elo[update.bot] = update.after
            elif update.system == OPENSKILL and update.sigma is not None:
                self.skill[update.bot] = SkillRating(update.after, update.sigma)
            elif update.system == ROOM:
                self.room[update.bot] = update.after


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
