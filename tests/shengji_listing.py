"""The first implementation of Shengji's lead listing, kept as the oracle of the tests:
every lead spelled out, and the single units read from the hand's piles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

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
        # every choice of copies, the last card's counted fastest (itertools.product's
        # order), each set grown from the sets of the cards before it
        sets: list[tuple[Card, ...]] = [()]
        for card in (c for c in sorted(counts) if order.suits[c] == suit):
            sets = [chosen + (card,) * n for chosen in sets for n in range(counts[card] + 1)]
        leads += [Action("play", chosen) for chosen in sets[1:]]  # all but the empty set
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
