"""Cards as small ints, their text notation and multisets (rules/common.md C-1).

A card is an ``int`` in ``0..53``: ``rank * 4 + suit`` for the 52 suited cards
(rank ``0`` is the 2, rank ``12`` the ace; suits ``s h d c`` are ``0 1 2 3``),
``52`` the small joker and ``53`` the big joker. With several decks identical
cards are the same int, so a hand is a multiset: a sorted tuple of ints, or a
list of 54 counts (:func:`to_counts`) where speed matters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.errors import ParseError

Card = int
"""A card: ``rank * 4 + suit`` for suited cards, 52 small joker, 53 big joker."""

RANKS = "23456789TJQKA"
SUITS = "shdc"
SMALL_JOKER: Card = 52
BIG_JOKER: Card = 53
NUM_KINDS = 54
"""Number of distinct cards in one deck (the length of a counts vector)."""

SPADES, HEARTS, DIAMONDS, CLUBS = range(4)
RANK_TEN = RANKS.index("T")
RANK_ACE = RANKS.index("A")

_SUIT_SYMBOLS = "♠♥♦♣"
_RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def make_card(rank: int, suit: int) -> Card:
    """The suited card of ``rank`` (0 = 2 … 12 = A) and ``suit`` (0..3)."""
    return rank * 4 + suit


def rank_of(card: Card) -> int:
    """Rank index 0..12 of a suited card, 13 for the small and 14 for the big joker."""
    return card >> 2 if card < SMALL_JOKER else card - SMALL_JOKER + 13


def suit_of(card: Card) -> int:
    """Suit index 0..3 of a suited card, -1 for a joker."""
    return card & 3 if card < SMALL_JOKER else -1


def is_joker(card: Card) -> bool:
    return card >= SMALL_JOKER


def _build_token_table() -> dict[str, Card]:
    table: dict[str, Card] = {"SJ": SMALL_JOKER, "BJ": BIG_JOKER}
    for r, rank_char in enumerate(RANKS):
        for s, suit_char in enumerate(SUITS):
            table[rank_char + suit_char] = make_card(r, s)
            if rank_char == "T":
                table["10" + suit_char] = make_card(r, s)
    return table


_TOKENS = _build_token_table()
_NAMES = tuple([RANKS[c >> 2] + SUITS[c & 3] for c in range(52)] + ["SJ", "BJ"])


def parse_card(token: str) -> Card:
    """Parse one card token such as ``Ah``, ``Td``, ``10d``, ``SJ`` or ``BJ``."""
    card = _TOKENS.get(token)
    if card is None:
        raise ParseError(f"unknown card {token!r}: {_hint(token)}")
    return card


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse a space-separated list of cards, strictly and in order.

    An unknown token raises :class:`ParseError` naming the token and its
    1-based position in the list.
    """
    cards = []
    for position, token in enumerate(text.split(), start=1):
        card = _TOKENS.get(token)
        if card is None:
            raise ParseError(f"unknown card {token!r} at position {position}: {_hint(token)}")
        cards.append(card)
    return tuple(cards)


def _hint(token: str) -> str:
    return (
        (
            "a card is a rank (2-9, T or 10, J, Q, K, A) followed by a lower-case suit "
            "(s, h, d, c), or SJ / BJ for the jokers"
        )
        if token
        else "empty card"
    )


def format_card(card: Card) -> str:
    """Text notation of a card: ``Ah``, ``Td``, ``SJ``."""
    if not 0 <= card < NUM_KINDS:
        raise ParseError(f"{card!r} is not a card (cards are ints 0..53)")
    return _NAMES[card]


def format_cards(cards: Iterable[Card]) -> str:
    """Space-separated text notation, in the order given."""
    return " ".join(card_names(cards))


def card_names(cards: Iterable[Card]) -> list[str]:
    """Each card's text notation, in the order given (``["Ah", "SJ"]``)."""
    given = cards if isinstance(cards, tuple | list) else tuple(cards)
    try:
        return [_NAMES[c] if c >= 0 else _NAMES[NUM_KINDS] for c in given]
    except (IndexError, TypeError):
        bad = next(c for c in given if not isinstance(c, int) or not 0 <= c < NUM_KINDS)
        raise ParseError(f"{bad!r} is not a card (cards are ints 0..53)") from None


def rank_label(rank: int) -> str:
    """A rank as people say it: ``2`` … ``10`` … ``A`` (levels are shown this way)."""
    return _RANK_LABELS[rank]


def pretty_card(card: Card) -> str:
    """Human display: ``♠A``, ``♥10``, ``🃏small``, ``🃏BIG``."""
    if card == SMALL_JOKER:
        return "🃏small"
    if card == BIG_JOKER:
        return "🃏BIG"
    return _SUIT_SYMBOLS[card & 3] + _RANK_LABELS[card >> 2]


def pretty_cards(cards: Iterable[Card]) -> str:
    return " ".join(pretty_card(c) for c in cards)


def deck(copies: int = 1) -> list[Card]:
    """``copies`` full 54-card decks, sorted."""
    return [card for card in range(NUM_KINDS) for _ in range(copies)]


def to_counts(cards: Iterable[Card]) -> list[int]:
    """Multiset of cards as a list of 54 counts."""
    counts = [0] * NUM_KINDS
    for card in cards:
        counts[card] += 1
    return counts


def from_counts(counts: Sequence[int]) -> tuple[Card, ...]:
    """Sorted tuple of the cards in a counts vector."""
    return tuple([card for card, n in enumerate(counts) if n for card in (card,) * n])


def contains(counts: Sequence[int], cards: Iterable[Card]) -> bool:
    """Whether the multiset ``counts`` holds every card of ``cards`` (with repeats)."""
    needed: dict[Card, int] = {}
    for card in cards:
        needed[card] = needed.get(card, 0) + 1
    return all(counts[card] >= n for card, n in needed.items())
