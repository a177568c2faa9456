"""Burying the kitty (SJ-13), one card at a time, by a plan made from the whole hand.

* **Never bury trumps** unless the plain cards run out.
* **Keep points safe** — 5s, 10s and Ks cost more to bury than other plain cards (the
  defenders win the kitty's points, multiplied, with the last trick, SJ-25), by the
  style (:mod:`bots.shengji.levers`): a points-first bot keeps them out of the kitty
  unless the kitty is safe (:func:`kitty_safe`: the hand holds the top trump and half
  its cards are trumps, so the declarers should win the last trick), where they cost a
  quarter as much; a risk-taking bot buries them nearly as readily as other cards.
* **Keep winners and sets** — aces and cards that make pairs (or wider sets) stay.
* **Void a short suit** — whole short suits go first, so that the dealer can ruff
  them later; the cheapest other plain cards fill the rest.

The plan is remade at every card from the current hand and the cards still to bury;
the first card of the plan is buried.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from arena.cards import RANK_ACE, SMALL_JOKER, Card
from arena.games.shengji.order import TRUMP, TrumpOrder, card_points
from bots.shengji.levers import POINT_COST

TRUMP_COST = 1000.0
SAFE_TRUMPS = 0.5
"""The share of trumps in the hand, the top trump among them, that makes the kitty safe."""
ACE_COST = 30.0
SET_COST = 25.0
VOID_BONUS = 20.0
"""What making a void in a plain suit is worth."""


def kitty_safe(hand: Sequence[Card], order: TrumpOrder) -> bool:
    """Whether the dealer's hand should win the last trick, and with it keep the kitty's
    points (SJ-25): it holds a card of the top trump order and half its cards are trumps."""
    trumps = [order.orders[c] for c in hand if order.suits[c] == TRUMP]
    top = max(order.orders)
    return bool(trumps) and max(trumps) == top and len(trumps) >= SAFE_TRUMPS * len(hand)


def bury_cost(
    card: Card, held: Counter[Card], order: TrumpOrder, point_cost: float = POINT_COST
) -> float:
    """The cost of burying one card (low is a good card to bury); ``point_cost`` per point."""
    if order.suits[card] == TRUMP:
        return TRUMP_COST + order.orders[card]
    cost = float(order.orders[card]) + point_cost * card_points(card)
    if card < SMALL_JOKER and card >> 2 == RANK_ACE:
        cost += ACE_COST
    if held[card] >= 2:
        cost += SET_COST
    return cost


def bury_plan(
    hand: Sequence[Card], count: int, order: TrumpOrder, point_cost: float = POINT_COST
) -> list[Card]:
    """The ``count`` cards to bury, cheapest first (see the module docstring), a point
    costing ``point_cost``."""
    held = Counter(hand)
    costs = {c: bury_cost(c, held, order, point_cost) for c in held}
    suits: dict[int, list[Card]] = {}
    for card in hand:
        if order.suits[card] != TRUMP:
            suits.setdefault(order.suits[card], []).append(card)
    ranked = sorted(hand, key=lambda c: (costs[c], c))
    best = ranked[:count]
    best_cost = sum(costs[c] for c in best)
    names = sorted(s for s in suits if len(suits[s]) <= count)  # suits that can be voided
    for k in range(1, len(names) + 1):
        for voided in combinations(names, k):
            cards = [c for s in voided for c in suits[s]]
            if len(cards) > count:
                continue
            rest = Counter(hand) - Counter(cards)
            fill = sorted(rest.elements(), key=lambda c: (costs[c], c))[: count - len(cards)]
            plan = sorted(cards, key=lambda c: (costs[c], c)) + fill
            total = sum(costs[c] for c in plan) - VOID_BONUS * k
            if total < best_cost:
                best, best_cost = plan, total
    return sorted(best, key=lambda c: (costs[c], c))


__all__ = ["bury_cost", "bury_plan", "kitty_safe"]
