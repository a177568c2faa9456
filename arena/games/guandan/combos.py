"""Guandan combinations: what cards can be read as, and what beats what (GD-5 … GD-9).

A *reading* of some cards is a :class:`Reading`: a kind (GD-8), a value that
orders readings of the same kind, and the number of cards. Values:

* rank-based kinds (single, pair, triple, full house, bomb) use the GD-5 order:
  2 … A are 2 … 14 with the level rank lifted to 15, small joker 16, big joker 17;
* sequences (straights, straight flushes, 3 consecutive pairs, 2 consecutive
  triples) use the natural rank of their highest card as played, the level rank
  included (GD-7): ``10 J Q K A`` is 14 and ``A 2 3 4 5`` is 5.

A wild card (the heart of the level rank, GD-6) stands for any card but a joker.
A wild card that no combination needs stands for itself (a level card).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final, NamedTuple

from arena.cards import (
    BIG_JOKER,
    HEARTS,
    RANK_ACE,
    RANKS,
    SMALL_JOKER,
    Card,
    make_card,
)
from arena.plural import counted

LEVEL_VALUE = 15
SMALL_JOKER_VALUE = 16
BIG_JOKER_VALUE = 17


class Kind(IntEnum):
    SINGLE = 0
    PAIR = 1
    TRIPLE = 2
    FULL_HOUSE = 3
    PAIR_RUN = 4
    TRIPLE_RUN = 5
    STRAIGHT = 6
    STRAIGHT_FLUSH = 7
    BOMB = 8
    JOKER_BOMB = 9

    @property
    def label(self) -> str:
        return self.name.lower()


KIND_BY_LABEL = {kind.label: kind for kind in Kind}
KIND_LABELS = tuple(kind.label for kind in Kind)
"""Each kind's label, indexed by the kind (a hot path reads it for every play)."""
SEQUENCE_KINDS = frozenset({Kind.STRAIGHT, Kind.STRAIGHT_FLUSH, Kind.PAIR_RUN, Kind.TRIPLE_RUN})
IS_SEQUENCE: Final = tuple(kind in SEQUENCE_KINDS for kind in Kind)
"""Whether each kind is a sequence, indexed by the kind (read for every play shown)."""


class Reading(NamedTuple):
    """One way to read some cards: kind, size, ordering value and bomb power.

    Readings sort by kind (GD-8 order), then size, then value.

    ``power`` is the place on the bomb ladder (GD-9), 0 for a non-bomb:
    4-card < 5-card < straight flush < 6-card < … < 10-card < joker bomb.
    Build readings with :func:`reading`, which computes it.
    """

    kind: Kind
    size: int
    value: int
    power: int = 0

    def rank_text(self, level: int) -> str:
        """The deciding rank in card notation (``2`` … ``A``, ``SJ``, ``BJ``)."""
        return value_text(self.value, IS_SEQUENCE[self.kind], level)

    def describe(self, level: int) -> str:
        return f"{KIND_LABELS[self.kind]} {self.rank_text(level)}"

    def to_dict(self, level: int) -> dict[str, object]:
        return {"kind": KIND_LABELS[self.kind], "rank": self.rank_text(level), "size": self.size}


def reading(kind: Kind, value: int, size: int) -> Reading:
    """The reading of ``size`` cards of ``kind`` at ``value``, with its bomb power (the
    same object for the same arguments: every reading of a deal is made once)."""
    if 0 <= value < _VALUES and 0 <= size <= _MOST_CARDS:
        return _READINGS[(int(kind) * (_MOST_CARDS + 1) + size) * _VALUES + value]
    return _made_reading(kind, value, size)


def _made_reading(kind: Kind, value: int, size: int) -> Reading:
    if kind == Kind.BOMB:
        power = 2 * size
    elif kind == Kind.STRAIGHT_FLUSH:
        power = 11
    elif kind == Kind.JOKER_BOMB:
        power = 100
    else:
        power = 0
    return Reading(kind, size, value, power)


_VALUES: Final = BIG_JOKER_VALUE + 1
"""Readings' values are below this (the big joker's is the highest)."""
_MOST_CARDS: Final = 10
"""No combination has more cards (a bomb of eight natural cards and both wild cards)."""
_READINGS: Final = [
    _made_reading(kind, value, size)
    for kind in Kind
    for size in range(_MOST_CARDS + 1)
    for value in range(_VALUES)
]
"""Every reading :func:`reading` can be asked for in play, by kind, size and value."""


def value_text(value: int, sequence: bool, level: int) -> str:
    if value == BIG_JOKER_VALUE:
        return "BJ"
    if value == SMALL_JOKER_VALUE:
        return "SJ"
    if value == LEVEL_VALUE and not sequence:
        return RANKS[level]
    return RANKS[value - 2]


def beats(play: Reading, table: Reading) -> bool:
    """Whether ``play`` beats ``table`` (GD-9)."""
    if play.power or table.power:
        if play.power != table.power:
            return play.power > table.power
        return play.value > table.value
    return play.kind == table.kind and play.size == table.size and play.value > table.value


def beats_any(plays: Iterable[Reading], tables: Iterable[Reading]) -> bool:
    """Whether some reading of a play beats some reading of the table's cards."""
    table_list = list(tables)
    return any(beats(p, t) for p in plays for t in table_list)


def strength(combo: Reading) -> tuple[int, int, int]:
    """A key under which a bomb-class reading dominates every non-bomb one."""
    return (combo.power, int(combo.kind), combo.value)


def wild_card(level: int) -> Card:
    """The wild card of a deal: the heart of the level rank (GD-6)."""
    return make_card(level, HEARTS)


def card_value(card: Card, level: int) -> int:
    """GD-5 value of one card as itself."""
    if card == BIG_JOKER:
        return BIG_JOKER_VALUE
    if card == SMALL_JOKER:
        return SMALL_JOKER_VALUE
    rank = card >> 2
    return LEVEL_VALUE if rank == level else rank + 2


def rank_value(rank: int, level: int) -> int:
    """GD-5 value of a natural rank index (0 = 2 … 12 = A)."""
    return LEVEL_VALUE if rank == level else rank + 2


def position_rank(position: int) -> int:
    """Rank index at a sequence position: 0 is the low ace, 1..13 are 2..A."""
    return RANK_ACE if position == 0 else position - 1


# ----------------------------------------------------------------------------
# classification: every reading of a given multiset of cards


def readings(cards: Sequence[Card], level: int) -> list[Reading]:
    """Every way ``cards`` can be read as one combination (GD-6 … GD-8), strongest first.

    Empty when the cards form no combination.
    """
    if not cards:
        return []
    wild = wild_card(level)
    wilds = sum(1 for c in cards if c == wild)
    naturals = [c for c in cards if c != wild]
    size = len(cards)
    found: set[Reading] = set()
    jokers = [c for c in naturals if c >= SMALL_JOKER]
    by_rank: dict[int, list[Card]] = {}
    for c in naturals:
        if c < SMALL_JOKER:
            by_rank.setdefault(c >> 2, []).append(c)

    if size == 4 and sorted(cards) == [SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER]:
        return [reading(Kind.JOKER_BOMB, BIG_JOKER_VALUE, 4)]
    _read_same_rank(naturals, jokers, by_rank, wilds, size, level, found)
    if size == 5:
        _read_full_house(jokers, by_rank, wilds, level, found)
    if not jokers and size in (5, 6):
        _read_sequences(naturals, by_rank, wilds, size, found)
    return sorted(found, key=strength, reverse=True)


def _read_same_rank(
    naturals: list[Card],
    jokers: list[Card],
    by_rank: dict[int, list[Card]],
    wilds: int,
    size: int,
    level: int,
    found: set[Reading],
) -> None:
    """Single, pair, triple and bomb: all naturals of one rank (or one joker)."""
    if jokers:
        if len(set(naturals)) == 1 and wilds == 0 and size <= 2:
            kind = Kind.SINGLE if size == 1 else Kind.PAIR
            found.add(reading(kind, card_value(jokers[0], level), size))
        return
    if len(by_rank) > 1:
        return
    value = rank_value(next(iter(by_rank)), level) if by_rank else LEVEL_VALUE
    kind = {1: Kind.SINGLE, 2: Kind.PAIR, 3: Kind.TRIPLE}.get(size, Kind.BOMB)
    if size <= 10:
        found.add(reading(kind, value, size))


def _read_full_house(
    jokers: list[Card],
    by_rank: dict[int, list[Card]],
    wilds: int,
    level: int,
    found: set[Reading],
) -> None:
    """Triple + pair of another rank; the pair may be two identical jokers (GD-8)."""
    groups: dict[int, int] = {r: len(cs) for r, cs in by_rank.items()}
    joker_pair = len(jokers) == 2 and jokers[0] == jokers[1]
    if jokers and not joker_pair:
        return
    if joker_pair:
        if len(groups) == 1:
            ((rank, n),) = groups.items()
            if n + wilds == 3:
                found.add(reading(Kind.FULL_HOUSE, rank_value(rank, level), 5))
        return
    ranks = list(groups)
    if len(ranks) == 2:
        for t, p in ((ranks[0], ranks[1]), (ranks[1], ranks[0])):
            if groups[t] <= 3 and groups[p] <= 2:
                found.add(reading(Kind.FULL_HOUSE, rank_value(t, level), 5))
    elif len(ranks) == 1 and groups[ranks[0]] == 3 and wilds == 2:
        # the two wild cards form the pair (of any other rank)
        found.add(reading(Kind.FULL_HOUSE, rank_value(ranks[0], level), 5))


def _read_sequences(
    naturals: list[Card],
    by_rank: dict[int, list[Card]],
    wilds: int,
    size: int,
    found: set[Reading],
) -> None:
    """Straights (flush or not), 3 consecutive pairs, 2 consecutive triples (GD-7, GD-8)."""
    counts = {r: len(cs) for r, cs in by_rank.items()}
    shapes = (
        ((5, 1, Kind.STRAIGHT),) if size == 5 else ((3, 2, Kind.PAIR_RUN), (2, 3, Kind.TRIPLE_RUN))
    )
    for length, width, kind in shapes:
        for start in range(0, 15 - length):
            window = [position_rank(p) for p in range(start, start + length)]
            if any(r not in window for r in counts):
                continue
            if any(counts.get(r, 0) > width for r in window):
                continue
            # every natural fits, the wild cards fill the rest (sizes match by construction)
            top = start + length  # natural value of the highest card
            if kind == Kind.STRAIGHT:
                suits = {c & 3 for c in naturals}
                if len(suits) == 1:
                    found.add(reading(Kind.STRAIGHT_FLUSH, top, 5))
                if len(suits) > 1 or wilds:
                    found.add(reading(Kind.STRAIGHT, top, 5))
            else:
                found.add(reading(kind, top, size))


def no_combination_reason(cards: Sequence[Card], level: int) -> str:
    """Why ``cards`` (which have no reading) form no combination, in words (GD-8)."""
    size = len(cards)
    jokers = [c for c in cards if c >= SMALL_JOKER]
    if not cards:
        return "no cards"
    if jokers and size > 2 and size not in (4, 5):
        return "jokers combine only as a pair of identical jokers, a full house's pair or all four"
    reasons = {
        2: "two cards are a pair only if they have the same rank (SJ BJ is not a pair)",
        3: "three cards are a triple only if they have the same rank",
        4: "four cards are a bomb only if they have the same rank, or are the four jokers",
        5: "five cards must be a straight (5 consecutive ranks, no jokers, no wrap), "
        "a full house (triple + pair) or a bomb",
        6: "six cards must be 3 consecutive pairs, 2 consecutive triples or a bomb",
    }
    if size in reasons:
        return reasons[size]
    if size > 10:
        return "no combination has more than 10 cards"
    return f"{counted(size, 'card')} are a combination only as a bomb (all of one rank)"


def play_readings(cards: Sequence[Card], level: int) -> list[Reading]:
    """The readings a play of ``cards`` can be made as, after dominance.

    A bomb-class reading beats everything a non-bomb reading of the same cards
    could, so when one exists only the strongest bomb-class reading stays;
    otherwise the highest reading of each kind stays (a higher reading of the
    same kind beats all the lower one does). More than one reading remains only
    when the cards can be read as different kinds (``3 3 4 4`` with two wild
    cards: 3 consecutive pairs or 2 consecutive triples); such a play must name
    its kind.
    """
    return reduce_readings(readings(cards, level))


def reduce_readings(found: Iterable[Reading]) -> list[Reading]:
    best: dict[Kind, Reading] = {}
    top_bomb: Reading | None = None
    for candidate in found:
        if candidate.power:
            if top_bomb is None or strength(candidate) > strength(top_bomb):
                top_bomb = candidate
            continue
        current = best.get(candidate.kind)
        if current is None or candidate.value > current.value:
            best[candidate.kind] = candidate
    if top_bomb is not None:
        return [top_bomb]
    return sorted(best.values(), key=strength, reverse=True)
