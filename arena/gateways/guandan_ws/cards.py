"""The platform's card codes and rank letters, both ways.

A card is two characters, suit then rank: suits ``S H C D`` (spades, hearts, clubs,
diamonds), ranks ``2 … 9 T J Q K A``; the small joker is ``SB`` and the big joker ``HR``.
Ranks and levels (``curRank``, an action's rank) are the rank letter alone, ``T`` for
ten; a joker single or pair has the rank ``B`` (small) or ``R`` (big), the joker bomb
``JOKER``.

Ours (rules/common.md C-1) is rank then lower-case suit (``Th``, ``SJ``, ``BJ``): the
mapping is one to one, so a hand goes over and comes back unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from arena.cards import NUM_KINDS, RANKS, SMALL_JOKER, Card, make_card
from arena.errors import ParseError, quoted
from arena.games.guandan.combos import card_value

SUITS: Final = "SHDC"
"""The platform's suit letter of each of our suits (``s h d c`` are 0 1 2 3)."""
SUIT_ORDER: Final = "SHCD"
"""The order the platform sorts the suits of one rank in."""
SMALL_JOKER_CODE: Final = "SB"
BIG_JOKER_CODE: Final = "HR"
SMALL_JOKER_RANK: Final = "B"
BIG_JOKER_RANK: Final = "R"
JOKER_BOMB_RANK: Final = "JOKER"

CODES: Final = tuple(
    [SUITS[card & 3] + RANKS[card >> 2] for card in range(SMALL_JOKER)]
    + [SMALL_JOKER_CODE, BIG_JOKER_CODE]
)
"""The code of each card (:func:`code` checks its argument; this table does not)."""
_CARDS: Final = {code: card for card, code in enumerate(CODES)}
_SUIT_PLACE: Final = tuple(SUIT_ORDER.index(SUITS[s]) for s in range(4))


def code(card: Card) -> str:
    """The platform's code of one of our cards: ``Th`` → ``HT``, ``BJ`` → ``HR``."""
    if not isinstance(card, int) or not 0 <= card < NUM_KINDS:
        raise ParseError(f"{card!r} is not a card (cards are ints 0..53)")
    return CODES[card]


def card_of(text: object) -> Card:
    """Our card of a platform code; :class:`ParseError` quoting anything else."""
    card = _CARDS.get(text) if isinstance(text, str) else None
    if card is None:
        raise ParseError(
            f"unknown card code {quoted(text)}: a code is a suit (S, H, C, D) then a rank "
            "(2-9, T, J, Q, K, A), or SB / HR for the small / big joker"
        )
    return card


def cards_of(codes: object) -> tuple[Card, ...]:
    """Our cards of a JSON list of codes, in order (:class:`ParseError` if not one)."""
    if not isinstance(codes, list):
        raise ParseError(f"expected a list of card codes, got {quoted(codes)}")
    return tuple(card_of(text) for text in codes)


def sort_key(card: Card, level: int) -> tuple[int, int]:
    """The platform's order of a hand: by rank as GD-5 orders it (the level rank above
    the A, the jokers on top), then by suit ``S H C D``."""
    return (card_value(card, level), _SUIT_PLACE[card & 3] if card < SMALL_JOKER else 0)


def hand_codes(cards: Iterable[Card], level: int) -> list[str]:
    """A hand as the platform shows it: codes sorted low to high (:func:`sort_key`)."""
    return [CODES[c] for c in sorted(cards, key=SORT_KEYS[level].__getitem__)]


SORT_KEYS: Final = tuple(
    tuple(sort_key(card, level) for card in range(NUM_KINDS)) for level in range(13)
)
""":func:`sort_key` of each card, by level (read for every card a message names)."""


def rank_letter(rank: int) -> str:
    """The letter of a rank index (0 = 2 … 12 = A): a level as ``curRank`` gives it."""
    return RANKS[rank]


def rank_index(letter: object) -> int:
    """The rank index of a level letter such as ``curRank`` (``T`` for ten)."""
    if not isinstance(letter, str) or len(letter) != 1 or letter not in RANKS:
        raise ParseError(f"unknown rank {quoted(letter)}: a rank is one of {' '.join(RANKS)}")
    return RANKS.index(letter)


def heart_level_card(level: int) -> str:
    """The code of the wild card of a deal played at ``level`` (GD-6): ``H`` + rank."""
    return CODES[make_card(level, 1)]
