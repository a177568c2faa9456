"""An observation's facts as a read-only mapping made when first read.

An observation is made for every decision, and most policies (a random or rollout one,
a remote bot's relay before it encodes) never read its public facts, or read one of
them. A :class:`FactsOnDemand` holds what the facts are made from — pieces of the
state that are never changed once made, and the few numbers that change — and makes
the dict the first time it is read.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from typing import Any, Final, cast, final


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

__all__ = ["NO_FACTS", "FactsOnDemand"]
