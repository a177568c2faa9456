"""A sanfu hand split into the combinations it will be played as (the shedding plan).

Rule *shed in few plays*: a good player sorts a hand into combinations before the
first lead and then plays whole combinations, never breaking one without reason.
:func:`plan_hand` does that greedily, by rank value (SF-7, SF-8):

1. the special plays (SF-9) are kept whole: every set of three identical cards
   (丁子, a same-suit triple, stronger than any bomb), three small or three big
   jokers, and what is left of a rank when it still holds four or more cards
   (a bomb);
2. the other cards ("loose" cards, at most three of a rank) are joined into
   steel plates (two or more consecutive triples), consecutive pairs (three or
   more), and triples carrying the lowest pair of another rank (三带两, never a
   pair of 2s or jokers, which are kept for control);
3. what is left is played as plain triples, pairs and singles.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from arena.cards import BIG_JOKER, SMALL_JOKER, Card
from arena.games.sanfu.combos import (
    ACE_VALUE,
    BIG_JOKER_VALUE,
    LOWEST_VALUE,
    SMALL_JOKER_VALUE,
    TWO_VALUE,
    Kind,
    Reading,
    card_value,
    make_reading,
)
from arena.games.shengji.order import card_points

VALUES = range(LOWEST_VALUE, BIG_JOKER_VALUE + 1)
"""Every rank value, ``3`` (3) … big joker (17)."""
SUITED_VALUES = range(LOWEST_VALUE, TWO_VALUE + 1)
VALUE_OF: tuple[int, ...] = tuple(card_value(c) for c in range(BIG_JOKER + 1))
"""The SF-7 value of each card int."""
POINTS_OF: tuple[int, ...] = tuple(card_points(c) for c in range(BIG_JOKER + 1))
"""The points (C-3) of each card int: 5 for a 5, 10 for a 10 or a K."""
PLAIN_KINDS = (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE)
"""The kind of one, two and three cards of a rank (index = count - 1)."""
COPIES = (0, 0, 0) + (12,) * (TWO_VALUE - LOWEST_VALUE + 1) + (3, 3)
"""How many cards of each rank value the three decks hold (index = value)."""


class Group(NamedTuple):
    """One combination of the plan: its cards (sorted), its reading and its points."""

    cards: tuple[Card, ...]
    reading: Reading
    points: int

    @property
    def special(self) -> bool:
        """A play on the SF-9 ladder: bomb, same-suit triple or three jokers."""
        return self.reading.power > 0


class Plan(NamedTuple):
    """A hand as combinations: ``ordinary`` ones (by rank, lowest first), ``specials``
    (weakest first) and the loose cards of each value that the ordinary ones use."""

    ordinary: tuple[Group, ...]
    specials: tuple[Group, ...]
    loose: tuple[tuple[Card, ...], ...]
    """Index = rank value: the cards of that value outside the special plays."""

    @property
    def plays(self) -> int:
        """How many plays the hand needs if every combination is played whole."""
        return len(self.ordinary) + len(self.specials)


def group(cards: Sequence[Card], kind: Kind, value: int, second: int = 0) -> Group:
    """The combination of ``cards`` read as ``kind`` (SF-8) at ``value`` (and ``second``)."""
    return _group(tuple(cards), kind, value, second)


@lru_cache(maxsize=1 << 14)
def _group(cards: tuple[Card, ...], kind: Kind, value: int, second: int) -> Group:
    """:func:`group`, remembered: the same combinations recur in hand after hand."""
    ordered = tuple(sorted(cards))
    return Group(
        ordered,
        make_reading(kind, len(ordered), value, second),
        sum([POINTS_OF[c] for c in ordered]),
    )


def by_value(hand: Sequence[Card]) -> list[list[Card]]:
    """The cards of ``hand`` per rank value (index 0 … 17, each list sorted)."""
    cards: list[list[Card]] = [[] for _ in range(BIG_JOKER_VALUE + 1)]
    for card in sorted(hand):
        cards[VALUE_OF[card]].append(card)
    return cards


def plan_hand(hand: Sequence[Card]) -> Plan:
    """Split ``hand`` into combinations (see the module docstring for the rules)."""
    cards = by_value(hand)
    specials: list[Group] = []
    loose: list[tuple[Card, ...]] = [()] * (BIG_JOKER_VALUE + 1)
    for value in SUITED_VALUES:
        rank_cards = cards[value]
        if not rank_cards:
            continue
        rest = rank_cards
        if len(rank_cards) >= 3:
            rest = []
            for card in sorted(set(rank_cards)):
                n = rank_cards.count(card)
                if n == 3:
                    specials.append(group((card,) * 3, Kind.SUITED_TRIPLE, value))
                else:
                    rest += [card] * n
        if len(rest) >= 4:
            specials.append(group(rest, Kind.BOMB, value))
        else:
            loose[value] = tuple(rest)
    for value, joker in ((SMALL_JOKER_VALUE, SMALL_JOKER), (BIG_JOKER_VALUE, BIG_JOKER)):
        if len(cards[value]) == 3:
            specials.append(group((joker,) * 3, Kind.JOKER_TRIPLE, value))
        else:
            loose[value] = tuple(cards[value])
    specials.sort(key=lambda g: (g.reading.power, g.reading.value))
    return Plan(tuple(_ordinary(loose)), tuple(specials), tuple(loose))


class HandReading(NamedTuple):
    """A hand's plan and how many cards of each rank value it holds (index = value)."""

    plan: Plan
    held: tuple[int, ...]


@lru_cache(maxsize=1 << 14)
def read_hand(hand: tuple[Card, ...]) -> HandReading:
    """:func:`plan_hand` and the count per rank value of ``hand``, remembered: the
    rollouts of a search replay the same hands from the same drawn deals."""
    return HandReading(plan_hand(hand), tuple(hand_counts(hand)))


def hand_counts(hand: Sequence[Card]) -> list[int]:
    """How many cards of each rank value ``hand`` holds (index = value)."""
    held = [0] * (BIG_JOKER_VALUE + 1)
    for card in hand:
        held[VALUE_OF[card]] += 1
    return held


def _runs(counts: list[int], width: int, shortest: int) -> list[tuple[int, int]]:
    """Maximal runs (first value, length) of ranks ``3`` … ``A`` holding exactly ``width``."""
    runs: list[tuple[int, int]] = []
    value = LOWEST_VALUE
    while value <= ACE_VALUE:
        if counts[value] != width:
            value += 1
            continue
        first = value
        while value <= ACE_VALUE and counts[value] == width:
            value += 1
        if value - first >= shortest:
            runs.append((first, value - first))
    return runs


def _ordinary(loose: list[tuple[Card, ...]]) -> list[Group]:
    counts = [len(c) for c in loose]
    found: list[Group] = []
    for width, shortest, kind in ((3, 2, Kind.PLATE), (2, 3, Kind.PAIR_RUN)):
        for first, length in _runs(counts, width, shortest):
            values = range(first, first + length)
            found.append(group([c for v in values for c in loose[v]], kind, values[-1]))
            for v in values:
                counts[v] = 0
    triples = [v for v in SUITED_VALUES if counts[v] == 3]
    pairs = [v for v in range(LOWEST_VALUE, ACE_VALUE + 1) if counts[v] == 2]
    for triple, pair in zip(triples, pairs, strict=False):  # 三带两: lowest with lowest
        found.append(group(loose[triple] + loose[pair], Kind.FULL_HOUSE, triple, pair))
        counts[triple] = counts[pair] = 0
    for value in VALUES:
        n = counts[value]
        if n:
            found.append(group(loose[value], PLAIN_KINDS[n - 1], value))
    found.sort(key=lambda g: (g.reading.value, -g.reading.size))
    return found
