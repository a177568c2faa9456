"""Ratings and statistics of bots: partnership Elo, OpenSkill, SPRT, intervals.

Pure functions and small classes: no I/O, no clock, no randomness.

* :mod:`arena.rating.elo` — Elo for teams rated as the mean of their bots;
* :mod:`arena.rating.skill` — OpenSkill (Plackett–Luce) ratings and their
  conservative estimate ``mu − 3·sigma``;
* :mod:`arena.rating.sprt` — sequential probability ratio test on game or pair scores;
* :mod:`arena.rating.stats` — Elo confidence intervals, likelihood of superiority,
  Wilson intervals.
"""

from arena.rating.elo import EloConfig, elo_difference, expected, team_rating, update_teams
from arena.rating.errors import RatingError
from arena.rating.skill import DEFAULT_MU, DEFAULT_SIGMA, SkillRating, update_skill
from arena.rating.sprt import SCORES, Decision, Sprt, SprtConfig
from arena.rating.stats import elo_interval, likelihood_of_superiority, wilson_interval

__all__ = [
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "SCORES",
    "Decision",
    "EloConfig",
    "RatingError",
    "SkillRating",
    "Sprt",
    "SprtConfig",
    "elo_difference",
    "elo_interval",
    "expected",
    "likelihood_of_superiority",
    "team_rating",
    "update_skill",
    "update_teams",
    "wilson_interval",
]
