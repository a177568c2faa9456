"""The legal actions of a Guandan play decision as a sequence made on demand.

A hand leading lists every play it can make (often hundreds: full houses, straights),
and most decisions look at one of them (a random or rollout policy picks an index) or
find the one chosen. :class:`Plays` holds each play's cards and named kind and spells
out an action only when it is asked for (the same object every time); iterating makes
them all, once.
"""

from __future__ import annotations

from typing import Any, Final

from arena.cards import Card
from arena.games.base import Action
from arena.games.lazy import LazyActions

_new_tuple: Final = tuple.__new__
_ACTION: Final = Action
"""The action class, read once (not looked up by name for each action made)."""


class Plays(LazyActions):
    """Optionally ``first`` (the pass), then a ``play`` of each of ``cards`` (sorted) made
    as the kind ``tags`` names at the same place (``None``: no kind named for any); each
    action made once, the same object every time it is asked for."""

    def __init__(
        self, first: Action | None, cards: list[tuple[Card, ...]], tags: list[str] | None
    ) -> None:
        super().__init__(len(cards) + (first is not None))
        self._first = first
        self._cards = cards
        self._tags = tags
        self._each: list[Action | None] | None = None
        """The actions made so far, by place (made when first asked)."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (Plays, (self._first, self._cards, self._tags))

    def _nth(self, index: int) -> Action:
        each = self._each
        if each is None:
            each = self._each = [None] * self._size
        action = each[index]
        if action is None:
            action = each[index] = self._make(index)
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
        each = self._each
        if each is not None:
            for index in range(len(each)):
                if each[index] is action:
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

    def __contains__(self, item: object) -> bool:
        return self.find(item) >= 0
