"""Multisets of cards: every one of a size, in a fixed order, counted and ranked.

The order is that of :func:`multisets_in_order`: the lowest card taken as many times
as it can be first, so sorted tuples come in ascending order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from math import comb

from arena.cards import Card

Counts = list[tuple[Card, int]]
"""Distinct cards, ascending, each with how many copies there are."""


def counted(cards: Sequence[Card]) -> Counts:
    """Sorted ``cards`` as each distinct card with its copies."""
    counts: Counts = []
    previous, copies = -1, 0
    for card in cards:
        if card == previous:
            copies += 1
        else:
            if copies:
                counts.append((previous, copies))
            previous, copies = card, 1
    if copies:
        counts.append((previous, copies))
    return counts


def sub_multisets(cards: Sequence[Card], size: int) -> list[tuple[Card, ...]]:
    """Every distinct multiset of ``size`` cards drawn from ``cards`` (sorted tuples)."""
    empty: tuple[Card, ...] = ()
    layers: list[list[tuple[Card, ...]]] = [[empty]] + [[] for _ in range(size)]
    for card, available in sorted(Counter(cards).items()):
        for k in range(size, 0, -1):  # larger first, so each layer grows from the old ones
            for t in range(1, min(available, k) + 1):
                copies = (card,) * t
                layers[k].extend([prefix + copies for prefix in layers[k - t]])
    return layers[size]


def multisets_in_order(
    counts: Counts, index: int, size: int, taken: tuple[Card, ...]
) -> Iterator[tuple[Card, ...]]:
    """Every ``size``-card multiset of ``counts[index:]``, each after ``taken``, in order."""
    if size == 0:
        yield taken
        return
    if index == len(counts):
        return
    card, available = counts[index]
    for n in range(min(available, size), -1, -1):
        yield from multisets_in_order(counts, index + 1, size - n, taken + (card,) * n)


def spread_sample(
    cards: Sequence[Card], size: int, limit: int, sample: int
) -> tuple[list[tuple[Card, ...]], bool]:
    """Every ``size``-card multiset of ``cards`` if there are at most ``limit``, else
    ``sample`` of them evenly spaced in their canonical order (reproducible).

    Returns the multisets and whether they are all of them.
    """
    if comb(len(cards), size) <= limit:  # no more multisets than that: all of them
        return sorted(sub_multisets(cards, size)), True  # sorted: their order
    counts = sorted(Counter(cards).items())
    ways = count_multisets(counts, size)
    total = ways[0][size]
    if total <= limit:
        return list(multisets_in_order(counts, 0, size, ())), True
    picks = [nth_multiset(counts, ways, size, i * total // sample) for i in range(sample)]
    return picks, False


def count_multisets(counts: Counts, size: int) -> list[list[int]]:
    """``ways[i][k]``: how many ``k``-card multisets the items from ``i`` on make."""
    ways = [[0] * (size + 1) for _ in range(len(counts) + 1)]
    ways[len(counts)][0] = 1
    for i in range(len(counts) - 1, -1, -1):
        available = counts[i][1]
        for k in range(size + 1):
            ways[i][k] = sum(ways[i + 1][k - t] for t in range(min(available, k) + 1))
    return ways


def nth_multiset(counts: Counts, ways: list[list[int]], size: int, rank: int) -> tuple[Card, ...]:
    """The multiset at ``rank`` in the order :func:`multisets_in_order` yields them."""
    taken: list[Card] = []
    for i, (card, available) in enumerate(counts):
        for t in range(min(available, size), -1, -1):
            block = ways[i + 1][size - t]
            if rank < block:
                taken.extend([card] * t)
                size -= t
                break
            rank -= block
    return tuple(taken)


__all__ = [
    "Counts",
    "count_multisets",
    "counted",
    "multisets_in_order",
    "nth_multiset",
    "spread_sample",
    "sub_multisets",
]
