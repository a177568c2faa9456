"""``arena balance``'s words for what a run measured: the rules that came into play
(:mod:`arena.sim.exercise`), why ``--until-resolved`` stopped, and how many deals its
margin needs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.plural import counted
from arena.sim.exercise import MIN_USES, use_words

__all__ = [
    "EXERCISE_TITLE",
    "exercise_rows",
    "margin_line",
    "never_used_words",
    "status_words",
    "stopped_line",
]

EXERCISE_TITLE = "Rules in play: the deals in which each option came into play"


def status_words(row: Mapping[str, Any]) -> str:
    """A variant's use of an option in words: its status, and the deals a run would need
    when it is not measured yet."""
    status, needed = row["status"], row["deals_needed"]
    if status == "measured":
        return "measured"
    if status == "off":
        return "off (its default, never used)"
    if status == "too rare":
        return (
            f"too rare to measure: about {counted(needed, 'deal', spec=',')} would show it "
            f"{counted(MIN_USES, 'time')} at this rate"
        )
    bound = (
        ""
        if needed is None
        else f"; at least {counted(needed, 'deal', spec=',')} to see it {counted(MIN_USES, 'time')}"
    )
    return f"NOT EXERCISED{bound}"


def exercise_rows(
    options: Sequence[Mapping[str, Any]], share: Callable[[dict[str, Any]], str]
) -> list[tuple[str, list[list[str]]]]:
    """Each option's heading (why it is shown, its use in words) and its rows: the
    variant, its value, the deals that used it of those played, their share (a rate
    with its 95% Wilson interval, in the words of ``share``), and the status."""
    shown: list[tuple[str, list[list[str]]]] = []
    for option in options:
        why = "differs between the variants" if option["differs"] else "a house rule switched on"
        heading = f"{option['option']} ({why}): {use_words(option['use'])}"
        rows = [
            [
                row["variant"],
                f"{option['option']}={row['value']}" + (" (default)" if row["default"] else ""),
                f"{row['count']} of {row['n']}",
                share(dict(row)),
                status_words(row),
            ]
            for row in option["variants"]
        ]
        shown.append((heading, rows))
    return shown


def never_used_words(options: Sequence[Mapping[str, Any]]) -> str:
    """``throw_penalty never came into play: no deal had a failed throw (SJ-17/failed)``,
    for every option listed."""
    return "; ".join(
        f"{option['option']} never came into play: no deal had {use_words(option['use'])}"
        for option in options
    )


def stopped_line(until: Mapping[str, Any], played: int) -> str:
    """Why ``--until-resolved`` stopped, and after how many of the deals it was allowed."""
    allowed = until.get("deals_allowed")
    of = (
        f"{played:,} of {counted(allowed, 'deal', spec=',')}"
        if allowed
        else counted(played, "deal")
    )
    stopped = until["stopped"]
    if stopped == "not_exercised":
        return (
            f"until resolved: stopped after {of} per variant because "
            f"{never_used_words(until['never_used'])}: these bots cannot show what it changes"
        )
    if stopped == "resolved":
        why = "every question answered"
    elif stopped == "interrupted":
        why = "interrupted"
    else:
        still = sum(1 for q in until["questions"] if q["status"] == "open")
        why = f"the most deals allowed were played, {counted(still, 'question')} still open"
        needed = until.get("deals_needed")
        if still and needed:
            why += (
                f" (the margin needs about {counted(needed, 'deal', spec=',')} per variant at the "
                "first round's "
                "spread)"
            )
    return f"until resolved: stopped after {of} per variant: {why}"


def margin_line(needed: int | None, margin: float, allowed: int, played: int) -> str:
    """After the first round: the deals per variant the margin needs at the spread seen,
    against those allowed."""
    if needed is None:
        return f"until resolved: after {counted(played, 'deal')} no spread to measure yet"
    head = (
        f"until resolved: at the spread of the first {counted(played, 'deal', spec=',')}, "
        f"a margin of ±{margin:g} needs about {counted(needed, 'deal', spec=',')} per variant"
    )
    if needed <= allowed:
        return f"{head}: within the {allowed:,} allowed"
    return (
        f"{head}, more than the {allowed:,} allowed: questions stay open unless their "
        "difference is significant first (raise --deals or --margin)"
    )
