"""Readable text for Guandan events and results (cards shown as ♠A, ♥10, …)."""

from __future__ import annotations

from arena.cards import pretty_card, pretty_cards
from arena.games.base import Event, Outcome
from arena.games.guandan.combos import KIND_BY_LABEL, SEQUENCE_KINDS, value_text
from arena.games.guandan.state import level_name
from arena.plural import counted

_PLACES = {1: "first (头游)", 2: "second (二游)", 3: "third (三游)"}


def describe_event(event: Event, level: int) -> str:
    """One event as a short phrase (the seat is named by the caller)."""
    kind = event.kind
    if kind == "play":
        combo = KIND_BY_LABEL[event.tag]
        rank = value_text(event.value, combo in SEQUENCE_KINDS, level).replace("T", "10")
        return f"{pretty_cards(event.cards)} ({combo.label.replace('_', ' ')} {rank})"
    if kind == "pass":
        return "pass"
    if kind == "lead":
        return "leads (接风, partner of the trick winner)" if event.tag == "partner" else "leads"
    if kind == "announce":
        return f"announces {counted(event.value, 'card')} left (报牌)"
    if kind == "out":
        return f"is out {_PLACES.get(event.value, str(event.value))}"
    if kind == "tribute":
        return f"gives tribute {pretty_card(event.cards[0])} to seat {event.target} (进贡)"
    if kind == "return":
        return f"returns {pretty_card(event.cards[0])} to seat {event.target} (还贡)"
    if kind == "refuse_tribute":
        who = "the losers hold" if event.tag == "double" else "holds"
        return f"{who} both big jokers: no tribute (抗贡)"
    if kind == "deal":
        return f"level {level_name(event.value)}"
    return clock_event(kind)


def clock_event(kind: str) -> str:
    """The driver's events, shared by every game (SF-12)."""
    if kind == "auto":
        return "is late: played automatically (托管)"
    if kind == "fled":
        return "has fled (逃跑)"
    return kind


def describe_outcome(outcome: Outcome) -> str:
    details = outcome.details
    if "forfeit" in details:
        return outcome.summary
    order = ", ".join(f"S{s}" for s in details["order"])
    before = " / ".join(level_name(x) for x in details["levels_before"])
    after = " / ".join(level_name(x) for x in details["levels_after"])
    text = (
        f"finishing order {order}: team {details['winner_team']} up {details['gain']}; "
        f"levels (team 0 / team 1) {before} → {after}"
    )
    if outcome.match_winner is not None:
        text += f"; team {outcome.match_winner} passes A and wins the match"
    return text
