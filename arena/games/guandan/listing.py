"""The legal actions of a Guandan play decision as a sequence made on demand.

A hand leading lists every play it can make (often hundreds: full houses, straights),
and most decisions look at one of them (a random or rollout policy picks an index) or
find the one chosen. :class:`Plays` holds each play's cards and named kind and spells
out an action only when it is asked for (the same object every time); iterating makes
them all, once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final, overload

from arena.cards import Card
from arena.games.base import Action

MAX_INDEX: Final = 2**62

_new_tuple: Final = tuple.__new__
_ACTION: Final = Action
"""The action class, read once (not looked up by name for each action made)."""


class Plays:
    """Optionally ``first`` (the pass), then a ``play`` of each of ``cards`` (sorted) made
    as the kind ``tags`` names at the same place (``None``: no kind named for any).

    An immutable :class:`~collections.abc.Sequence` of actions (registered as one),
    equal to any sequence of the same actions in the same order.
    """

    def __init__(
        self, first: Action | None, cards: list[tuple[Card, ...]], tags: list[str] | None
    ) -> None:
        self._first = first
        self._cards = cards
        self._tags = tags
        self._size = len(cards) + (first is not None)
        self._made: list[Action | None] | None = None
        """The actions made so far, by place (made when first asked)."""
        self._every: tuple[Action, ...] | None = None

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if isinstance(index, slice):
            return self._all()[index]
        size = self._size
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("play index out of range")
        made = self._made
        if made is None:
            made = self._made = [None] * size
        action = made[index]
        if action is None:
            action = made[index] = self._make(index)
        return action

    def _make(self, index: int) -> Action:
        first = self._first
        if first is not None:
            if not index:
                return first
            index -= 1
        tags = self._tags
        tag = tags[index] if tags is not None else ""
        return _new_tuple(_ACTION, ("play", self._cards[index], tag))

    def find(self, action: object) -> int:
        """Where ``action`` is: an action this sequence made is found by identity, without
        comparing cards; another by its verb, cards and kind. -1 when it is not here."""
        made = self._made
        if made is not None:
            for index in range(len(made)):
                if made[index] is action:
                    return index
        if not isinstance(action, tuple) or len(action) != 3:
            return -1
        verb, cards, tag = action
        first = self._first
        offset = 0
        if first is not None:
            if action == first:
                return 0
            offset = 1
        if verb != "play":
            return -1
        every, tags = self._cards, self._tags
        for index in range(len(every)):
            if every[index] == cards and (tags[index] if tags is not None else "") == tag:
                return index + offset
        return -1

    def __iter__(self) -> Iterator[Action]:
        return iter(self._all())

    def __reversed__(self) -> Iterator[Action]:
        return reversed(self._all())

    def index(self, value: object, start: int = 0, stop: int = MAX_INDEX) -> int:
        return self._all().index(value, start, stop)

    def count(self, value: object) -> int:
        return 1 if self.find(value) >= 0 else 0

    def __contains__(self, item: object) -> bool:
        return self.find(item) >= 0

    def __add__(self, other: Sequence[Action]) -> list[Action]:
        """A list of these actions then ``other``'s (as the list of them would give)."""
        return [*self._all(), *other]

    def __radd__(self, other: Sequence[Action]) -> list[Action]:
        return [*other, *self._all()]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Plays | Sequence):
            return len(other) == self._size and list(self._all()) == list(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._all())  # as the tuple of the same actions hashes

    def __repr__(self) -> str:
        return f"Plays({list(self._all())!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Plays, (self._first, self._cards, self._tags))

    def _all(self) -> tuple[Action, ...]:
        """Every action, each made once."""
        every = self._every
        if every is None:
            every = self._every = tuple([self[index] for index in range(self._size)])
        return every


Sequence.register(Plays)
