"""Leads, throws and who wins a trick (SJ-17, SJ-18, SJ-20, SJ-21).

A lead is read by :func:`shapes.decompose`. A lead of more than one unit is a
throw; it stands only if no other player could beat any one of its units with
cards of that suit, otherwise the thrower plays the smallest beatable unit
instead (SJ-17). A follow can win only if it covers the lead's shape, in the led
suit or entirely in trumps on a plain lead; it then competes by the *main part*
of the lead's shape (SJ-20).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from arena.cards import Card
from arena.games.shengji.order import TRUMP, TrumpOrder
from arena.games.shengji.shapes import Pile, Shape, Unit, covers, decompose


def beatable(unit: Unit, holdings: Sequence[Sequence[Card]], order: TrumpOrder) -> bool:
    """Whether some holding (cards of the unit's suit) has a higher unit of its shape."""
    return bool(_beatable([unit], holdings, order))


def _beatable(
    units: Sequence[Unit], holdings: Sequence[Sequence[Card]], order: TrumpOrder
) -> list[Unit]:
    """The units some holding (cards of their suit) has a higher unit of the shape of."""
    orders = order.orders
    highest = max((orders[c] for cards in holdings for c in cards), default=-1)
    piles: list[Pile] | None = None
    found: list[Unit] = []
    for unit in units:
        if unit.width == 1:  # a single: any higher card
            if highest > unit.top:
                found.append(unit)
            continue
        if piles is None:
            piles = [Pile(cards, order) for cards in holdings]
        width, length, top = unit.width, unit.length, unit.top
        if any(u.top > top for pile in piles for u in pile.units(width, length)):
            found.append(unit)
    return found


def check_throw(
    units: Sequence[Unit], others: Sequence[Sequence[Card]], order: TrumpOrder
) -> Unit | None:
    """SJ-17: ``None`` if the throw stands, else the unit the thrower must play instead.

    ``others`` are the other players' cards of the thrown suit. Among beatable
    units the forced one is the one whose highest card is lowest; on a tie, the
    one with fewer cards (Decision).
    """
    failing = _beatable(units, others, order)
    if not failing:
        return None
    return min(failing, key=lambda u: (u.top, u.size))


def main_shape(lead: Sequence[Unit]) -> Shape:
    """SJ-20: the lead's longest widest tractor, else its widest set, else a single."""
    tractors = [u for u in lead if u.is_tractor]
    if tractors:
        best = max(tractors, key=lambda u: (u.length, u.width))
        return (best.width, best.length)
    return (max(u.width for u in lead), 1)


_new_tuple = tuple.__new__  # a NamedTuple made without its Python-level constructor


class Contender(NamedTuple):
    """A play that can win the trick: whether it is a ruff, its main part's top.

    ``wider`` counts only with 4 decks (SJ-29): the width of a wider shape of as
    many cards standing for the lead's main part (:func:`wider_shapes`), which
    outranks the narrower shapes; 0 when the main part has the lead's own shape.
    """

    ruff: bool
    top: int
    wider: int = 0

    def beats(self, other: Contender) -> bool:
        """A ruff beats a plain play, a wider main part a narrower one, then the higher
        top wins; on equal terms the earlier play stands (SJ-6, SJ-20)."""
        return (self.ruff, self.wider, self.top) > (other.ruff, other.wider, other.top)


def wider_shapes(main: Shape) -> list[Shape]:
    """SJ-29, 4 decks: wider shapes of as many cards that may stand for a main shape.

    For equal card counts a quad tractor beats a triple tractor beats a pair
    tractor, and a quad beats a 2-pair tractor. Widest first.
    """
    width, length = main
    cards = width * length
    found = []
    for wider in (4, 3):
        if wider > width and cards % wider == 0:
            wider_length = cards // wider
            if wider_length >= 2 or (wider == 4 and main == (2, 2)):
                found.append((wider, wider_length))
    return found if length >= 2 else []


def contender(
    play: Sequence[Card],
    lead: Sequence[Unit],
    lead_suit: int,
    order: TrumpOrder,
    decks: int = 2,
) -> Contender | None:
    """The play as a contender for the trick, or ``None`` if it is a discard (垫牌)."""
    if len(play) == 1:  # a single: its suit decides, then its order
        suit = order.suits[play[0]]
        if suit == lead_suit or (suit == TRUMP and lead_suit != TRUMP):
            return _new_tuple(Contender, (suit != lead_suit, order.orders[play[0]], 0))
        return None
    suits = {order.suits[c] for c in play}
    if suits == {lead_suit}:
        ruff = False
    elif suits == {TRUMP} and lead_suit != TRUMP:
        ruff = True  # SJ-21: a void player's all-trump play
    else:
        return None
    shapes = _shapes_main_first(lead)
    main = covers(play, shapes, order)
    if main is True:  # the main part is a single: the highest card
        return _new_tuple(Contender, (ruff, max([order.orders[c] for c in play]), 0))
    if isinstance(main, Unit):
        return _new_tuple(Contender, (ruff, main.top, 0))
    if decks == 4:
        for wider in wider_shapes(shapes[0]):
            found = covers(play, [wider, *shapes[1:]], order)
            if isinstance(found, Unit):
                return _new_tuple(Contender, (ruff, found.top, wider[0]))
    return None


def _shapes_main_first(lead: Sequence[Unit]) -> list[Shape]:
    shapes = [(u.width, u.length) for u in lead]
    main = main_shape(lead)
    if main in shapes:
        shapes.remove(main)
    return [main, *shapes]


def lead_contender(lead: Sequence[Unit], lead_suit: int) -> Contender:
    shape = main_shape(lead)
    top = max(u.top for u in lead if (u.width, u.length) == shape)
    return _new_tuple(Contender, (False, top, 0))


def largest_unit_cards(play: Sequence[Card], order: TrumpOrder) -> int:
    """Cards in the largest combination of a play (SJ-25), read per suit."""
    by_suit: dict[int, list[Card]] = {}
    for card in play:
        by_suit.setdefault(order.suits[card], []).append(card)
    return max(u.size for cards in by_suit.values() for u in decompose(cards, order))


def widest_set(play: Sequence[Card], order: TrumpOrder) -> int:
    """Width of the widest set in a play (SJ-30; a tractor counts by its width)."""
    by_suit: dict[int, list[Card]] = {}
    for card in play:
        by_suit.setdefault(order.suits[card], []).append(card)
    return max(u.width for cards in by_suit.values() for u in decompose(cards, order))
