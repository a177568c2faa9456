"""``arena balance --until-resolved``: play until every question asked is answered.

A question is a row of the comparison (``--ask wins.dealer_team``) for every variant
against the baseline. After each round of batches its difference is *significant*, or
*within the margin* (its 95% interval's half-width at most ``--margin``: percentage points
for rates, the row's unit for means), or still *open*; the run stops once none is open,
or at ``--deals`` per variant.

Looking after every round and stopping at the first significant result would find
differences that are not there far more often than 5%. So the family-wise error rate is
spent evenly over the rounds that can happen: each look tests at ``5% / rounds``,
with Holm's procedure over the questions' differences (Bonferroni over the looks). Over
the whole run, the chance of calling any difference significant that is not real stays
at most 5%, whenever the run stops.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from arena.errors import ConfigError
from arena.sim.differences import FAMILY_ERROR, holm, mean_difference, rate_difference

__all__ = [
    "DEFAULT_ASKED",
    "DEFAULT_MARGIN",
    "askable",
    "check_asked",
    "check_compared",
    "looks",
    "margin_deals",
    "verdicts",
    "widest_rate_deals",
]

DEFAULT_ASKED: Final = ("wins.dealer_team",)
DEFAULT_MARGIN: Final = 2.0
"""Percentage points for rates, the row's unit for means. At the widest spread of a
rate (50%) a difference's half-width reaches 2 points within 4,802 deals per variant
(:func:`widest_rate_deals`), well within the default 10,000; 1 point would need 19,208."""
Z95: Final = 1.959963984540054


def check_compared(variants: int) -> None:
    """A :class:`ConfigError` when there is no difference to resolve: one variant."""
    if variants < 2:
        raise ConfigError(
            "--until-resolved answers differences between variants: name two or more "
            "(another --variant, or --sweep KEY=V1,V2,…)"
        )


def widest_rate_deals(margin: float) -> int:
    """The deals per variant at which any rate's difference has a 95% half-width of at
    most ``margin`` percentage points (at the widest spread, both rates 50%)."""
    return math.ceil(Z95**2 * 0.5 / (margin / 100) ** 2)


def _spread(cell: Any, kind: str) -> float | None:
    """A cell's variance per deal: ``p (1 - p)`` of a rate (``p`` kept half a deal from 0
    and 1, so a rate never seen still has a spread), a mean's ``sd²``."""
    if cell is None:
        return None
    if kind == "rate":
        if not cell.get("n"):
            return None
        edge = 0.5 / cell["n"]
        p = min(max(cell["rate"], edge), 1 - edge)
        return float(p * (1 - p))
    sd = cell.get("sd")
    return None if sd is None else float(sd) ** 2


def margin_deals(sections: Sections, asked: Sequence[str], margin: float) -> int | None:
    """The deals per variant at which every asked row's difference from the baseline has
    a 95% half-width of at most ``margin`` at the spread observed so far (the largest of
    the questions'); None when no question has a spread yet."""
    needed: list[int] = []
    for _, rows in sections:
        for label, cells, kind in rows:
            if label.key not in asked:
                continue
            scale = 100.0 if kind == "rate" else 1.0
            base = _spread(cells[0], kind)
            for cell in cells[1:]:
                other = _spread(cell, kind)
                if base is not None and other is not None:
                    total = base + other
                    exact = Z95**2 * total / (margin / scale) ** 2  # rounded: 5000.0000001 is 5000
                    needed.append(max(1, math.ceil(round(exact, 6))))
    return max(needed, default=None)


def looks(deals: int, batch: int) -> int:
    """The rounds a run of ``deals`` per variant in batches of ``batch`` can look at."""
    return math.ceil(deals / batch)


Sections = Sequence[tuple[Any, Sequence[tuple[Any, Sequence[Any], str]]]]
"""A comparison's sections (``arena.commands.balance_report.comparison``): a title and rows of
(label with ``key`` and ``text``, a cell per variant, kind)."""


def askable(sections: Sections) -> list[str]:
    """The rows that can be asked about: those whose key names one row."""
    keys = [label.key for _, rows in sections for label, _, _ in rows]
    return [key for key in dict.fromkeys(keys) if keys.count(key) == 1]


def check_asked(sections: Sections, asked: Sequence[str]) -> None:
    """A :class:`ConfigError` naming the rows asked that the comparison has not (or not
    once), and those it has."""
    known = askable(sections)
    unknown = [key for key in asked if key not in known]
    if unknown:
        raise ConfigError(
            f"--ask {', '.join(unknown)}: no such row; rows that can be asked: {', '.join(known)}"
        )


def verdicts(
    sections: Sections,
    names: Sequence[str],
    asked: Sequence[str],
    margin: float,
    look: int,
    rounds: int,
) -> list[dict[str, Any]]:
    """Each question's state after look ``look`` of at most ``rounds``: per asked row
    and variant after the baseline (``names``: the variants'), its difference, interval,
    p-value, the level it was tested at, and ``status`` (``significant``, ``within
    margin`` or ``open``)."""
    check_asked(sections, asked)
    found: list[dict[str, Any]] = []
    for _, rows in sections:
        for label, cells, kind in rows:
            if label.key not in asked:
                continue
            for column, cell in enumerate(cells[1:], start=1):
                base = cells[0]
                measure = rate_difference if kind == "rate" else mean_difference
                difference = None if base is None or cell is None else measure(base, cell)
                found.append(
                    {
                        "row": label.key,
                        "row_text": label.text,
                        "kind": kind,
                        "variant": names[column],
                        **(difference or {"diff": None, "low": None, "high": None, "p": 1.0}),
                    }
                )
    level = FAMILY_ERROR / rounds
    for question, significant in zip(found, holm([q["p"] for q in found], level), strict=True):
        scale = 100.0 if question["kind"] == "rate" else 1.0
        width = (
            None if question["low"] is None else scale * (question["high"] - question["low"]) / 2
        )
        question["level"] = level
        question["look"] = look
        if significant:
            question["status"] = "significant"
        elif width is not None and width <= margin:
            question["status"] = "within margin"
        else:
            question["status"] = "open"
    return found
