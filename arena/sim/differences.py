"""A variant's figures against the baseline's: differences with 95% intervals, and
which differences are significant once corrected for the number of comparisons.

* :func:`rate_difference` — two rates (``{count, n, …}``): the difference in
  percentage points with Newcombe's hybrid score interval (built from each rate's
  Wilson interval, good coverage for rates near 0 or 1 and small counts), and the
  two-sided p-value of the pooled two-proportion z-test;
* :func:`mean_difference` — two means (``{n, mean, sd, …}``): the difference with a
  normal (Welch) interval and p-value;
* :func:`holm` — which of a family of p-values are significant at a family-wise error
  rate, by Holm's step-down procedure (uniformly more powerful than Bonferroni's, with
  the same guarantee under any dependence between the comparisons).

The variants of a balance run are played on the same shuffles (common random numbers),
which makes their figures positively correlated; these tests treat them as independent
samples, which only widens the intervals (conservative).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import NormalDist
from typing import Any, Final

from arena.rating import wilson_interval

__all__ = ["FAMILY_ERROR", "holm", "mean_difference", "rate_difference"]

FAMILY_ERROR: Final = 0.05
"""The chance that any difference flagged in a report is not real, at most."""

_Z95: Final = NormalDist().inv_cdf(0.975)


def _two_sided(z: float) -> float:
    return 2.0 * (1.0 - NormalDist().cdf(abs(z)))


def rate_difference(base: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any] | None:
    """``other``'s rate minus ``base``'s, with its 95% interval and p-value; None when
    either has no deal to count."""
    n1, n2 = int(base["n"]), int(other["n"])
    if n1 == 0 or n2 == 0:
        return None
    x1, x2 = int(base["count"]), int(other["count"])
    p1, p2 = x1 / n1, x2 / n2
    low1, high1 = wilson_interval(x1, n1)
    low2, high2 = wilson_interval(x2, n2)
    diff = p2 - p1
    low = diff - math.sqrt((p2 - low2) ** 2 + (high1 - p1) ** 2)
    high = diff + math.sqrt((high2 - p2) ** 2 + (p1 - low1) ** 2)
    pooled = (x1 + x2) / (n1 + n2)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    p_value = 1.0 if spread == 0 else _two_sided(diff / spread)
    return {"diff": diff, "low": low, "high": high, "p": p_value}


def mean_difference(base: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any] | None:
    """``other``'s mean minus ``base``'s, with its 95% normal interval and p-value; None
    when either has fewer than two values (no spread to measure)."""
    n1, n2 = int(base["n"]), int(other["n"])
    if n1 < 2 or n2 < 2 or base.get("sd") is None or other.get("sd") is None:
        return None
    diff = float(other["mean"]) - float(base["mean"])
    spread = math.sqrt(float(base["sd"]) ** 2 / n1 + float(other["sd"]) ** 2 / n2)
    if spread == 0:
        return {"diff": diff, "low": diff, "high": diff, "p": 1.0 if diff == 0 else 0.0}
    margin = _Z95 * spread
    return {
        "diff": diff,
        "low": diff - margin,
        "high": diff + margin,
        "p": _two_sided(diff / spread),
    }


def holm(p_values: Sequence[float], family_error: float = FAMILY_ERROR) -> list[bool]:
    """Which hypotheses of the family are rejected (their differences significant) at
    ``family_error``, by Holm's procedure: the smallest p-value against
    ``family_error / m``, the next against ``family_error / (m - 1)``, … until one fails."""
    m = len(p_values)
    significant = [False] * m
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        if p_values[index] > family_error / (m - rank):
            break
        significant[index] = True
    return significant
