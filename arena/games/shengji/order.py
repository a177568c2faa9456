"""Shengji card order: trumps, plain suits, positions and identity (SJ-1 … SJ-6, SJ-31).

Every card gets three small numbers, precomputed once per deal:

* its **suit** for following: ``TRUMP`` or the plain suit it belongs to
  (spades 0, hearts 1, diamonds 2, clubs 3; with the two-colour option the
  colour: black 0 for spades and clubs, red 1 for hearts and diamonds);
* its **order**: its position within that suit, ascending, where cards that never
  outrank each other share one position (the off-suit level cards, SJ-6), so that
  two positions are consecutive exactly when their orders differ by one (SJ-15);
* its **identity**: cards with the same identity make sets (SJ-14): the same card,
  or with two colours the same rank and colour (SJ-31).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.cards import BIG_JOKER, NUM_KINDS, RANKS, SMALL_JOKER, SUITS, Card

TRUMP = 4
"""The suit of every trump card, for following (SJ-2)."""
RANK_TWO = 0
POINTS_BY_RANK = {RANKS.index("5"): 5, RANKS.index("T"): 10, RANKS.index("K"): 10}


def card_points(card: Card) -> int:
    """C-3: 5s are worth 5, 10s and Ks 10, everything else 0."""
    return 0 if card >= SMALL_JOKER else POINTS_BY_RANK.get(card >> 2, 0)


CARD_POINTS: tuple[int, ...] = tuple(card_points(card) for card in range(NUM_KINDS))
"""The points of each card (C-3), by card."""


def colour_of(suit: int) -> int:
    """SJ-31: black (spades, clubs) is 0, red (hearts, diamonds) is 1."""
    return 1 if suit in (1, 2) else 0


@dataclass(frozen=True)
class TrumpOrder:
    """The order of one deal: level, trump suit (``None``: notrump) and options.

    With ``two_colour`` the trump suit is a colour (0 black, 1 red).
    """

    level: int
    trump: int | None
    constant_twos: bool = False
    two_colour: bool = False
    suits: tuple[int, ...] = field(init=False, repr=False, compare=False)
    orders: tuple[int, ...] = field(init=False, repr=False, compare=False)
    identities: tuple[int, ...] = field(init=False, repr=False, compare=False)
    name: str = field(init=False, repr=False, compare=False)
    """The trump's name (:meth:`trump_name`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.trump_name())
        suits, orders, identities = _tables(self)
        object.__setattr__(self, "suits", suits)
        object.__setattr__(self, "orders", orders)
        object.__setattr__(self, "identities", identities)

    def suit(self, card: Card) -> int:
        return self.suits[card]

    def order(self, card: Card) -> int:
        return self.orders[card]

    def identity(self, card: Card) -> int:
        return self.identities[card]

    def is_trump(self, card: Card) -> bool:
        return self.suits[card] == TRUMP

    def plain_suits(self) -> tuple[int, ...]:
        """The plain suits of the deal (two with the two-colour option)."""
        return (0, 1) if self.two_colour else (0, 1, 2, 3)

    def suit_name(self, suit: int) -> str:
        if suit == TRUMP:
            return "trump"
        return ("black", "red")[suit] if self.two_colour else SUITS[suit]

    def trump_name(self) -> str:
        if self.trump is None:
            return "notrump"
        return ("black", "red")[self.trump] if self.two_colour else SUITS[self.trump]

    def sort_key(self, card: Card) -> tuple[int, int, int]:
        """Sorts a hand by suit (trumps last), then order, then card."""
        return (self.suits[card], self.orders[card], card)


def _tables(order: TrumpOrder) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    level, trump, twos = order.level, order.trump, order.constant_twos and order.level != RANK_TWO
    group = colour_of if order.two_colour else (lambda s: s)
    plain_ranks = [r for r in range(13) if r != level and not (twos and r == RANK_TWO)]
    suits = [0] * NUM_KINDS
    orders = [0] * NUM_KINDS
    identities = [0] * NUM_KINDS
    # trump positions, ascending: trump-suit plain ranks, (other 2s, trump 2),
    # other level cards, trump level card, small joker, big joker (SJ-3, SJ-5)
    trump_plain = len(plain_ranks) if trump is not None else 0
    next_position = trump_plain
    if twos:
        other_twos, trump_two = next_position, next_position + (1 if trump is not None else 0)
        next_position = trump_two + 1
    other_levels = next_position
    trump_level = other_levels + (1 if trump is not None else 0)
    small, big = trump_level + 1, trump_level + 2
    for card in range(52):
        rank, suit = card >> 2, group(card & 3)
        identities[card] = rank * 4 + suit if order.two_colour else card
        in_trump_suit = trump is not None and suit == trump
        if rank == level:
            suits[card] = TRUMP
            orders[card] = trump_level if in_trump_suit else other_levels
        elif twos and rank == RANK_TWO:
            suits[card] = TRUMP
            orders[card] = trump_two if in_trump_suit else other_twos
        else:
            suits[card] = TRUMP if in_trump_suit else suit
            orders[card] = plain_ranks.index(rank)
    for card, position in ((SMALL_JOKER, small), (BIG_JOKER, big)):
        suits[card], orders[card], identities[card] = TRUMP, position, card
    return tuple(suits), tuple(orders), tuple(identities)
