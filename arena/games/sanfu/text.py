"""Readable text for sanfu events and deal results (SF-13 … SF-16 checkable by hand)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cards import pretty_cards
from arena.games.base import Event, Outcome
from arena.games.guandan.text import clock_event
from arena.plural import counted

if TYPE_CHECKING:
    from arena.games.sanfu.state import SanfuState

_PLACES = {1: "first (上游)", 2: "second", 3: "third"}


def describe_event(event: Event, state: SanfuState) -> str:
    kind = event.kind
    if kind == "deal":
        return f"deal {event.value + 1}"
    if kind == "turn":
        return f"(player {event.value}) receives the turned card {pretty_cards(event.cards)} (明牌)"
    if kind == "swap":
        return f"player {event.value} swaps seats with player {event.tag}: now at seat {event.seat}"
    if kind == "lead":
        return "leads (对家接风)" if event.tag == "partner" else "leads"
    if kind == "play":
        return f"{pretty_cards(event.cards)} ({event.tag.replace('_', ' ')})"
    if kind == "pass":
        return "pass"
    if kind == "capture":
        return f"captures {counted(event.value, 'point')}"
    if kind == "out":
        return f"is out {_PLACES.get(event.value, str(event.value))}"
    if kind == "fled":
        return f"(player {event.value}) has fled (逃跑)"
    return clock_event(kind)


def describe_outcome(outcome: Outcome) -> str:
    d = outcome.details
    if "fled" in d:
        return f"player {d['fled']} fled and pays 10×; scores per player {d['scores']}"
    teams = d["teams"]
    parts = [
        f"players {teams[t][0]}+{teams[t][1]}: {counted(d['team_points'][t], 'point')}"
        + (f" (incl. {d['transferred'][t]} from the last player)" if d["transferred"][t] else "")
        for t in (0, 1)
    ]
    winner = teams[d["winner_team"]]
    verdict = f"players {winner[0]}+{winner[1]} win {d['stake']}×" + (
        " (sweep)" if d["sweep"] else ""
    )
    bonus = d["joker_bonus"]
    jokers = f"joker bonus per player {bonus}" if any(bonus) else "no joker bonus"
    return f"{'; '.join(parts)}; {verdict}; {jokers}; scores per player {d['scores']}"
