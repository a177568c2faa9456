"""Storing match results and rating them: each result once, ratings with it.

Elo (partnerships: a team is the mean of its two bots), OpenSkill
(Plackett–Luce, μ and σ, the conservative μ−3σ) and, for Shengji, room points
(SJ-32), per variant. The matches that count together — the two halves of a
paired deal — are stored and rated as one unit, in one transaction: both or
neither, across crashes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena import metrics
from arena.games.shengji.scoring import LevelChange, room_points_change
from arena.rating import EloConfig, SkillRating, update_skill, update_teams
from arena.rating.pools import pool_variant
from arena.sim.jobs import MatchReport
from arena.store import RatingUpdate, Store, StoredMatch

ELO, OPENSKILL, ROOM = "elo", "openskill", "room"


@dataclass
class League:
    """The ratings of one pool (a variant's bots, or its people:
    :mod:`arena.rating.pools`), kept in step with the store."""

    store: Store
    variant: str
    """The pool's name: a variant's own (``guandan``) or its people's (``people:guandan``)."""
    ratings: Ratings = field(init=False)

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
        """Store and rate one result; returns the matches stored (0: stored already)."""
        return self.add_unit((report,), tournament_id)

    def add_unit(self, reports: Sequence[MatchReport], tournament_id: str | None) -> int:
        """Store and rate results that count together (a pair's two halves), in order,
        in one transaction; returns the matches stored. Those stored already (a
        retried batch, a rerun) are neither stored nor rated again."""
        stored = self.store.stored_ids(report.job.id for report in reports)
        ratings = self.ratings.copy()
        rows: list[tuple[StoredMatch, list[RatingUpdate]]] = []
        for report in reports:
            if report.job.id in stored:
                continue
            changed = ratings.rate(report.job.players, report.team_score(), report.record)
            ratings.apply(changed)
            rows.append((report.stored(tournament_id), changed))
        if not rows or not self.store.add_matches(rows):
            return 0
        self.ratings = ratings
        for _, changed in rows:
            for update in changed:
                metrics.set_rating(
                    self.variant, update.bot, update.system, update.after, update.sigma
                )
        return len(rows)

    def add_all(self, reports: Iterable[MatchReport], tournament_id: str | None) -> Iterator[int]:
        for report in reports:
            yield self.add(report, tournament_id)


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
        shengji = pool_variant(self.variant).startswith("shengji-")
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

    def copy(self) -> Ratings:
        """An independent copy (to rate a unit of matches before it is stored)."""
        return replace(self, elo=dict(self.elo), skill=dict(self.skill), room=dict(self.room))

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
