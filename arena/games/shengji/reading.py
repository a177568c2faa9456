"""A throw read from what one seat knows, before it is tried (SJ-17).

The engine decides a throw from every hand (:func:`trick.check_throw`); a player knows
only the **cards still out**: the decks less their own hand, every card played so far
and, for the dealer, the kitty they buried (:func:`cards_out`). A throw is read as
**safe** when it would stand even if one other player held every card still out of its
suit; otherwise it **may fail**, and the unit that would then be played instead is the
one :func:`trick.check_throw` names for that holding (:func:`read_throw`).

The people's table (``arena.web.readings``) and the heuristic bot (``bots.shengji``)
read throws by these two functions, so a person and a bot call the same throws safe.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import NUM_KINDS, Card
from arena.games.base import Event
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Unit
from arena.games.shengji.trick import check_throw

__all__ = ["cards_out", "read_throw"]


def cards_out(
    decks: int, hand: Sequence[Card], events: Sequence[Event], buried: Sequence[Card] = ()
) -> list[int]:
    """How many copies of each card (by card) a seat holding ``hand`` cannot place:
    not in its hand, not played in ``events``, not in the kitty it ``buried``."""
    out = [decks] * NUM_KINDS
    for card in hand:
        out[card] -= 1
    for event in events:
        if event.kind == "play":
            for card in event.cards:
                out[card] -= 1
    for card in buried:
        out[card] -= 1
    return out


def read_throw(units: Sequence[Unit], out: Sequence[int], order: TrumpOrder) -> Unit | None:
    """``None`` if a throw of ``units`` (of one suit) is safe given the cards still
    ``out`` (counts by card, :func:`cards_out`), else the unit that would be played
    instead if one other player held every card still out of the suit."""
    if not units:
        return None
    suit = order.suits[units[0].cards[0]]
    suits = order.suits
    still_out: list[Card] = []
    for card in range(NUM_KINDS):
        count = out[card]
        if count > 0 and suits[card] == suit:
            still_out += [card] * count
    return check_throw(units, [still_out], order)
