"""Shengji's lazily listed plays: ``play`` actions whose ``in`` is read from the cards."""

from __future__ import annotations

from arena.cards import Card
from arena.games.lazy import LazyActions


class LazyPlays(LazyActions):
    """``play`` actions made on demand whose membership is decided from sorted cards
    (:meth:`_holds`), without making any of them."""

    def _holds(self, cards: tuple[Card, ...]) -> bool:
        """Whether these sorted card ints are the cards of one of the plays (each
        subclass says how)."""
        raise NotImplementedError(f"{type(self).__name__} does not say which cards it holds")

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


__all__ = ["LazyPlays"]
