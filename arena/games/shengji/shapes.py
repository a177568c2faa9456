"""Shengji shapes: sets, tractors, decomposition and matching (SJ-14 … SJ-16, SJ-20).

Cards of one suit are seen as a multiset of *identities* (identical cards, SJ-14),
each at an order *position* (SJ-3 … SJ-5). A :class:`Unit` is a set (length 1) or
a tractor (length ≥ 2, width ≥ 2): ``width`` identical cards at each of
``length`` consecutive positions, one identity per position.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import pairwise, product
from typing import NamedTuple

from arena.cards import Card
from arena.games.shengji.order import TrumpOrder


class Unit(NamedTuple):
    """A set or a tractor: ``width`` cards at each of ``length`` consecutive positions.

    ``top`` is the order of its highest position; ``cards`` its cards, sorted.
    """

    width: int
    length: int
    top: int
    cards: tuple[Card, ...]

    @property
    def size(self) -> int:
        return self.width * self.length

    @property
    def is_tractor(self) -> bool:
        return self.length >= 2


def _unit(width: int, length: int, top: int, cards: tuple[Card, ...]) -> Unit:
    """A :class:`Unit` made without its Python-level constructor (hot path)."""
    return _new_tuple(Unit, (width, length, top, cards))


_new_tuple = tuple.__new__
Shape = tuple[int, int]
"""A unit's (width, length)."""


def largest_first(unit: Unit) -> tuple[int, int, int, int]:
    """Sort key (descending): more cards, then wider, then higher (SJ-19: largest first)."""
    return (unit.size, unit.width, unit.top, -unit.cards[0])


def _single_first(unit: Unit) -> tuple[int, int]:
    """:func:`largest_first` among singles (same size and width)."""
    return (unit.top, -unit.cards[0])


class Pile:
    """A multiset of cards of one suit, by identity, with each identity's position."""

    __slots__ = ("by_position", "counts", "members", "order", "positions", "sample")

    def __init__(self, cards: Sequence[Card], order: TrumpOrder) -> None:
        self.order = order
        counts: dict[int, int] = {}
        sample: dict[int, Card] = {}  # a physical card for each identity
        identities = order.identities
        for card in cards:
            identity = identities[card]
            if identity in counts:
                counts[identity] += 1
            else:
                counts[identity] = 1
                sample[identity] = card
        self.counts, self.sample = counts, sample
        # with two colours an identity spans two different cards (Kh and Kd, SJ-31)
        self.members: dict[int, list[Card]] | None = None
        if order.two_colour:
            self.members = {}
            for card in sorted(cards):
                self.members.setdefault(identities[card], []).append(card)
        self.by_position: dict[int, list[int]] = {}
        for identity in sorted(self.counts):
            position = order.orders[self.sample[identity]]
            self.by_position.setdefault(position, []).append(identity)
        self.positions = sorted(self.by_position)

    def copy(self) -> Pile:
        other = Pile((), self.order)  # its parts replaced below (compiled: no object.__new__)
        other.order, other.sample = self.order, self.sample
        other.counts = dict(self.counts)
        other.members = None
        if self.members is not None:
            other.members = {i: list(cards) for i, cards in self.members.items()}
        other.by_position, other.positions = self.by_position, self.positions
        return other

    def cards_of(self, identity: int, width: int) -> list[Card]:
        """``width`` physical cards of one identity held in the pile."""
        if self.members is None:
            return [self.sample[identity]] * width
        return self.members[identity][:width]

    def total(self) -> int:
        return sum(self.counts.values())

    def units(self, width: int, length: int) -> Iterator[Unit]:
        """Every distinct unit of this shape that the pile holds."""
        counts, by_position, sample, members = (
            self.counts,
            self.by_position,
            self.sample,
            self.members,
        )
        if length == 1:  # sets: each identity held ``width`` times, by position
            for start in self.positions:
                for identity in by_position[start]:
                    if counts[identity] >= width:
                        if members is None:
                            yield _unit(width, 1, start, (sample[identity],) * width)
                        else:  # a member list is sorted
                            yield _unit(width, 1, start, tuple(members[identity][:width]))
            return
        for start in self.positions:
            chain = []
            for position in range(start, start + length):
                ids = by_position.get(position)
                held = [i for i in ids if counts[i] >= width] if ids else None
                if not held:
                    break
                chain.append(held)
            else:
                for identities in product(*chain):
                    yield _unit(width, length, start + length - 1, self._cards(identities, width))

    def tractors(self, width: int) -> list[Unit]:
        """Every distinct tractor of this width the pile holds: the shortest first, each
        length in the order of :meth:`units`."""
        counts, by_position = self.counts, self.by_position
        held: dict[int, list[int]] = {}  # position → identities held ``width`` times
        for position in self.positions:
            ids = [i for i in by_position[position] if counts[i] >= width]
            if ids:
                held[position] = ids
        run: dict[int, int] = {}  # position → how many held positions follow from it
        for position in sorted(held, reverse=True):
            run[position] = run.get(position + 1, 0) + 1
        found: list[Unit] = []
        for length in range(2, max(run.values(), default=0) + 1):
            for start in held:
                if run[start] >= length:
                    chain = [held[position] for position in range(start, start + length)]
                    for identities in product(*chain):
                        found.append(
                            _unit(width, length, start + length - 1, self._cards(identities, width))
                        )
        return found

    def _cards(self, identities: Sequence[int], width: int) -> tuple[Card, ...]:
        """``width`` cards of each identity, sorted."""
        if self.members is None:
            sample = self.sample
            return tuple(sorted([sample[i] for i in identities for _ in range(width)]))
        return tuple(sorted([c for i in identities for c in self.cards_of(i, width)]))

    def take(self, unit: Unit) -> None:
        identities = self.order.identities
        for card in unit.cards:
            self.counts[identities[card]] -= 1
            if self.members is not None:
                self.members[identities[card]].remove(card)


def decompose(cards: Sequence[Card], order: TrumpOrder) -> list[Unit]:
    """The canonical split of cards of one suit into units, largest first.

    Widest sets first; at each width the longest runs of consecutive positions
    become tractors (SJ-15), the rest sets; what is left are singles. This is
    how a lead (a combination or a throw, SJ-17) is read.
    """
    identities, orders = order.identities, order.orders
    if len({identities[c] for c in cards}) == len(cards):  # no two identical: all singles
        singles = [_unit(1, 1, orders[c], (c,)) for c in cards]
        singles.sort(key=_single_first, reverse=True)
        return singles
    pile = Pile(cards, order)
    units: list[Unit] = []
    widest = max(pile.counts.values(), default=0)
    for width in range(widest, 0, -1):
        while True:
            best = _longest_unit(pile, width)
            if best is None:
                break
            pile.take(best)
            units.append(best)
    units.sort(key=largest_first, reverse=True)
    return units


def _longest_unit(pile: Pile, width: int) -> Unit | None:
    counts = pile.counts
    positions = sorted(
        p for p, ids in pile.by_position.items() if any(counts[i] >= width for i in ids)
    )
    if not positions:
        return None
    best_start, best_length, run_start, run_length = positions[0], 1, positions[0], 1
    for previous, position in pairwise(positions):
        if width >= 2 and position == previous + 1:
            run_length += 1
        else:
            run_start, run_length = position, 1
        if run_length > best_length or (
            run_length == best_length and position > best_start + best_length - 1
        ):
            best_start, best_length = run_start, run_length
    if width == 1:
        best_start, best_length = positions[-1], 1
    identities = []
    for k in range(best_length):
        candidates = [i for i in pile.by_position[best_start + k] if counts[i] >= width]
        identities.append(candidates[0])
    cards = tuple(sorted(c for i in identities for c in pile.cards_of(i, width)))
    return _unit(width, best_length, best_start + best_length - 1, cards)


def covers(cards: Sequence[Card], shapes: Sequence[Shape], order: TrumpOrder) -> Unit | bool | None:
    """Whether ``cards`` split into units of ``shapes`` (plus singles for the rest).

    Returns ``False`` when they do not; otherwise the highest unit that can take
    the first shape's place (the *main part* of SJ-20), or ``True`` when the
    first shape is a single (then any card may take it).
    """
    best: list[Unit] = []
    found = _cover(Pile(cards, order), list(shapes), 0, best, None)
    if not found:
        return False
    return best[0] if best else True


def _cover(
    pile: Pile, shapes: list[Shape], index: int, best: list[Unit], main: Unit | None
) -> bool:
    while index < len(shapes) and shapes[index] == (1, 1):
        index += 1  # singles: any card will do
    if index == len(shapes):
        if main is not None and (not best or main.top > best[0].top):
            best[:] = [main]
        return True
    width, length = shapes[index]
    ok = False
    for unit in list(pile.units(width, length)):
        rest = pile.copy()
        rest.take(unit)
        if _cover(rest, shapes, index + 1, best, unit if main is None else main):
            ok = True
            if main is not None:
                return True  # the main part is already fixed: one split is enough
    return ok
