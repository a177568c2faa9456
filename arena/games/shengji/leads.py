"""The legal leads of a Shengji hand as a sequence made on demand (SJ-17, SJ-18).

Any non-empty set of one suit's cards may be led, so a hand of many cards has hundreds
of leads, and most decisions look at one of them (a random or rollout policy picks an
index) or ask whether one is among them. :class:`Leads` knows them by their shape — per
suit, how many copies of each card the hand holds — and spells out only the lead asked
for; iterating makes them all, once.

The order is fixed: suits in the order of their first card in the sorted hand; within a
suit, the sets in the order of the copies they take of each card, the lowest card the
most significant (the empty set, first in that order, left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import Any, Final, cast

from arena.cards import NUM_KINDS, Card
from arena.games.base import Action
from arena.games.shengji.multisets import Counts, counted
from arena.games.shengji.order import TRUMP, TrumpOrder
from arena.games.shengji.plays import LazyPlays

MAX_DECKS = 4


def all_leads(cards: Sequence[Card], order: TrumpOrder, limit: int) -> Sequence[Action] | None:
    """A ``play`` of every non-empty set of one suit's ``cards`` (sorted), as
    :class:`Leads`; ``None`` if there are more than ``limit``."""
    suits = order.suits
    by_suit: list[Counts] = [[] for _ in range(TRUMP + 1)]
    first: list[int] = []  # the suits held, in the order of their first card
    for run in counted(cards):
        held = by_suit[suits[run[0]]]
        if not held:
            first.append(suits[run[0]])
        held.append(run)
    ends: list[int] = []
    total = 0
    for suit in first:
        ways = 1
        for run in by_suit[suit]:
            ways *= run[1] + 1
        total += ways - 1
        if total > limit:
            return None
        ends.append(total)
    return cast(Sequence[Action], Leads([by_suit[suit] for suit in first], ends))


class Leads(LazyPlays):
    """Every lead of a hand, in the order of the module docstring, each made when asked."""

    def __init__(self, suits: list[Counts], ends: list[int]) -> None:
        super().__init__(ends[-1] if ends else 0)
        self._suits = suits
        """Per suit held, its runs (sorted)."""
        self._ends = ends
        """Per suit, how many leads there are up to and with it."""
        self._held: dict[Card, tuple[int, int]] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (Leads, (self._suits, self._ends))

    def _nth(self, index: int) -> Action:
        """The lead at ``index``: its suit, then the copies of each card as the digits
        of its place in that suit's order (the last card the least significant)."""
        ends = self._ends
        place = 0
        while ends[place] <= index:
            place += 1
        rank = index - (ends[place - 1] if place else 0) + 1  # the empty set is rank 0
        runs = self._suits[place]
        taken = [0] * len(runs)
        for i in range(len(runs) - 1, -1, -1):
            base = runs[i][1] + 1
            taken[i] = rank % base
            rank //= base
        cards: tuple[Card, ...] = ()
        for i in range(len(runs)):
            if taken[i]:
                cards += _COPIES[runs[i][0]][taken[i]]
        return _new_tuple(Action, ("play", cards, ""))

    def _every(self) -> list[Action]:
        leads: list[Action] = []
        new, action, copies_of = _new_tuple, Action, _COPIES  # locals: looked up once
        for held in self._suits:
            sets: list[tuple[Card, ...]] = [()]
            for i in range(len(held) - 1):
                card, n = held[i]
                copies = copies_of[card][: n + 1]
                sets = [prefix + more for prefix in sets for more in copies]
            card, n = held[-1]
            copies = copies_of[card][: n + 1]
            skip = 1  # every set but the empty one (the first)
            for prefix in sets:
                for j in range(skip, n + 1):
                    leads.append(new(action, ("play", prefix + copies[j], "")))
                skip = 0
        return leads

    def _holds(self, cards: tuple[Card, ...]) -> bool:
        """Whether the sorted cards are of one suit held, no more copies than held."""
        held = self._held
        if held is None:
            held = self._held = {
                card: (place, copies)
                for place, runs in enumerate(self._suits)
                for card, copies in runs
            }
        suit, previous, copies = -1, -1, 0
        for card in cards:
            where = held.get(card)
            if where is None or suit not in (-1, where[0]):
                return False
            copies = copies + 1 if card == previous else 1
            if copies > where[1]:
                return False
            suit, previous = where[0], card
        return True


def unit_leads(cards: Sequence[Card], order: TrumpOrder, max_width: int) -> list[Action]:
    """A ``play`` of every distinct single unit of sorted ``cards``: per suit (in the
    order of their first card), the singles, then per width from 2 up to ``max_width``
    (while the hand holds such sets) the sets and the tractors, shortest first (SJ-15);
    each kind by position, identities of one position in order."""
    suits = order.suits
    by_suit: list[list[Card]] = [[] for _ in range(TRUMP + 1)]
    first: list[int] = []  # the suits held, in the order of their first card
    for card in cards:
        held = by_suit[suits[card]]
        if not held:
            first.append(suits[card])
        held.append(card)
    leads: list[Action] = []
    new, action = _new_tuple, Action  # locals: looked up once
    for suit in first:
        members, keys = _identities(by_suit[suit], order)
        for key in keys:
            leads.append(new(action, ("play", (members[key % _KEY][0],), "")))
        for width in range(2, max_width + 1):
            wide = [key for key in keys if len(members[key % _KEY]) >= width]
            if not wide:
                break
            for key in wide:
                leads.append(new(action, ("play", tuple(members[key % _KEY][:width]), "")))
            if len(wide) > 1:
                _tractor_leads(members, wide, width, leads)
    return leads


def held_sets(cards: Sequence[Card], order: TrumpOrder, width: int) -> list[tuple[Card, ...]]:
    """Every set of ``width`` identical cards among one suit's sorted ``cards``, by
    position, identities of one position in order."""
    members, keys = _identities(cards, order)
    sets: list[tuple[Card, ...]] = []
    for key in keys:
        held = members[key % _KEY]
        if len(held) >= width:
            sets.append(tuple(held[:width]))
    return sets


def _identities(cards: Sequence[Card], order: TrumpOrder) -> tuple[list[list[Card]], list[int]]:
    """One suit's sorted cards by identity (per identity, its cards, sorted; empty for
    one not held), and the keys ``position * _KEY + identity`` of those held, in order."""
    identities, orders = order.identities, order.orders
    members: list[list[Card]] = [_NONE] * NUM_KINDS
    keys: list[int] = []
    for card in cards:
        identity = identities[card]
        held = members[identity]
        if held:
            held.append(card)
        else:
            members[identity] = [card]
            keys.append(orders[card] * _KEY + identity)
    keys.sort()
    return members, keys


def _tractor_leads(
    members: list[list[Card]], wide: list[int], width: int, leads: list[Action]
) -> None:
    """Append every tractor of ``width``, shortest first, each length by its lowest
    position: ``wide`` holds the keys (position, identity) held that wide, in order."""
    top = wide[-1] // _KEY
    at: list[list[int]] = [[] for _ in range(top + 2)]  # per position: identities held
    starts: list[int] = []  # the positions held, ascending
    for key in wide:
        position = key // _KEY
        if not at[position]:
            starts.append(position)
        at[position].append(key % _KEY)
    run = [0] * (top + 2)  # per position: how many held positions follow from it
    for position in reversed(starts):
        run[position] = run[position + 1] + 1
    longest = max(run)
    for length in range(2, longest + 1):
        for start in starts:
            if run[start] >= length:
                chain = at[start : start + length]
                for chosen in product(*chain):
                    cards = sorted([c for identity in chosen for c in members[identity][:width]])
                    leads.append(_new_tuple(Action, ("play", tuple(cards), "")))


_NONE: Final[list[Card]] = []
"""No cards of an identity (shared, never changed: a held identity gets a list of its own)."""

_KEY: Final = 64
"""Keys of identities (below 64) by position: ``position * _KEY + identity``."""


_new_tuple = tuple.__new__
_COPIES: list[tuple[tuple[Card, ...], ...]] = [
    tuple((card,) * n for n in range(MAX_DECKS + 1)) for card in range(NUM_KINDS)
]
"""Per card, the tuples of 0 … 4 copies of it."""

__all__ = ["Leads", "all_leads", "held_sets", "unit_leads"]
