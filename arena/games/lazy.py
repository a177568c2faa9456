"""Legal actions listed as a sequence made on demand.

Where a decision has hundreds of legal actions (a Shengji lead may be any set of one
suit's cards, a Guandan hand leading may make hundreds of full houses and straights),
most callers look at one of them — a random or rollout policy picks an index — or ask
whether an action is among them. A :class:`LazyActions` knows its actions by their
shape and spells out only the one asked for; iterating it makes them all, once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, overload

from arena.games.base import Action

MAX_INDEX: Final = 2**62
"""Beyond any index (the default end of :meth:`LazyActions.index`)."""


class LazyActions:
    """An immutable sequence of actions in a fixed order, each made when asked for.

    A :class:`~collections.abc.Sequence` (registered as one) equal to any sequence of
    the same actions in the same order; ``+`` gives the list of both, as a list would.
    Subclasses say which action is at an index (:meth:`_nth`), and may make them all
    at once faster (:meth:`_every`) or find one without making them (``in``).
    """

    def __init__(self, size: int) -> None:
        self._size = size
        self._made: tuple[Action, ...] | None = None

    def _nth(self, index: int) -> Action:
        """The action at ``index`` (0 ≤ index < len), made for the caller: each
        subclass says how (a hook, not an ``abc`` method, so the class registers as a
        :class:`~collections.abc.Sequence`)."""
        raise NotImplementedError(f"{type(self).__name__} does not say which action is where")

    def _every(self) -> list[Action]:
        return [self._nth(index) for index in range(self._size)]

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
            raise IndexError("action index out of range")
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
        return item in self._all()

    def __add__(self, other: Sequence[Action]) -> list[Action]:
        """A list of these actions then ``other``'s (as the list of them would give)."""
        return [*self._all(), *other]

    def __radd__(self, other: Sequence[Action]) -> list[Action]:
        return [*other, *self._all()]

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


Sequence.register(LazyActions)

__all__ = ["MAX_INDEX", "LazyActions"]
