"""sanfu combinations: what cards can be read as, and what beats what (SF-7 … SF-9).

A *reading* of some cards is a :class:`Reading`: a kind (SF-8), the number of
cards, the deciding rank value, a second value that must also be higher (the
pair of a triple with pair, the carried pairs of a steel plate) and a place on
the SF-9 ladder of special plays.

Values follow SF-7: ``3`` … ``A`` are 3 … 14, ``2`` is 15, the small joker 16
and the big joker 17. Suits have no order; they matter only for the same-suit
triple (丁子: three identical cards, which three decks make possible).

Readings of a multiset are unique: a rank's cards in a combination form one
part (a single, a pair, a triple or a bomb), so a multiset reads as at most one
combination. Decisions taken where SF-8 and the seed are silent or loose:

* three identical cards are always a same-suit triple, never a plain triple
  (they may still be the triple of a triple with pair or of a steel plate);
* four or more cards of one rank are always a bomb (4 … 12 cards);
* the pair of a triple with pair is any pair of another rank: ``2 2`` and the
  joker pairs ``SJ SJ`` / ``BJ BJ`` included (SF-8 calls them pairs); the triple
  is of ``3`` … ``2``: three jokers are only the three-joker play;
* a steel plate carries exactly as many pairs as it has triples, and the
  carried pairs are *consecutive* (the seed: "三張連牌可帶連對", carries
  consecutive pairs), from ``3`` to ``A`` like consecutive pairs (no 2, no
  jokers), of ranks other than the plate's (``333 444 + 44 55`` is no
  combination); two carried pairs are enough (``333 444 + 77 88``);
* the seed's ``223344`` is no combination: 2 is never in consecutive pairs.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from functools import cache
from typing import NamedTuple

from arena.cards import BIG_JOKER, RANKS, SMALL_JOKER, Card
from arena.plural import counted

TWO_VALUE = 15
SMALL_JOKER_VALUE = 16
BIG_JOKER_VALUE = 17
ACE_VALUE = 14
LOWEST_VALUE = 3

MAX_BOMB = 12
"""Three decks hold 12 cards of each suited rank."""

SUITED_TRIPLE_BASE = 10
"""A same-suit or three-joker triple has power ``SUITED_TRIPLE_BASE + value`` (13 … 27)."""


class Kind(IntEnum):
    SINGLE = 0
    PAIR = 1
    TRIPLE = 2
    SUITED_TRIPLE = 3
    FULL_HOUSE = 4
    PAIR_RUN = 5
    PLATE = 6
    PLATE_WITH_PAIRS = 7
    BOMB = 8
    JOKER_TRIPLE = 9

    @property
    def label(self) -> str:
        return self.name.lower()


KIND_BY_LABEL = {kind.label: kind for kind in Kind}
SPECIAL_KINDS = frozenset({Kind.SUITED_TRIPLE, Kind.BOMB, Kind.JOKER_TRIPLE})
"""The kinds on the SF-9 ladder (``power > 0``): they beat every ordinary play."""


class Reading(NamedTuple):
    """The one way some cards are read as a combination (SF-8), for comparing (SF-9).

    ``value`` is the deciding rank value: the rank of a single, pair, triple or
    bomb, the highest pair of consecutive pairs, the highest triple of a steel
    plate, the triple of a triple with pair. ``second`` is the value that must
    also be higher (押三押二): the pair of a triple with pair, the highest
    carried pair of a steel plate with pairs; 0 for the other kinds.

    ``power`` is the place on the SF-9 ladder, 0 for every ordinary play:
    a bomb's size (4 … 12), then ``SUITED_TRIPLE_BASE + value`` for the
    same-suit triples (13 for threes … 25 for twos), the three small jokers (26)
    and the three big jokers (27). Build readings with :func:`make_reading`.

    Readings sort by kind, size, value, second.
    """

    kind: Kind
    size: int
    value: int
    second: int = 0
    power: int = 0

    def rank_text(self) -> str:
        """The deciding rank in card notation: ``3`` … ``A``, ``2``, ``SJ``, ``BJ``."""
        return rank_text(self.value)

    def describe(self) -> str:
        """``pair_run A (6 cards)``, ``full_house 8 with J``."""
        text = f"{self.kind.label} {rank_text(self.value)}"
        if self.second:
            text += f" with {rank_text(self.second)}"
        if self.kind in (Kind.PAIR_RUN, Kind.PLATE, Kind.PLATE_WITH_PAIRS, Kind.BOMB):
            text += f" ({counted(self.size, 'card')})"
        return text

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind.label, "rank": rank_text(self.value), "size": self.size}


@cache
def make_reading(kind: Kind, size: int, value: int, second: int = 0) -> Reading:
    """The reading of ``size`` cards of ``kind`` at ``value`` (and ``second``), with its power."""
    if kind == Kind.BOMB:
        power = size
    elif kind == Kind.SUITED_TRIPLE or kind == Kind.JOKER_TRIPLE:
        power = SUITED_TRIPLE_BASE + value
    else:
        power = 0
    return Reading(kind, size, value, second, power)


def rank_text(value: int) -> str:
    """A rank value (3 … 17) in card notation: ``3`` … ``9``, ``T``, ``J``, ``Q``, ``K``, ``A``,
    ``2``, ``SJ``, ``BJ``."""
    if value == BIG_JOKER_VALUE:
        return "BJ"
    if value == SMALL_JOKER_VALUE:
        return "SJ"
    if not LOWEST_VALUE <= value <= TWO_VALUE:
        raise ValueError(f"{value!r} is not a rank value (3 … 17)")
    return RANKS[value_rank(value)]


def card_value(card: Card) -> int:
    """SF-7 value of one card: 3 … 14 for ``3`` … ``A``, 15 for ``2``, 16 SJ, 17 BJ."""
    if card >= SMALL_JOKER:
        return SMALL_JOKER_VALUE if card == SMALL_JOKER else BIG_JOKER_VALUE
    rank = card >> 2
    return TWO_VALUE if rank == 0 else rank + 2


def value_rank(value: int) -> int:
    """Rank index (0 = ``2`` … 12 = ``A``) of a suited rank value 3 … 15."""
    return 0 if value == TWO_VALUE else value - 2


def value_cards(value: int) -> range:
    """The card ints of one rank value (four suits, or the one joker)."""
    if value >= SMALL_JOKER_VALUE:
        joker = SMALL_JOKER if value == SMALL_JOKER_VALUE else BIG_JOKER
        return range(joker, joker + 1)
    base = value_rank(value) * 4
    return range(base, base + 4)


def beats(play: Reading, table: Reading) -> bool:
    """Whether ``play`` beats ``table`` (SF-9).

    A higher class on the ladder beats a lower one; equal-size bombs compare by
    rank; ordinary plays only beat the same kind and size, by value, and a
    triple with pair or a steel plate with pairs must also have a higher
    ``second`` (both parts higher: 押三押二).
    """
    if play.power or table.power:
        if play.power != table.power:
            return play.power > table.power
        return play.value > table.value
    if play.kind != table.kind or play.size != table.size or play.value <= table.value:
        return False
    return not table.second or play.second > table.second


# ----------------------------------------------------------------------------
# reading a multiset


def _by_value(cards: Iterable[Card]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for card in cards:
        value = card_value(card)
        counts[value] = counts.get(value, 0) + 1
    return counts


def _consecutive(values: list[int]) -> bool:
    """Sorted distinct values forming one run inside ``3`` … ``A``."""
    return values[-1] <= ACE_VALUE and values[-1] - values[0] == len(values) - 1


def reading(cards: Iterable[Card]) -> Reading | None:
    """The one reading of the multiset ``cards`` (SF-8), or ``None`` if it is no combination."""
    cards = tuple(cards)
    size = len(cards)
    if not size:
        return None
    counts = _by_value(cards)
    if len(counts) == 1:
        return _one_rank(cards, size, next(iter(counts)))
    groups: dict[int, list[int]] = {}
    for value, n in counts.items():
        groups.setdefault(n, []).append(value)
    if len(groups) == 1:
        ((width, values),) = groups.items()
        values.sort()
        if not _consecutive(values):
            return None
        if width == 2 and len(values) >= 3:
            return make_reading(Kind.PAIR_RUN, size, values[-1])
        if width == 3:  # two or more triples
            return make_reading(Kind.PLATE, size, values[-1])
        return None
    if len(groups) != 2 or 3 not in groups or 2 not in groups:
        return None
    triples, pairs = sorted(groups[3]), sorted(groups[2])
    if len(triples) != len(pairs):
        return None
    if len(triples) == 1:
        if triples[0] > TWO_VALUE:  # three jokers carry nothing
            return None
        return make_reading(Kind.FULL_HOUSE, 5, triples[0], pairs[0])
    if _consecutive(triples) and _consecutive(pairs):
        return make_reading(Kind.PLATE_WITH_PAIRS, size, triples[-1], pairs[-1])
    return None


def _one_rank(cards: tuple[Card, ...], size: int, value: int) -> Reading | None:
    if size == 1:
        return make_reading(Kind.SINGLE, 1, value)
    if size == 2:
        return make_reading(Kind.PAIR, 2, value)
    if value > TWO_VALUE:  # jokers: three decks hold three of each
        return make_reading(Kind.JOKER_TRIPLE, 3, value) if size == 3 else None
    if size == 3:
        identical = cards[0] == cards[1] == cards[2]
        return make_reading(Kind.SUITED_TRIPLE if identical else Kind.TRIPLE, 3, value)
    if size <= MAX_BOMB:
        return make_reading(Kind.BOMB, size, value)
    return None


def no_combination_reason(cards: Iterable[Card]) -> str:
    """Why ``cards`` (which have no reading) form no combination, in words (SF-8)."""
    cards = tuple(cards)
    if not cards:
        return "no cards"
    counts = _by_value(cards)
    if SMALL_JOKER_VALUE in counts and BIG_JOKER_VALUE in counts:
        return (
            "SJ and BJ never combine: BJ SJ is not a pair and three jokers are all big "
            "or all small (SF-8)"
        )
    if len(counts) == 1:
        ((value, n),) = counts.items()
        if value > TWO_VALUE:
            return f"three decks hold only three {rank_text(value)}, not {n}"
        return f"a bomb has at most {MAX_BOMB} cards, not {n}"
    widths = sorted(set(counts.values()))
    values = sorted(counts)
    if widths == [1]:
        return (
            "there are no straights (SF-8): cards of different ranks combine only as "
            "consecutive pairs, a steel plate or a triple with a pair"
        )
    if 1 in widths:
        return "a single card combines with nothing: a triple carries a pair (三带两), not singles"
    if any(w > 3 for w in widths):
        return "four or more cards of a rank are a bomb only on their own"
    if (SMALL_JOKER_VALUE in counts or BIG_JOKER_VALUE in counts) and widths != [2, 3]:
        return "jokers combine with other ranks only as the pair of a triple with pair"
    if widths == [2]:
        if TWO_VALUE in counts or values[-1] > TWO_VALUE:
            return "2 and the jokers are never part of consecutive pairs (SF-8)"
        if len(values) == 2:
            return "two pairs are no combination: consecutive pairs need at least 3 pairs"
        return "consecutive pairs must be of consecutive ranks, with no gap"
    triples = sorted(v for v, n in counts.items() if n == 3)
    pairs = sorted(v for v, n in counts.items() if n == 2)
    if triples[-1] > TWO_VALUE:
        return "three jokers are a combination only on their own"
    if len(triples) >= 2:
        if TWO_VALUE in triples:
            return "2 is never part of a steel plate (SF-8)"
        if not _consecutive(triples):
            return "the triples of a steel plate must be of consecutive ranks"
    if not pairs:
        return "these triples form no combination"
    if len(triples) == 1:
        return "a triple carries exactly one pair (三带两)"
    if len(pairs) != len(triples):
        return (
            f"a steel plate of {len(triples)} triples carries exactly "
            f"{counted(len(triples), 'pair')}, "
            f"not {len(pairs)}"
        )
    if pairs[-1] > ACE_VALUE:
        return "the pairs a steel plate carries are consecutive pairs: never 2 or jokers"
    return "the pairs a steel plate carries must be of consecutive ranks (连对)"
