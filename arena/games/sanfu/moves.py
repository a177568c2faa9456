"""Every distinct legal play of a sanfu hand (SF-8 … SF-10).

A play is a multiset of cards with its reading (:func:`combos.reading`). With
three decks a hand holds up to three identical cards and up to twelve of a
rank, so the distinct multisets explode (a triple with pair of two well-held
ranks alone can be made hundreds of ways). The generator therefore works on
*rank patterns*: how many cards of each rank a play takes, and its reading
(a same-suit triple and a plain triple of one rank are two patterns). Each
pattern knows how many distinct multisets it stands for, counted from per-rank
suit counts before any suit is chosen.

:meth:`HandPlays.legal` lists every distinct play when there are at most
``limit`` of them (complete), and otherwise one play per rank pattern with its
suits chosen canonically (incomplete): the choice that leaves the most
same-suit triples (丁子) in hand, taking from the least held suits first. The
other plays of a listed pattern are as legal as the listed one.

Patterns are built per kind from per-rank counts (never from subsets of the
hand), when first needed, and kept while the hand does not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product
from operator import itemgetter

from arena.cards import NUM_KINDS, Card
from arena.games.sanfu.combos import (
    ACE_VALUE,
    BIG_JOKER_VALUE,
    LOWEST_VALUE,
    SMALL_JOKER_VALUE,
    TWO_VALUE,
    Kind,
    Reading,
    beats,
    make_reading,
    value_cards,
    value_rank,
)

Play = tuple[tuple[Card, ...], Reading]
"""A legal play: its cards (a sorted multiset) and its reading."""

INCOMPLETE_DESCRIPTION = (
    "one play per rank pattern: the same ranks in other suits make the same combination "
    "and are legal too"
)
"""What an incomplete list of plays stands for, in words."""

SPECIAL = "special"
"""The group of every play on the SF-9 ladder (bombs, same-suit and three-joker triples)."""

_SUITED_VALUES = range(LOWEST_VALUE, TWO_VALUE + 1)
_RUN_VALUES = range(LOWEST_VALUE, ACE_VALUE + 1)
_ALL_VALUES = range(LOWEST_VALUE, BIG_JOKER_VALUE + 1)
_ORDINARY_KINDS = (
    Kind.SINGLE,
    Kind.PAIR,
    Kind.TRIPLE,
    Kind.FULL_HOUSE,
    Kind.PAIR_RUN,
    Kind.PLATE,
    Kind.PLATE_WITH_PAIRS,
)

# how a part of a pattern takes its cards of one rank
ANY = 0
PLAIN = 1
"""Three cards, not all identical (a plain triple)."""
IDENTICAL = 2
"""Three identical cards (a same-suit triple, three jokers)."""

Part = tuple[int, int, int]
"""One rank's share of a play: (rank value, number of cards, how they are taken)."""

Pattern = tuple[Reading, int, tuple[Card, ...]]
"""A rank pattern: its reading (which names its ranks and how many cards of each), how many
distinct plays it stands for, and the cards of its canonical play."""


# ----------------------------------------------------------------------------
# choices of suits within one rank (a pool: the counts of the rank's distinct cards)


@cache
def _ways(pool: tuple[int, ...]) -> tuple[int, ...]:
    """For each ``k`` from 0 to the pool's size, the number of distinct ``k``-card multisets."""
    ways = [1]
    for n in pool:
        grown = [0] * (len(ways) + n)
        for k, w in enumerate(ways):
            for take in range(n + 1):
                grown[k + take] += w
        ways = grown
    return tuple(ways)


@cache
def _suit_choices(pool: tuple[int, ...], k: int, how: int) -> tuple[tuple[int, ...], ...]:
    """Every distinct multiset of ``k`` suit indexes drawn from ``pool`` (each sorted)."""
    if how == IDENTICAL:
        return tuple((s, s, s) for s, n in enumerate(pool) if n >= 3)
    found: list[tuple[int, ...]] = [()]
    for suit, n in enumerate(pool):
        found = [taken + (suit,) * t for taken in found for t in range(min(n, k - len(taken)) + 1)]
    chosen = [taken for taken in found if len(taken) == k]
    if how == PLAIN:
        chosen = [taken for taken in chosen if taken[0] != taken[-1]]
    return tuple(sorted(chosen))


@cache
def _canonical_suits(pool: tuple[int, ...], k: int, how: int) -> tuple[int, ...]:
    """The suits a canonical play takes: the most same-suit triples (丁子) left intact, then
    the largest stacks left (the least held suits are taken first), then the lowest suits."""

    def keep(taken: tuple[int, ...]) -> tuple[int, list[int], list[int]]:
        left = [n - taken.count(s) for s, n in enumerate(pool)]
        intact = sum(1 for n in left if n >= 3)
        return intact, sorted(left, reverse=True), [-s for s in taken]

    return max(_suit_choices(pool, k, how), key=keep)


@cache
def _cards(value: int, suits: tuple[int, ...]) -> tuple[Card, ...]:
    first = value_cards(value).start
    return tuple([first + s for s in suits])


@cache
def _card_choices(
    value: int, pool: tuple[int, ...], k: int, how: int
) -> tuple[tuple[Card, ...], ...]:
    return tuple([_cards(value, suits) for suits in _suit_choices(pool, k, how)])


@cache
def _canonical_cards(value: int, pool: tuple[int, ...], k: int, how: int) -> tuple[Card, ...]:
    return _cards(value, _canonical_suits(pool, k, how))


def _card_order(value: int) -> int:
    """Position of a rank's cards among card ints (the 2 lowest, the jokers highest)."""
    return value_rank(value) if value <= TWO_VALUE else value - 3


def _parts(combo: Reading) -> list[Part]:
    """The share of each rank in a play of reading ``combo``, in card order."""
    kind, size, value, second = combo.kind, combo.size, combo.value, combo.second
    if kind == Kind.TRIPLE:
        return [(value, 3, PLAIN)]
    if kind == Kind.SUITED_TRIPLE or kind == Kind.JOKER_TRIPLE:
        return [(value, 3, IDENTICAL)]
    if kind == Kind.FULL_HOUSE:
        parts = [(value, 3, ANY), (second, 2, ANY)]
        return parts if _card_order(value) < _card_order(second) else parts[::-1]
    if kind == Kind.PAIR_RUN:
        return [(v, 2, ANY) for v in range(value - size // 2 + 1, value + 1)]
    if kind == Kind.PLATE:
        return [(v, 3, ANY) for v in range(value - size // 3 + 1, value + 1)]
    if kind == Kind.PLATE_WITH_PAIRS:
        length = size // 5
        triples = [(v, 3, ANY) for v in range(value - length + 1, value + 1)]
        pairs = [(v, 2, ANY) for v in range(second - length + 1, second + 1)]
        return triples + pairs if value < second else pairs + triples
    return [(value, size, ANY)]  # single, pair, bomb


# ----------------------------------------------------------------------------
# readings by value, built once (a list index is cheaper than a call)


def _table(kind: Kind, size: int) -> list[Reading]:
    """Readings of ``kind`` indexed by value (the indexes below 3 are never used)."""
    return [make_reading(kind, size, value) for value in range(BIG_JOKER_VALUE + 1)]


_SINGLES = _table(Kind.SINGLE, 1)
_PAIRS = _table(Kind.PAIR, 2)
_TRIPLES = _table(Kind.TRIPLE, 3)
_SUITED_TRIPLES = _table(Kind.SUITED_TRIPLE, 3)
_FULL_HOUSES = [
    [make_reading(Kind.FULL_HOUSE, 5, t, p) for p in range(BIG_JOKER_VALUE + 1)]
    for t in range(BIG_JOKER_VALUE + 1)
]


class _Hand:
    """Per-rank views of a counts vector, indexed by rank value (3 … 17)."""

    __slots__ = ("counts", "identical", "pools", "total", "ways")

    def __init__(self, counts: Sequence[int]) -> None:
        if len(counts) != NUM_KINDS:
            raise ValueError(f"a hand is {NUM_KINDS} counts, not {len(counts)}")
        self.counts = counts = tuple(counts)
        if max(counts) > MAX_COPIES or min(counts) < 0:
            raise ValueError(f"three decks hold 0 to {MAX_COPIES} copies of a card: {counts}")
        pools: list[tuple[int, ...]] = [()] * LOWEST_VALUE
        pools += [counts[b : b + 4] for b in _POOL_STARTS] + [counts[52:53], counts[53:54]]
        self.pools = pools
        self.total = [sum(pool) for pool in pools]
        self.ways = [_ways(pool) for pool in pools]
        self.identical = [pool.count(3) for pool in pools]

    def canonical(self, value: int, k: int, how: int = ANY) -> tuple[Card, ...]:
        return _canonical_cards(value, self.pools[value], k, how)

    def choices(self, part: Part) -> tuple[tuple[Card, ...], ...]:
        value, k, how = part
        return _card_choices(value, self.pools[value], k, how)


MAX_COPIES = 3
"""Three decks: at most three identical cards."""
_POOL_STARTS = [value_cards(v).start for v in _SUITED_VALUES]


# ----------------------------------------------------------------------------
# rank patterns, one generator per group


def _sets(hand: _Hand, table: list[Reading], k: int) -> list[Pattern]:
    """Singles (``k`` 1) and pairs (``k`` 2) of every rank, jokers included."""
    ways, total, canonical = hand.ways, hand.total, hand.canonical
    return [(table[v], ways[v][k], canonical(v, k)) for v in _ALL_VALUES if total[v] >= k]


def _triples(hand: _Hand) -> list[Pattern]:
    """Three cards of a rank, not all identical."""
    found: list[Pattern] = []
    for v in _SUITED_VALUES:
        ways = hand.ways[v]
        if len(ways) > 3 and ways[3] > hand.identical[v]:
            found.append((_TRIPLES[v], ways[3] - hand.identical[v], hand.canonical(v, 3, PLAIN)))
    return found


def _special(hand: _Hand) -> list[Pattern]:
    """Same-suit triples, three-joker triples and bombs (SF-9)."""
    found: list[Pattern] = []
    for v in _SUITED_VALUES:
        if hand.identical[v]:
            found.append((_SUITED_TRIPLES[v], hand.identical[v], hand.canonical(v, 3, IDENTICAL)))
    for v in (SMALL_JOKER_VALUE, BIG_JOKER_VALUE):
        if hand.total[v] >= 3:
            found.append((make_reading(Kind.JOKER_TRIPLE, 3, v), 1, hand.canonical(v, 3)))
    for v in _SUITED_VALUES:
        ways = hand.ways[v]
        for k in range(4, len(ways)):
            found.append((make_reading(Kind.BOMB, k, v), ways[k], hand.canonical(v, k)))
    return found


def _full_houses(hand: _Hand) -> list[Pattern]:
    """A triple of ``3`` … ``2`` and a pair of any other rank, jokers included."""
    ways, total, canonical = hand.ways, hand.total, hand.canonical
    pairs = [(p, ways[p][2], canonical(p, 2), _card_order(p)) for p in _ALL_VALUES if total[p] >= 2]
    found: list[Pattern] = []
    for t in _SUITED_VALUES:
        if total[t] < 3:
            continue
        t_ways, t_cards, t_order, combos = (
            ways[t][3],
            canonical(t, 3),
            _card_order(t),
            _FULL_HOUSES[t],
        )
        found += [
            (combos[p], t_ways * w, t_cards + cards if t_order < order else cards + t_cards)
            for p, w, cards, order in pairs
            if p != t
        ]
    return found


Window = tuple[int, int, int, tuple[Card, ...]]
"""A run of sets of one width over consecutive ranks: first value, length, ways, cards."""


def _windows(hand: _Hand, width: int) -> list[Window]:
    """Every run of two or more sets of ``width`` cards over consecutive ranks of ``3`` … ``A``."""
    total, ways, canonical = hand.total, hand.ways, hand.canonical
    held = [total[v] >= width for v in range(ACE_VALUE + 1)] + [False]  # no 2 in a run
    sets = [canonical(v, width) if held[v] else () for v in range(ACE_VALUE + 1)]
    found: list[Window] = []
    for first in _RUN_VALUES:
        if not held[first] or not held[first + 1]:
            continue
        product_ways, cards = ways[first][width], sets[first]
        for last in range(first + 1, ACE_VALUE + 1):
            if not held[last]:
                break
            product_ways *= ways[last][width]
            cards += sets[last]  # ranks 3 … A ascend with the card ints
            found.append((first, last - first + 1, product_ways, cards))
    return found


def _runs(windows: list[Window], kind: Kind, width: int, shortest: int) -> list[Pattern]:
    """Consecutive pairs (width 2, 3 or more) or steel plates (width 3, 2 or more)."""
    return [
        (make_reading(kind, width * length, first + length - 1), ways, cards)
        for first, length, ways, cards in windows
        if length >= shortest
    ]


def _plates_with_pairs(plates: list[Window], pair_runs: list[Window]) -> list[Pattern]:
    """A steel plate and as many consecutive pairs of other ranks (SF-8)."""
    by_length: dict[int, list[Window]] = {}
    for window in pair_runs:
        by_length.setdefault(window[1], []).append(window)
    found: list[Pattern] = []
    for t_first, length, t_ways, t_cards in plates:
        pairs = by_length.get(length)
        if not pairs:
            continue
        t_last = t_first + length - 1
        for p_first, _, p_ways, p_cards in pairs:
            if p_first > t_last:
                cards = t_cards + p_cards
            elif p_first + length <= t_first:
                cards = p_cards + t_cards
            else:
                continue
            combo = make_reading(Kind.PLATE_WITH_PAIRS, 5 * length, t_last, p_first + length - 1)
            found.append((combo, t_ways * p_ways, cards))
    return found


# ----------------------------------------------------------------------------
# plays


class HandPlays:
    """The legal plays of one hand, built from its rank patterns when first needed.

    A state keeps one per seat until that seat's hand changes, so the
    decisions between two plays of a seat share its patterns.
    """

    __slots__ = ("_leads", "_patterns", "_windows", "hand")

    def __init__(self, counts: Sequence[int]) -> None:
        self.hand = _Hand(counts)
        self._patterns: dict[Kind | str, list[Pattern]] = {}
        self._windows: dict[int, list[Window]] = {}
        self._leads: dict[int, tuple[list[Play], bool]] = {}

    def patterns(self, group: Kind | str) -> list[Pattern]:
        """The rank patterns of one group: an ordinary kind, or :data:`SPECIAL`."""
        found = self._patterns.get(group)
        if found is None:
            found = self._patterns[group] = self._build(group)
        return found

    def _build(self, group: Kind | str) -> list[Pattern]:
        hand = self.hand
        if group == SPECIAL:
            return _special(hand)
        if group == Kind.SINGLE:
            return _sets(hand, _SINGLES, 1)
        if group == Kind.PAIR:
            return _sets(hand, _PAIRS, 2)
        if group == Kind.TRIPLE:
            return _triples(hand)
        if group == Kind.FULL_HOUSE:
            return _full_houses(hand)
        if group == Kind.PAIR_RUN:
            return _runs(self.windows(2), Kind.PAIR_RUN, 2, 3)
        if group == Kind.PLATE:
            return _runs(self.windows(3), Kind.PLATE, 3, 2)
        if group == Kind.PLATE_WITH_PAIRS:
            return _plates_with_pairs(self.windows(3), self.windows(2))
        raise ValueError(f"no play group {group!r}")

    def windows(self, width: int) -> list[Window]:
        found = self._windows.get(width)
        if found is None:
            found = self._windows[width] = _windows(self.hand, width)
        return found

    def candidates(self, table: Reading | None) -> list[Pattern]:
        """The rank patterns that may lead (``table`` is ``None``) or beat ``table`` (SF-9)."""
        if table is None:
            found = [p for group in _ORDINARY_KINDS for p in self.patterns(group)]
            return found + self.patterns(SPECIAL)
        found = [p for p in self.patterns(SPECIAL) if beats(p[0], table)]
        if not table.power:
            found += [p for p in self.patterns(table.kind) if beats(p[0], table)]
        return found

    def count(self, table: Reading | None) -> int:
        """The number of distinct legal plays (card multisets), without listing them."""
        return sum([p[1] for p in self.candidates(table)])

    def legal(self, table: Reading | None, limit: int) -> tuple[list[Play], bool]:
        """The plays that may lead (``table`` is ``None``) or beat ``table``, and whether
        that list is complete.

        Complete when there are at most ``limit`` distinct plays; otherwise one
        play per rank pattern, its suits chosen canonically (the list may then
        be longer than ``limit``). Sorted by reading. The caller may keep or
        change the list.
        """
        if table is None:
            cached = self._leads.get(limit)
            if cached is None:
                cached = self._leads[limit] = self._legal(None, limit)
            return list(cached[0]), cached[1]
        return self._legal(table, limit)

    def _legal(self, table: Reading | None, limit: int) -> tuple[list[Play], bool]:
        patterns = self.candidates(table)
        complete = sum([p[1] for p in patterns]) <= limit
        if complete:
            plays = self._expand(patterns)
        else:
            plays = [(cards, combo) for combo, _, cards in patterns]
        plays.sort(key=_READING)
        return plays, complete

    def _expand(self, patterns: list[Pattern]) -> list[Play]:
        choices = self.hand.choices
        plays: list[Play] = []
        for combo, _, _ in patterns:
            parts = _parts(combo)
            if len(parts) == 1:
                plays += [(cards, combo) for cards in choices(parts[0])]
            elif len(parts) == 2:
                seconds = choices(parts[1])
                plays += [(a + b, combo) for a in choices(parts[0]) for b in seconds]
            else:
                options = [choices(part) for part in parts]
                plays += [(sum(chosen, ()), combo) for chosen in product(*options)]
        return plays


_READING = itemgetter(1)


def legal_plays(
    counts: Sequence[int], table: Reading | None, limit: int
) -> tuple[list[Play], bool]:
    """The legal plays of a hand (see :meth:`HandPlays.legal`)."""
    return HandPlays(counts).legal(table, limit)
