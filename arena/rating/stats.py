"""Paired and binomial statistics for match results.

Scores are per game (1 win, 0.5 draw, 0 loss) or per pair of games played with the
seats swapped (the mean of the two game scores). Elo differences are logistic, on the
usual 400-point scale unless ``scale`` says otherwise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from arena.rating.elo import elo_difference
from arena.rating.errors import RatingError

__all__ = ["elo_interval", "likelihood_of_superiority", "wilson_interval"]

_NORMAL = NormalDist()


def _z(confidence: float) -> float:
    """Two-sided normal quantile of a confidence level: 1.96 for 0.95."""
    if not (0.0 < confidence < 1.0):
        raise RatingError(f"confidence must lie strictly between 0 and 1, not {confidence!r}")
    return _NORMAL.inv_cdf((1.0 + confidence) / 2.0)


def elo_interval(
    scores: Sequence[float], confidence: float = 0.95, scale: float = 400.0
) -> tuple[float, float, float]:
    """Elo difference of the mean score and its confidence interval: ``(elo, low, high)``.

    The interval is the normal one on the mean score, ``mean ± z·s/√n`` with ``s`` the
    sample standard deviation, clipped to [0, 1] and converted to Elo: a bound at 0 or 1
    is minus or plus infinity. Scores all alike have no spread to measure: the interval is
    then Wilson's on their mean (a sweep of few games is not a certainty). At least two
    scores are needed.
    """
    n = len(scores)
    if n < 2:
        raise RatingError(f"an Elo interval needs at least two scores, not {n}")
    if any(not (0.0 <= s <= 1.0) for s in scores):
        raise RatingError("scores must lie in [0, 1]")
    z = _z(confidence)
    mean = math.fsum(scores) / n
    variance = math.fsum((s - mean) ** 2 for s in scores) / (n - 1)
    if variance == 0.0:
        low, high = wilson_interval(mean * n, n, confidence)
    else:
        margin = z * math.sqrt(variance / n)
        low, high = max(0.0, mean - margin), min(1.0, mean + margin)
    return (
        elo_difference(mean, scale),
        elo_difference(low, scale),
        elo_difference(high, scale),
    )


def likelihood_of_superiority(wins: float, losses: float) -> float:
    """Probability that the winner is the stronger: ``Φ((w − l) / √(w + l))``.

    Draws carry no information and are left out; with no decisive game it is 0.5.
    """
    if wins < 0 or losses < 0:
        raise RatingError(f"wins and losses must be >= 0, not {wins!r} and {losses!r}")
    if wins + losses == 0:
        return 0.5
    return _NORMAL.cdf((wins - losses) / math.sqrt(wins + losses))


def wilson_interval(
    successes: float, trials: float, confidence: float = 0.95
) -> tuple[float, float]:
    """Wilson score interval of a success rate; ``(0, 1)`` when there is no trial.

    ``successes`` may be fractional (draws counted as half a success).
    """
    if trials < 0 or not (0 <= successes <= trials):
        raise RatingError(
            f"need 0 <= successes <= trials, not successes={successes!r}, trials={trials!r}"
        )
    z = _z(confidence)
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    z2 = z * z
    denominator = 1.0 + z2 / trials
    centre = (p + z2 / (2.0 * trials)) / denominator
    half = z * math.sqrt(p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)
