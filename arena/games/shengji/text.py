"""Readable text for Shengji events (cards shown as ♠A, ♥10, …)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.cards import pretty_cards, rank_label
from arena.games.base import Event
from arena.games.guandan.text import clock_event
from arena.plural import counted, noun

if TYPE_CHECKING:
    from arena.games.shengji.state import ShengjiState


def describe_event(event: Event, state: ShengjiState) -> str:
    kind = event.kind
    if kind == "deal":
        return f"playing {rank_label(event.value)}, dealing starts with seat {event.seat}"
    if kind == "declare":
        if event.tag == "hidden":
            cards = noun(event.value, "card")
            return f"declares with {event.value} level {cards}, suit hidden (暗叫)"
        return f"declares {pretty_cards(event.cards)} (亮主)"
    if kind == "dealt":
        return "all cards dealt: a last chance to declare, in seat order"
    if kind == "trump":
        shown = f", kitty card {pretty_cards(event.cards)} turned" if event.cards else ""
        return f"is the dealer; trump: {event.tag}{shown}"
    if kind == "kitty_taken":
        return f"takes the kitty ({counted(event.value, 'card')})"
    if kind == "bury":
        return "buries a card"
    if kind == "lead":
        return "leads"
    if kind == "play":
        return pretty_cards(event.cards)
    if kind == "throw_failed":
        return f"throw {pretty_cards(event.cards)} fails (甩牌失败), plays the forced cards"
    if kind == "trick":
        return f"wins the trick, {counted(event.value, 'point')}"
    if kind == "kitty":
        bonus = f", +{event.value} for the defenders" if event.value else ""
        return f"kitty: {pretty_cards(event.cards)}{bonus}"
    return clock_event(kind)
