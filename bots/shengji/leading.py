"""Choosing a lead: the rules a good player leads by, tried in order.

1. **Safe throw** — several units of one plain suit that are all the top of the
   suit given the cards seen go out at once, when the reading the people's table
   shows too (:func:`arena.games.shengji.reading.read_throw`, SJ-17) calls the throw
   safe: it would stand even if one player held every card still out of the suit.
   Only in a suit no opponent has shown void in, with enough cards of it still out
   for the others to follow (a void opponent would ruff).
   **Risky throw** — else, at the rate the style's ``risk`` sets
   (:mod:`bots.shengji.levers`), the top units of such a suit go out with one unit
   the reading says could be beaten: a set rather than a single (someone nearly
   always holds a higher single), the one fewest unseen units could beat, within the
   odds the style takes (a set beaten by one unseen set, more for a bolder bot; a
   single by one unseen card, rarely but for a bold bot), without points if it can.
   If someone does hold a higher unit, the throw fails and that unit is played
   instead (with ``throw_penalty``, at a cost in points).
2. **Top tractor or set** — a pair, triple or tractor nobody can beat, from a
   plain suit no opponent is void in: the biggest first.
3. **Top single** — an ace (or the highest remaining card) of such a suit.
4. **Lead to the partner's ruff** — a small card of a suit the partner has shown
   void in and the opponents have not.
5. **Draw trumps** — the dealer's side, holding many trumps, leads its trump
   tractors and top trump sets, then its top trump single. "Many" grows with the
   style's ``points``: a tempo-first bot takes control with fewer trumps.
6. **Lead low** — otherwise (2 or 3 decks) the lowest plain pair or triple without
   points, which makes the others spend or break their sets; else a small card
   without points from the shortest plain suit (to make a void for ruffing later);
   low trumps only when nothing else is left.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.cards import Card
from arena.games.shengji.order import TRUMP, card_points
from arena.games.shengji.reading import read_throw
from arena.games.shengji.shapes import Pile, Unit, decompose
from bots.shengji.levers import Levers
from bots.shengji.view import View, points

Draw = Callable[[str, float], bool]
"""Whether a choice taken at a rate is taken at this decision (:func:`bots.style.chance`)."""


def choose_lead(view: View, throws_allowed: bool, levers: Levers, draw: Draw) -> tuple[Card, ...]:
    """The cards to lead, by the first rule of the module docstring that applies."""
    plain = [s for s in view.by_suit if s != TRUMP and not view.opponents_void(s)]
    plain.sort()
    if throws_allowed:
        throw = _safe_throw(view, plain)
        if throw:
            return throw
        risky = _risky_throw(view, plain, levers) if levers.throw_rate > 0 else None
        if risky is not None:
            throw, single = risky
            if draw("throw", levers.single_rate if single else levers.throw_rate):
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
    trump = _draw_trumps(view, levers.draw_share)
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
    """The largest throw of top units in one suit that the shared reading calls safe."""
    best: tuple[Card, ...] = ()
    for suit in suits:
        tops = [u for u in _units(view, suit) if view.is_top(u, suit)]
        if len(tops) < 2:
            continue
        cards = tuple(sorted(c for u in tops for c in u.cards))
        if not _followed(view, suit, len(cards)):
            continue
        if (len(cards), points(cards)) > (len(best), points(best)) and _safe(view, cards):
            best = cards
    return best


def _safe(view: View, cards: tuple[Card, ...]) -> bool:
    """The shared reading of a throw (SJ-17): safe given the cards this seat cannot place."""
    return read_throw(decompose(cards, view.order), view.unknown, view.order) is None


def _risky_throw(
    view: View, suits: Sequence[int], levers: Levers
) -> tuple[tuple[Card, ...], bool] | None:
    """The top units of a suit with the one other unit fewest unseen units could beat
    (module docstring), when the shared reading says the throw may fail, and whether
    the unit risked is a single; else ``None``."""
    best: tuple[tuple[Card, ...], bool] | None = None
    best_key: tuple[int, int, int, int] | None = None
    for suit in suits:
        units = _units(view, suit)
        tops = [u for u in units if view.is_top(u, suit)]
        if not tops or len(tops) == len(units):
            continue
        top_cards = [c for u in tops for c in u.cards]
        for unit in units:
            if unit in tops:
                continue
            single = unit.width == 1
            beaters = _beaters(view, unit, suit)
            if beaters > (1 if single else levers.set_beaters):
                continue
            cards = tuple(sorted(top_cards + list(unit.cards)))
            key = (single, beaters, points(unit.cards), -len(cards))
            if best_key is not None and key >= best_key:
                continue
            if _followed(view, suit, len(cards)) and not _safe(view, cards):
                best, best_key = (cards, single), key
    return best


def _beaters(view: View, unit: Unit, suit: int) -> int:
    """How many units of the unit's shape, higher than it, the unseen cards of its suit
    make (a single: how many unseen cards are higher)."""
    unknown = view.unknown_of(suit)
    if unit.width == 1:
        orders = view.order.orders
        return sum(1 for c in unknown if orders[c] > unit.top)
    pile = Pile(unknown, view.order)
    return sum(1 for u in pile.units(unit.width, unit.length) if u.top > unit.top)


def _followed(view: View, suit: int, size: int) -> bool:
    """Enough cards of a plain suit are unseen for the others to follow rather than ruff."""
    return suit == TRUMP or len(view.unknown_of(suit)) >= 2 * size


def _partner_ruff(view: View) -> tuple[Card, ...]:
    voids = view.memory.voids[view.partner]
    for suit in sorted(voids):
        if suit != TRUMP and suit in view.by_suit and not view.opponents_void(suit):
            return (_cheapest(view, view.by_suit[suit]),)
    return ()


def _draw_trumps(view: View, share: float) -> tuple[Card, ...]:
    trumps = view.by_suit.get(TRUMP, [])
    if not view.declaring or len(trumps) < share * len(view.hand):
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
