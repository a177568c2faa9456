"""Legal plays listed as a sequence made on demand.

Where a decision has hundreds of legal plays (a lead may be any set of one suit's
cards; a follow short of the led suit may add any other cards), most callers look at
one of them — a random or rollout policy picks an index — or ask whether a play is
among them. A :class:`LazyPlays` knows its plays by their shape and spells out only the
one asked for; iterating it makes them all, once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, overload

from arena.cards import Card
from arena.games.base import Action

MAX_INDEX: Final = 2**62
"""Beyond any index (the default end of :meth:`LazyPlays.index`)."""


class LazyPlays:
    """An immutable sequence of ``play`` actions in a fixed order, each made when asked.

    A :class:`~collections.abc.Sequence` (registered as one) equal to any sequence of
    the same actions in the same order. Subclasses say how many plays there are, which
    is at an index (:meth:`_nth`), all of them in order (:meth:`_every`) and whether
    sorted cards are one of them (:meth:`_holds`).
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._made: tuple[Action, ...] | None = None

    def _nth(self, index: int) -> Action:
        raise NotImplementedError

    def _every(self) -> list[Action]:
        raise NotImplementedError

    def _holds(self, cards: tuple[Card, ...]) -> bool:
        raise NotImplementedError

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if isinstance(index, slice):
            return self._all()[index]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("play index out of range")
        if self._made is not None:
            return self._made[index]
        return self._nth(index)

    def __iter__(self) -> Iterator[Action]:
        return iter(self._all())

    def __reversed__(self) -> Iterator[Action]:
        return reversed(self._all())

    def index(self, value: object, start: int = 0, stop: int = MAX_INDEX) -> int:
        return self._all().index(value, start, stop)

    def count(self, value: object) -> int:
        return 1 if value in self else 0

    def __contains__(self, item: object) -> bool:
        """Whether ``item`` is one of the plays, without making them."""
        if not isinstance(item, tuple) or len(item) != 3:
            return False
        verb, cards, tag = item
        if verb != "play" or tag != "" or not isinstance(cards, tuple) or not cards:
            return False
        previous = -1
        for card in cards:
            if not isinstance(card, int) or card < previous:
                return False  # a listed play's cards are sorted card ints
            previous = card
        return self._holds(cards)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return len(other) == self._size and list(self._all()) == list(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._all())  # as the tuple of the same actions hashes

    def __repr__(self) -> str:
        return f"{type(self).__name__}({list(self._all())!r})"

    def _all(self) -> tuple[Action, ...]:
        made = self._made
        if made is None:
            made = self._made = tuple(self._every())
        return made


Sequence.register(LazyPlays)

__all__ = ["MAX_INDEX", "LazyPlays"]
