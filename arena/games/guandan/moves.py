"""Every distinct legal play of a Guandan hand (GD-6 … GD-10).

A play is a multiset of cards plus, only when the cards can be read as two kinds,
the kind it is made as. Plays that differ only in which of two identical cards
is used are one play (cards are a multiset); plays that use the wild card as
different cards are different plays exactly when they leave different cards in
hand. Each play is made at its strongest reading (:func:`combos.play_readings`).

The generator works on a counts vector (54 entries) and builds each kind from
per-rank choices of suits, so it never enumerates subsets of the hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import product

from arena.cards import BIG_JOKER, SMALL_JOKER, Card
from arena.games.guandan.combos import (
    BIG_JOKER_VALUE,
    LEVEL_VALUE,
    SMALL_JOKER_VALUE,
    Kind,
    Reading,
    beats,
    card_value,
    position_rank,
    rank_value,
    readings,
    reduce_readings,
    wild_card,
)

Candidate = tuple[tuple[Card, ...], Reading]
Play = tuple[tuple[Card, ...], str, Reading]
"""A legal play: its sorted cards, its tag (``""`` or the kind label) and its reading."""


@lru_cache(maxsize=None)
def _suit_choices(suit_counts: tuple[int, int, int, int], k: int) -> tuple[tuple[int, ...], ...]:
    """Distinct multisets of ``k`` suits drawn from ``suit_counts`` (sorted suits)."""
    found: list[tuple[int, ...]] = []

    def extend(suit: int, remaining: int, taken: tuple[int, ...]) -> None:
        if remaining == 0:
            found.append(taken)
            return
        if suit == 4:
            return
        for take in range(min(suit_counts[suit], remaining), -1, -1):
            extend(suit + 1, remaining - take, taken + (suit,) * take)

    extend(0, k, ())
    return tuple(found)


class _Hand:
    """Per-rank views of a counts vector, with the wild cards set apart."""

    __slots__ = ("choices", "counts", "level", "naturals", "pools", "wild", "wilds")

    def __init__(self, counts: Sequence[int], level: int) -> None:
        self.counts = counts
        self.level = level
        self.wild = wild_card(level)
        self.wilds = counts[self.wild]
        pools = []
        for rank in range(13):
            base = rank * 4
            pool = (counts[base], counts[base + 1], counts[base + 2], counts[base + 3])
            if rank == level:
                pool = (pool[0], 0, pool[2], pool[3])
            pools.append(pool)
        self.pools = pools
        self.naturals = [sum(p) for p in pools]
        self.choices: dict[tuple[int, int], list[tuple[Card, ...]]] = {}

    def take(self, rank: int, k: int) -> list[tuple[Card, ...]]:
        """Every distinct choice of ``k`` natural cards of ``rank``."""
        key = (rank, k)
        found = self.choices.get(key)
        if found is None:
            base = rank * 4
            found = [
                tuple(base + s for s in suits) for suits in _suit_choices(self.pools[rank], k)
            ]
            self.choices[key] = found
        return found


def _sorted_with(naturals: tuple[Card, ...], wild: Card, n: int) -> tuple[Card, ...]:
    return tuple(sorted(naturals + (wild,) * n)) if n else naturals


# ----------------------------------------------------------------------------
# one generator per kind; ``low`` is the value a candidate must exceed


def _singles(hand: _Hand, low: int, out: list[Candidate]) -> None:
    counts, level = hand.counts, hand.level
    for card in range(54):
        if counts[card]:
            value = card_value(card, level)
            if value > low:
                out.append(((card,), Reading(Kind.SINGLE, value, 1)))


def _sets(hand: _Hand, width: int, kind: Kind, low: int, out: list[Candidate]) -> None:
    """Pairs (width 2) and triples (width 3), the wild cards filling in."""
    wild, wilds = hand.wild, hand.wilds
    for rank in range(13):
        value = rank_value(rank, hand.level)
        if value <= low:
            continue
        for used in range(min(wilds, width - 1) + 1):
            if hand.naturals[rank] < width - used:
                continue
            reading = Reading(kind, value, width)
            for cards in hand.take(rank, width - used):
                out.append((_sorted_with(cards, wild, used), reading))
    if width == 2:
        if wilds == 2 and LEVEL_VALUE > low:
            out.append(((wild, wild), Reading(Kind.PAIR, LEVEL_VALUE, 2)))
        for joker, value in ((SMALL_JOKER, SMALL_JOKER_VALUE), (BIG_JOKER, BIG_JOKER_VALUE)):
            if hand.counts[joker] == 2 and value > low:
                out.append(((joker, joker), Reading(Kind.PAIR, value, 2)))


def _full_houses(hand: _Hand, low: int, out: list[Candidate]) -> None:
    """Triple + pair of another rank (the pair may be two identical jokers)."""
    wild, wilds = hand.wild, hand.wilds
    triples = []
    for rank in range(13):
        value = rank_value(rank, hand.level)
        if value <= low:
            continue
        for used in range(min(wilds, 2) + 1):
            if hand.naturals[rank] >= 3 - used:
                triples.extend((rank, used, value, c) for c in hand.take(rank, 3 - used))
    if not triples:
        return
    pairs = []
    for rank in range(13):
        for used in range(min(wilds, 1) + 1):
            if hand.naturals[rank] >= 2 - used:
                pairs.extend((rank, used, c) for c in hand.take(rank, 2 - used))
    for joker in (SMALL_JOKER, BIG_JOKER):
        if hand.counts[joker] == 2:
            pairs.append((joker, 0, (joker, joker)))
    for t_rank, t_used, value, t_cards in triples:
        reading = Reading(Kind.FULL_HOUSE, value, 5)
        for p_rank, p_used, p_cards in pairs:
            used = t_used + p_used
            if p_rank != t_rank and used <= wilds:
                out.append((tuple(sorted(t_cards + p_cards + (wild,) * used)), reading))


def _straights(hand: _Hand, low: int, out: list[Candidate]) -> None:
    """Five consecutive ranks whose natural cards are not all of one suit (GD-7)."""
    wild, wilds, pools = hand.wild, hand.wilds, hand.pools
    for start in range(10):
        value = start + 5
        if value <= low:
            continue
        ranks = [position_rank(p) for p in range(start, start + 5)]
        options = [
            [rank * 4 + s for s in range(4) if pools[rank][s]] for rank in ranks
        ]
        missing = [i for i, cards in enumerate(options) if not cards]
        if len(missing) > wilds:
            continue
        reading = Reading(Kind.STRAIGHT, value, 5)
        for filled in _wild_slots(missing, 5, wilds):
            chosen = [[wild] if i in filled else options[i] for i in range(5)]
            for cards in product(*chosen):
                suits = {c & 3 for c in cards if c != wild}
                if len(suits) > 1:
                    out.append((tuple(sorted(cards)), reading))


def _straight_flushes(hand: _Hand, low: int, out: list[Candidate]) -> None:
    """Five consecutive ranks in one suit, the wild cards filling in."""
    wild, wilds, pools = hand.wild, hand.wilds, hand.pools
    for start in range(10):
        value = start + 5
        if value <= low:
            continue
        ranks = [position_rank(p) for p in range(start, start + 5)]
        reading = Reading(Kind.STRAIGHT_FLUSH, value, 5)
        for suit in range(4):
            missing = [i for i, rank in enumerate(ranks) if not pools[rank][suit]]
            if len(missing) > wilds:
                continue
            for filled in _wild_slots(missing, 5, wilds):
                if len(filled) == 5:
                    continue
                cards = tuple(
                    wild if i in filled else ranks[i] * 4 + suit for i in range(5)
                )
                out.append((tuple(sorted(cards)), reading))


def _wild_slots(missing: list[int], length: int, wilds: int) -> list[frozenset[int]]:
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


def _runs(hand: _Hand, width: int, length: int, kind: Kind, low: int, out: list[Candidate]) -> None:
    """3 consecutive pairs (width 2, length 3) or 2 consecutive triples (width 3, length 2)."""
    wild, wilds = hand.wild, hand.wilds
    for start in range(15 - length):
        value = start + length
        if value <= low:
            continue
        ranks = [position_rank(p) for p in range(start, start + length)]
        per_rank = []
        for rank in ranks:
            options = []
            for used in range(min(wilds, width) + 1):
                if hand.naturals[rank] >= width - used:
                    options.extend((used, c) for c in hand.take(rank, width - used))
            if not options:
                break
            per_rank.append(options)
        else:
            reading = Reading(kind, value, width * length)
            for combo in product(*per_rank):
                used = sum(u for u, _ in combo)
                if used > wilds:
                    continue
                cards = tuple(c for _, chosen in combo for c in chosen) + (wild,) * used
                out.append((tuple(sorted(cards)) if used or start == 0 else cards, reading))


def _bombs(hand: _Hand, out: list[Candidate]) -> None:
    """4 to 10 cards of one rank (the wild cards filling in) and the joker bomb."""
    wild, wilds = hand.wild, hand.wilds
    for rank in range(13):
        natural = hand.naturals[rank]
        if natural + wilds < 4:
            continue
        value = rank_value(rank, hand.level)
        for used in range(wilds + 1):
            for k in range(max(4 - used, 1), natural + 1):
                reading = Reading(Kind.BOMB, value, k + used)
                for cards in hand.take(rank, k):
                    out.append((_sorted_with(cards, wild, used), reading))
    counts = hand.counts
    if counts[SMALL_JOKER] == 2 and counts[BIG_JOKER] == 2:
        out.append(((SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER), Reading(Kind.JOKER_BOMB, BIG_JOKER_VALUE, 4)))


_NO_LIMIT = -1
_NEVER = 10**6


def candidates(counts: Sequence[int], level: int, table: Reading | None) -> list[Candidate]:
    """Raw candidates that might beat ``table`` (every combination when leading)."""
    hand = _Hand(counts, level)
    out: list[Candidate] = []
    low = {kind: _NEVER for kind in Kind}
    if table is None:
        low = {kind: _NO_LIMIT for kind in Kind}
    elif not table.power:
        low[table.kind] = table.value
        low[Kind.STRAIGHT_FLUSH] = _NO_LIMIT
    elif table.kind == Kind.STRAIGHT_FLUSH:
        low[Kind.STRAIGHT_FLUSH] = table.value
    elif table.power < 11:
        low[Kind.STRAIGHT_FLUSH] = _NO_LIMIT
    if low[Kind.SINGLE] < _NEVER:
        _singles(hand, low[Kind.SINGLE], out)
    if low[Kind.PAIR] < _NEVER:
        _sets(hand, 2, Kind.PAIR, low[Kind.PAIR], out)
    if low[Kind.TRIPLE] < _NEVER:
        _sets(hand, 3, Kind.TRIPLE, low[Kind.TRIPLE], out)
    if low[Kind.FULL_HOUSE] < _NEVER:
        _full_houses(hand, low[Kind.FULL_HOUSE], out)
    if low[Kind.STRAIGHT] < _NEVER:
        _straights(hand, low[Kind.STRAIGHT], out)
    if low[Kind.PAIR_RUN] < _NEVER:
        _runs(hand, 2, 3, Kind.PAIR_RUN, low[Kind.PAIR_RUN], out)
    if low[Kind.TRIPLE_RUN] < _NEVER:
        _runs(hand, 3, 2, Kind.TRIPLE_RUN, low[Kind.TRIPLE_RUN], out)
    if low[Kind.STRAIGHT_FLUSH] < _NEVER:
        _straight_flushes(hand, low[Kind.STRAIGHT_FLUSH], out)
    if table is None or table.kind != Kind.JOKER_BOMB:
        _bombs(hand, out)
    return out


def legal_plays(counts: Sequence[int], level: int, table: Reading | None) -> list[Play]:
    """Every distinct legal play, sorted by kind, value, then cards."""
    raw = candidates(counts, level, table)
    plays: list[Play]
    if counts[wild_card(level)] == 0:
        # without a wild card every multiset has exactly one reading
        plays = [(cards, "", r) for cards, r in raw if table is None or beats(r, table)]
    else:
        plays = _resolve_wild(raw, level, table)
    plays.sort(key=_order)
    return plays


def _resolve_wild(raw: list[Candidate], level: int, table: Reading | None) -> list[Play]:
    """Merge candidates that use the same cards, keep their strongest readings."""
    by_cards: dict[tuple[Card, ...], list[Reading]] = {}
    for cards, reading in raw:
        found = by_cards.get(cards)
        if found is None:
            by_cards[cards] = [reading]
        else:
            found.append(reading)
    plays: list[Play] = []
    for cards, found in by_cards.items():
        if len(cards) == 6 and found[0].kind in (Kind.PAIR_RUN, Kind.TRIPLE_RUN):
            found = readings(cards, level)  # the only shape two kinds can share
        kept = reduce_readings(found)
        tagged = len(kept) > 1
        for reading in kept:
            if table is None or beats(reading, table):
                plays.append((cards, reading.kind.label if tagged else "", reading))
    return plays


def _order(play: Play) -> tuple[int, int, int, tuple[Card, ...]]:
    cards, _, reading = play
    return (int(reading.kind), reading.size, reading.value, cards)
