"""What the climbing games (Guandan, sanfu) share: turns skip players who are out,
a trick ends when every other player still in has passed, and a winner who is out
hands the lead to their partner (接风, GD-11, SF-10)."""

from __future__ import annotations

import abc
from typing import Generic, Protocol, TypeVar

from arena.games.base import NUM_SEATS, CardState, Event, Seat, next_seat, partner_of

_PASSES = tuple([Event("pass", seat) for seat in range(NUM_SEATS)])
"""The pass event of each seat (events are immutable: one serves every deal)."""


class Table(Protocol):
    """The trick in progress: who made the last play, and the passes since."""

    seat: Seat
    passes: int


TableT = TypeVar("TableT", bound=Table)


class ClimbingState(CardState, Generic[TableT]):
    """Passing and leading for games where players climb out one by one.

    Generic over the game's own table type, so that a subclass sees its precise type
    without declaring the attribute again (a compiled class may not re-declare it).
    """

    _sizes: list[int]
    _table: TableT

    @abc.abstractmethod
    def _lead(self, seat: Seat, tag: str = "") -> None:
        """Start a new trick led by ``seat`` (``tag`` "partner" for 接风)."""

    def _trick_won(self, seat: Seat) -> None:
        """Hook: the trick just ended, won by ``seat`` (sanfu captures its points)."""

    def _next_active(self, seat: Seat) -> Seat:
        """The next player after ``seat`` who still holds cards."""
        nxt = next_seat(seat)
        while not self._sizes[nxt]:
            nxt = next_seat(nxt)
        return nxt

    def _pass(self, seat: Seat) -> None:
        table = self._table
        table.passes += 1
        self._events.append(_PASSES[seat])
        sizes, last = self._sizes, table.seat
        others = 0  # the players still in, besides the one who played last
        for s in range(NUM_SEATS):
            if sizes[s] and s != last:
                others += 1
        if table.passes < others:
            self._to_act = self._next_active(seat)
            return
        winner = table.seat
        self._trick_won(winner)
        if self._sizes[winner]:
            self._lead(winner)
        else:  # the winner is out: the partner leads (接风)
            self._lead(partner_of(winner), tag="partner")
