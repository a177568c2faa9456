"""Sequential probability ratio test (SPRT) on game or pair scores.

This is the generalised SPRT of chess engine testing (fishtest's ``LLR_logistic``):
with ``s0`` and ``s1`` the expected scores at ``elo0`` and ``elo1`` (logistic Elo,
400-point scale), ``n`` results of mean ``m`` and variance ``v`` give the normal
approximation of the log-likelihood ratio

    LLR = n·(s1 − s0)·(2m − s0 − s1) / (2v).

The test accepts H1 ("the difference is at least elo1") when the LLR reaches
``log((1 − beta) / alpha)`` and H0 ("at most elo0") when it falls to
``log(beta / (1 − alpha))``; alpha and beta are the false positive and false negative
rates. While all results are equal the variance would be 0: it is floored at
``1/(4n)`` (one opposite result's worth), so a one-sided stream decides quickly.

Feed it one kind of score: game scores (0, 0.5, 1) or, better when every opening or
deal is played twice with the seats swapped, pair scores (0, 0.25, 0.5, 0.75, 1; the
mean of the two games), which cancel the luck of the deal and lower the variance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from arena.rating.elo import expected
from arena.rating.errors import RatingError

__all__ = ["SCORES", "Decision", "Sprt", "SprtConfig"]

Decision = Literal["H0", "H1"]

SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""The scores :meth:`Sprt.add` accepts: game scores and pair scores."""


@dataclass(frozen=True)
class SprtConfig:
    """The hypotheses (Elo ``elo0`` < ``elo1``) and the error rates ``alpha`` and ``beta``."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise RatingError(f"need finite elo0 < elo1, not {self.elo0!r} and {self.elo1!r}")
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not (0.0 < rate < 1.0):
                raise RatingError(f"{name} must lie strictly between 0 and 1, not {rate!r}")
        if self.alpha + self.beta >= 1.0:
            raise RatingError(f"need alpha + beta < 1, not {self.alpha + self.beta!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(log(beta / (1 − alpha)), log((1 − beta) / alpha))``: accept H0, accept H1."""
        return (
            math.log(self.beta / (1.0 - self.alpha)),
            math.log((1.0 - self.beta) / self.alpha),
        )


class Sprt:
    """An SPRT that accumulates scores and decides once the LLR leaves its bounds.

    The decision is the first bound crossed and is kept: scores added after it still
    count in :attr:`n`, :attr:`mean` and :attr:`llr` but do not change :attr:`decision`
    (a sequential test stops at its first crossing).
    """

    def __init__(self, config: SprtConfig | None = None) -> None:
        self.config = config if config is not None else SprtConfig()
        self._counts: dict[float, int] = dict.fromkeys(SCORES, 0)
        self._n = 0
        self._decision: Decision | None = None
        self._decided_at: int | None = None

    def __repr__(self) -> str:
        return (
            f"Sprt(n={self._n}, llr={self.llr:.3f}, bounds=({self.bounds[0]:.3f}, "
            f"{self.bounds[1]:.3f}), decision={self._decision!r})"
        )

    def add(self, score: float) -> Decision | None:
        """Count one game or pair score; return the decision so far."""
        if score not in self._counts:
            raise RatingError(f"a score must be one of {list(SCORES)}, not {score!r}")
        self._counts[float(score)] += 1
        self._n += 1
        if self._decision is None:
            llr = self.llr
            low, high = self.bounds
            if llr >= high:
                self._decision, self._decided_at = "H1", self._n
            elif llr <= low:
                self._decision, self._decided_at = "H0", self._n
        return self._decision

    def extend(self, scores: Iterable[float]) -> Decision | None:
        """Count several scores in order; return the decision so far."""
        for score in scores:
            self.add(score)
        return self._decision

    @property
    def counts(self) -> dict[float, int]:
        """How many times each score was added."""
        return dict(self._counts)

    @property
    def n(self) -> int:
        """Number of scores added."""
        return self._n

    @property
    def mean(self) -> float:
        """Mean score (0.5 before any score)."""
        if self._n == 0:
            return 0.5
        return math.fsum(s * c for s, c in self._counts.items()) / self._n

    @property
    def variance(self) -> float:
        """Variance of one score around the mean (0 before any score)."""
        if self._n == 0:
            return 0.0
        mean = self.mean
        return math.fsum(c * (s - mean) ** 2 for s, c in self._counts.items()) / self._n

    @property
    def llr(self) -> float:
        """Log-likelihood ratio of H1 against H0 (0 before two scores).

        The variance is floored at ``1 / (4n)`` — what one opposite result in ``n``
        would give — so that a one-sided stream (every game won) still decides,
        after a handful of results rather than never.
        """
        if self._n < 2:
            return 0.0
        variance = max(self.variance, 1.0 / (4.0 * self._n))
        s0 = expected(self.config.elo0, 0.0)
        s1 = expected(self.config.elo1, 0.0)
        return self._n * (s1 - s0) * (2.0 * self.mean - s0 - s1) / (2.0 * variance)

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)``: the LLR bounds that accept H0 and H1."""
        return self.config.bounds

    @property
    def decision(self) -> Decision | None:
        """``'H1'`` or ``'H0'`` once a bound was crossed, ``None`` while undecided."""
        return self._decision

    @property
    def decided_at(self) -> int | None:
        """Number of scores at the decision, ``None`` while undecided."""
        return self._decided_at
