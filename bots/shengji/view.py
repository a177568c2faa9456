"""One decision seen from a seat: its hand, what it knows, and how it values cards.

:class:`View` gathers what the strategy asks about during the play: which cards
are still unseen, whether a unit is the top of its suit given the cards seen
(nobody else can hold a higher one of that shape), and what a card costs to give
up (trumps and aces are worth keeping, pairs are not broken lightly, and near
the end the big trumps are kept for the last trick).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.cards import NUM_KINDS, RANK_ACE, SMALL_JOKER, Card
from arena.games.base import Observation, partner_of, team_of
from arena.games.shengji.order import TRUMP, TrumpOrder, card_points
from arena.games.shengji.shapes import Pile, Unit
from arena.games.shengji.trick import Contender, main_shape
from bots.shengji.memory import Memory, suits_of, units_of

PAIR_BREAK = 5.0
"""Cost of splitting a set of identical cards."""
TRUMP_BASE = 14.0
"""Every trump is worth more than any plain card."""
ACE_BONUS = 4.0
RESERVE = 12.0
"""Endgame: the extra cost of the big trumps kept for the last trick."""


CARD_POINTS: tuple[int, ...] = tuple(card_points(c) for c in range(NUM_KINDS))
"""C-3 points of every card, as a table."""


def points(cards: Sequence[Card]) -> int:
    """The points of some cards (5s 5, 10s and Ks 10)."""
    table = CARD_POINTS
    return sum([table[c] for c in cards])


@dataclass(slots=True)
class View:
    """The seat's hand and knowledge at one play decision."""

    observation: Observation
    memory: Memory
    order: TrumpOrder
    hand: tuple[Card, ...]
    buried: Sequence[Card]
    by_suit: dict[int, list[Card]] = field(init=False)
    held: list[int] = field(init=False)
    """How many of each card the hand holds, by card."""
    reserved: frozenset[Card] = field(init=False)
    _unknown_by_suit: dict[int, list[Card]] = field(init=False, default_factory=dict)
    _highest_unknown: dict[tuple[int, int, int], int] = field(init=False, default_factory=dict)
    _units: dict[int, list[Unit]] = field(init=False, default_factory=dict)
    values: list[float] = field(init=False)
    """What giving up each card costs, points aside (:meth:`card_cost`), by card."""
    _unknown: list[int] | None = field(init=False, default=None)
    _main_shape: tuple[int, int] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.by_suit = suits_of(self.hand, self.order)
        held = [0] * NUM_KINDS
        for card in self.hand:
            held[card] += 1
        self.held = held
        self.reserved = self._reserve()
        self.values = _values(self.order, self.reserved)

    @classmethod
    def of(cls, observation: Observation, memory: Memory, buried: Sequence[Card]) -> View:
        assert memory.order is not None
        return cls(observation, memory, memory.order, observation.hand, buried)

    @property
    def unknown(self) -> list[int]:
        """Counts of the cards this seat cannot place (see :meth:`Memory.unknown`)."""
        if self._unknown is None:
            self._unknown = self.memory.unknown(self.hand, self.buried)
        return self._unknown

    # ----------------------------------------------------------------- seats

    @property
    def seat(self) -> int:
        return self.memory.seat

    @property
    def partner(self) -> int:
        return partner_of(self.seat)

    @property
    def declaring(self) -> bool:
        """Whether this seat is on the dealer's side."""
        return team_of(self.seat) == team_of(self.memory.dealer)

    def opponents_void(self, suit: int, seats: Sequence[int] | None = None) -> bool:
        """Whether an opponent (among ``seats``, default both) has shown a void in ``suit``."""
        seat = self.memory.seat
        chosen = seats if seats is not None else ((seat + 1) % 4, (seat + 3) % 4)
        team, voids = team_of(seat), self.memory.voids
        return any([suit in voids[s] for s in chosen if team_of(s) != team])

    # -------------------------------------------------------------- trick

    @property
    def lead(self) -> list[Unit]:
        """The units of the trick's lead."""
        return self.memory.trick.lead(self.order)

    @property
    def main_shape(self) -> tuple[int, int]:
        """The (width, length) of the lead's main part (SJ-20)."""
        if self._main_shape is None:
            self._main_shape = main_shape(self.lead)
        return self._main_shape

    @property
    def best(self) -> tuple[int, Contender]:
        """The seat winning the trick so far, and its play as a contender."""
        return self.memory.trick.best(self.order, self.memory.decks)

    # ------------------------------------------------------------- unseen

    def unknown_of(self, suit: int) -> list[Card]:
        """The unseen cards of a suit (held by others, or in a kitty this seat did not bury)."""
        found = self._unknown_by_suit.get(suit)
        if found is None:
            unknown = self.unknown
            found = []
            for card in _suit_cards(self.order).get(suit, ()):
                count = unknown[card]
                if count == 1:
                    found.append(card)
                elif count > 1:
                    found += [card] * count
            self._unknown_by_suit[suit] = found
        return found

    def is_top(self, unit: Unit, suit: int) -> bool:
        """Nobody else can hold a higher unit of this shape in this suit."""
        return self.top_of_shape(unit.width, unit.length, unit.top, suit)

    def top_of_shape(self, width: int, length: int, top: int, suit: int) -> bool:
        key = (width, length, suit)
        highest = self._highest_unknown.get(key)
        if highest is None:
            cards = self.unknown_of(suit)
            if width == 1:
                orders = self.order.orders
                highest = max([orders[c] for c in cards], default=-1)
            else:
                units = Pile(cards, self.order).units(width, length)
                highest = max((u.top for u in units), default=-1)
            self._highest_unknown[key] = highest
        return highest <= top

    def units(self, suit: int) -> list[Unit]:
        """The hand's cards of a suit read as units (as a lead of them would be read)."""
        found = self._units.get(suit)
        if found is None:
            found = self._units[suit] = units_of(tuple(self.by_suit[suit]), self.order)
        return found

    # -------------------------------------------------------------- values

    def card_cost(self, card: Card) -> float:
        """How much giving up one card costs, points aside."""
        return self.values[card]

    def cost(self, cards: Sequence[Card]) -> float:
        """The cost of playing ``cards``: their values, plus splitting sets of the hand."""
        values, held = self.values, self.held
        if len(cards) == 1:
            card = cards[0]
            return values[card] + PAIR_BREAK if held[card] >= 2 else values[card]
        total = 0.0
        for card in cards:
            total += values[card]
        for i, card in enumerate(cards):
            have = held[card]
            if have >= 2 and cards.index(card) == i and cards.count(card) < have:
                total += PAIR_BREAK
        return total

    def _reserve(self) -> frozenset[Card]:
        """Endgame (last tricks): the biggest trumps, kept to win the last trick, where
        the kitty is won or saved."""
        if len(self.hand) > 4 * self.memory.decks:
            return frozenset()
        trumps = self.by_suit.get(TRUMP, [])
        if not trumps or len(trumps) == len(self.hand):
            return frozenset()
        pile = Pile(trumps, self.order)
        for width in range(min(self.memory.decks, 4), 1, -1):
            sets = list(pile.units(width, 1))
            if sets:
                return frozenset(max(sets, key=lambda u: u.top).cards)
        return frozenset({max(trumps, key=lambda c: self.order.orders[c])})


_BASE_VALUES: dict[int, tuple[TrumpOrder, list[float]]] = {}
"""Every card's cost before the endgame reserve, per order (by identity; the entry
holds its order, so an identity is never reused while it is kept)."""


def _values(order: TrumpOrder, reserved: frozenset[Card]) -> list[float]:
    """Every card's cost: its order, plus the trump base or the ace bonus, plus the
    reserve for the big trumps kept for the last trick. Shared when nothing is reserved:
    callers must not change it."""
    found = _BASE_VALUES.get(id(order))
    if found is None or found[0] is not order:
        found = _BASE_VALUES[id(order)] = (
            order,
            [_base_value(order, card) for card in range(NUM_KINDS)],
        )
    base = found[1]
    if not reserved:
        return base
    values = list(base)
    for card in reserved:
        values[card] += RESERVE
    return values


_SUIT_CARDS: dict[int, tuple[TrumpOrder, dict[int, list[Card]]]] = {}
"""Every card of each suit, in card order, per order (kept as :data:`_BASE_VALUES`)."""


def _suit_cards(order: TrumpOrder) -> dict[int, list[Card]]:
    found = _SUIT_CARDS.get(id(order))
    if found is None or found[0] is not order:
        found = _SUIT_CARDS[id(order)] = (order, suits_of(range(NUM_KINDS), order))
    return found[1]


def _base_value(order: TrumpOrder, card: Card) -> float:
    value = float(order.orders[card])
    if order.suits[card] == TRUMP:
        value += TRUMP_BASE
    elif card < SMALL_JOKER and card >> 2 == RANK_ACE:
        value += ACE_BONUS
    return value


__all__ = ["CARD_POINTS", "View", "points"]
