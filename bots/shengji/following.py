"""Choosing a follow: the rules a good player follows by.

Every candidate follow is weighed by the points it carries, what its cards cost to
give up (:meth:`View.cost`) and whether it would win the trick. Then:

1. **Feed the partner** — the partner is winning and the win stands (nobody after
   this seat can beat it given the cards seen): give points (5, 10, K), as many as
   the follow allows, spending the cheapest cards.
2. **Secure the partner's trick** — the partner is winning but could be beaten and
   there are points at stake: take the trick with a winning play that stands.
3. **Win when it pays** — an opponent is winning: take the trick (follow higher, ruff
   when void, over-ruff a ruff) with the cheapest play that stands, when the points
   on the table and the lead are worth the cards spent; with many points on the
   table, try the strongest winning play even if it might be beaten.
4. **Play low when losing** — otherwise give away the fewest points and the cheapest
   cards, keeping sets together and the big trumps for the last trick.

The weights come from the style (:mod:`bots.shengji.levers`): a points-first bot weighs
the points it feeds and saves more (SJ-22), a tempo-first bot values the lead a trick
brings more (SJ-18); a risk-taking bot gambles on a play that may be beaten (SJ-20) for
fewer points on the table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from operator import attrgetter

from arena.cards import Card
from arena.games.base import team_of
from arena.games.shengji.follow import follow_error
from arena.games.shengji.order import TRUMP, TrumpOrder
from arena.games.shengji.shapes import Pile, Unit
from arena.games.shengji.trick import Contender, contender
from bots.shengji.levers import Levers
from bots.shengji.view import CARD_POINTS, View, points

WIN_RATIO = 1.5
"""A win is taken when (points won + lead) x this covers the extra cost of the cards."""


class Candidate:
    """A follow with its points, its cost and, if it would take the lead, how."""

    __slots__ = ("cards", "cost", "feed_key", "lose_key", "points", "wins")

    def __init__(
        self,
        cards: tuple[Card, ...],
        points: int,
        cost: float,
        wins: Contender | None,
        levers: Levers,
    ) -> None:
        self.cards = cards
        self.points = points
        self.cost = cost
        self.wins = wins
        self.feed_key = (cost - levers.feed_weight * points, cards)
        self.lose_key = (cost + levers.lose_weight * points, cards)


_feed_key = attrgetter("feed_key")
_lose_key = attrgetter("lose_key")


def choose_follow(
    view: View, plays: Sequence[tuple[Card, ...]], levers: Levers
) -> tuple[Card, ...]:
    """The follow to play among ``plays`` (legal), by the rules of the module docstring."""
    memory = view.memory
    best_seat, best = view.best
    team = team_of(view.seat)
    later_opponents = [s for s in memory.still_to_play() if team_of(s) != team]
    suit, order = memory.trick.suit, view.order
    candidates = [_candidate(view, cards, best, suit, order, levers) for cards in plays]
    table = memory.table_points()
    cheap = min(candidates, key=_lose_key)
    winners = [c for c in candidates if c.wins is not None]
    standing = [c for c in winners if _stands(view, c.wins, later_opponents)]
    if team_of(best_seat) == team:
        if _stands(view, best, later_opponents):
            return min(candidates, key=_feed_key).cards
        if standing and table >= levers.gamble_points:
            return min(standing, key=_feed_key).cards
        return cheap.cards
    if standing:
        win = min(standing, key=_feed_key)
        if (table + win.points + levers.lead_value) * WIN_RATIO >= win.cost - cheap.cost:
            return win.cards
    if winners and table >= levers.gamble_points and later_opponents:
        strongest = max(winners, key=lambda c: (_strength(c.wins), -c.cost, c.cards))
        return strongest.cards
    return cheap.cards


def _strength(found: Contender | None) -> tuple[bool, int, int]:
    assert found is not None
    return (found.ruff, found.wider, found.top)


def _candidate(
    view: View,
    cards: tuple[Card, ...],
    best: Contender,
    suit: int,
    order: TrumpOrder,
    levers: Levers,
) -> Candidate:
    """A follow with its points, its cost and, if it would take the lead, how (``suit``
    is the trick's, ``order`` the view's)."""
    wins = None
    if len(cards) == 1:  # a single: its suit, then its order decide
        card_suit = order.suits[cards[0]]
        if card_suit == suit or (card_suit == TRUMP and suit != TRUMP):
            single = Contender(card_suit != suit, order.orders[cards[0]])
            wins = single if single.beats(best) else None
        return Candidate(cards, CARD_POINTS[cards[0]], view.cost(cards), wins, levers)
    card_suits = order.suits
    first = card_suits[cards[0]]
    one_suit = all([card_suits[c] == first for c in cards])
    ruff = one_suit and first == TRUMP and suit != TRUMP
    if ((one_suit and first == suit) or ruff) and _may_beat(view, cards, ruff, best):
        found = contender(cards, view.lead, suit, order, view.memory.decks)
        if found is not None and found.beats(best):
            wins = found
    return Candidate(cards, points(cards), view.cost(cards), wins, levers)


def _may_beat(view: View, cards: tuple[Card, ...], ruff: bool, best: Contender) -> bool:
    """A quick necessary condition for beating ``best``: a ruff over a play that is no
    ruff, or some card above its top (4 decks: a wider shape may win lower)."""
    if ruff and not best.ruff:
        return True
    if view.memory.decks == 4:
        return True
    orders = view.order.orders
    return max([orders[c] for c in cards]) > best.top


def _stands(view: View, found: Contender | None, later_opponents: Sequence[int]) -> bool:
    """Whether a winning play stays the best: no opponent after this seat is likely to
    beat it. A play in the led suit must be the top of its shape given the cards seen
    and, in a plain suit, the opponents must be able to follow (not ruff); a ruff stands
    if the opponents can follow the plain suit, or if it is the top of the trumps."""
    if found is None:
        return False
    if not later_opponents:
        return True
    trick = view.memory.trick
    width, length = view.main_shape
    followed = (
        trick.suit != TRUMP
        and not view.opponents_void(trick.suit, later_opponents)
        and len(view.unknown_of(trick.suit)) >= trick.size * len(later_opponents)
    )
    if found.ruff:
        return followed or view.top_of_shape(width, length, found.top, TRUMP)
    if not view.top_of_shape(width, length, found.top, trick.suit):
        return False
    return trick.suit == TRUMP or followed


# ------------------------------------------------------------ constructed follows


def constructed_follows(view: View, levers: Levers) -> list[tuple[Card, ...]]:
    """Follows built from the hand when the listed ones are only a sample: the lowest
    and the highest play matching the lead's shape (in the led suit, or in trumps when
    void), and the cheapest and the richest filling; each checked with the engine's
    follow rule (SJ-19)."""
    trick = view.memory.trick
    order, hand = view.order, view.hand
    size = trick.size
    suited = view.by_suit.get(trick.suit, [])
    others = [c for c in hand if order.suits[c] != trick.suit]
    built: list[tuple[Card, ...]] = []
    if len(suited) <= size:
        need = size - len(suited)
        lose, feed = levers.lose_weight, levers.feed_weight
        by_lose = sorted(others, key=lambda c: (view.cost((c,)) + lose * points((c,)), c))
        by_feed = sorted(others, key=lambda c: (view.cost((c,)) - feed * points((c,)), c))
        built += [tuple(sorted(suited + by_lose[:need])), tuple(sorted(suited + by_feed[:need]))]
        trumps = view.by_suit.get(TRUMP, [])
        if not suited and trick.suit != TRUMP and len(trumps) >= size:
            built += [m for m in (_matching(view, trumps, low) for low in (True, False)) if m]
    else:
        built += [m for m in (_matching(view, suited, low) for low in (True, False)) if m]
    legal = []
    for cards in built:
        if len(cards) == size and not follow_error(
            hand, cards, view.lead, trick.suit, order, view.memory.decks
        ):
            legal.append(cards)
    return legal


def _matching(view: View, cards: Sequence[Card], low: bool) -> tuple[Card, ...]:
    """Units of the lead's shapes taken from ``cards`` (lowest or highest first), singles
    filled with the cheapest cards left; ``()`` if a shape cannot be matched."""
    order = view.order
    pile = Pile(cards, order)
    taken: list[Card] = []
    for unit in view.lead:
        if unit.width == 1:
            continue
        found = sorted(pile.units(unit.width, unit.length), key=lambda u: u.top)
        if not found:
            return ()
        chosen: Unit = found[0] if low else found[-1]
        pile.take(chosen)
        taken.extend(chosen.cards)
    rest = list((Counter(cards) - Counter(taken)).elements())
    need = view.memory.trick.size - len(taken)
    if need > len(rest):
        return ()
    rest.sort(key=lambda c: (view.cost((c,)) + 3 * points((c,)), c))
    return tuple(sorted(taken + rest[:need]))


__all__ = ["choose_follow", "constructed_follows"]
