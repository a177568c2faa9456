"""Choosing a lead: the rules a good player leads by, tried in order.

1. **Safe throw** — several units of one plain suit that are all the top of the
   suit given the cards seen (nobody could beat any of them, SJ-17) go out at once,
   in a suit no opponent has shown void in (a void opponent would ruff).
2. **Top tractor or set** — a pair, triple or tractor nobody can beat, from a
   plain suit no opponent is void in: the biggest first.
3. **Top single** — an ace (or the highest remaining card) of such a suit.
4. **Lead to the partner's ruff** — a small card of a suit the partner has shown
   void in and the opponents have not.
5. **Draw trumps** — the dealer's side, holding many trumps, leads its trump
   tractors and top trump sets, then its top trump single.
6. **Lead low** — otherwise (2 or 3 decks) the lowest plain pair or triple without
   points, which makes the others spend or break their sets; else a small card
   without points from the shortest plain suit (to make a void for ruffing later);
   low trumps only when nothing else is left.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.cards import Card
from arena.games.shengji.order import TRUMP, card_points
from arena.games.shengji.shapes import Unit, decompose
from bots.shengji.view import View, points


def choose_lead(view: View, throws_allowed: bool) -> tuple[Card, ...]:
    """The cards to lead, by the first rule of the module docstring that applies."""
    plain = [s for s in view.by_suit if s != TRUMP and not view.opponents_void(s)]
    plain.sort()
    if throws_allowed:
        throw = _safe_throw(view, plain)
        if throw:
            return throw
    top = _top_units(view, plain, min_width=2)
    if top:
        return max(top, key=lambda u: (u.size, u.width, points(u.cards), u.top)).cards
    top = _top_units(view, plain, min_width=1)
    if top:
        return max(top, key=lambda u: (points(u.cards), u.top)).cards
    feed = _partner_ruff(view)
    if feed:
        return feed
    trump = _draw_trumps(view)
    if trump:
        return trump
    return _low_card(view)


def _units(view: View, suit: int) -> list[Unit]:
    return view.units(suit)


def _top_units(view: View, suits: Sequence[int], min_width: int) -> list[Unit]:
    found = []
    for suit in suits:
        for unit in _units(view, suit):
            if (
                unit.width >= min_width
                and _followed(view, suit, unit.size)
                and view.is_top(unit, suit)
            ):
                found.append(unit)
    return [u for u in found if not view.reserved.intersection(u.cards)]


def _safe_throw(view: View, suits: Sequence[int]) -> tuple[Card, ...]:
    """The largest throw of top units in one suit, re-read as the engine reads it."""
    best: tuple[Card, ...] = ()
    for suit in suits:
        tops = [u for u in _units(view, suit) if view.is_top(u, suit)]
        if len(tops) < 2:
            continue
        cards = tuple(sorted(c for u in tops for c in u.cards))
        if not _followed(view, suit, len(cards)):
            continue
        if all(view.is_top(u, suit) for u in decompose(cards, view.order)) and (
            len(cards),
            points(cards),
        ) > (len(best), points(best)):
            best = cards
    return best


def _followed(view: View, suit: int, size: int) -> bool:
    """Enough cards of a plain suit are unseen for the others to follow rather than ruff."""
    return suit == TRUMP or len(view.unknown_of(suit)) >= 2 * size


def _partner_ruff(view: View) -> tuple[Card, ...]:
    voids = view.memory.voids[view.partner]
    for suit in sorted(voids):
        if suit != TRUMP and suit in view.by_suit and not view.opponents_void(suit):
            return (_cheapest(view, view.by_suit[suit]),)
    return ()


def _draw_trumps(view: View) -> tuple[Card, ...]:
    trumps = view.by_suit.get(TRUMP, [])
    if not view.declaring or len(trumps) * 2 < len(view.hand):
        return ()
    units = [u for u in _units(view, TRUMP) if not view.reserved.intersection(u.cards)]
    tractors = [u for u in units if u.is_tractor]
    if tractors:
        return max(tractors, key=lambda u: (u.size, u.top)).cards
    tops = [u for u in units if view.is_top(u, TRUMP)]
    if tops:
        return max(tops, key=lambda u: (u.width, u.top)).cards
    return ()


def _low_card(view: View) -> tuple[Card, ...]:
    plain = [s for s in view.by_suit if s != TRUMP]
    sets = [
        u
        for s in plain
        if not view.opponents_void(s)
        for u in view.units(s)
        if u.width >= 2 and points(u.cards) == 0
    ]
    if sets and view.memory.decks <= 3:
        return min(sets, key=lambda u: (u.top, -u.size, u.cards)).cards
    if plain:
        safe = [s for s in plain if any(card_points(c) == 0 for c in view.by_suit[s])]
        suits = safe or plain
        suit = min(suits, key=lambda s: (len(view.by_suit[s]), s))
        return (_cheapest(view, view.by_suit[suit]),)
    return (_cheapest(view, view.hand),)


def _cheapest(view: View, cards: Sequence[Card]) -> Card:
    return min(cards, key=lambda c: (card_points(c), view.cost((c,)), c))


__all__ = ["choose_lead"]
