"""What a seat knows at a decision, read from its :class:`Observation` only.

Partners: SF-3/SF-4 rearrange the seats while the cards are dealt (the ``turn``
and ``swap`` events are the public record), so by the first decision of the deal
partners sit opposite (C-2) and the partner is the opposite seat.

Card memory: every ``play`` event shows its cards, so the cards of a rank that
neither this seat holds nor anybody has played are still out (``unseen``). The
count is kept incrementally while the events only grow (the same deal), and is
rebuilt from the events otherwise: it is always a function of the events alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import sub
from typing import Any

from arena.games.base import Event, Observation, Seat, partner_of, team_of
from arena.games.sanfu.combos import BIG_JOKER_VALUE, Reading, reading
from bots.sanfu.hand import COPIES, VALUE_OF, hand_counts


@dataclass(frozen=True, slots=True)
class Table:
    """The trick in progress: who is winning it, with what, and its points so far."""

    seat: Seat
    reading: Reading
    cards: tuple[int, ...]
    points: int


@dataclass(frozen=True, slots=True)
class View:
    """A decision seen from ``seat``: the other seats' card counts, who is out, the trick."""

    seat: Seat
    partner: Seat
    counts: tuple[int, ...]
    finished: tuple[Seat, ...]
    table: Table | None
    unseen: tuple[int, ...]
    """Index = rank value: cards of that value neither in this hand nor played yet."""

    def is_opponent(self, seat: Seat) -> bool:
        return team_of(seat) != team_of(self.seat)

    def opponents_in(self) -> list[Seat]:
        """The opponents still holding cards."""
        return [s for s in range(4) if self.is_opponent(s) and self.counts[s]]

    def partner_in(self) -> bool:
        return self.counts[self.partner] > 0

    def fewest_opponent_cards(self) -> int:
        """The smallest hand among the opponents still in (99 if none is)."""
        return min([self.counts[s] for s in self.opponents_in()], default=99)

    def higher_unseen(self, value: int, width: int) -> bool:
        """Whether some rank above ``value`` still has ``width`` cards out (could beat it)."""
        unseen = self.unseen
        return any(unseen[v] >= width for v in range(value + 1, BIG_JOKER_VALUE + 1))


class PlayedMemory:
    """The cards played so far, per rank value, from the public ``play`` events."""

    __slots__ = ("_events", "_played")

    def __init__(self) -> None:
        self._events: Sequence[Event] = ()
        self._played = [0] * (BIG_JOKER_VALUE + 1)

    def played(self, events: Sequence[Event]) -> list[int]:
        known = len(self._events)
        restarted = len(events) < known or events[:known] != self._events
        if restarted:
            self._events, self._played = _restart(events)
            known = len(self._events)
        played = self._played
        for event in events[known:]:
            if event.kind == "play":
                for card in event.cards:
                    played[VALUE_OF[card]] += 1
        self._events = events
        if restarted:
            _KEPT[:] = [(events, tuple(played))]
        return played


_KEPT: list[tuple[Sequence[Event], tuple[int, ...]]] = []
"""The events and counts a memory last read from a restart: a memory restarting on
events that continue them (the four seats of one rollout) starts from a copy."""


def _restart(events: Sequence[Event]) -> tuple[Sequence[Event], list[int]]:
    """Where a memory that does not know ``events`` starts: the kept events and counts
    when ``events`` continue them, nothing otherwise."""
    if _KEPT:
        kept, counts = _KEPT[0]
        if len(kept) <= len(events) and events[: len(kept)] == kept:
            return kept, list(counts)
    return (), [0] * (BIG_JOKER_VALUE + 1)


def read_view(
    observation: Observation, memory: PlayedMemory, held: Sequence[int] | None = None
) -> View:
    """The :class:`View` of an observation (card memory kept in ``memory``; ``held``,
    the hand's count per rank value, when the caller has it already)."""
    public: Mapping[str, Any] = observation.public
    seat = observation.seat
    played = memory.played(observation.events)
    if held is None:
        held = hand_counts(observation.hand)
    unseen = tuple(map(sub, map(sub, COPIES, held), played))  # per value: copies - held - played
    return View(
        seat=seat,
        partner=partner_of(seat),
        counts=tuple(public["counts"]),
        finished=tuple(public["finished"]),
        table=_table(public.get("table"), observation.events),
        unseen=unseen,
    )


def _table(table: Mapping[str, Any] | None, events: Sequence[Event]) -> Table | None:
    """The trick on the table: the last ``play`` event is the play to beat (SF-10)."""
    if table is None:
        return None
    for event in reversed(events):
        if event.kind == "play":
            combo = reading(event.cards)
            if combo is None or event.seat != table["seat"]:
                raise ValueError(f"the last play {event!r} does not match the table {table!r}")
            return Table(event.seat, combo, event.cards, int(table["points"]))
    raise ValueError(f"a trick is on the table ({table!r}) but no play event shows it")
