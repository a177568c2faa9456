"""The Guandan deal as a state machine: tribute, return, play (GD-1 … GD-16).

Every decision — a tribute card, a return card, a play or a pass — goes through
``legal_actions`` → ``apply``. The state is pure: no clock, no I/O, no random
draws (the shuffle and the first leader come from :mod:`arena.chance`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, NoReturn, cast, final

from arena.cards import (
    BIG_JOKER,
    NUM_KINDS,
    RANK_ACE,
    RANK_TEN,
    Card,
    format_card,
    format_cards,
    rank_label,
)
from arena.errors import IllegalActionError
from arena.games.base import (
    NOBODY,
    NUM_SEATS,
    PASS,
    Action,
    ActionSyntax,
    Event,
    Observation,
    Outcome,
    Seat,
    Verb,
    next_seat,
    partner_of,
    previous_seat,
    quote_action,
    team_of,
    well_formed,
)
from arena.games.climbing import ClimbingState
from arena.games.guandan.combos import (
    IS_SEQUENCE,
    KIND_BY_LABEL,
    KIND_LABELS,
    Reading,
    beats,
    card_value,
    no_combination_reason,
    play_readings,
    value_text,
    wild_card,
)
from arena.games.guandan.listing import Plays
from arena.games.guandan.moves import HandPlays
from arena.games.views import NO_FACTS, FactsOnDemand, SoFar

GAME_NAME = "guandan"
_new_tuple: Final = tuple.__new__
_EVENT: Final = Event
_OBSERVATION: Final = Observation
"""The event class, for the hot paths (read once, not looked up by name on each use)."""
SYNTAX = ActionSyntax(
    GAME_NAME,
    {
        "pass": Verb(0, 0),
        "play": Verb(1, tags=frozenset(KIND_BY_LABEL)),  # GD-8: "as KIND" when ambiguous
        "tribute": Verb(1, 1),  # GD-13
        "return": Verb(1, 1),
    },
)
ANNOUNCE_AT: Final = 10
"""GD-12: a hand of this many cards or fewer is announced."""


@dataclass(frozen=True, slots=True)
class GuandanSetup:
    """What a deal needs from the match so far (levels, tribute owed, leader).

    ``levels`` are rank indexes (0 = 2 … 12 = A) of teams 0 and 1;
    ``level_team`` is the team whose level is played (GD-4);
    ``previous_order`` the finishing order of the previous deal (empty for the
    first deal: no tribute); ``leader`` leads the first trick of a deal without
    tribute (``None``: drawn from the deal's seed, GD-3); ``a_failures`` counts
    the failed deals at A of each team (option ``a_fail_limit``).
    """

    levels: tuple[int, int] = (0, 0)
    level_team: int = 0
    previous_order: tuple[Seat, ...] = ()
    leader: Seat | None = None
    a_failures: tuple[int, int] = (0, 0)
    deal_index: int = 0

    @property
    def level(self) -> int:
        return self.levels[self.level_team]


@dataclass(slots=True)
class _Table:
    """The trick in progress: its best play so far and the passes since; ``public``, the
    public part of an observation while this trick's best play stands (passes change
    nothing in it, every play and every lead makes a new trick object)."""

    seat: Seat = NOBODY
    cards: tuple[Card, ...] = ()
    reading: Reading | None = None
    passes: int = 0
    public: _PublicFacts | None = None


@dataclass(slots=True)
class _Tribute:
    """Tribute owed at the start of a deal (GD-13 … GD-15)."""

    givers: list[Seat] = field(default_factory=list)
    given: dict[Seat, Card] = field(default_factory=dict)
    receiver_of: dict[Seat, Seat] = field(default_factory=dict)
    returners: list[Seat] = field(default_factory=list)
    returned: dict[Seat, Card] = field(default_factory=dict)
    double: bool = False
    leader_after: Seat = NOBODY


class GuandanState(ClimbingState[_Table]):
    """One Guandan deal."""

    game_name = GAME_NAME
    syntax = SYNTAX

    def __init__(
        self,
        hands: Sequence[Sequence[Card]],
        setup: GuandanSetup,
        leader: Seat,
        a_fail_limit: int = 0,
        source: GuandanState | None = None,
    ) -> None:
        """The state at the start of a deal; with ``source``, a copy of that state instead
        (:meth:`clone`: the other arguments are then ignored)."""
        if source is not None:
            self._copy(source)
            return
        self.setup = setup
        self.level = setup.level
        self.a_fail_limit = a_fail_limit
        self._shared = 0
        self._wild = wild_card(self.level)
        self._counts = [[0] * NUM_KINDS for _ in range(NUM_SEATS)]
        for seat, cards in enumerate(hands):
            for card in cards:
                self._counts[seat][card] += 1
        self._sizes = [len(h) for h in hands]
        self._announced = [size <= ANNOUNCE_AT for size in self._sizes]
        self._events: list[Event] = [Event("deal", value=self.level)]
        self._out: list[Seat] = []
        self._table = _Table()
        self._tribute: _Tribute | None = None
        self._phase = "play"
        self._to_act = leader
        self._legal: Plays | tuple[Action, ...] | None = None
        self._legal_readings: list[Reading] = []
        self._plays: list[HandPlays | None] = [None] * NUM_SEATS
        self._hands: list[tuple[Card, ...] | None] = [None] * NUM_SEATS
        self._order: tuple[Seat, ...] = ()
        self._start_tribute(leader)

    # ------------------------------------------------------------------ tribute

    def _start_tribute(self, leader: Seat) -> None:
        order = self.setup.previous_order
        if not order:
            self._lead(leader)
            return
        first = order[0]
        double = team_of(order[1]) == team_of(first)
        givers = sorted(order[2:] if double else order[3:], key=lambda s: (s - first) % 4)
        big_jokers = sum(self._counts[s][BIG_JOKER] for s in givers)
        if big_jokers == 2:  # GD-15
            self._events.append(
                Event(
                    "refuse_tribute",
                    givers[0] if not double else NOBODY,
                    tag="double" if double else "",
                )
            )
            self._lead(first)
            return
        tribute = _Tribute(givers=givers, double=double)
        if double:
            tribute.leader_after = next_seat(first)
        else:
            tribute.receiver_of[givers[0]] = first
            tribute.leader_after = givers[0]
        self._tribute = tribute
        self._phase = "tribute"
        self._to_act = givers[0]

    def _tribute_choices(self, seat: Seat) -> list[Card]:
        """GD-13: the highest cards, the heart level card excepted."""
        counts, level, wild = self._counts[seat], self.level, self._wild
        held = [c for c in range(NUM_KINDS) if counts[c] and c != wild]
        if not held:
            return []
        top = max(card_value(c, level) for c in held)
        return [c for c in held if card_value(c, level) == top]

    def _return_choices(self, seat: Seat, giver: Seat) -> list[Card]:
        """GD-13: any card to an opponent; to a partner a card of natural rank 2 … 10.

        Decision: a receiver holding no card of rank 2 … 10 may return any card.
        """
        held = [c for c in range(NUM_KINDS) if self._counts[seat][c]]
        if team_of(giver) != team_of(seat):
            return held
        low = [c for c in held if c < 52 and c >> 2 <= RANK_TEN]
        return low or held

    def _give_tribute(self, seat: Seat, card: Card) -> None:
        tribute = self._tribute
        assert tribute is not None
        tribute.given[seat] = card
        self._take(seat, card)
        pending = [s for s in tribute.givers if s not in tribute.given]
        if pending:
            self._to_act = pending[0]
            return
        order = self.setup.previous_order
        if tribute.double:
            a, b = tribute.givers
            va, vb = (card_value(tribute.given[s], self.level) for s in (a, b))
            if va == vb:  # GD-14: clockwise, against the turn: each loser to their 上家
                tribute.receiver_of = {a: previous_seat(a), b: previous_seat(b)}
            else:
                high, low = (a, b) if va > vb else (b, a)
                tribute.receiver_of = {high: order[0], low: order[1]}
        for giver in tribute.givers:
            receiver = tribute.receiver_of[giver]
            card_given = tribute.given[giver]
            self._give(receiver, card_given)
            self._events.append(Event("tribute", giver, (card_given,), receiver))
        first = order[0]
        tribute.returners = sorted(tribute.receiver_of.values(), key=lambda s: (s - first) % 4)
        self._phase = "return"
        self._to_act = tribute.returners[0]

    def _give_return(self, seat: Seat, card: Card) -> None:
        tribute = self._tribute
        assert tribute is not None
        tribute.returned[seat] = card
        self._take(seat, card)
        pending = [s for s in tribute.returners if s not in tribute.returned]
        if pending:  # GD-14: returns are face down until all are made
            self._to_act = pending[0]
            return
        giver_of = {r: g for g, r in tribute.receiver_of.items()}
        for returner in tribute.returners:
            giver, returned = giver_of[returner], tribute.returned[returner]
            self._give(giver, returned)
            self._events.append(Event("return", returner, (returned,), giver))
        self._lead(tribute.leader_after)

    # --------------------------------------------------------------------- play

    def _own_counts(self, seat: Seat) -> list[int]:
        """The seat's counts vector, copied first if a clone shares it (copy on write)."""
        counts = self._counts[seat]
        if self._shared >> seat & 1:
            counts = self._counts[seat] = list(counts)
            self._shared &= ~(1 << seat)
        return counts

    def _take(self, seat: Seat, card: Card) -> None:
        self._own_counts(seat)[card] -= 1
        self._plays[seat] = self._hands[seat] = None

    def _give(self, seat: Seat, card: Card) -> None:
        self._own_counts(seat)[card] += 1
        self._plays[seat] = self._hands[seat] = None

    def _lead(self, seat: Seat, tag: str = "") -> None:
        self._phase = "play"
        self._table = _Table()
        self._to_act = seat
        self._events.append(_new_tuple(_EVENT, ("lead", seat, (), NOBODY, 0, tag)))

    def _play(self, seat: Seat, cards: tuple[Card, ...], reading: Reading) -> None:
        counts = self._own_counts(seat)
        for card in cards:
            counts[card] -= 1
        hand = self._hands[seat]
        if hand is not None:  # the sorted hand kept up to date: cheaper than rebuilt
            rest = list(hand)
            for card in cards:
                rest.remove(card)
            self._hands[seat] = tuple(rest)
        plays = self._plays[seat]
        if plays is not None:
            self._plays[seat] = plays.after_play(counts)
        self._sizes[seat] = size = self._sizes[seat] - len(cards)
        # every field in order, without the keyword constructor (hot path)
        self._events.append(
            _new_tuple(
                _EVENT, ("play", seat, cards, NOBODY, reading.value, KIND_LABELS[reading.kind])
            )
        )
        self._table = _Table(seat, cards, reading, 0)
        if size <= ANNOUNCE_AT and not self._announced[seat]:
            self._announced[seat] = True
            self._events.append(Event("announce", seat, value=size))
        if size == 0:
            self._out.append(seat)
            self._events.append(Event("out", seat, value=len(self._out)))
            if self._deal_finished():
                self._finish()
                return
        self._to_act = self._next_active(seat)

    def _deal_finished(self) -> bool:
        """GD-2: three players out, or both players of one team out."""
        out = self._out
        return len(out) >= 3 or (len(out) == 2 and team_of(out[0]) == team_of(out[1]))

    def _finish(self) -> None:
        remaining = [s for s in range(NUM_SEATS) if self._sizes[s]]
        last = self._out[-1]
        remaining.sort(key=lambda s: (s - last) % 4)
        self._order = (*self._out, *remaining)
        self._phase = "over"
        self._to_act = NOBODY

    # ---------------------------------------------------------------- interface

    def set_aside(self) -> tuple[Card, ...]:
        """Tributes and returns given face down but not yet handed over (GD-14)."""
        tribute = self._tribute
        if tribute is None:
            return ()
        if self._phase == "tribute":
            return tuple(sorted(tribute.given.values()))
        if self._phase == "return":
            return tuple(sorted(tribute.returned.values()))
        return ()

    def hand_size(self, seat: Seat) -> int:
        return sum(self._counts[seat])

    @property
    def finishing_order(self) -> tuple[Seat, ...]:
        """Seats in the order they played out so far (all four once the deal is over)."""
        return self._order if self._phase == "over" else tuple(self._out)

    @property
    def table(self) -> tuple[Seat, tuple[Card, ...], Reading | None]:
        """The best play of the trick in progress: seat, cards, reading."""
        return self._table.seat, self._table.cards, self._table.reading

    def legal_actions(self) -> Sequence[Action]:
        """The legal actions: a play decision's made only when asked for (:class:`Plays`),
        the others' as a list."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        # a registered Sequence: mypy cannot see it
        return cast(Sequence[Action], legal) if isinstance(legal, Plays) else list(legal)

    def _compute_legal(self) -> Plays | tuple[Action, ...]:
        seat, phase = self._to_act, self._phase
        if phase == "play":
            table = self._table.reading
            plays, self._legal_readings = self._plays_of(seat).options(
                table, PASS if table is not None else None
            )
            return plays
        if phase == "tribute":
            return tuple(Action("tribute", (c,)) for c in self._tribute_choices(seat))
        if phase == "return":
            assert self._tribute is not None
            giver = next(g for g, r in self._tribute.receiver_of.items() if r == seat)
            return tuple(Action("return", (c,)) for c in self._return_choices(seat, giver))
        return ()

    def _plays_of(self, seat: Seat) -> HandPlays:
        plays = self._plays[seat]
        if plays is None:
            plays = self._plays[seat] = HandPlays(self._counts[seat], self.level)
        return plays

    def apply(self, action: Action) -> None:
        seat = self._to_act
        if seat == NOBODY:
            raise IllegalActionError(f"illegal action {quote_action(action)}: the deal is over")
        if self._shared & _LISTS_SHARED:
            self._unshare()
        phase = self._phase
        if phase == "play":
            self._apply_play(seat, action)
            self._legal = None
            return
        action = well_formed(action)
        if phase == "tribute":
            self._check_single_card(
                action,
                "tribute",
                self._tribute_choices(seat),
                "GD-13: tribute is the highest card, never the heart level card",
            )
            self._give_tribute(seat, action.cards[0])
        else:
            assert self._tribute is not None
            giver = next(g for g, r in self._tribute.receiver_of.items() if r == seat)
            self._check_single_card(
                action,
                "return",
                self._return_choices(seat, giver),
                "GD-13: a return to a partner is a card of rank 2 to 10",
            )
            self._give_return(seat, action.cards[0])
        self._legal = None

    def _check_single_card(self, action: Action, verb: str, allowed: list[Card], rule: str) -> None:
        text = str(action)
        if action.verb != verb:
            raise IllegalActionError(
                f"illegal action {text!r}: seat {self._to_act} must {verb} now"
            )
        if len(action.cards) != 1 or action.tag:
            raise IllegalActionError(f"illegal action {text!r}: {verb} exactly one card")
        card = action.cards[0]
        if not self._counts[self._to_act][card]:
            raise IllegalActionError(
                f"illegal action {text!r}: {format_card(card)} is not in the hand "
                f"of seat {self._to_act}"
            )
        if card not in allowed:
            raise IllegalActionError(
                f"illegal action {text!r}: {rule}; allowed: {format_cards(allowed)}"
            )

    def _apply_play(self, seat: Seat, action: Action) -> None:
        table = self._table.reading
        if action is PASS or action == PASS:
            if table is None:
                raise IllegalActionError("illegal action 'pass': the leader must play (GD-10)")
            if self._shared & _TABLE_SHARED:  # a clone shares the trick: copy on write
                t = self._table
                self._table = _Table(t.seat, t.cards, t.reading, t.passes, t.public)
                self._shared &= ~_TABLE_SHARED
            self._pass(seat)
            return
        if self._legal is None:
            # nothing listed (a replay): the play read by itself, as listing would read
            # it (every play that is in the hand and beats the table is listed)
            canonical = well_formed(action)
            self._play(seat, canonical.cards, self._checked_reading(seat, canonical))
            return
        legal = self._legal
        index = legal.find(action) if isinstance(legal, Plays) else -1
        if index < 0:
            canonical = well_formed(action)
            if canonical is not action:  # the same play with its cards in another order
                self._apply_play(seat, canonical)
                return
            self._explain_illegal_play(seat, action)
        reading = self._legal_readings[index - 1 if table is not None else index]
        self._play(seat, action.cards, reading)

    def _explain_illegal_play(self, seat: Seat, action: Action) -> NoReturn:
        """Raise an error that says which rule a play that is not legal breaks."""
        self._checked_reading(seat, action)
        raise IllegalActionError(f"illegal action {str(action)!r}: not a legal play here")

    def _checked_reading(self, seat: Seat, action: Action) -> Reading:
        """The reading ``action`` (canonical) is played at, or an error that says which
        rule it breaks: not a play, cards not in the hand, no combination (GD-8), not
        beating the table (GD-9)."""
        text = str(action)
        table = self._table.reading
        if action.verb != "play" or not action.cards:
            raise IllegalActionError(f"illegal action {text!r}: expected 'pass' or 'play CARDS'")
        counts = self._counts[seat]
        missing = _missing(counts, action.cards)
        if missing:
            raise IllegalActionError(
                f"illegal action {text!r}: {format_cards(missing)} not in the hand of seat {seat}"
            )
        reading = self._read(action, text)
        if table is not None and not beats(reading, table):
            raise IllegalActionError(
                f"illegal action {text!r}: {reading.describe(self.level)} does not beat "
                f"{table.describe(self.level)} (GD-9)"
            )
        return reading

    def _read(self, action: Action, text: str) -> Reading:
        kept = play_readings(action.cards, self.level)
        if not kept:
            reason = no_combination_reason(action.cards, self.level)
            raise IllegalActionError(f"illegal action {text!r}: no combination: {reason} (GD-8)")
        if action.tag:
            kind = KIND_BY_LABEL.get(action.tag)
            chosen = [r for r in kept if r.kind == kind]
            if not chosen or len(kept) == 1:
                readable = " or ".join(r.kind.label for r in kept)
                raise IllegalActionError(
                    f"illegal action {text!r}: these cards are played as {readable}, "
                    "name a kind only when they can be read as two"
                )
            return chosen[0]
        if len(kept) > 1:
            options = " or ".join(f"'as {r.kind.label}'" for r in kept)
            raise IllegalActionError(f"illegal action {text!r}: ambiguous, add {options}")
        return kept[0]

    # ----------------------------------------------------------- observation

    def public_counts(self) -> list[int | None]:
        """GD-12: a count is public once it is 10 or fewer; ``None`` means more than 10."""
        return [self._sizes[s] if self._announced[s] else None for s in range(NUM_SEATS)]

    def _public_view(self) -> _PublicFacts:
        """The public part of an observation: the same object until the next play or lead
        (the hand sizes and the players out change only with a play)."""
        return _PublicFacts(
            self.level, self.setup, self.public_counts(), tuple(self._out), self._table
        )

    def observe(self, seat: Seat) -> Observation:
        table = self._table
        public = table.public
        if public is None:
            public = table.public = self._public_view()
        private = NO_FACTS
        tribute = self._tribute
        if tribute is not None and seat in tribute.returned and self._phase == "return":
            private = {"return_given": format_card(tribute.returned[seat])}
        to_act = self._to_act
        legal: Plays | tuple[Action, ...] = ()
        if seat == to_act:
            legal = self._legal if self._legal is not None else self._compute_legal()
            self._legal = legal
        hand = self._hands[seat]
        # every field in order, without the keyword constructor (once per decision)
        return _new_tuple(
            _OBSERVATION,
            (
                GAME_NAME,
                seat,
                self._phase,
                to_act,
                hand if hand is not None else self.hand(seat),
                legal,
                SoFar(self._events, len(self._events)),
                public,
                private,
                True,
                "",
            ),
        )

    # ---------------------------------------------------------------- outcome

    def outcome(self) -> Outcome:
        if self._phase != "over":
            raise IllegalActionError("the deal is not over")
        if self.fled != NOBODY:
            return self.forfeit_outcome()
        return settle(self.setup, self._order, self.a_fail_limit)

    def clone(self) -> GuandanState:
        return GuandanState((), self.setup, NOBODY, self.a_fail_limit, self)

    def _copy(self, source: GuandanState) -> None:
        """Become a copy of ``source``, sharing every container with it until one of the
        two changes (copy on write: :meth:`_unshare`; the counts vectors and the trick
        one by one when written)."""
        source._shared = self._shared = _ALL_SHARED
        self.setup = source.setup
        self.level = source.level
        self.a_fail_limit = source.a_fail_limit
        self.fled = source.fled
        self._wild = source._wild
        self._counts = source._counts
        self._sizes = source._sizes
        self._announced = source._announced
        self._events = source._events
        self._out = source._out
        self._table = source._table
        self._tribute = source._tribute
        self._phase = source._phase
        self._to_act = source._to_act
        self._legal = source._legal
        self._legal_readings = source._legal_readings
        self._plays = source._plays
        self._hands = source._hands
        self._order = source._order

    def _unshare(self) -> None:
        """Before a change: copy the containers a clone shares (the counts vectors and
        the trick stay shared until written, :meth:`_own_counts`)."""
        self._shared &= ~_LISTS_SHARED
        self._counts = list(self._counts)
        self._sizes = list(self._sizes)
        self._announced = list(self._announced)
        self._events = list(self._events)
        self._out = list(self._out)
        self._plays = list(self._plays)
        self._hands = list(self._hands)
        tribute = self._tribute
        if tribute is not None and (self._phase == "tribute" or self._phase == "return"):
            self._tribute = _Tribute(
                list(tribute.givers),
                dict(tribute.given),
                dict(tribute.receiver_of),
                list(tribute.returners),
                dict(tribute.returned),
                tribute.double,
                tribute.leader_after,
            )

    def note_automatic(self, seat: Seat) -> None:
        if self._shared & _LISTS_SHARED:
            self._unshare()
        super().note_automatic(seat)

    def flee(self, seat: Seat) -> None:
        if self._shared & _LISTS_SHARED:
            self._unshare()
        super().flee(seat)


_CARD_NAMES: Final = tuple([format_card(card) for card in range(NUM_KINDS)])
"""Each card's text notation, by card (read for every play an observation shows)."""


@final
class _PublicFacts(FactsOnDemand):
    """An observation's public facts, made when first read: the levels, the public hand
    counts, the players out and the best play of the trick (its table object is made
    anew for every play and lead, and passes change nothing shown of it)."""

    def __init__(
        self,
        level: int,
        setup: GuandanSetup,
        counts: list[int | None],
        finished: tuple[Seat, ...],
        table: _Table,
    ) -> None:
        super().__init__()
        self._level, self._setup, self._counts = level, setup, counts
        self._finished, self._table = finished, table

    def _make(self) -> dict[str, Any]:
        table, level = self._table, self._level
        reading = table.reading
        return {
            "level": level,
            "levels": self._setup.levels,
            "level_team": self._setup.level_team,
            "counts": self._counts,
            "finished": self._finished,
            "table": None if reading is None else _trick_view(table, reading, level),
        }


def _trick_view(table: _Table, reading: Reading, level: int) -> dict[str, Any]:
    """The best play of the trick as observations show it: seat, cards, kind, rank, size."""
    kind = reading.kind
    return {
        "seat": table.seat,
        "cards": " ".join([_CARD_NAMES[card] for card in table.cards]),
        "kind": KIND_LABELS[kind],
        "rank": value_text(reading.value, IS_SEQUENCE[kind], level),
        "size": reading.size,
    }


_TABLE_SHARED: Final = 1 << NUM_SEATS
"""In ``GuandanState._shared``: the trick is shared with a clone (bits 0..3: the seats'
counts vectors)."""
_LISTS_SHARED: Final = 1 << (NUM_SEATS + 1)
"""In ``GuandanState._shared``: the other containers are shared with a clone."""
_ALL_SHARED: Final = (1 << NUM_SEATS) - 1 | _TABLE_SHARED | _LISTS_SHARED


def _missing(counts: Sequence[int], cards: Sequence[Card]) -> list[Card]:
    needed: dict[Card, int] = {}
    for card in cards:
        needed[card] = needed.get(card, 0) + 1
    return [c for c, n in needed.items() for _ in range(max(0, n - counts[c]))]


# -------------------------------------------------------------------- levels


def level_gain(order: Sequence[Seat]) -> int:
    """GD-16: +3, +2 or +1 as the first player's partner finished second, third or last."""
    partner = partner_of(order[0])
    return {1: 3, 2: 2, 3: 1}[list(order).index(partner)]


def settle(setup: GuandanSetup, order: tuple[Seat, ...], a_fail_limit: int = 0) -> Outcome:
    """The result of a deal and the setup of the next one (GD-13, GD-16, GD-17)."""
    winner = team_of(order[0])
    gain = level_gain(order)
    levels = list(setup.levels)
    failures = list(setup.a_failures)
    played_own_a = setup.level == RANK_ACE
    a_team = setup.level_team
    match_winner: int | None = None
    if played_own_a and winner == a_team and gain >= 2:  # GD-17
        match_winner = winner
    else:
        levels[winner] = min(levels[winner] + gain, RANK_ACE)  # GD-16: never past A
        if played_own_a:
            failures[a_team] += 1
            if a_fail_limit and failures[a_team] >= a_fail_limit:
                levels[a_team] = 0
                failures[a_team] = 0
    scores = tuple(gain if team_of(s) == winner else -gain for s in range(NUM_SEATS))
    details = {
        "order": list(order),
        "winner_team": winner,
        "gain": gain,
        "level_played": setup.level,
        "level_team": setup.level_team,
        "levels_before": list(setup.levels),
        "levels_after": list(levels),
        "match_winner": match_winner,
    }
    summary = (
        f"team {winner} (seats {winner} and {winner + 2}) up {gain}; "
        f"levels {level_name(levels[0])} / {level_name(levels[1])}"
    )
    if match_winner is not None:
        summary = f"team {winner} wins the match by passing A"
    next_setup = (
        None
        if match_winner is not None
        else GuandanSetup(
            levels=(levels[0], levels[1]),
            level_team=winner,
            previous_order=order,
            a_failures=(failures[0], failures[1]),
            deal_index=setup.deal_index + 1,
        )
    )
    return Outcome(
        scores=(scores[0], scores[1], scores[2], scores[3]),
        summary=summary,
        details=details,
        next_setup=next_setup,
        match_winner=match_winner,
    )


level_name = rank_label
"""A level as people say it: ``2`` … ``10`` … ``A``."""
