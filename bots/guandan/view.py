"""What a Guandan observation says about the table and the players, for the strategy.

Only the observation is read: the public facts (level, announced card counts, who is
out, the trick on the table, the public events) and the seat's own hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.cards import Card
from arena.games.base import Observation, Seat, next_seat, partner_of
from arena.games.guandan.combos import KIND_BY_LABEL, Reading, reading

__all__ = ["FAR", "TableView", "View", "read_view"]

FAR = 27
"""The card count assumed for a player whose count is not public (more than 10, GD-12)."""


@dataclass(frozen=True, slots=True)
class TableView:
    """The best play of the trick in progress: who made it, its cards and reading."""

    seat: Seat
    cards: tuple[Card, ...]
    reading: Reading


@dataclass(frozen=True, slots=True)
class View:
    """The seat's situation: hand, level, the table and every player's card count."""

    seat: Seat
    hand: tuple[Card, ...]
    level: int
    table: TableView | None
    counts: tuple[int, int, int, int]
    """Cards held per seat: exact when public or our own, :data:`FAR` when unknown, 0 if out."""

    @property
    def partner(self) -> Seat:
        return partner_of(self.seat)

    @property
    def opponents(self) -> tuple[Seat, Seat]:
        return next_seat(self.seat), (self.seat + 3) & 3

    def active_opponents(self) -> list[Seat]:
        return [s for s in self.opponents if self.counts[s]]

    def fewest_opponent_cards(self) -> int:
        """The smallest card count of an opponent still playing (:data:`FAR` if none)."""
        return min((self.counts[s] for s in self.active_opponents()), default=FAR)

    def partner_in(self) -> bool:
        return self.counts[self.partner] > 0

    def next_player(self) -> Seat:
        """The next seat after this one that still holds cards."""
        seat = next_seat(self.seat)
        while seat != self.seat and not self.counts[seat]:
            seat = next_seat(seat)
        return seat


def read_view(observation: Observation) -> View:
    """The :class:`View` of a play-phase (or tribute/return) observation."""
    public = observation.public
    level = int(public["level"])
    finished = set(public.get("finished", ()))
    counts = []
    for seat, count in enumerate(public.get("counts", (None,) * 4)):
        if seat == observation.seat:
            counts.append(len(observation.hand))
        elif seat in finished:
            counts.append(0)
        else:
            counts.append(FAR if count is None else int(count))
    return View(
        seat=observation.seat,
        hand=tuple(observation.hand),
        level=level,
        table=_read_table(observation),
        counts=(counts[0], counts[1], counts[2], counts[3]),
    )


def _read_table(observation: Observation) -> TableView | None:
    """The trick's best play, from the public table and the last ``play`` event."""
    table = observation.public.get("table")
    if not table:
        return None
    seat = int(table["seat"])
    for event in reversed(observation.events):
        if event.kind == "play":
            if event.seat != seat:
                break
            kind = KIND_BY_LABEL[event.tag]
            return TableView(seat, event.cards, reading(kind, event.value, len(event.cards)))
        if event.kind == "lead":
            break
    raise ValueError(
        f"observation of seat {observation.seat}: the table shows a play by seat {seat} "
        "but the events do not end with it"
    )
