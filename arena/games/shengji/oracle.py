"""Shengji rule questions as pure functions: the follow check (SJ-19) and its wording.

:func:`follow_error` is the check a follow must pass, given only the follower's
hand and the lead, so that the engine and the rules oracle (``arena rules
shengji``) give the same verdicts with the same reasons.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import Card
from arena.games.shengji.follow import score
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Unit

_SET_NAMES = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


def shape_name(unit: Unit) -> str:
    """``pair``, ``tractor of 2 pairs`` …"""
    if unit.length == 1:
        return _SET_NAMES[unit.width]
    return f"tractor of {unit.length} {_SET_NAMES[unit.width]}s"


def follow_error(
    hand: Sequence[Card],
    play: Sequence[Card],
    lead: Sequence[Unit],
    lead_suit: int,
    order: TrumpOrder,
    decks: int,
) -> str:
    """Why ``play`` from ``hand`` breaks SJ-19 as a follow to ``lead``, or ``""`` if legal.

    ``hand`` is the follower's hand before the play (it holds ``play``); ``lead``
    the units of the lead (a failed throw: the forced unit), all of ``lead_suit``.
    """
    size = sum(unit.size for unit in lead)
    name = order.suit_name(lead_suit)
    if len(play) != size:
        return f"must play {size} cards, like the lead (SJ-19)"
    suits = order.suits
    suited = [c for c in hand if suits[c] == lead_suit]
    if size == 1:  # a single led: follow suit if you can
        if suits[play[0]] == lead_suit or not suited:
            return ""
        return f"must follow with a card of {name} (SJ-19)"
    played = [c for c in play if suits[c] == lead_suit]
    if len(suited) <= size:
        if len(played) != len(suited):
            return f"must play all {len(suited)} cards of {name} (SJ-19)"
        return ""
    if len(played) != size:
        return f"must play {size} cards of {name}: you hold {len(suited)} (SJ-19)"
    best = score(suited, lead, order, decks)
    if best != score((), lead, order, decks) and score(played, lead, order, decks) != best:
        shape = " + ".join(shape_name(u) for u in lead)
        return f"must follow the shape of the lead ({shape}) in {name} as far as you can (SJ-19)"
    return ""
