"""Deal unknown cards into bins of fixed sizes, each bin refusing some cards.

A *bin* is a place hidden cards may be: another seat's hand, a buried kitty, the
undealt rest of a deck. Each has a size and a set of cards it cannot hold (a suit a
seat showed itself void in, cards above a tribute card…) or of which it holds at
most so many copies (a seat that could not follow a pair). :func:`assign` draws one
assignment that fills every bin exactly and respects every refusal, or reports
that none exists.

The constrained cards are placed first, one at a time, each into a bin chosen in
proportion to its free room among the bins that accept it, keeping Hall's condition
true (for every set of bins, the cards that only those bins accept fit in them), so
the draw never paints itself into a corner; the unconstrained cards then fill the
room that is left in a shuffled order.
"""

from __future__ import annotations

import random
from bisect import bisect
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from typing import TypeVar

from arena.cards import Card

T = TypeVar("T")


class NoAssignment(ValueError):
    """The cards cannot be dealt into the bins as asked."""


@dataclass(frozen=True, slots=True)
class Bin:
    """Room for ``size`` hidden cards, none of which may be in ``refuses``, and at most
    ``limits[card]`` copies of a card named in ``limits``."""

    size: int
    refuses: frozenset[Card] = field(default_factory=frozenset)
    limits: Mapping[Card, int] = field(default_factory=dict)


_BITS = [n.bit_length() for n in range(1024)]
"""The bit length of each bound a shuffle draws below."""


def shuffle(rng: random.Random, items: list[T]) -> None:
    """``rng.shuffle(items)``: the same swaps from the same random bits, without a call
    per item to the generator's helper when ``rng`` is a plain :class:`random.Random`."""
    if type(rng) is not random.Random or len(items) >= len(_BITS):
        rng.shuffle(items)
        return
    getrandbits, bit_lengths = rng.getrandbits, _BITS
    for bound in range(len(items), 1, -1):
        bits = bit_lengths[bound]
        j = getrandbits(bits)
        while j >= bound:
            j = getrandbits(bits)
        i = bound - 1
        items[i], items[j] = items[j], items[i]


_Halls = list[tuple[list[int], list[int]]]
"""Per set of bins that matters: the kinds of constrained cards (by index) that only
those bins accept, and the bins."""


def _fits(pending: list[int], room: Sequence[int], halls: _Halls) -> bool:
    """Hall's condition: for every set of bins, the cards accepted only there fit."""
    for kinds, bins in halls:
        need = 0
        for kind in kinds:
            need += pending[kind]
        if need:
            space = 0
            for b in bins:
                space += room[b]
            if need > space:
                return False
    return True


class Assignment:
    """Draws of one assignment of ``cards`` (a multiset) to ``bins``: what the cards
    and bins decide (each copy's accepting bins) is worked out once.

    Raises :class:`NoAssignment` when the sizes do not add up to the number of cards.
    """

    def __init__(self, cards: Collection[Card], bins: Sequence[Bin]) -> None:
        total = sum(b.size for b in bins)
        if total != len(cards):
            raise NoAssignment(f"{len(cards)} hidden cards for {total} places")
        if any(b.size < 0 for b in bins):
            raise NoAssignment("a bin of negative size")
        self._sizes = [b.size for b in bins]
        self._full = full = (1 << len(bins)) - 1
        # (card, mask of the bins that take it). Copies of a card are told apart so that
        # a bin limited to L copies takes only L of them; each bin counts them from
        # another copy, so limited bins may still share the copies between them.
        items: list[tuple[Card, int]] = []
        copies = Counter(cards)
        for card, n in sorted(copies.items()):
            always = 0  # the bins taking every copy; a limited bin takes copies 0 … limit-1
            limited: list[tuple[int, int]] = []
            for i, b in enumerate(bins):
                if card not in b.refuses:
                    limit = b.limits.get(card)
                    if limit is None:
                        always |= 1 << i
                    else:
                        limited.append((i, limit))
            for copy in range(n):
                mask = always
                for i, limit in limited:
                    if (copy + i) % n < limit:
                        mask |= 1 << i
                items.append((card, mask))
        self._items = items
        masks = sorted({mask for _, mask in items if mask != full})
        self._kind = {mask: k for k, mask in enumerate(masks)}
        """The index of each mask of constrained cards."""
        self._pending = [0] * len(masks)
        for _, mask in items:
            if mask != full:
                self._pending[self._kind[mask]] += 1
        self._halls: _Halls = []
        for subset in range(1, 1 << len(bins)):
            kinds = [k for k, mask in enumerate(masks) if mask & ~subset == 0]
            if kinds:
                self._halls.append((kinds, [b for b in range(len(bins)) if subset >> b & 1]))

    def feasible(self) -> bool:
        """Whether some assignment respects every refusal (Hall's condition)."""
        return _fits(list(self._pending), self._sizes, self._halls)

    def draw(self, rng: random.Random) -> list[list[Card]]:
        """One assignment drawn with ``rng``; :class:`NoAssignment` when the refusals
        leave no way to fill every bin."""
        items = list(self._items)
        shuffle(rng, items)
        full = self._full
        constrained = [item for item in items if item[1] != full]
        free = [card for card, mask in items if mask == full]
        room = list(self._sizes)
        bins = range(len(room))
        pending = list(self._pending)
        halls, kind = self._halls, self._kind
        if not _fits(pending, room, halls):
            raise NoAssignment("the hidden cards cannot be placed as the known facts require")
        placed: list[list[Card]] = [[] for _ in bins]
        uniform = rng.random
        for card, mask in constrained:
            pending[kind[mask]] -= 1
            choices = [i for i in bins if mask >> i & 1 and room[i]]
            weights = [room[i] for i in choices]
            while choices:
                # rng.choices(range(len(choices)), weights)[0], the same draw inline
                cumulative = list(accumulate(weights))
                pick = bisect(cumulative, uniform() * (cumulative[-1] + 0.0), 0, len(choices) - 1)
                target = choices[pick]
                room[target] -= 1
                if _fits(pending, room, halls):
                    break
                room[target] += 1
                del choices[pick], weights[pick]
            else:  # unreachable while Hall's condition held before this card
                raise NoAssignment("the hidden cards cannot be placed as the known facts require")
            placed[target].append(card)
        slots = [i for i, n in enumerate(room) for _ in range(n)]
        shuffle(rng, slots)
        for card, target in zip(free, slots, strict=True):
            placed[target].append(card)
        return placed


def assign(cards: Collection[Card], bins: Sequence[Bin], rng: random.Random) -> list[list[Card]]:
    """One assignment of ``cards`` (a multiset) to ``bins``, drawn with ``rng``.

    Raises :class:`NoAssignment` when the sizes do not add up to the number of cards
    or when the refusals leave no way to fill every bin.
    """
    return Assignment(cards, bins).draw(rng)
