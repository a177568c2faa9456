"""Figures printed with a few decimals, read back as the interval of values each one
stands for, so that tests check printed figures against each other within their
rounding (and never against the clock)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

__all__ = ["Printed", "agree", "figure", "figures"]

NUMBER = r"[-+]?\d+(?:\.\d+)?%?"
"""A printed figure: an optional sign, digits, optional decimals, optionally a percent."""


@dataclass(frozen=True)
class Printed:
    """The values a figure printed with a few decimals may have been: [low, high]."""

    low: float
    high: float

    @classmethod
    def of(cls, text: str) -> Printed:
        """``"12.3"`` → [12.25, 12.35]; ``"1.400%"`` → [0.0139995, 0.0140005]."""
        percent = text.endswith("%")
        digits = text.rstrip("%")
        decimals = len(digits.split(".")[1]) if "." in digits else 0
        scale = 0.01 if percent else 1.0
        value, half = float(digits) * scale, 0.5 * 10.0**-decimals * scale
        slack = 1e-12 * max(1.0, abs(value))  # binary floats just past the half
        return cls(value - half - slack, value + half + slack)

    @classmethod
    def exactly(cls, value: float) -> Printed:
        return cls(value, value)

    def __post_init__(self) -> None:
        assert self.low <= self.high

    def __add__(self, other: Printed | float) -> Printed:
        o = _interval(other)
        return Printed(self.low + o.low, self.high + o.high)

    def __mul__(self, other: Printed | float) -> Printed:
        o = _interval(other)
        products = [a * b for a in (self.low, self.high) for b in (o.low, o.high)]
        return Printed(min(products), max(products))

    def __truediv__(self, other: Printed | float) -> Printed:
        o = _interval(other)
        assert o.low > 0, f"dividing by {o}, which may be zero or negative"
        return self * Printed(1 / o.high, 1 / o.low)

    def __rtruediv__(self, other: float) -> Printed:
        return Printed.exactly(other) / self

    def overlaps(self, other: Printed) -> bool:
        return self.low <= other.high and other.low <= self.high

    def __str__(self) -> str:
        return f"[{self.low:.6g}, {self.high:.6g}]"


def _interval(value: Printed | float) -> Printed:
    return value if isinstance(value, Printed) else Printed.exactly(float(value))


def agree(what: str, printed: Printed, computed: Printed) -> None:
    """A printed figure is what the other printed figures make it, within rounding."""
    assert printed.overlaps(computed), (
        f"{what}: printed {printed}, but the other figures printed make it {computed}"
    )


def figures(pattern: str, text: str) -> list[Printed]:
    """The figures of the line of ``text`` that ``pattern`` matches, where the
    pattern's ``{}`` stand for figures (the rest is taken literally, except that a run
    of spaces matches any white space, or none)."""
    parts = [r"\s*".join(map(re.escape, re.split(" +", p))) for p in pattern.split("{}")]
    found = re.search(f"({NUMBER})".join(parts), text)
    assert found is not None, f"no line like {pattern!r} in:\n{text}"
    values = [Printed.of(g) for g in found.groups()]
    assert all(math.isfinite(v.low) for v in values)
    return values


def figure(pattern: str, text: str) -> Printed:
    """The one figure of the line ``pattern`` matches (see :func:`figures`)."""
    (value,) = figures(pattern, text)
    return value
