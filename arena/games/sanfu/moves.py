"""Every distinct legal play of a sanfu hand (SF-8 … SF-10).

A play is a multiset of cards with its reading (:func:`combos.reading`). With
three decks a hand holds up to three identical cards and up to twelve of a
rank, so the distinct multisets explode (a triple with pair of two well-held
ranks alone can be made hundreds of ways). The generator therefore works on
*rank patterns*: how many cards of each rank a play takes, and its reading
(a same-suit triple and a plain triple of one rank are two patterns). Each
pattern knows how many distinct multisets it stands for, counted from per-rank
suit counts before any suit is chosen.

A listing holds every distinct play when there are at most ``limit`` of them
(complete), and otherwise one play per rank pattern with its suits chosen
canonically (incomplete): the choice that leaves the most same-suit triples (丁子)
in hand, taking from the least held suits first. The other plays of a listed
pattern are as legal as the listed one.

A hand is seen as one :class:`Rank` per rank value: what it holds of that rank (the
suit counts, its *pool*) and every play of that rank alone, ready made. Ranks are
shared by every hand holding the same pool, so a play changes only the ranks whose
cards it takes. Patterns are generated in the order of their readings, from the ranks
and only for the kind that may beat the table; the plays of a pattern of several
ranks are spelled out only for a complete listing. Those patterns are made afresh for
each decision: kept for a deal, they would outlive the garbage collector's youngest
generation and make its full collections cost more than they save.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from itertools import product
from typing import Final

from arena.cards import NUM_KINDS, Card
from arena.games.base import Action, new_action
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

INCOMPLETE_DESCRIPTION: Final = (
    "one play per rank pattern: the same ranks in other suits make the same combination "
    "and are legal too"
)
"""What an incomplete list of plays stands for, in words."""

MAX_COPIES: Final = 3
"""Three decks: at most three identical cards."""

_SUITED_VALUES = range(LOWEST_VALUE, TWO_VALUE + 1)
_RUN_VALUES = range(LOWEST_VALUE, ACE_VALUE + 1)
_ALL_VALUES = range(LOWEST_VALUE, BIG_JOKER_VALUE + 1)
_JOKER_VALUES = (SMALL_JOKER_VALUE, BIG_JOKER_VALUE)
_VALUES: Final = BIG_JOKER_VALUE + 1
"""Length of a list indexed by rank value (the indexes below 3 are never used)."""

# how a part of a pattern takes its cards of one rank
ANY: Final = 0
PLAIN: Final = 1
"""Three cards, not all identical (a plain triple)."""
IDENTICAL: Final = 2
"""Three identical cards (a same-suit triple, three jokers)."""


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
        return tuple([(s, s, s) for s, n in enumerate(pool) if n >= 3])
    found: list[tuple[int, ...]] = [()]
    for suit, n in enumerate(pool):
        found = [taken + (suit,) * t for taken in found for t in range(min(n, k - len(taken)) + 1)]
    chosen = [taken for taken in found if len(taken) == k]
    if how == PLAIN:
        chosen = [taken for taken in chosen if taken[0] != taken[-1]]
    return tuple(sorted(chosen))


def _canonical_suits(pool: tuple[int, ...], k: int, how: int) -> tuple[int, ...]:
    """The suits a canonical play takes: the most same-suit triples (丁子) left intact, then
    the largest stacks left (the least held suits are taken first), then the lowest suits."""

    def keep(taken: tuple[int, ...]) -> tuple[int, list[int], list[int]]:
        left = [n - taken.count(s) for s, n in enumerate(pool)]
        intact = sum(1 for n in left if n >= 3)
        return intact, sorted(left, reverse=True), [-s for s in taken]

    return max(_suit_choices(pool, k, how), key=keep)


def _cards(value: int, suits: tuple[int, ...]) -> tuple[Card, ...]:
    first = value_cards(value).start
    return tuple([first + s for s in suits])


def _card_order(value: int) -> int:
    """Position of a rank's cards among card ints (the 2 lowest, the jokers highest)."""
    return value_rank(value) if value <= TWO_VALUE else value - 3


_ORDER = [_card_order(v) if v >= LOWEST_VALUE else -1 for v in range(_VALUES)]

# ----------------------------------------------------------------------------
# readings by value, built once (a list index is cheaper than a call)


def _table(kind: Kind, size: int) -> list[Reading]:
    """Readings of ``kind`` indexed by value (the indexes below 3 are never used)."""
    return [make_reading(kind, size, value) for value in range(_VALUES)]


_SINGLES = _table(Kind.SINGLE, 1)
_PAIRS = _table(Kind.PAIR, 2)
_TRIPLES = _table(Kind.TRIPLE, 3)
_SUITED_TRIPLES = _table(Kind.SUITED_TRIPLE, 3)
_JOKER_TRIPLES = _table(Kind.JOKER_TRIPLE, 3)
_FULL_HOUSES = [
    [make_reading(Kind.FULL_HOUSE, 5, t, p) for p in range(_VALUES)] for t in range(_VALUES)
]


# ----------------------------------------------------------------------------
# ranks and patterns

Part = tuple["Rank", int]
"""One rank's share of a play: the rank and how many of its cards (taken in any suits)."""

Plays = tuple[Action, ...]


class Pattern:
    """A rank pattern: its reading (which names its ranks and how many cards of each), how
    many distinct plays it stands for, and its parts in card order (none for a pattern of
    one rank, whose plays are spelled out at once). Its canonical play and its plays are
    made when first needed, and kept."""

    __slots__ = ("_canonical", "parts", "reading", "spelled", "ways")

    def __init__(
        self,
        reading: Reading,
        ways: int,
        parts: tuple[Part, ...],
        canonical: Plays | None = None,
        plays: Plays | None = None,
    ) -> None:
        self.reading = reading
        self.ways = ways
        self.parts = parts
        self._canonical = canonical
        self.spelled = plays
        """Every play, once spelled out (:meth:`plays`)."""

    def canonical(self) -> Plays:
        """The canonical play, alone in a tuple."""
        play = self._canonical
        if play is None:
            cards: tuple[Card, ...] = ()
            for rank, k in self.parts:
                cards += rank.canonical[k]
            play = self._canonical = (new_action(("play", cards, "")),)
        return play

    def plays(self) -> Plays:
        """Every play, in the order of the choices of its parts."""
        plays = self.spelled
        if plays is None:
            parts = self.parts
            if len(parts) == 2:
                (one, k), (two, n) = parts
                seconds = two.choices[n]
                plays = tuple(
                    [new_action(("play", a + b, "")) for a in one.choices[k] for b in seconds]
                )
            else:
                options = [rank.choices[k] for rank, k in parts]
                plays = tuple(
                    [new_action(("play", sum(chosen, ()), "")) for chosen in product(*options)]
                )
            self.spelled = plays
        return plays


def _one_rank(reading: Reading, value: int, pool: tuple[int, ...], k: int, how: int) -> Pattern:
    """The pattern of ``k`` cards of one rank taken ``how``, with every play spelled out."""
    plays = tuple([Action("play", _cards(value, suits)) for suits in _suit_choices(pool, k, how)])
    canonical = Action("play", _cards(value, _canonical_suits(pool, k, how)))
    return Pattern(reading, len(plays), (), (canonical,), plays)


class Rank:
    """What a hand holds of one rank value (3 … 17): its pool of suit counts, its
    choices of ``k`` cards and every pattern of that rank alone. Made once per value
    and pool (:func:`rank_of`), shared by every hand that holds the same."""

    __slots__ = (
        "bombs",
        "canonical",
        "choices",
        "held",
        "pair",
        "parts",
        "pool",
        "single",
        "suited",
        "total",
        "triple",
        "value",
        "ways",
    )

    def __init__(self, value: int, pool: tuple[int, ...]) -> None:
        self.value = value
        self.pool = pool
        self.total = total = sum(pool)
        self.ways: tuple[int, ...] = _ways(pool)
        takes = range(total + 1)
        self.choices: list[tuple[tuple[Card, ...], ...]] = [
            tuple([_cards(value, suits) for suits in _suit_choices(pool, k, ANY)]) for k in takes
        ]
        self.canonical: list[tuple[Card, ...]] = [
            _cards(value, _canonical_suits(pool, k, ANY)) for k in takes
        ]
        self.held: tuple[Card, ...] = self.choices[total][0]
        """Every card of the rank held, sorted."""
        self.parts: list[Part] = [(self, k) for k in takes]
        self.single = _one_rank(_SINGLES[value], value, pool, 1, ANY) if total >= 1 else None
        self.pair = _one_rank(_PAIRS[value], value, pool, 2, ANY) if total >= 2 else None
        self.triple: Pattern | None = None
        self.suited: Pattern | None = None
        self.bombs: list[Pattern] = []
        if value > TWO_VALUE:  # jokers: three of a kind is the three-joker play
            if total >= 3:
                self.suited = _one_rank(_JOKER_TRIPLES[value], value, pool, 3, ANY)
            return
        identical = pool.count(MAX_COPIES)
        if total >= 3 and self.ways[3] > identical:
            self.triple = _one_rank(_TRIPLES[value], value, pool, 3, PLAIN)
        if identical:
            self.suited = _one_rank(_SUITED_TRIPLES[value], value, pool, 3, IDENTICAL)
        self.bombs = [
            _one_rank(make_reading(Kind.BOMB, k, value), value, pool, k, ANY)
            for k in range(4, total + 1)
        ]


@cache
def rank_of(value: int, pool: tuple[int, ...]) -> Rank:
    """The shared :class:`Rank` of ``value`` holding ``pool``."""
    return Rank(value, pool)


_NOTHING = Rank(0, ())
_POOL_START = [value_cards(v).start if v >= LOWEST_VALUE else 0 for v in range(_VALUES)]
_POOL_END = [value_cards(v).stop if v >= LOWEST_VALUE else 0 for v in range(_VALUES)]
_VALUE_OF = [0] * NUM_KINDS
for _value in _ALL_VALUES:
    for _card in value_cards(_value):
        _VALUE_OF[_card] = _value


CARD_ORDER_VALUES = (TWO_VALUE, *_RUN_VALUES, SMALL_JOKER_VALUE, BIG_JOKER_VALUE)
"""The rank values in the order of their card ints (the 2 first, the jokers last)."""


def card_rank_value(card: Card) -> int:
    """The rank value (3 … 17) of a card, from a table."""
    return _VALUE_OF[card]


def rank_in(counts: Sequence[int], value: int) -> Rank:
    """The :class:`Rank` of ``value`` in the counts vector ``counts``."""
    return rank_of(value, tuple(counts[_POOL_START[value] : _POOL_END[value]]))


def ranks_in(counts: Sequence[int]) -> list[Rank]:
    """Every rank of a counts vector (54 counts of 0 … 3), indexed by rank value."""
    if len(counts) != NUM_KINDS:
        raise ValueError(f"a hand is {NUM_KINDS} counts, not {len(counts)}")
    if max(counts) > MAX_COPIES or min(counts) < 0:
        raise ValueError(f"three decks hold 0 to {MAX_COPIES} copies of a card: {tuple(counts)}")
    ranks = [_NOTHING] * _VALUES
    for value in _ALL_VALUES:
        ranks[value] = rank_in(counts, value)
    return ranks


# ----------------------------------------------------------------------------
# patterns of several ranks


def _full_house(triple: Rank, pair: Rank) -> Pattern:
    t, p = triple.value, pair.value
    parts = (triple.parts[3], pair.parts[2])
    return Pattern(
        _FULL_HOUSES[t][p],
        triple.ways[3] * pair.ways[2],
        parts if _ORDER[t] < _ORDER[p] else parts[::-1],
    )


def _full_houses(ranks: list[Rank], above: int, second_above: int) -> list[Pattern]:
    """Triples of ``3`` … ``2`` above ``above`` with a pair of any other rank above
    ``second_above``, jokers included; by triple, then pair."""
    pairs = [r for r in ranks[second_above + 1 :] if r.total >= 2]
    found: list[Pattern] = []
    if not pairs:
        return found
    for triple in ranks[max(above + 1, LOWEST_VALUE) : TWO_VALUE + 1]:
        if triple.total >= 3:
            found += [_full_house(triple, pair) for pair in pairs if pair is not triple]
    return found


Window = tuple[int, int, int, tuple[Part, ...]]
"""A run of sets of one width over consecutive ranks: first value, length, ways, parts."""


def _windows(ranks: list[Rank], width: int) -> list[Window]:
    """Every run of two or more sets of ``width`` cards over consecutive ranks of ``3`` … ``A``,
    by length, then first rank."""
    found: list[Window] = []
    for first in _RUN_VALUES:
        start = ranks[first]
        if start.total < width:
            continue
        ways = start.ways[width]
        parts: tuple[Part, ...] = (start.parts[width],)
        for last in range(first + 1, ACE_VALUE + 1):
            rank = ranks[last]
            if rank.total < width:
                break
            ways *= rank.ways[width]
            parts += (rank.parts[width],)
            found.append((first, last - first + 1, ways, parts))
    found.sort(key=_LENGTH_FIRST)
    return found


def _length_first(window: Window) -> tuple[int, int]:
    return window[1], window[0]


_LENGTH_FIRST = _length_first


def _runs(
    windows: list[Window],
    kind: Kind,
    width: int,
    shortest: int,
    length: int,
    above: int,
) -> list[Pattern]:
    """Consecutive pairs (width 2, 3 or more) or steel plates (width 3, 2 or more): of
    ``length`` sets ending above ``above`` (every length when ``length`` is 0)."""
    return [
        Pattern(make_reading(kind, width * n, first + n - 1), ways, parts)
        for first, n, ways, parts in windows
        if n >= shortest and (not length or n == length) and first + n - 1 > above
    ]


def _plates_with_pairs(
    plates: list[Window],
    pair_runs: list[Window],
    length: int,
    above: int,
    second_above: int,
) -> list[Pattern]:
    """A steel plate and as many consecutive pairs of other ranks (SF-8), of ``length``
    triples (every length when 0), the plate above ``above`` and the pairs above
    ``second_above``; by size, plate, pairs."""
    found: list[Pattern] = []
    by_length: dict[int, list[Window]] = {}
    for window in pair_runs:
        by_length.setdefault(window[1], []).append(window)
    for t_first, n, t_ways, t_parts in plates:
        t_last = t_first + n - 1
        if (length and n != length) or t_last <= above or n not in by_length:
            continue
        for p_first, _, p_ways, p_parts in by_length[n]:
            p_last = p_first + n - 1
            if p_last <= second_above:
                continue
            if p_first > t_last:
                parts = t_parts + p_parts
            elif p_first + n <= t_first:
                parts = p_parts + t_parts
            else:
                continue
            combo = make_reading(Kind.PLATE_WITH_PAIRS, 5 * n, t_last, p_last)
            found.append(Pattern(combo, t_ways * p_ways, parts))
    return found


# ----------------------------------------------------------------------------
# patterns by table


Ladder = tuple[list[Pattern], list[Pattern]]
"""A hand's plays on the SF-9 ladder: its same-suit triples, then its bombs and three-joker
plays."""


def specials(ranks: list[Rank]) -> Ladder:
    """The SF-9 ladder in reading order: the same-suit triples, then the bombs and the
    three-joker plays (their kinds sort after every ordinary kind)."""
    suited = [p for p in [r.suited for r in ranks[LOWEST_VALUE : TWO_VALUE + 1]] if p is not None]
    top: list[Pattern] = []
    for rank in ranks[LOWEST_VALUE : TWO_VALUE + 1]:
        if rank.bombs:
            top += rank.bombs
    if len(top) > 1:
        top.sort(key=_READING_OF)
    for value in _JOKER_VALUES:
        joker = ranks[value].suited
        if joker is not None:
            top.append(joker)
    return suited, top


def _reading_of(pattern: Pattern) -> Reading:
    return pattern.reading


_READING_OF = _reading_of


def lead_patterns(ranks: list[Rank]) -> list[Pattern]:
    """Every rank pattern of the hand (a lead), in the order of their readings."""
    found = [p for p in [r.single for r in ranks] if p is not None]
    found += [p for p in [r.pair for r in ranks] if p is not None]
    found += [p for p in [r.triple for r in ranks] if p is not None]
    suited, top = specials(ranks)
    found += suited
    found += _full_houses(ranks, 0, 0)
    pair_runs, plates = _windows(ranks, 2), _windows(ranks, 3)
    found += _runs(pair_runs, Kind.PAIR_RUN, 2, 3, 0, 0)
    found += _runs(plates, Kind.PLATE, 3, 2, 0, 0)
    plates_with_pairs = _plates_with_pairs(plates, pair_runs, 0, 0, 0)
    if len(plates_with_pairs) > 1:
        plates_with_pairs.sort(key=_READING_OF)
    found += plates_with_pairs
    found += top
    return found


def beating_patterns(ranks: list[Rank], table: Reading, ladder: Ladder) -> list[Pattern]:
    """The rank patterns that beat ``table`` (SF-9), in the order of their readings;
    ``ladder`` is the hand's :func:`specials`."""
    suited, top = ladder
    if table.power:
        return [p for p in suited + top if beats(p.reading, table)]
    kind, value = table.kind, table.value
    found: list[Pattern]
    if kind == Kind.SINGLE:
        found = [p for p in [r.single for r in ranks[value + 1 :]] if p is not None]
    elif kind == Kind.PAIR:
        found = [p for p in [r.pair for r in ranks[value + 1 :]] if p is not None]
    elif kind == Kind.TRIPLE:
        found = [p for p in [r.triple for r in ranks[value + 1 :]] if p is not None]
    elif kind == Kind.FULL_HOUSE:
        found = _full_houses(ranks, value, table.second)
    elif kind == Kind.PAIR_RUN:
        found = _runs(_windows(ranks, 2), kind, 2, 3, table.size // 2, value)
    elif kind == Kind.PLATE:
        found = _runs(_windows(ranks, 3), kind, 3, 2, table.size // 3, value)
    else:
        plates, pair_runs = _windows(ranks, 3), _windows(ranks, 2)
        size = table.size // 5
        found = _plates_with_pairs(plates, pair_runs, size, value, table.second)
        found.sort(key=_READING_OF)
    if kind < Kind.SUITED_TRIPLE:
        return found + suited + top
    return suited + found + top


def patterns(ranks: list[Rank], table: Reading | None) -> list[Pattern]:
    """The rank patterns that may lead (``table`` is ``None``) or beat ``table``."""
    if table is None:
        return lead_patterns(ranks)
    return beating_patterns(ranks, table, specials(ranks))


# ----------------------------------------------------------------------------
# listing


def count(found: list[Pattern]) -> int:
    """The number of distinct plays (card multisets) the patterns stand for."""
    total = 0
    for pattern in found:
        total += pattern.ways
    return total


def listed(pattern: Pattern, complete: bool) -> Plays:
    """The plays a listing shows for ``pattern``: every one in a complete listing, else its
    canonical play alone. A listing is complete when its patterns stand for at most
    ``limit`` plays (:func:`count`); an incomplete one may then be longer than ``limit``."""
    if complete:
        plays = pattern.spelled
        return plays if plays is not None else pattern.plays()
    return pattern.canonical()


# ----------------------------------------------------------------------------
# plays


class HandPlays:
    """The legal plays of one hand (a counts vector of 54)."""

    __slots__ = ("ranks",)

    def __init__(self, counts: Sequence[int]) -> None:
        self.ranks = ranks_in(counts)

    def count(self, table: Reading | None) -> int:
        """The number of distinct legal plays (card multisets), without listing them."""
        return count(patterns(self.ranks, table))

    def legal(self, table: Reading | None, limit: int) -> tuple[list[Play], bool]:
        """The plays that may lead (``table`` is ``None``) or beat ``table``, and whether
        that list is complete.

        Complete when there are at most ``limit`` distinct plays; otherwise one
        play per rank pattern, its suits chosen canonically (the list may then
        be longer than ``limit``). Sorted by reading. The caller may keep or
        change the list.
        """
        found = patterns(self.ranks, table)
        complete = count(found) <= limit
        return [(a.cards, p.reading) for p in found for a in listed(p, complete)], complete


def legal_plays(
    counts: Sequence[int], table: Reading | None, limit: int
) -> tuple[list[Play], bool]:
    """The legal plays of a hand (see :meth:`HandPlays.legal`)."""
    return HandPlays(counts).legal(table, limit)
