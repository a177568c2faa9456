"""Elo for partnerships.

A team's rating is the mean of its bots' ratings. After a game every bot of a team
moves by ``K·(S − E)``, where ``S`` is the team's score (1 win, 0.5 draw, 0 loss) and
``E = 1 / (1 + 10^((R_opp − R_team) / scale))`` its expected score.

Bots that hold several seats (self-play, a bot partnering itself) are handled per team:

* a bot filling both seats of a team *is* the team and moves once by ``K·(S − E)``, so
  "X, X against Y, Y" is exactly one-against-one Elo between X and Y;
* a bot on both teams receives the move of each team, and the two moves cancel
  (``K·(S − E) + K·((1 − S) − (1 − E)) = 0``): playing against oneself leaves one's
  rating unchanged, while the other bots of the game still move.

Ratings are conserved (zero sum) whenever both teams hold the same number of distinct
bots, which covers four distinct bots and "X, X against Y, Y".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.rating.errors import RatingError

__all__ = ["EloConfig", "elo_difference", "expected", "team_rating", "update_teams"]


@dataclass(frozen=True)
class EloConfig:
    """Elo settings: step ``k``, logistic ``scale`` and the ``initial`` rating of a new bot."""

    k: float = 16.0
    scale: float = 400.0
    initial: float = 1500.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.k) and self.k >= 0):
            raise RatingError(f"Elo k must be a finite number >= 0, not {self.k!r}")
        if not (math.isfinite(self.scale) and self.scale > 0):
            raise RatingError(f"Elo scale must be a finite number > 0, not {self.scale!r}")
        if not math.isfinite(self.initial):
            raise RatingError(f"initial Elo rating must be finite, not {self.initial!r}")


def expected(team: float, opponents: float, scale: float = 400.0) -> float:
    """Expected score of a team rated ``team`` against a team rated ``opponents``."""
    exponent = (opponents - team) / scale
    if exponent > 300.0:  # 10^exponent would overflow; the expected score is 0 to 1e-300
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def team_rating(
    ratings: Mapping[str, float], team: Sequence[str], initial: float = 1500.0
) -> float:
    """Mean rating of a team's bots; a bot absent from ``ratings`` counts as ``initial``."""
    if not team:
        raise RatingError("a team needs at least one bot")
    return sum(ratings.get(bot, initial) for bot in team) / len(team)


def update_teams(
    ratings: Mapping[str, float],
    team_a: Sequence[str],
    team_b: Sequence[str],
    score_a: float,
    config: EloConfig = EloConfig(),
) -> dict[str, float]:
    """New ratings of every bot of the game after team A scored ``score_a`` against team B.

    ``score_a`` is 1 for a win of A, 0.5 for a draw, 0 for a loss (any value in [0, 1]
    is accepted, e.g. a share of points). Bots absent from ``ratings`` start at
    ``config.initial``. ``ratings`` is not modified; the result maps each distinct bot
    of the game to its new rating (see the module docstring for repeated bots).
    """
    if isinstance(team_a, str) or isinstance(team_b, str):
        raise RatingError("a team is a sequence of bot names, not one string")
    if not (0.0 <= score_a <= 1.0):
        raise RatingError(f"score_a must lie in [0, 1], not {score_a!r}")
    r_a = team_rating(ratings, team_a, config.initial)
    r_b = team_rating(ratings, team_b, config.initial)
    e_a = expected(r_a, r_b, config.scale)
    delta_a = config.k * (score_a - e_a)
    # Team B's move, K·((1 − S) − (1 − E)), is exactly −delta_a.
    in_a, in_b = set(team_a), set(team_b)
    new: dict[str, float] = {}
    for bot in [*team_a, *team_b]:
        if bot not in new:
            side = (bot in in_a) - (bot in in_b)  # +1 team A only, -1 team B only, 0 both
            new[bot] = ratings.get(bot, config.initial) + side * delta_a
    return new


def elo_difference(score: float, scale: float = 400.0) -> float:
    """Elo difference implied by an expected score: ``−scale·log10(1/score − 1)``.

    0.5 gives 0; a score of 0 or 1 gives minus or plus infinity.
    """
    if not (0.0 <= score <= 1.0):
        raise RatingError(f"a score must lie in [0, 1], not {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -scale * math.log10(1.0 / score - 1.0)
