"""The first implementation of Shengji's lead listing, kept as the oracle of the tests:
every lead spelled out, and the single units read from the hand's piles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import product

from arena.cards import Card
from arena.games.base import Action
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Pile, Unit


def listed_leads(hand: list[Card], order: TrumpOrder) -> list[Action]:
    """Every non-empty set of one suit's cards: suits in the order of their first card,
    the sets of a suit by the copies taken of each card, the lowest card first."""
    counts = Counter(hand)
    suits: list[int] = []
    for card in sorted(counts):
        if order.suits[card] not in suits:
            suits.append(order.suits[card])
    leads = []
    for suit in suits:
        cards = [c for c in sorted(counts) if order.suits[c] == suit]
        for taken in product(*(range(counts[c] + 1) for c in cards)):
            if any(taken):
                chosen = tuple(c for c, n in zip(cards, taken, strict=True) for _ in range(n))
                leads.append(Action("play", chosen))
    return leads


def pile_units(cards: Sequence[Card], order: TrumpOrder, max_width: int) -> list[Unit]:
    """Every distinct single unit (single, set, tractor) of a hand, read from its piles."""
    by_suit: dict[int, list[Card]] = {}
    for card in cards:
        by_suit.setdefault(order.suits[card], []).append(card)
    units: list[Unit] = []
    for suit_cards in by_suit.values():
        pile = Pile(suit_cards, order)
        units.extend(pile.units(1, 1))
        for width in range(2, max_width + 1):
            sets = list(pile.units(width, 1))
            if not sets:  # nor any wider
                break
            units.extend(sets)
            units.extend(pile.tractors(width))  # ever longer (SJ-15)
    return units
