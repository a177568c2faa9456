"""Every distinct legal play of a Guandan hand (GD-6 … GD-10).

A play is a multiset of cards plus, only when the cards can be read as two kinds,
the kind it is made as. Plays that differ only in which of two identical cards
is used are one play (cards are a multiset); plays that use the wild card as
different cards are different plays exactly when they leave different cards in
hand. Each play is made at its strongest reading (:func:`combos.play_readings`).

The generators work on a counts vector and build each kind from per-rank
choices of suits, so they never enumerate subsets of the hand. Plays come in
groups (one per non-bomb kind, and one for all bombs) that a :class:`HandPlays`
builds when first asked and keeps while the hand does not change. A group keeps each
play as its cards (and the kind it names, if any): a decision's actions are made only
when a caller asks for them (:class:`~arena.games.guandan.listing.Plays`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from functools import cache
from itertools import product
from operator import itemgetter
from typing import Final

from arena.cards import BIG_JOKER, RANK_ACE, SMALL_JOKER, Card
from arena.games.base import Action
from arena.games.guandan.combos import (
    BIG_JOKER_VALUE,
    KIND_LABELS,
    LEVEL_VALUE,
    SMALL_JOKER_VALUE,
    Kind,
    Reading,
    beats,
    card_value,
    position_rank,
    rank_value,
    reading,
    wild_card,
)
from arena.games.guandan.listing import Plays

Play = tuple[Action, Reading]
"""A legal play: the action (sorted cards, and the kind when it must be named) and its reading."""

Cards = tuple[Card, ...]
"""A play's cards, sorted (the engine keeps plays as their cards: actions are made only
when a listing is asked for them, :class:`Plays`)."""
_Raw = tuple[Cards, Reading]


class _ByValue:
    """Plays of one kind and size gathered by value, each value's in the order they came:
    listed value by value, they are in the order a stable sort by reading gives.

    ``tagged``: the plays may name their kind (runs), kept per play."""

    __slots__ = ("cards", "readings", "tags")

    def __init__(self, tagged: bool = False) -> None:
        self.cards: list[list[Cards]] = [[] for _ in range(_VALUES)]
        self.readings: list[Reading | None] = [None] * _VALUES
        self.tags: list[list[str]] | None = [[] for _ in range(_VALUES)] if tagged else None

    def add(self, cards: Cards, combo: Reading) -> None:
        self.extend(combo, [cards])

    def extend(self, combo: Reading, cards: list[Cards], tag: str = "") -> None:
        """Add plays of ``cards``, all read as ``combo`` (made as ``tag`` when not empty)."""
        value = combo.value
        self.cards[value] += cards
        self.readings[value] = combo
        tags = self.tags
        if tags is not None:
            tags[value] += [tag] * len(cards)

    def group(self) -> _Group:
        cards: list[Cards] = []
        readings: list[Reading] = []
        tags: list[str] | None = [] if self.tags is not None else None
        for value in range(_VALUES):
            combo = self.readings[value]
            if combo is not None:
                bucket = self.cards[value]
                cards += bucket
                readings += [combo] * len(bucket)
                if tags is not None and self.tags is not None:
                    tags += self.tags[value]
        return _Group(cards, readings, tags if tags is not None and any(tags) else None)


@cache
def _suit_choices(suit_counts: tuple[int, int, int, int], k: int) -> tuple[tuple[int, ...], ...]:
    """Distinct multisets of ``k`` suits drawn from ``suit_counts`` (sorted suits)."""
    found: list[tuple[int, ...]] = []

    def extend(suit: int, remaining: int, taken: tuple[int, ...]) -> None:
        if remaining == 0:
            found.append(taken)
        elif suit < 4:
            for take in range(min(suit_counts[suit], remaining), -1, -1):
                extend(suit + 1, remaining - take, taken + (suit,) * take)

    extend(0, k, ())
    return tuple(found)


@cache
def _wild_spreads(length: int, width: int, wilds: int) -> tuple[tuple[int, ...], ...]:
    """Ways to spread at most ``wilds`` wild cards over ``length`` sets of ``width``."""
    spreads = product(range(min(width, wilds) + 1), repeat=length)
    return tuple(s for s in spreads if sum(s) <= wilds)


class _Hand:
    """Per-rank views of a counts vector, with the wild cards set apart."""

    __slots__ = (
        "_singles",
        "choices",
        "counts",
        "level",
        "naturals",
        "pools",
        "wild",
        "wilds",
    )

    def __init__(self, counts: Sequence[int], level: int) -> None:
        self.counts = counts = tuple(counts)
        self.level = level
        self.wild = wild = wild_card(level)
        self.wilds = counts[wild]
        pools = [counts[base : base + 4] for base in range(0, 52, 4)]
        if self.wilds:
            pool = pools[level]
            pools[level] = (pool[0], 0, pool[2], pool[3])
        self.pools = pools
        self.naturals = [sum(pool) for pool in pools]
        self.choices: list[list[tuple[Card, ...]] | None] = [None] * (13 * _MOST_TAKEN)
        self._singles: list[list[Card]] | None = None

    @property
    def singles(self) -> list[list[Card]]:
        """Per rank, the distinct natural cards held."""
        if self._singles is None:
            self._singles = [
                [r * 4 + s for s in range(4) if pool[s]] for r, pool in enumerate(self.pools)
            ]
        return self._singles

    def take(self, rank: int, k: int) -> list[tuple[Card, ...]]:
        """Every distinct choice of ``k`` natural cards of ``rank``."""
        key = rank * _MOST_TAKEN + k
        found = self.choices[key]
        if found is None:
            base = rank * 4
            found = [
                tuple([base + s for s in suits]) for suits in _suit_choices(self.pools[rank], k)
            ]
            self.choices[key] = found
        return found

    def suit_masks(self) -> list[int]:
        """Per suit, a bit per sequence position (0 = low ace … 13 = ace) held naturally."""
        masks = [0, 0, 0, 0]
        for bits, pool in zip(_POSITION_BITS, self.pools, strict=True):
            for suit in _SUITS_HELD[pool]:
                masks[suit] |= bits
        return masks


_MOST_TAKEN: Final = 9
"""One more than the most cards of one rank a hand can hold (two decks: 8)."""


def _with_wilds(naturals: tuple[Card, ...], wild: Card, n: int) -> tuple[Card, ...]:
    return tuple(sorted(naturals + (wild,) * n)) if n else naturals


# ----------------------------------------------------------------------------
# one generator per group


_SINGLE_CARDS: Final = tuple([(card,) for card in range(54)])
"""The cards of the single-card play of every card (the same objects every time)."""


@cache
def _single_readings(level: int) -> tuple[Reading, ...]:
    """The reading of the single-card play of every card, at a level."""
    return tuple([reading(Kind.SINGLE, card_value(card, level), 1) for card in range(54)])


def _singles(hand: _Hand, out: _ByValue) -> None:
    readings = _single_readings(hand.level)
    for card, n in enumerate(hand.counts):
        if n:
            out.add(_SINGLE_CARDS[card], readings[card])


def _sets(hand: _Hand, width: int, kind: Kind, out: _ByValue) -> None:
    """Pairs (width 2) and triples (width 3), the wild cards filling in."""
    wild, wilds = hand.wild, hand.wilds
    for rank, natural in enumerate(hand.naturals):
        if natural + wilds < width or not natural:
            continue
        combo = reading(kind, rank_value(rank, hand.level), width)
        for used in range(min(wilds, width - 1) + 1):
            if natural >= width - used:
                out.extend(
                    combo,
                    [_with_wilds(cards, wild, used) for cards in hand.take(rank, width - used)],
                )
    if width == 2:
        if wilds == 2:
            out.add((wild, wild), reading(Kind.PAIR, LEVEL_VALUE, 2))
        for joker, value in ((SMALL_JOKER, SMALL_JOKER_VALUE), (BIG_JOKER, BIG_JOKER_VALUE)):
            if hand.counts[joker] == 2:
                out.add((joker, joker), reading(Kind.PAIR, value, 2))


_Part = tuple[int, int, tuple[Card, ...]]
"""Part of a full house: rank, wild cards used, natural cards."""


def _parts(hand: _Hand, width: int, most_wilds: int) -> list[_Part]:
    """Every (rank, wild cards used, natural cards) making ``width`` cards of one rank."""
    return [
        (rank, used, cards)
        for rank in range(13)
        for used in range(min(hand.wilds, most_wilds) + 1)
        if hand.naturals[rank] >= width - used
        for cards in hand.take(rank, width - used)
    ]


def _full_houses(hand: _Hand, out: _ByValue) -> None:
    """Triple + pair of another rank; the pair may be two identical jokers.

    A pair made of the two wild cards alone is left out: with a natural triple
    they are a 5-card bomb, which dominates (:func:`combos.play_readings`).

    Each play comes once, at its strongest reading: cards such as ``3 3 4 4`` and a
    wild card (or ``3 4 4`` and both) read as a full house of either rank; they come
    where the triple of the lower rank index makes them, at the higher value.
    """
    wild, wilds = hand.wild, hand.wilds
    triples = _parts(hand, 3, most_wilds=2)
    if not triples:
        return
    pairs = _parts(hand, 2, most_wilds=1)
    pairs.extend(
        (joker, 0, (joker, joker)) for joker in (SMALL_JOKER, BIG_JOKER) if hand.counts[joker] == 2
    )
    natural_pairs = [(rank, cards) for rank, used, cards in pairs if not used]
    # the pairs each triple may take with the wild cards left: 0 < wild cards used <= wilds
    with_wilds = [
        [
            (rank, tuple(sorted(cards + (wild,) * (t_used + used))))
            for rank, used, cards in pairs
            if 0 < t_used + used <= wilds
        ]
        for t_used in range(3)
    ]
    by_rank = [reading(Kind.FULL_HOUSE, rank_value(rank, hand.level), 5) for rank in range(13)]
    for t_rank, t_used, t_cards in triples:
        combo = by_rank[t_rank]
        if not t_used:
            # natural parts are sorted, and so is the rank order: no sort needed (hot path)
            out.extend(
                combo,
                [
                    t_cards + p_cards if t_rank < p_rank else p_cards + t_cards
                    for p_rank, p_cards in natural_pairs
                    if p_rank != t_rank
                ],
            )
        if not wilds:
            continue
        if not t_used:
            out.extend(
                combo,
                [
                    _merged(t_cards, p_cards)
                    for p_rank, p_cards in with_wilds[0]
                    if p_rank != t_rank
                ],
            )
            continue
        # a triple with a wild card and a pair of another rank: the pair's rank can be
        # the triple with the wild cards moved (made by the lower rank index first)
        stronger = [other if other.value > combo.value else combo for other in by_rank]
        for p_rank, p_cards in with_wilds[t_used]:
            if p_rank > t_rank:
                out.add(
                    _merged(t_cards, p_cards),
                    stronger[p_rank] if p_rank < len(stronger) else combo,
                )


def _merged(low: tuple[Card, ...], high: tuple[Card, ...]) -> tuple[Card, ...]:
    """Two sorted tuples of cards as one sorted tuple (most often one goes before the other)."""
    if low[-1] <= high[0]:
        return low + high
    if high[-1] <= low[0]:
        return high + low
    return tuple(sorted(low + high))


def _straights(hand: _Hand, out: _ByValue) -> None:
    """Five consecutive ranks whose natural cards are not all of one suit (GD-7).

    Each play comes once, at its strongest reading: natural cards of fewer than five
    ranks with wild cards fit several windows (``3 4 5 6`` and a wild card: a
    straight to 6 or to 7); they come where the lowest window makes them, read in
    the highest.
    """
    wild, wilds, singles, level = hand.wild, hand.wilds, hand.singles, hand.level
    by_top = [reading(Kind.STRAIGHT, start + 5, 5) for start in range(10)]
    suits_of = [_SUIT_MASK[pool] for pool in hand.pools]
    for start in range(10):
        ranks = _POSITION_RANKS[start : start + 5]
        options = [singles[r] for r in ranks]
        missing = tuple([i for i in range(5) if not options[i]])
        if len(missing) > wilds:
            continue
        # with the ranks ascending and none of them the wild card's, the cards come
        # sorted, the wild cards after the ranks below theirs
        ascending = start > 0 and level not in ranks
        for held in _held_positions(missing, wilds):
            if start and held[-1] != 4:
                continue  # the window one lower holds these naturals too: made there
            combo = by_top[min(start + held[0], 9)]  # the highest window holding them
            chosen = [options[i] for i in held]
            common = 15
            for i in held:
                common &= suits_of[ranks[i]]
            # choices all of one suit are straight flushes, not straights
            flushes = [tuple([ranks[i] * 4 + suit for i in held]) for suit in _SUITS[common]]
            filled = 5 - len(held)
            if ascending or (start > 0 and level not in [ranks[i] for i in held]):
                if filled:
                    at = sum([1 for i in held if ranks[i] < level])
                    extra = (wild,) * filled
                    chosen[at:at] = [[wild]] * filled
                    flushes = [f[:at] + extra + f[at:] for f in flushes]
                plays: list[Cards] = list(product(*chosen))
                out.extend(combo, _without(plays, chosen, flushes) if flushes else plays)
                continue
            extra = (wild,) * filled
            plays = [tuple(sorted(n + extra)) for n in product(*chosen)]
            out.extend(combo, _without(plays, chosen, flushes))


def _without(plays: list[Cards], chosen: list[list[Card]], left_out: list[Cards]) -> list[Cards]:
    """``plays``, one per choice of a card from each of ``chosen`` in product order, but
    those of the choices ``left_out`` (each among them once): found by their place."""
    places: list[int] = []
    for cards in left_out:
        place = 0
        for i in range(len(chosen)):
            options = chosen[i]
            place = place * len(options) + options.index(cards[i])
        places.append(place)
    places.sort(reverse=True)
    for place in places:
        del plays[place]
    return plays


_SUIT_MASK: Final = {
    pool: sum(1 << s for s in range(4) if pool[s]) for pool in product(range(3), repeat=4)
}
"""For each per-suit count of one rank (two decks: 0..2), a bit per suit held."""
_SUITS: Final = [tuple(s for s in range(4) if mask >> s & 1) for mask in range(16)]
"""The suits of a mask of suits."""


def _straight_flushes(hand: _Hand, out: list[_Raw]) -> None:
    """Five consecutive ranks in one suit, the wild cards filling in."""
    wild, wilds = hand.wild, hand.wilds
    for suit, mask in enumerate(hand.suit_masks()):
        if _POPCOUNT[mask] + wilds < 5:
            continue
        for start in range(10):
            window = (mask >> start) & 31
            if _POPCOUNT[window] + wilds < 5 or not window:
                continue
            combo = reading(Kind.STRAIGHT_FLUSH, start + 5, 5)
            missing = [i for i in range(5) if not window >> i & 1]
            for filled in _wild_slots(missing, 5, wilds):
                cards = tuple(
                    wild if i in filled else position_rank(start + i) * 4 + suit for i in range(5)
                )
                out.append((tuple(sorted(cards)), combo))


_POPCOUNT: Final = [bin(i).count("1") for i in range(1 << 14)]
_POSITION_RANKS: Final = [position_rank(p) for p in range(14)]
_SUITS_HELD: Final = {
    pool: tuple(s for s in range(4) if pool[s]) for pool in product(range(3), repeat=4)
}
"""For each per-suit count of one rank (two decks: 0..2), the suits held."""
_POSITION_BITS: Final = [(1 << (rank + 1)) | (1 if rank == RANK_ACE else 0) for rank in range(13)]
"""Per rank, its bits in a mask of sequence positions (the ace is both 0 and 13)."""


@cache
def _held_positions(missing: tuple[int, ...], wilds: int) -> tuple[tuple[int, ...], ...]:
    """For each set of :func:`_wild_slots` of a 5-card window, the positions left to the
    natural cards."""
    return tuple(
        tuple([i for i in range(5) if i not in filled]) for filled in _wild_slots(missing, 5, wilds)
    )


def _wild_slots(missing: Sequence[int], length: int, wilds: int) -> list[frozenset[int]]:
    """Sets of positions the wild cards fill: all missing ones, plus optional others."""
    base = frozenset(missing)
    slots = [base]
    spare = wilds - len(missing)
    others = [i for i in range(length) if i not in base]
    if spare >= 1:
        slots.extend(base | {i} for i in others)
    if spare >= 2:
        slots.extend(base | {i, j} for a, i in enumerate(others) for j in others[a + 1 :])
    return slots


# Spreads of the two wild cards over a run whose natural cards are then two
# adjacent pairs: such cards are both 3 consecutive pairs and 2 consecutive
# triples, so the play must name its kind.
_TWO_KIND_SPREADS: Final = (
    frozenset({(0, 0, 2), (2, 0, 0)}),  # pair runs
    frozenset({(1, 1)}),  # triple runs
)
_WILD_PAIR_LOW: Final = (2, 0, 0)
"""Both wild cards as the lowest pair of a pair run: the same cards as both as the
highest pair of the window one higher (:data:`_WILD_PAIR_HIGH`)."""
_WILD_PAIR_HIGH: Final = (0, 0, 2)


def _runs(hand: _Hand, width: int, length: int, kind: Kind, out: _ByValue) -> None:
    """3 consecutive pairs (width 2, length 3) or 2 consecutive triples (width 3, length 2).

    Each play comes once, at its strongest reading: natural cards of two adjacent pairs
    with both wild cards read as a pair run in two windows (the wild cards below them
    or above them); they come where the lower window makes them, read in the higher.
    """
    wild, wilds, naturals = hand.wild, hand.wilds, hand.naturals
    spreads = _wild_spreads(length, width, wilds)
    pair_runs = width == 2
    two_kinds = _TWO_KIND_SPREADS[0 if pair_runs else 1]
    label = KIND_LABELS[kind]
    size = width * length
    last = 14 - length  # the highest window's start
    short = [width - n if n < width else 0 for n in naturals]
    for start in range(15 - length):
        ranks = _POSITION_RANKS[start : start + length]
        if sum([short[r] for r in ranks]) > wilds:
            continue  # not enough cards for this window even with every wild card
        combo = reading(kind, start + length, size)
        for spread in spreads:
            if pair_runs and start and spread == _WILD_PAIR_HIGH:
                continue  # made by the window one lower
            parts = [
                hand.take(r, width - u) if naturals[r] >= width - u else []
                for r, u in zip(ranks, spread, strict=True)
            ]
            if not all(parts):
                continue
            used = sum(spread)
            tag = label if spread in two_kinds else ""
            read = combo
            if pair_runs and start < last and spread == _WILD_PAIR_LOW:
                read = reading(kind, start + length + 1, size)
            joined = _joined(parts, (wild,) * used)
            # the parts' cards in rank order: sorted unless wild cards or the low ace come in
            if not used and start > 0:
                out.extend(read, joined, tag)
            else:
                out.extend(
                    read,
                    [tuple(sorted(cards)) for cards in joined],
                    tag,
                )


def _joined(parts: list[list[tuple[Card, ...]]], first: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    """``first`` followed by one choice of each part, for every choice, in product order."""
    if len(parts) == 2:
        return [first + a + b for a in parts[0] for b in parts[1]]
    joined: list[tuple[Card, ...]] = []
    for a in parts[0]:
        for b in parts[1]:
            ab = first + a + b
            joined.extend([ab + c for c in parts[2]])
    return joined


def _bombs(hand: _Hand, out: list[_Raw]) -> None:
    """4 to 10 cards of one rank (the wild cards filling in) and the joker bomb."""
    wild, wilds = hand.wild, hand.wilds
    for rank in range(13):
        natural = hand.naturals[rank]
        if natural + wilds < 4:
            continue
        value = rank_value(rank, hand.level)
        for used in range(wilds + 1):
            for k in range(max(4 - used, 1), natural + 1):
                combo = reading(Kind.BOMB, value, k + used)
                for cards in hand.take(rank, k):
                    out.append((_with_wilds(cards, wild, used), combo))
    counts = hand.counts
    if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2:
        joker_bomb = reading(Kind.JOKER_BOMB, BIG_JOKER_VALUE, 4)
        out.append(((SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER), joker_bomb))


BOMBS = "bombs"
"""The group of every bomb-class play (straight flushes, bombs, the joker bomb)."""

_NON_BOMB_KINDS = (
    Kind.SINGLE,
    Kind.PAIR,
    Kind.TRIPLE,
    Kind.FULL_HOUSE,
    Kind.PAIR_RUN,
    Kind.TRIPLE_RUN,
    Kind.STRAIGHT,
)


def _generate(hand: _Hand, slot: int, out: _ByValue) -> None:
    """The plays of a non-bomb kind's group; its generator makes each play once: cards
    of one rank are chosen once each, and the plays that several readings make are made
    once, at the strongest."""
    if slot == Kind.SINGLE:
        _singles(hand, out)
    elif slot == Kind.PAIR:
        _sets(hand, 2, Kind.PAIR, out)
    elif slot == Kind.TRIPLE:
        _sets(hand, 3, Kind.TRIPLE, out)
    elif slot == Kind.FULL_HOUSE:
        _full_houses(hand, out)
    elif slot == Kind.PAIR_RUN:
        _runs(hand, 2, 3, Kind.PAIR_RUN, out)
    elif slot == Kind.TRIPLE_RUN:
        _runs(hand, 3, 2, Kind.TRIPLE_RUN, out)
    else:
        _straights(hand, out)


class _Group:
    """The plays of one group, sorted by reading: their cards, readings and named kinds
    (``tags``; ``None`` when none names its kind) side by side."""

    __slots__ = ("cards", "readings", "tags")

    def __init__(
        self, cards: list[Cards], readings: list[Reading], tags: list[str] | None = None
    ) -> None:
        self.cards = cards
        self.readings = readings
        self.tags = tags

    @property
    def actions(self) -> Plays:
        """The plays' actions."""
        return Plays(None, self.cards, self.tags)

    def kept(self, counts: tuple[int, ...]) -> _Group:
        """The plays a smaller hand, ``counts``, still holds (this group's hand held them all).

        The generators list plays in an order that depends only on each play's cards,
        so the plays a smaller hand keeps come in the order it would list them in.
        """
        cards = self.cards
        size = len(cards)
        first = 0
        while first < size and _held(cards[first], counts):
            first += 1
        if first == size:
            return self
        readings, tags = self.readings, self.tags
        kept_cards, kept_readings = cards[:first], readings[:first]
        kept_tags = tags[:first] if tags is not None else None
        for index in range(first + 1, size):
            played = cards[index]
            if _held(played, counts):
                kept_cards.append(played)
                kept_readings.append(readings[index])
                if tags is not None and kept_tags is not None:
                    kept_tags.append(tags[index])
        return _Group(kept_cards, kept_readings, kept_tags)


def _held(cards: tuple[Card, ...], counts: tuple[int, ...]) -> bool:
    """Whether a hand of ``counts`` holds ``cards`` (sorted; no card more than twice)."""
    previous = -1
    for card in cards:
        held = counts[card]
        if not held or (held == 1 and card == previous):
            return False
        previous = card
    return True


_VALUE: Final = itemgetter(2)


_BOMBS_SLOT: Final = 7
"""Where a hand keeps its :data:`BOMBS` group (the non-bomb kinds keep theirs at their number)."""
_SLOTS: Final = 8
_NON_BOMB_SLOTS: Final = tuple(int(kind) for kind in _NON_BOMB_KINDS)
_VALUES: Final = 18
"""Readings' values are below this (the big joker's is the highest)."""


def _slot(key: Kind | str) -> int:
    if key == BOMBS:
        return _BOMBS_SLOT
    if isinstance(key, Kind) and key in _NON_BOMB_KINDS:
        return int(key)
    raise ValueError(f"no play group {key!r}")


class HandPlays:
    """Every distinct play of one hand, group by group, each computed when first needed.

    A group is a non-bomb kind or :data:`BOMBS`; plays are sorted by their
    reading (kind, size, value). A state keeps one per seat until that seat's
    hand changes, so the decisions between two plays of a seat share its groups;
    after a play, :meth:`after_play` keeps the groups already listed, minus the
    plays whose cards are gone, rather than listing them again.
    """

    __slots__ = ("_counts", "_groups", "_hand", "_inherited", "level")

    def __init__(
        self, counts: Sequence[int], level: int, inherited: list[_Group | None] | None = None
    ) -> None:
        self._counts = tuple(counts)
        self.level = level
        self._groups: list[_Group | None] = [None] * _SLOTS
        self._inherited: list[_Group | None] = (
            inherited if inherited is not None else [None] * _SLOTS
        )
        self._hand: _Hand | None = None

    @property
    def hand(self) -> _Hand:
        hand = self._hand
        if hand is None:
            hand = self._hand = _Hand(self._counts, self.level)
        return hand

    def after_play(self, counts: Sequence[int]) -> HandPlays:
        """The plays of the hand left once some of its cards are played (``counts``: that
        hand)."""
        groups, inherited = self._groups, self._inherited
        latest: list[_Group | None] = [
            groups[slot] if groups[slot] is not None else inherited[slot] for slot in range(_SLOTS)
        ]
        return HandPlays(counts, self.level, latest)

    def options(
        self, table: Reading | None, first: Action | None = None
    ) -> tuple[Plays, list[Reading]]:
        """The actions and readings of the plays that may lead (``table`` is ``None``) or
        beat ``table`` (GD-9, GD-10), in order; the actions after ``first`` if given
        (the pass), made only when asked for."""
        bombs = self._group(_BOMBS_SLOT)
        if table is None:
            cards: list[Cards] = []
            readings: list[Reading] = []
            tags: list[str] | None = None
            for slot in _NON_BOMB_SLOTS:
                group = self._group(slot)
                if group.tags is not None:
                    tags = (tags or [""] * len(cards)) + group.tags
                elif tags is not None:
                    tags += [""] * len(group.cards)
                cards += group.cards
                readings += group.readings
            if tags is not None:
                tags += [""] * len(bombs.cards)
            cards += bombs.cards
            readings += bombs.readings
            return Plays(first, cards, tags), readings
        if table.power:
            chosen = [i for i, combo in enumerate(bombs.readings) if beats(combo, table)]
            return (
                Plays(first, [bombs.cards[i] for i in chosen], None),
                [bombs.readings[i] for i in chosen],
            )
        group = self._group(int(table.kind))  # one size per non-bomb kind: sorted by value
        start = bisect_right(group.readings, table.value, key=_VALUE)
        tags = group.tags
        if tags is not None:
            tags = tags[start:] + [""] * len(bombs.cards)
        return (
            Plays(first, group.cards[start:] + bombs.cards, tags),
            group.readings[start:] + bombs.readings,
        )

    def legal(self, table: Reading | None) -> list[Play]:
        """The plays that may lead (``table`` is ``None``) or beat ``table`` (GD-9, GD-10)."""
        actions, readings = self.options(table)
        return list(zip(actions, readings, strict=True))

    def group(self, key: Kind | str) -> _Group:
        """The plays of one group: a non-bomb kind or :data:`BOMBS`."""
        return self._group(_slot(key))

    def _group(self, slot: int) -> _Group:
        found = self._groups[slot]
        if found is None:
            source = self._inherited[slot]
            found = source.kept(self._counts) if source is not None else self._listed(slot)
            self._groups[slot] = found
        return found

    def _listed(self, slot: int) -> _Group:
        """The plays of a group listed afresh from the hand, in order."""
        hand = self.hand
        if slot != _BOMBS_SLOT:
            by_value = _ByValue(tagged=slot == Kind.PAIR_RUN or slot == Kind.TRIPLE_RUN)
            _generate(hand, slot, by_value)
            return by_value.group()
        plays: list[_Raw] = []
        _straight_flushes(hand, plays)
        _bombs(hand, plays)
        if hand.wilds:
            plays = _merge(plays)
        plays.sort(key=_READING)
        return _Group(list(map(_CARDS, plays)), list(map(_READING, plays)))


_CARDS: Final = itemgetter(0)
_READING: Final = itemgetter(1)


def _merge(raw: list[_Raw]) -> list[_Raw]:
    """Keep one play per cards (bombs name no kind), at its strongest reading, where the
    cards first came.

    Within one group the same cards can differ only in value (``3 4 5 6`` and a
    wild card: a straight to 6 or to 7); the strongest reading stays. Readings of
    the same cards in one group have one kind, size and bomb power, so they order
    as their values do.
    """
    best: dict[Cards, Reading] = {}
    for cards, combo in raw:
        old = best.get(cards)
        if old is None or combo > old:
            best[cards] = combo
    return list(best.items())


def legal_plays(counts: Sequence[int], level: int, table: Reading | None) -> list[Play]:
    """Every distinct legal play of a hand, sorted by reading (kind, size, value)."""
    return HandPlays(counts, level).legal(table)
