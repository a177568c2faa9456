"""An observation's parts as read-only views, made when first read.

An observation is made for every decision, and most policies (a random or rollout one)
read only its legal actions, or one fact. Its public facts (:class:`FactsOnDemand`) are
kept as what they are made from — pieces of the state never changed once made, and the
few numbers that change — and made into a dict the first time they are read; its events
(:class:`SoFar`) are the first so many of the deal's list, which only ever grows.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, Sequence, ValuesView
from itertools import islice
from typing import Any, Final, Generic, TypeVar, cast, final, overload

T = TypeVar("T")


class FactsOnDemand:
    """A read-only :class:`~collections.abc.Mapping` (registered as one) of facts made
    by :meth:`_make` on first reading; equal to a mapping of the same items, pickled and
    copied as the dict of them."""

    def __init__(self) -> None:
        self._facts: dict[str, Any] | None = None

    def _make(self) -> dict[str, Any]:
        """The facts, made from what the subclass kept: each subclass says how (a hook,
        not an ``abc`` method, so the class registers as a Mapping)."""
        raise NotImplementedError(f"{type(self).__name__} does not say how its facts are made")

    def _read(self) -> dict[str, Any]:
        facts = self._facts
        if facts is None:
            facts = self._facts = self._make()
        return facts

    def __getitem__(self, key: str) -> Any:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())

    def __contains__(self, key: object) -> bool:
        return key in self._read()

    def get(self, key: str, default: Any = None) -> Any:
        return self._read().get(key, default)

    def keys(self) -> KeysView[str]:
        return self._read().keys()

    def items(self) -> ItemsView[str, Any]:
        return self._read().items()

    def values(self) -> ValuesView[Any]:
        return self._read().values()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FactsOnDemand):
            return self._read() == other._read()
        if isinstance(other, Mapping):
            return self._read() == dict(other.items())
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __repr__(self) -> str:
        return repr(self._read())

    def __reduce__(self) -> tuple[type[dict[str, Any]], tuple[dict[str, Any]]]:
        return dict, (self._read(),)


Mapping.register(FactsOnDemand)


@final
class _NoFacts(FactsOnDemand):
    def _make(self) -> dict[str, Any]:
        return {}


NO_FACTS: Final = cast(Mapping[str, Any], _NoFacts())  # a Mapping by registration
"""No facts: an empty read-only mapping, shared (it pickles as an empty dict)."""


@final
class SoFar(Generic[T]):
    """The first ``count`` items of a list that only ever grows (a deal's events), as a
    read-only :class:`~collections.abc.Sequence` (registered as one) equal to the tuple
    of them: slices, ``+``, pickles and copies are that tuple's."""

    def __init__(self, items: list[T], count: int) -> None:
        self._items = items
        self._count = count
        self._tuple: tuple[T, ...] | None = None

    def _all(self) -> tuple[T, ...]:
        made = self._tuple
        if made is None:
            made = self._tuple = tuple(self._items[: self._count])
        return made

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return self._all()[index]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("event index out of range")
        return self._items[index]

    def __iter__(self) -> Iterator[T]:
        return islice(self._items, self._count)

    def __reversed__(self) -> Iterator[T]:
        return _Backwards(self._items, self._count)

    def __contains__(self, item: object) -> bool:
        return item in self._all()

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        return self._all().index(value, start, self._count if stop is None else stop)

    def count(self, value: object) -> int:
        return self._all().count(value)

    def __add__(self, other: Sequence[T]) -> tuple[T, ...]:
        return (*self._all(), *other)

    def __radd__(self, other: Sequence[T]) -> tuple[T, ...]:
        return (*other, *self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SoFar):
            if other._items is self._items:
                return other._count == self._count
            return other._count == self._count and self._all() == other._all()
        if isinstance(other, Sequence):
            return len(other) == self._count and self._all() == tuple(other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._all())  # as the tuple of the same items hashes

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple[type[tuple[T, ...]], tuple[tuple[T, ...]]]:
        return tuple, (self._all(),)


Sequence.register(SoFar)


@final
class _Backwards(Generic[T]):
    """The first ``count`` items of a list, last first (without copying them)."""

    def __init__(self, items: list[T], count: int) -> None:
        self._items = items
        self._next = count - 1

    def __iter__(self) -> _Backwards[T]:
        return self

    def __next__(self) -> T:
        index = self._next
        if index < 0:
            raise StopIteration
        self._next = index - 1
        return self._items[index]


__all__ = ["NO_FACTS", "FactsOnDemand", "SoFar"]
