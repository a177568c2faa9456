"""Shengji trump declaration during the deal (亮主, SJ-7 … SJ-12, SJ-31).

Pure functions: which cards make a declaration and how strong it is, whether a new
declaration overrides the standing one, which declarations a seat may make now, the
trump when nobody declared, and the first dealer.

Strength ladder, 1 to 3 decks (SJ-8), weakest first:

====================  ========  =====
declaration           strength  decks
====================  ========  =====
one level card               1  1–3
level pair                   2  2–3 (1 deck: two-colour option only, SJ-31)
small-joker pair             3  2–3 (notrump)
big-joker pair               4  2–3 (notrump)
level triple                 5  3
small-joker triple           6  3 (notrump)
big-joker triple             7  3 (notrump)
====================  ========  =====

4 decks (SJ-10, hidden declaration): 1 to 4 identical level cards of one suit, strength
= the number of cards; jokers never declare.

Decisions where the rules are silent:

* Two-colour option (1 deck, SJ-31): the declared suit is a colour (0 black, 1 red);
  two level cards of the same colour are a pair. The two jokers of one deck (SJ + BJ)
  are not identical, so they are no declaration: notrump cannot be declared.
* 4 decks: with nothing standing, any count from 1 to 4 may be declared; only an
  override needs exactly one card more.
* ``flip_kitty`` turning up a joker: the deal is played notrump.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from arena.cards import BIG_JOKER, NUM_KINDS, SMALL_JOKER, Card, make_card
from arena.errors import ConfigError

SINGLE = 1
LEVEL_PAIR = 2
SMALL_JOKER_PAIR = 3
BIG_JOKER_PAIR = 4
LEVEL_TRIPLE = 5
SMALL_JOKER_TRIPLE = 6
BIG_JOKER_TRIPLE = 7

LADDER: dict[tuple[int, int | None], int] = {
    (1, None): SINGLE,
    (2, None): LEVEL_PAIR,
    (2, SMALL_JOKER): SMALL_JOKER_PAIR,
    (2, BIG_JOKER): BIG_JOKER_PAIR,
    (3, None): LEVEL_TRIPLE,
    (3, SMALL_JOKER): SMALL_JOKER_TRIPLE,
    (3, BIG_JOKER): BIG_JOKER_TRIPLE,
}
"""SJ-8, 1–3 decks: (number of cards, joker or ``None`` for level cards) → strength."""

NO_DECLARATION_OPTIONS = ("notrump", "flip_kitty")
BLACK, RED = 0, 1
_COLOUR = (BLACK, RED, RED, BLACK)
"""SJ-31: spades and clubs are black, hearts and diamonds red."""


@dataclass(frozen=True)
class Declaration:
    """A declaration shown by ``seat``.

    ``suit`` is the trump suit it names (0..3; a colour, 0 black 1 red, with the
    two-colour option) or ``None`` for notrump. ``strength`` orders declarations:
    the :data:`LADDER` for 1–3 decks, the number of cards for 4 decks. For 4 decks
    ``cards`` holds the real cards; hiding them from other seats is the engine's job.
    """

    seat: int
    cards: tuple[int, ...]
    strength: int
    suit: int | None


def _check(level: int, decks: int, two_colour: bool) -> None:
    if not 1 <= decks <= 4:
        raise ConfigError(f"decks must be 1 to 4, got {decks!r}")
    if not 0 <= level <= 12:
        raise ConfigError(f"level must be a rank 0..12 (2 … A), got {level!r}")
    if two_colour and decks != 1:
        raise ConfigError(f"the two-colour option needs 1 deck, got decks={decks}")


def _max_width(decks: int, two_colour: bool) -> int:
    """The largest number of cards a declaration may show (SJ-8, SJ-9, SJ-10, SJ-31)."""
    if decks == 1:
        return 2 if two_colour else 1
    return decks


def _analyse(
    cards: Sequence[int], level: int, decks: int, two_colour: bool
) -> tuple[int, int | None] | None:
    """(strength, suit) of showing ``cards``, or ``None`` if they are no declaration."""
    _check(level, decks, two_colour)
    width = len(cards)
    if not 1 <= width <= _max_width(decks, two_colour):
        return None
    if any(not isinstance(c, int) or not 0 <= c < NUM_KINDS for c in cards):
        return None
    if max(Counter(cards).values()) > decks:
        return None  # more copies of a card than the decks hold
    first = cards[0]
    if two_colour:
        # SJ-31: level cards of one colour; identical cards cannot occur in 1 deck.
        if first >= SMALL_JOKER or len(set(cards)) != width:
            return None
        if any(c >= SMALL_JOKER or c >> 2 != level for c in cards):
            return None
        colours = {_COLOUR[c & 3] for c in cards}
        if len(colours) != 1:
            return None
        return LADDER[(width, None)], colours.pop()
    if any(c != first for c in cards):
        return None  # SJ-8, SJ-10: every declaration shows identical cards
    if first >= SMALL_JOKER:
        if decks == 4:
            return None  # SJ-10: jokers never declare in 4 decks
        strength = LADDER.get((width, first))
        return None if strength is None else (strength, None)
    if first >> 2 != level:
        return None
    strength = width if decks == 4 else LADDER[(width, None)]
    return strength, first & 3


def strength_of(
    cards: Sequence[int], level: int, decks: int, two_colour: bool = False
) -> int | None:
    """SJ-8/9/10/31: the strength of showing ``cards``, or ``None`` if no declaration.

    Raises :class:`~arena.errors.ConfigError` (a ``ValueError``) for a level, a number
    of decks or a two-colour setting that no variant has.
    """
    found = _analyse(cards, level, decks, two_colour)
    return None if found is None else found[0]


def make_declaration(
    seat: int, cards: Sequence[int], level: int, decks: int, two_colour: bool = False
) -> Declaration | None:
    """The declaration ``seat`` makes by showing ``cards``, or ``None`` if no declaration."""
    found = _analyse(cards, level, decks, two_colour)
    if found is None:
        return None
    strength, suit = found
    return Declaration(seat, tuple(sorted(cards)), strength, suit)


@lru_cache(maxsize=4096)
def _declaration(
    seat: int, cards: tuple[int, ...], level: int, decks: int, two_colour: bool
) -> Declaration | None:
    """:func:`make_declaration` of a tuple of cards, remembered (declarations are frozen)."""
    return make_declaration(seat, cards, level, decks, two_colour)


def can_override(new: Declaration, standing: Declaration | None, decks: int) -> bool:
    """Whether ``new`` is accepted over ``standing`` (SJ-8, SJ-10).

    1–3 decks: strictly stronger, whoever declares (自保 and 自反 by the standing
    declarer, 反主 by anyone else); equal strength never overrides. 4 decks: exactly
    one card more, and never over one's own declaration.
    """
    if standing is None:
        return True
    if decks == 4:
        return new.seat != standing.seat and new.strength == standing.strength + 1
    return new.strength > standing.strength


def declaration_options(
    hand: Sequence[int],
    seat: int,
    level: int,
    decks: int,
    standing: Declaration | None,
    two_colour: bool = False,
) -> list[Declaration]:
    """Every distinct declaration ``seat`` could make now that ``standing`` would yield to.

    ``hand`` is the cards the seat holds so far (card ints, repeats for identical
    cards). Sorted by strength, then suit (notrump first), then cards; each card
    multiset once. SJ-11: the choice is offered only when this list is non-empty.
    """
    _check(level, decks, two_colour)
    counts = Counter(hand)
    candidates: list[tuple[int, ...]] = []
    width = _max_width(decks, two_colour)
    if two_colour:
        for colour in (BLACK, RED):
            held = [
                make_card(level, s)
                for s in range(4)
                if _COLOUR[s] == colour and counts[make_card(level, s)]
            ]
            candidates.extend((card,) for card in held)
            if len(held) == 2:
                candidates.append(tuple(held))
    else:
        kinds = [make_card(level, s) for s in range(4)]
        if decks < 4:
            kinds += [SMALL_JOKER, BIG_JOKER]
        for card in kinds:
            for n in range(1, min(counts[card], width) + 1):
                candidates.append((card,) * n)
    options: list[Declaration] = []
    for cards in candidates:
        declaration = _declaration(seat, cards, level, decks, two_colour)
        if declaration is not None and can_override(declaration, standing, decks):
            options.append(declaration)
    options.sort(key=lambda d: (d.strength, -1 if d.suit is None else d.suit, d.cards))
    return options


def trump_when_undeclared(
    decks: int, no_declaration: str, kitty: Sequence[int], two_colour: bool = False
) -> int | None:
    """SJ-8, SJ-10: the trump suit when nobody declared during the deal.

    4 decks: spades. Otherwise ``notrump`` gives ``None``; ``flip_kitty`` gives the
    suit of the kitty's 4th card (its colour with the two-colour option), and notrump
    (``None``) if that card is a joker. An unknown option raises ``ConfigError``.
    """
    if no_declaration not in NO_DECLARATION_OPTIONS:
        raise ConfigError(
            f"unknown no_declaration option {no_declaration!r}: "
            f"expected one of {', '.join(NO_DECLARATION_OPTIONS)}"
        )
    if decks == 4:
        return 0
    if no_declaration == "notrump":
        return None
    if len(kitty) < 4:
        raise ConfigError(f"flip_kitty needs a kitty of at least 4 cards, got {len(kitty)}")
    card: Card = kitty[3]
    if card >= SMALL_JOKER:
        return None
    return _COLOUR[card & 3] if two_colour else card & 3


def first_dealer(standing: Declaration | None) -> int:
    """SJ-12: the first deal's dealer is the seat whose declaration stands, else seat 0."""
    return 0 if standing is None else standing.seat
