"""Whether a balance run's rule options came into play, and how often.

A rule option shows its effect only in the deals where it comes into play: a penalty
for failed throws (``throw_penalty``, SJ-17) in deals with a failed throw, a limit on
failed attempts at A (``a_fail_limit``) in deals where a team fails at A. Each family
names the *use* that says so (:data:`arena.games.usage.OPTION_USES`, a rule use such as
``SJ-17/failed``), and a variant's summary counts the deals in which each use applied
(``rules/<use>``).

:func:`exercise` reads, per variant, every option that differs between the run's
variants of its family and every house rule switched on (an option not at its default),
and gives each the share of deals in which it came into play, with its 95% Wilson
interval, and a status:

* ``not exercised``: not one deal. A difference between two variants whose differing
  options were exercised in neither is no measurement of those options, whatever its
  figure: the report says so (:func:`not_exercised`) rather than ``+0.0``;
* ``too rare``: fewer than :data:`MIN_USES` deals, with the deals a variant would need
  at the observed rate to see :data:`MIN_USES` (``deals_needed``);
* ``measured``: :data:`MIN_USES` deals or more;
* ``off``: at its default and never used (nothing there to measure).

Every option has a use; one that bot deals cannot bring into play (sanfu's
``time_limit``: bots answer in time) is reported as not exercised, which is the truth.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, Final

from arena.games import make
from arena.games.usage import OPTION_USES
from arena.sim.balance import Summary, family, rate

__all__ = [
    "MIN_USES",
    "Variant",
    "deals_needed",
    "exercise",
    "never_used",
    "not_exercised",
    "use_words",
]

MIN_USES: Final = 30
"""The deals with a use from which an option counts as measured: a count of 30 is known
to about ±36% of itself (95%, Poisson), the least from which the share of deals it
touches, and so the most it can move a rate, is read to its first digit."""

USE_WORDS: Final = {
    "SJ-2/constant_twos": "a 2 played as a trump only by constant_twos",
    "SJ-8/undeclared": "a deal nobody declared in",
    "SJ-17/failed": "a failed throw",
    "SJ-24/match_end": "a deal that ends the match under one match_end rule and not the other",
    "SJ-31": "a two-colour deal",
    "GD-17/a_fail": "a team failing at its A",
    "SF-12": "a seat played automatically after its time ran out",
    "SF-17": "a match's last deal",
}
"""What a deal shows when an option's use applied, in words (the use's id otherwise)."""

Variant = tuple[str, str, Mapping[str, Any], Summary]
"""A variant as :func:`exercise` reads it: its name, its game, all its options
(defaults included) and its summary."""


@cache
def _defaults(game: str) -> Mapping[str, Any]:
    return dict(make(game).options)


def use_words(use: str) -> str:
    """The use ``SJ-17/failed`` as ``a failed throw (SJ-17/failed)``."""
    words = USE_WORDS.get(use)
    return f"{words} ({use})" if words else use


def deals_needed(uses: int, deals: int, high: float | None) -> int | None:
    """The deals in which :data:`MIN_USES` uses are expected at the observed rate
    (``uses`` of ``deals``); with no use yet, at the rate's 95% upper bound ``high`` (a
    lower bound on the deals needed); None with no deal played."""
    if uses:
        return math.ceil(MIN_USES * deals / uses)
    if not deals or not high:
        return None
    return math.ceil(MIN_USES / high)


def _status(uses: int, at_default: bool) -> str:
    if uses == 0:
        return "off" if at_default else "not exercised"
    return "too rare" if uses < MIN_USES else "measured"


def exercise(variants: Sequence[Variant]) -> list[dict[str, Any]]:
    """Every option of the run that differs between variants of its family or is switched
    on in one, in the family's order, each with ``family``, ``option``, ``use``,
    ``differs`` and one record per variant of the family: ``variant``, ``value``,
    ``default`` (whether the value is the default), the share of deals that used it
    (``count``, ``n``, ``rate``, ``low``, ``high``), ``status`` and ``deals_needed``
    (for an option not measured yet, else None)."""
    by_family: dict[str, list[Variant]] = {}
    for variant in variants:
        by_family.setdefault(family(variant[1]), []).append(variant)
    found: list[dict[str, Any]] = []
    for kind, members in by_family.items():
        for option, use in OPTION_USES.get(kind, {}).items():
            values = [options.get(option) for _, _, options, _ in members]
            at_default = [
                options.get(option) == _defaults(game).get(option)
                for _, game, options, _ in members
            ]
            differs = len({repr(value) for value in values}) > 1
            if not differs and all(at_default):
                continue
            rows = []
            for (name, _, _, summary), value, default in zip(
                members, values, at_default, strict=True
            ):
                uses, deals = summary[f"rules/{use}"], summary["deals"]
                share = rate(uses, deals)
                status = _status(uses, default)
                needed = None
                if status in ("too rare", "not exercised"):
                    needed = deals_needed(uses, deals, share["high"])
                rows.append(
                    {
                        "variant": name,
                        "value": value,
                        "default": default,
                        **share,
                        "status": status,
                        "deals_needed": needed,
                    }
                )
            found.append(
                {
                    "family": kind,
                    "option": option,
                    "use": use,
                    "differs": differs,
                    "variants": rows,
                }
            )
    return found


def never_used(options: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The options (records of :func:`exercise`) that differ between variants and came
    into play in none of them: no run can answer what they change."""
    return [
        option
        for option in options
        if option["differs"] and all(row["count"] == 0 for row in option["variants"])
    ]


def not_exercised(
    options: Sequence[Mapping[str, Any]], baseline: Mapping[str, Any], other: Mapping[str, Any]
) -> list[str]:
    """The options that make variant ``other`` differ from ``baseline`` (report variants:
    ``name``, ``game``, ``options``) when none of them came into play in either: the
    difference between the two then measures none of them. Empty when they are of two
    games, the same variant, or any differing option was used (or has no use named)."""
    if other["game"] != baseline["game"]:
        return []
    differing = sorted(
        key
        for key in {*baseline["options"], *other["options"]}
        if baseline["options"].get(key) != other["options"].get(key)
    )
    uses = {
        (option["option"], row["variant"]): row["count"]
        for option in options
        if option["family"] == family(baseline["game"])
        for row in option["variants"]
    }
    for key in differing:
        counts = [uses.get((key, variant["name"])) for variant in (baseline, other)]
        if None in counts or any(counts):
            return []
    return differing
