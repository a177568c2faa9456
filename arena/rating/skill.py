"""OpenSkill ratings (Weng–Lin Plackett–Luce) for teams of bots.

Each bot has a Gaussian belief about its skill: mean ``mu`` and uncertainty ``sigma``.
The leaderboard value is the conservative estimate ``mu − 3·sigma``. The update itself
is :class:`openskill.models.PlackettLuce`; this module only maps bot names to ratings.

Bots that hold several seats are handled as in :mod:`arena.rating.elo`:

* a bot filling several seats of one team takes part in the model once per seat (the
  team's strength is the sum of its seats) and, its seats being identical, receives the
  update of one of them;
* a bot on more than one team keeps its rating: a game against oneself says nothing
  about one's skill. It still takes part in the model, so the other bots move.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.plural import counted
from arena.rating.errors import RatingError

__all__ = ["DEFAULT_MU", "DEFAULT_SIGMA", "SkillRating", "update_skill"]

_DEFAULTS: Final = PlackettLuce()
DEFAULT_MU: Final[float] = _DEFAULTS.mu
"""Initial mean skill of a new bot (the model's default, 25)."""
DEFAULT_SIGMA: Final[float] = _DEFAULTS.sigma
"""Initial uncertainty of a new bot (the model's default, 25/3)."""
del _DEFAULTS


@dataclass(frozen=True)
class SkillRating:
    """A bot's skill belief: mean ``mu`` and standard deviation ``sigma``."""

    mu: float = DEFAULT_MU
    sigma: float = DEFAULT_SIGMA

    def __post_init__(self) -> None:
        if not math.isfinite(self.mu):
            raise RatingError(f"mu must be finite, not {self.mu!r}")
        if not (math.isfinite(self.sigma) and self.sigma > 0):
            raise RatingError(f"sigma must be a finite number > 0, not {self.sigma!r}")

    @property
    def conservative(self) -> float:
        """``mu − 3·sigma``: the skill the bot has with about 99.9% certainty."""
        return self.mu - 3.0 * self.sigma


def update_skill(
    ratings: Mapping[str, SkillRating],
    teams: Sequence[Sequence[str]],
    ranks: Sequence[int],
    model: PlackettLuce | None = None,
) -> dict[str, SkillRating]:
    """New ratings of every bot of a game between ``teams`` that finished in ``ranks``.

    ``ranks[i]`` is the place of ``teams[i]``: 0 is best, equal ranks are ties. Bots
    absent from ``ratings`` start at the model's defaults. ``ratings`` is not modified;
    the result maps each distinct bot of the game to its new rating. ``model`` defaults
    to ``PlackettLuce()`` with its standard settings.
    """
    if isinstance(teams, str) or any(isinstance(team, str) for team in teams):
        raise RatingError("teams is a sequence of teams, each a sequence of bot names")
    if len(teams) < 2:
        raise RatingError(f"a game needs at least two teams, not {len(teams)}")
    if any(not team for team in teams):
        raise RatingError("a team needs at least one bot")
    if len(ranks) != len(teams):
        raise RatingError(f"{len(ranks)} ranks given for {counted(len(teams), 'team')}")
    if any(isinstance(rank, bool) or not isinstance(rank, int) or rank < 0 for rank in ranks):
        raise RatingError(f"ranks must be integers >= 0, not {list(ranks)!r}")
    if model is None:
        model = PlackettLuce()
    default = SkillRating(model.mu, model.sigma)

    def player(bot: str) -> PlackettLuceRating:
        rating = ratings.get(bot, default)
        return model.rating(mu=rating.mu, sigma=rating.sigma, name=bot)

    rated = model.rate(
        [[player(bot) for bot in team] for team in teams], ranks=[float(r) for r in ranks]
    )
    teams_of: dict[str, set[int]] = {}
    for index, team in enumerate(teams):
        for bot in team:
            teams_of.setdefault(bot, set()).add(index)
    new: dict[str, SkillRating] = {}
    for index, team in enumerate(teams):
        for bot, after in zip(team, rated[index], strict=True):
            if bot in new:
                continue
            if len(teams_of[bot]) > 1:
                new[bot] = ratings.get(bot, default)
            else:
                new[bot] = SkillRating(after.mu, after.sigma)
    return new
