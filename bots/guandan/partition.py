"""Split a Guandan hand into the combinations that shed it in the fewest plays.

The split follows the rules a player uses to read a hand:

* **bombs aside** — four or more natural cards of a rank, the four jokers, and a
  straight flush (natural, or with wild cards filling its gaps, GD-6) when taking it
  out costs no extra plays, are kept apart:
  they win the lead when it matters and are never broken up for small plays;
* **sequences or sets, lowest rank first** — a dynamic programme walks the ranks
  from the lowest: each rank either starts a sequence (straight, 3 consecutive
  pairs, 2 consecutive triples, the ace low or high) or is played as the set of its
  remaining cards (single, pair, triple);
* **full houses** — each triple takes the lowest free pair along;
* **the wild card where it completes the most** — a heart of the level rank fills a
  gap in a sequence or raises a set (single → pair → triple → bomb); one that helps
  nowhere stays a level card;
* **the cost** of a split is its number of plays to go out, plus a small penalty for
  low singles, pairs and triples (nobody lets them win a trick: they must be led),
  minus a bonus for each bomb.

A :class:`Splitter` remembers the sub-results of its programme across hands (they
depend on the cards and the level only), so hands that share cards — one seat's hands
in a deal, and the high ranks of any hands — are split cheaply. :func:`splitter`
gives the one splitter of a level that every bot of a process shares.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from arena.cards import BIG_JOKER, SMALL_JOKER, Card
from arena.games.guandan.combos import (
    BIG_JOKER_VALUE,
    LEVEL_VALUE,
    SMALL_JOKER_VALUE,
    Kind,
    Reading,
    play_readings,
    rank_value,
    reading,
    strength,
    wild_card,
)

__all__ = ["BOMB_KINDS", "Combo", "Partition", "Splitter", "splitter"]

BOMB_KINDS = frozenset({Kind.BOMB, Kind.STRAIGHT_FLUSH, Kind.JOKER_BOMB})

BOMB_COST = -0.6
"""A bomb is no play to go out, and it wins a lead back: a bonus."""
STRAIGHT_FLUSH_COST = BOMB_COST - 0.1
SET_PENALTY = {1: 0.35, 2: 0.25, 3: 0.15}
"""Per set width, the penalty of its lowest rank (scaled down to 0 at the level rank)."""
SEQUENCE_PENALTY = 0.15
"""The penalty of the lowest sequence (scaled down to 0 for one topped by an ace)."""

_SHAPES: tuple[tuple[Kind, int, int], ...] = (
    (Kind.STRAIGHT, 5, 1),
    (Kind.PAIR_RUN, 3, 2),
    (Kind.TRIPLE_RUN, 2, 3),
)
"""Sequence kinds: (kind, length in ranks, cards per rank)."""
_ACE = 12
_MEMO_LIMIT = 50_000
"""States a splitter remembers before it starts afresh (a few megabytes)."""
_SPLITS_LIMIT = 8192
"""Whole hands a splitter remembers the split of before it starts afresh."""


@dataclass(frozen=True, slots=True)
class Combo:
    """One combination of a split: its cards (sorted) and how the engine reads them."""

    cards: tuple[Card, ...]
    reading: Reading

    @property
    def kind(self) -> Kind:
        return self.reading.kind

    @property
    def value(self) -> int:
        return self.reading.value

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def is_bomb(self) -> bool:
        return self.reading.kind in BOMB_KINDS


@dataclass(frozen=True, slots=True)
class Partition:
    """A hand split into non-bomb combinations (weakest first) and bombs (weakest first)."""

    combos: tuple[Combo, ...]
    bombs: tuple[Combo, ...]
    cost: float

    @property
    def hands(self) -> int:
        """Plays to go out, bombs not counted."""
        return len(self.combos)

    def find(self, cards: tuple[Card, ...]) -> Combo | None:
        """The combination of this split made of exactly ``cards``, if any."""
        for combo in self.combos + self.bombs:
            if combo.cards == cards:
                return combo
        return None


def _position_rank(position: int) -> int:
    """Rank index at a sequence position: 0 is the low ace, 1..13 are 2..A."""
    return _ACE if position == 0 else position - 1


_Move = tuple[str, int]
"""("set", wild cards added) or ("seq", shape index): what a state does with its lowest rank."""


class Splitter:
    """Splits hands at one level (the level decides values and the wild card).

    The programme's states are packed ints: the natural counts per rank (2 bits
    each, no rank holds more than 3 once bombs are aside), the wild cards left and
    the triples minus pairs so far.
    """

    def __init__(self, level: int) -> None:
        self.level = level
        self.wild = wild_card(level)
        values = [rank_value(r, level) for r in range(13)]
        self._set_costs = [[_set_cost(n, v) for n in range(6)] for v in values]
        self._memo: dict[int, tuple[float, _Move | None]] = {}
        self._splits: dict[tuple[Card, ...], Partition] = {}

    # ------------------------------------------------------------- programme

    def _best(self, counts: int, wilds: int, d: int) -> float:
        """The least cost of the cards ``counts`` with ``wilds`` wild cards left."""
        key = (counts << 8) | (wilds << 5) | (d + 16)
        hit = self._memo.get(key)
        if hit is not None:
            return hit[0]
        if not counts:
            # triples beyond the pairs are plays of their own; spare wild cards are level cards
            cost = float(max(d, 0)) + (1.0 if wilds else 0.0)
            self._memo[key] = (cost, None)
            return cost
        shift = ((counts & -counts).bit_length() - 1) & ~1
        r = shift >> 1
        n = (counts >> shift) & 3
        rest = counts & ~(3 << shift)
        best, move = float("inf"), ("set", 0)
        set_costs = self._set_costs[r]
        for added in range(wilds + 1):
            cost, delta = set_costs[n + added]
            total = cost + self._best(rest, wilds - added, d + delta)
            if total < best:
                best, move = total, ("set", added)
        present = ((counts | counts >> 1) & _LOW_BITS) >> shift  # a bit per rank held
        for index, window, length in _WINDOWS:
            if length - (present & window).bit_count() > wilds:
                continue  # more ranks missing than wild cards to fill them
            taken = _take_sequence(counts, wilds, r + 1, index)
            if taken is not None:
                after, need, top = taken
                total = _SEQUENCE_COST[top] + self._best(after, wilds - need, d)
                if total < best:
                    best, move = total, ("seq", index)
        self._memo[key] = (best, move)
        return best

    # ----------------------------------------------------------------- split

    def split(self, hand: tuple[Card, ...]) -> Partition:
        """The cheapest split of ``hand`` (a pure function of the cards and the level,
        remembered: the rollouts of a search meet the same hands again and again)."""
        found = self._splits.get(hand)
        if found is None:
            if len(self._splits) >= _SPLITS_LIMIT:
                self._splits.clear()
            found = self._splits[hand] = self._split(hand)
        return found

    def _split(self, hand: tuple[Card, ...]) -> Partition:
        if len(self._memo) > _MEMO_LIMIT:
            self._memo.clear()
        wild = self.wild
        wilds = hand.count(wild)
        pools: list[list[Card]] = [[] for _ in range(13)]
        jokers = {SMALL_JOKER: 0, BIG_JOKER: 0}
        for card in hand:
            if card >= SMALL_JOKER:
                jokers[card] += 1
            elif card != wild:
                pools[card >> 2].append(card)
        bombs: list[Combo] = []
        fixed: list[Combo] = []
        base = 0.0
        for r, pool in enumerate(pools):
            if len(pool) >= 4:
                bombs.append(_combo(tuple(pool), Kind.BOMB, rank_value(r, self.level)))
                pools[r] = []
                base += BOMB_COST
        if jokers[SMALL_JOKER] == 2 and jokers[BIG_JOKER] == 2:
            cards = (SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER)
            bombs.append(_combo(cards, Kind.JOKER_BOMB, BIG_JOKER_VALUE))
            base += BOMB_COST
        else:
            for joker, value in ((SMALL_JOKER, SMALL_JOKER_VALUE), (BIG_JOKER, BIG_JOKER_VALUE)):
                n = jokers[joker]
                if n:  # one joker is a single, two a pair (two decks)
                    fixed.append(_combo((joker,) * n, Kind.SINGLE if n == 1 else Kind.PAIR, value))
                    base += 1.0
        counts = _pack(pools)
        best_total = float("inf")
        best_plan: tuple[Combo | None, int] = (None, -1)
        for flush in (None, *_flushes(pools, wilds, wild)):
            after_flush, free = counts, wilds
            flush_cost = 0.0
            if flush is not None:
                after_flush -= sum(1 << (2 * (card >> 2)) for card in flush.cards if card != wild)
                free -= flush.cards.count(wild)
                flush_cost = STRAIGHT_FLUSH_COST
            for low in (-1, 0, 1, 2):  # no sequence with the ace low, or one of each shape
                after, need, low_cost = after_flush, 0, 0.0
                if low >= 0:
                    taken = _take_sequence(after_flush, free, 0, low)
                    if taken is None:
                        continue
                    after, need, top = taken
                    low_cost = _SEQUENCE_COST[top]
                total = flush_cost + low_cost + self._best(after, free - need, 0)
                if total < best_total:
                    best_total, best_plan = total, (flush, low)
        flush, low = best_plan
        if flush is not None:
            bombs.append(flush)
            for card in flush.cards:
                if card == wild:
                    wilds -= 1
                else:
                    pools[card >> 2].remove(card)
        return self._build(pools, wilds, low, bombs, fixed, base + best_total)

    def _build(
        self,
        pools: list[list[Card]],
        wilds: int,
        low: int,
        bombs: list[Combo],
        fixed: list[Combo],
        cost: float,
    ) -> Partition:
        """Replay the chosen plan and give each combination its cards."""
        combos = list(fixed)
        counts = _pack(pools)
        if low >= 0:
            taken = _take_sequence(counts, wilds, 0, low)
            assert taken is not None
            combos.append(self._sequence_combo(pools, 0, low))
            counts, need, _ = taken
            wilds -= need
        sets: list[tuple[int, list[Card], int]] = []
        d = 0
        while True:
            move = self._memo[(counts << 8) | (wilds << 5) | (d + 16)][1]
            if move is None:
                break
            shift = ((counts & -counts).bit_length() - 1) & ~1
            r = shift >> 1
            verb, arg = move
            if verb == "set":
                n = ((counts >> shift) & 3) + arg
                sets.append((r, pools[r], arg))
                pools[r] = []
                counts &= ~(3 << shift)
                wilds -= arg
                d += self._set_costs[r][n][1]
            else:
                taken = _take_sequence(counts, wilds, r + 1, arg)
                assert taken is not None
                combos.append(self._sequence_combo(pools, r + 1, arg))
                counts, need, _ = taken
                wilds -= need
        if wilds:
            kind = Kind.SINGLE if wilds == 1 else Kind.PAIR
            combos.append(_combo((self.wild,) * wilds, kind, LEVEL_VALUE))
        combos.extend(self._sets(sets))
        plain = [c for c in combos if not c.is_bomb]
        bombs.extend(c for c in combos if c.is_bomb)
        plain.sort(key=lambda c: (c.value, c.kind, c.cards))
        bombs.sort(key=lambda c: (strength(c.reading), c.cards))
        return Partition(tuple(plain), tuple(bombs), cost)

    def _sets(self, sets: list[tuple[int, list[Card], int]]) -> list[Combo]:
        """Singles, pairs, triples and bombs of the plan; triples take the lowest pairs."""
        out: list[Combo] = []
        triples: list[tuple[int, tuple[Card, ...]]] = []
        pairs: list[tuple[int, tuple[Card, ...]]] = []
        level = self.level
        for r, naturals, added in sets:
            cards = tuple(sorted([*naturals, *(self.wild,) * added]))
            value = rank_value(r, level)
            n = len(cards)
            if n >= 4:
                out.append(_combo(cards, Kind.BOMB, value))
            elif n == 3:
                triples.append((value, cards))
            elif n == 2:
                pairs.append((value, cards))
            else:
                out.append(_combo(cards, Kind.SINGLE, value))
        triples.sort()
        pairs.sort()
        for i, (value, triple) in enumerate(triples):
            if i < len(pairs):
                cards = tuple(sorted(triple + pairs[i][1]))
                if self.wild in cards:  # the wild cards may make another triple the higher
                    out.append(self._reread(cards, Kind.FULL_HOUSE))
                else:
                    out.append(_combo(cards, Kind.FULL_HOUSE, value))
            else:
                out.append(_combo(triple, Kind.TRIPLE, value))
        out.extend(_combo(p, Kind.PAIR, v) for v, p in pairs[len(triples) :])
        return out

    def _sequence_combo(self, pools: list[list[Card]], position: int, index: int) -> Combo:
        """Take the cards of a sequence out of ``pools`` (wild cards fill the gaps)."""
        kind, length, width = _SHAPES[index]
        cards: list[Card] = []
        wild = self.wild
        for p in range(position, position + length):
            pool = pools[_position_rank(p)]
            if width == 1 and pool and cards:
                pick = _other_suit(pool, [c for c in cards if c != wild])
                pool.remove(pick)
                cards.append(pick)
                continue
            take = min(width, len(pool))
            cards.extend(pool[:take])
            del pool[:take]
            cards.extend([wild] * (width - take))
        cards.sort()
        if kind == Kind.STRAIGHT and len({c & 3 for c in cards if c != wild}) == 1:
            return self._reread(tuple(cards), kind)  # a straight flush after all: a bomb
        return _combo(tuple(cards), kind, position + length)

    def _reread(self, cards: tuple[Card, ...], kind: Kind) -> Combo:
        """The engine's reading of ``cards``: ``kind`` if it has one, else its strongest."""
        found = play_readings(cards, self.level)
        chosen = next((r for r in found if r.kind == kind), found[0])
        return Combo(cards, chosen)


def _pack(pools: list[list[Card]]) -> int:
    """Natural counts per rank, 2 bits each (rank r at bit 2r)."""
    return sum(len(pool) << (2 * r) for r, pool in enumerate(pools))


@cache
def splitter(level: int) -> Splitter:
    """The splitter of ``level`` shared in this process (its memory holds pure results)."""
    return Splitter(level)


def _set_cost(n: int, value: int) -> tuple[float, int]:
    """Cost of a set of ``n`` cards at ``value``, and its change to triples minus pairs."""
    if n == 0:
        return 0.0, 0
    if n >= 4:
        return BOMB_COST, 0
    weakness = max(0, LEVEL_VALUE - value) / 13
    penalty = SET_PENALTY[n] * weakness
    if n == 3:
        return penalty, 1  # one play, counted at the end unless a pair rides along
    if n == 2:
        return 1.0 + penalty, -1
    return 1.0 + penalty, 0


def _sequence_penalty(top: int) -> float:
    return SEQUENCE_PENALTY * max(0, 14 - top) / 9


_SEQUENCE_COST = [1.0 + _sequence_penalty(top) for top in range(15)]
"""A sequence is one play, plus its penalty by its top card."""


def _take_sequence(
    counts: int, wilds: int, position: int, index: int
) -> tuple[int, int, int] | None:
    """Packed counts after a sequence of shape ``index`` from ``position``:
    (counts, wild cards used, top).

    ``None`` when the sequence does not fit (past the ace, or not enough wild cards).
    """
    shifts = _SEQUENCE_SHIFTS[index][position]
    if shifts is None:
        return None
    width = _SHAPES[index][2]
    need = 0
    for shift in shifts:
        have = (counts >> shift) & 3
        if have >= width:
            counts -= width << shift
        else:
            need += width - have
            if need > wilds:
                return None
            counts -= have << shift
    return counts, need, position + len(shifts)


_SEQUENCE_RANKS = [
    [
        tuple(_position_rank(p) for p in range(start, start + length))
        if start + length <= 14
        else None
        for start in range(14)
    ]
    for _, length, _ in _SHAPES
]
"""Per shape and start position, the ranks of the sequence (``None``: past the ace)."""
_LOW_BITS = sum(1 << (2 * r) for r in range(13))
"""The low bit of every rank's 2 bits in packed counts."""
_WINDOWS = tuple(
    (index, sum(1 << (2 * i) for i in range(length)), length)
    for index, (_, length, _) in enumerate(_SHAPES)
)
"""Per shape: its index, the low bits of its ranks from the lowest, its length."""
_SEQUENCE_SHIFTS = [
    [None if ranks is None else tuple(2 * r for r in ranks) for ranks in by_start]
    for by_start in _SEQUENCE_RANKS
]
"""The same, as bit shifts into packed counts."""


def _flushes(pools: list[list[Card]], wilds: int, wild: Card) -> list[Combo]:
    """Every straight flush of the natural cards, and with the wild cards (GD-6, GD-7)
    filling one gap each: the split weighs each against the plays its cards make
    otherwise."""
    masks = [0, 0, 0, 0]
    for r, pool in enumerate(pools):
        for card in pool:
            masks[card & 3] |= _POSITION_BITS[r]
    found = []
    for suit, mask in enumerate(masks):
        if mask.bit_count() < 5 - wilds:
            continue
        for start in range(10):
            missing = 5 - ((mask >> start) & 31).bit_count()
            if missing > wilds:
                continue
            positions = range(start, start + 5)
            cards = [_position_rank(p) * 4 + suit for p in positions if mask >> p & 1]
            found.append(_combo((*cards, *(wild,) * missing), Kind.STRAIGHT_FLUSH, start + 5))
    return found


_POSITION_BITS = [(1 << (r + 1)) | (1 if r == _ACE else 0) for r in range(13)]
"""Per rank, its bits in a mask of sequence positions (the ace is both 0 and 13)."""


def _other_suit(pool: list[Card], chosen: list[Card]) -> Card:
    """A card of ``pool`` for a straight: one of a suit not yet used if possible.

    A straight whose natural cards share a suit would be a straight flush (a bomb).
    """
    suits = {c & 3 for c in chosen}
    if len(suits) == 1:
        for card in pool:
            if card & 3 not in suits:
                return card
    return pool[0]


def _natural_rank(cards: tuple[Card, ...], wild: Card, level: int) -> int:
    """The rank of a set (its natural cards' rank; the level for wild cards alone)."""
    for card in cards:
        if card != wild:
            return card >> 2
    return level


def _combo(cards: tuple[Card, ...], kind: Kind, value: int) -> Combo:
    return Combo(tuple(sorted(cards)), reading(kind, value, len(cards)))
