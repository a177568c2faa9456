"""What a Shengji seat knows, read from its observation's public events only.

:class:`Memory` folds the events of one deal into facts a player keeps in mind:
the standing declaration, the dealer and the card order once trump is known,
every card played, which seats have shown a void in which suit, and the trick
on the table. It reads events incrementally (the events of a deal only grow), but
what it knows is a function of the events alone: a fresh memory given the same
observation knows the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.cards import NUM_KINDS, SUITS, Card
from arena.games.base import NOBODY, NUM_SEATS, Event, Observation, Seat
from arena.games.shengji.order import TrumpOrder, card_points
from arena.games.shengji.shapes import Unit, decompose
from arena.games.shengji.trick import Contender, contender, lead_contender

_TRUMP_NAMES = {name: i for i, name in enumerate(SUITS)} | {"black": 0, "red": 1}


@dataclass
class Trick:
    """The trick on the table: its leader and the plays so far.

    The lead read as units and the best play so far are worked out when first asked
    for (only the seat about to follow needs them).
    """

    leader: Seat = NOBODY
    plays: list[tuple[Seat, tuple[Card, ...]]] = field(default_factory=list)
    suit: int = -1
    _lead: list[Unit] | None = None
    _best: tuple[int, Seat, Contender] | None = None

    @property
    def size(self) -> int:
        return len(self.plays[0][1]) if self.plays else 0

    def copy(self) -> Trick:
        """The same trick with a list of plays of its own (what is worked out is not kept)."""
        return Trick(self.leader, list(self.plays), self.suit)

    def lead(self, order: TrumpOrder) -> list[Unit]:
        """The lead's units (a throw that failed: the forced unit actually played)."""
        if self._lead is None:
            self._lead = units_of(self.plays[0][1], order)
        return self._lead

    def best(self, order: TrumpOrder, decks: int) -> tuple[Seat, Contender]:
        """The seat winning the trick so far, and its play as a contender (SJ-20)."""
        cached = self._best
        if cached is not None and cached[0] == len(self.plays):
            return cached[1], cached[2]
        lead = self.lead(order)
        seat, best = self.plays[0][0], lead_contender(lead, self.suit)
        for follower, cards in self.plays[1:]:
            found = contender(cards, lead, self.suit, order, decks)
            if found is not None and found.beats(best):
                seat, best = follower, found
        self._best = (len(self.plays), seat, best)
        return seat, best


@dataclass
class Memory:
    """Facts of one deal, from the public events (and this seat's hand and kitty)."""

    decks: int
    seat: Seat
    level: int = 0
    declarations: list[tuple[Seat, int]] = field(default_factory=list)
    """(seat, number of cards shown) of every declaration, in order."""
    dealer: Seat = NOBODY
    order: TrumpOrder | None = None
    played: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    voids: list[set[int]] = field(default_factory=lambda: [set() for _ in range(NUM_SEATS)])
    trick: Trick = field(default_factory=Trick)
    tricks_done: int = 0
    twos_seen_as_trump: bool = False
    events: Sequence[Event] = ()

    def update(self, observation: Observation) -> None:
        """Read the events not read yet (the observation must be of this deal)."""
        events = observation.events
        read = self._read
        for i in range(len(self.events), len(events)):
            read(events[i])
        self.events = events

    def read_until(self, events: Sequence[Event], stop: int) -> None:
        """Read the events not read yet before index ``stop`` of the deal's ``events``."""
        read = self._read
        for i in range(len(self.events), stop):
            read(events[i])
        self.events = tuple(events[:stop])

    def copy(self) -> Memory:
        """A memory knowing the same, sharing nothing that changes."""
        return Memory(
            self.decks,
            self.seat,
            self.level,
            list(self.declarations),
            self.dealer,
            self.order,
            list(self.played),
            [set(suits) for suits in self.voids],
            self.trick.copy(),
            self.tricks_done,
            self.twos_seen_as_trump,
            self.events,
        )

    def _read(self, event: Event) -> None:
        kind = event.kind
        if kind == "play":  # most events
            self._play(event.seat, event.cards)
        elif kind == "deal":
            self.level = event.value
        elif kind == "declare":
            self.declarations.append((event.seat, event.value))
        elif kind == "trump":
            self.dealer = event.seat
            self.order = make_order(event.value, event.tag, self.decks, self.twos_seen_as_trump)
        elif kind == "lead":
            self._close_trick()
            self.trick = Trick(leader=event.seat)

    def _play(self, seat: Seat, cards: tuple[Card, ...]) -> None:
        order, trick = self.order, self.trick
        assert order is not None
        played, suits = self.played, order.suits
        leading = not trick.plays
        suit = suits[cards[0]] if leading else trick.suit
        mixed = False
        for card in cards:
            played[card] += 1
            if suits[card] != suit:
                mixed = True
        if leading:
            if mixed:
                # a lead is of one suit: only 2s being trumps (constant_twos) explain this
                self.order = make_order(self.level, order.trump_name(), self.decks, True)
                self.twos_seen_as_trump = True
                suits = self.order.suits
            trick.suit = suits[cards[0]]
        elif mixed:
            self.voids[seat].add(trick.suit)
        trick.plays.append((seat, cards))

    def note_leads(self, leads: Sequence[tuple[Card, ...]]) -> None:
        """Listed leads are each of one suit: one mixing suits means 2s are trumps."""
        order = self.order
        if order is None or order.constant_twos:
            return
        suits = order.suits
        if any(len({suits[c] for c in cards}) > 1 for cards in leads):
            self.order = make_order(self.level, order.trump_name(), self.decks, True)
            self.twos_seen_as_trump = True

    def _close_trick(self) -> None:
        if len(self.trick.plays) == NUM_SEATS:
            self.tricks_done += 1

    # ------------------------------------------------------------- questions

    def unknown(self, hand: Sequence[Card], buried: Sequence[Card] = ()) -> list[int]:
        """Counts of the cards this seat cannot place: not in its hand, not played, not
        buried by it (the other hands and, for a defender, the kitty)."""
        counts = [self.decks - n for n in self.played]
        for card in hand:
            counts[card] -= 1
        for card in buried:
            counts[card] -= 1
        return counts

    def table_points(self) -> int:
        return sum([card_points(c) for _, cards in self.trick.plays for c in cards])

    def still_to_play(self) -> list[Seat]:
        """The seats after this one that have not played to the trick yet."""
        played = len(self.trick.plays)
        return [(self.trick.leader + k) % NUM_SEATS for k in range(played + 1, NUM_SEATS)]


_STARTS: dict[tuple[int, Seat], Memory] = {}
"""Per number of decks and seat, the last memory :func:`new_memory` read (up to the
start of a trick): a search's rollouts from one drawn deal share the deal's past."""


def new_memory(decks: int, seat: Seat, events: Sequence[Event]) -> Memory:
    """A memory of the start of ``events`` (the caller reads the rest with
    :meth:`Memory.update`): a copy of the one kept for this seat when ``events``
    continue it, else read up to the start of the trick before the current one and kept.
    What a memory knows is a function of the events alone, so both are the same."""
    key = (decks, seat)
    kept = _STARTS.get(key)
    if kept is not None and _extends(events, kept.events):
        return kept.copy()
    memory = Memory(decks, seat)
    stop = _previous_trick_start(events)
    if stop > 0:
        memory.read_until(events, stop)
        _STARTS[key] = memory.copy()
    return memory


def _extends(events: Sequence[Event], read: Sequence[Event]) -> bool:
    """Whether ``events`` begin with ``read``, the very same event objects (clones of a
    state share them; the whole prefix is compared, identical objects compare fast)."""
    n = len(read)
    return 0 < n <= len(events) and events[n - 1] is read[-1] and tuple(events[:n]) == read


def _previous_trick_start(events: Sequence[Event]) -> int:
    """The index of the lead of the trick before the last one led (0: none)."""
    leads = 0
    for i in range(len(events) - 1, -1, -1):
        if events[i].kind == "lead":
            leads += 1
            if leads == 2:
                return i
    return 0


UNITS_KEPT = 4096
"""How many splits :func:`units_of` keeps before it starts afresh."""

_units_known: dict[tuple[tuple[Card, ...], int], tuple[TrumpOrder, list[Unit]]] = {}


def units_of(cards: tuple[Card, ...], order: TrumpOrder) -> list[Unit]:
    """:func:`~arena.games.shengji.shapes.decompose` of ``cards``, worked out once for
    the same cards and order (a rollout reads the same leads and suits of a hand many
    times). The list is shared: callers must not change it."""
    key = (cards, id(order))
    found = _units_known.get(key)
    if found is None or found[0] is not order:  # the entry holds its order: no reused id
        if len(_units_known) >= UNITS_KEPT:
            _units_known.clear()
        found = _units_known[key] = (order, decompose(cards, order))
    return found[1]


_ORDERS: dict[tuple[int, str, int, bool], TrumpOrder] = {}
"""Every order made, by what makes it: memories of a deal share one (orders are
immutable), so what is worked out per order is worked out once."""


def make_order(level: int, trump_name: str, decks: int, twos_seen: bool) -> TrumpOrder:
    """The deal's order from the public trump event (4 decks: 2s are always trumps)."""
    key = (level, trump_name, decks, twos_seen)
    order = _ORDERS.get(key)
    if order is None:
        two_colour = trump_name in ("black", "red")
        trump = None if trump_name == "notrump" else _TRUMP_NAMES[trump_name]
        order = _ORDERS[key] = TrumpOrder(level, trump, decks == 4 or twos_seen, two_colour)
    return order


def suits_of(cards: Sequence[Card], order: TrumpOrder) -> dict[int, list[Card]]:
    """Cards grouped by their suit for following (trumps under :data:`TRUMP`)."""
    by_suit: dict[int, list[Card]] = {}
    suits = order.suits
    for card in cards:
        suit = suits[card]
        found = by_suit.get(suit)
        if found is None:
            by_suit[suit] = [card]
        else:
            found.append(card)
    return by_suit


__all__ = ["Memory", "Trick", "make_order", "new_memory", "suits_of", "units_of"]
