"""Botzone's Tractor card numbers: ``0..107`` across two decks (``0..54·decks-1`` here).

Within a deck, ``rank * 4 + suit`` with ranks ``A 2 3 … 10 J Q K`` (0 … 12) and suits
``s h c d`` (0 … 3); 52 is the small joker, 53 the big one; the second deck adds 54
(the third 108). A number names a card and the deck it comes from; the arena's card
(:mod:`arena.cards`) names the card alone.
"""

from __future__ import annotations

from typing import Final

from arena.cards import NUM_KINDS, RANKS, SMALL_JOKER, Card, make_card, rank_of, suit_of

__all__ = ["LEVELS", "SUIT_LETTERS", "card_of", "number_of"]

SUIT_LETTERS: Final = "shcd"
"""Botzone's suits in the order of their numbers."""
LEVELS: Final = "234567890JQKA"
"""Botzone's level letters by the arena's rank index (``0`` for the ten)."""
_OURS: Final = "shdc"  # arena.cards.SUITS


def number_of(card: Card, deck: int) -> int:
    """Botzone's number of ``card`` from deck ``deck`` (0-based)."""
    if card >= SMALL_JOKER:
        base = card
    else:
        base = (rank_of(card) + 1) % 13 * 4 + SUIT_LETTERS.index(_OURS[suit_of(card)])
    return base + NUM_KINDS * deck


def card_of(number: int) -> Card:
    """The arena's card of a Botzone number (any deck)."""
    base = number % NUM_KINDS
    if base >= SMALL_JOKER:
        return base
    rank = (base // 4 - 1) % len(RANKS)
    return make_card(rank, _OURS.index(SUIT_LETTERS[base % 4]))
