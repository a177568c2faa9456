"""The sanfu deal: dealing with turned cards, partners and seats, then climbing play.

SF-1 … SF-6 happen while the cards are dealt (no decisions): the turned cards
decide the partnerships and the seats are rearranged so that partners sit
opposite; every turned card and every seat change is a public event. Then the
play (SF-7 … SF-11) until both players of one team are out, and the scoring
(SF-13 … SF-16). Seats follow C-2 after the rearrangement; ``player_at`` says
which player (policy) sits where. Every seat an event names is a seat of that
rearranged table, the turned cards' and the seat changes' included: a ``turn``
names the seat its receiver plays from, a ``swap`` the seats both players move to.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, NoReturn, final

from arena.cards import NUM_KINDS, Card, format_cards, parse_cards
from arena.errors import ConfigError, IllegalActionError
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
    new_event,
    new_observation,
    partner_of,
    quote_action,
    team_of,
    well_formed,
)
from arena.games.climbing import ClimbingState
from arena.games.sanfu import scoring
from arena.games.sanfu.combos import (
    BIG_JOKER_VALUE,
    LOWEST_VALUE,
    Kind,
    Reading,
    beats,
    no_combination_reason,
    rank_text,
    reading,
)
from arena.games.sanfu.moves import (
    CARD_ORDER_VALUES,
    INCOMPLETE_DESCRIPTION,
    Ladder,
    Pattern,
    Rank,
    beating_patterns,
    card_rank_value,
    count,
    lead_patterns,
    listed,
    rank_in,
    ranks_in,
    specials,
)
from arena.games.shengji.order import card_points
from arena.games.views import NO_FACTS, FactsOnDemand, SoFar
from arena.plural import counted

DECKS: Final = 3
DEAL_SIZE: Final = 162
HAND_SIZES: Final = (41, 41, 40, 40)  # SF-1: the first two players to receive cards get 41

GAME_NAME = "sanfu"
SYNTAX = ActionSyntax(GAME_NAME, {"pass": Verb(0, 0), "play": Verb(1)})
LIST_LIMIT: Final = 1000


@dataclass(frozen=True, slots=True)
class SanfuSetup:
    """What a deal needs from the match.

    ``seating`` is the player at each seat; ``previous_first`` the player who went
    out first in the previous deal and ``previous_sweep`` whether that deal was a
    sweep (SF-5: then only one card is turned). ``deals`` is the match length (SF-17).
    """

    seating: tuple[int, int, int, int] = (0, 1, 2, 3)
    previous_first: int | None = None
    previous_sweep: bool = False
    deal_index: int = 0
    deals: int = 8


@dataclass(slots=True)
class _Table:
    seat: Seat = NOBODY
    reading: Reading | None = None
    passes: int = 0
    points: int = 0


def rearrange(
    seating: list[int], receivers: Sequence[Seat], setup: SanfuSetup
) -> list[tuple[Seat, Seat]]:
    """SF-3 … SF-5: the seat swaps the turned cards call for (applied to ``seating``).

    Two turned cards: the second receiver swaps with whoever sits opposite the first
    (nobody moves if one player got both or they already sit opposite). One turned
    card after a sweep: its receiver moves opposite the previous first finisher.
    """
    if len(receivers) == 2:
        anchor, mover = receivers
    else:
        assert setup.previous_first is not None
        anchor, mover = seating.index(setup.previous_first), receivers[0]
    target = partner_of(anchor)
    if mover in (anchor, target):
        return []
    seating[mover], seating[target] = seating[target], seating[mover]
    return [(mover, target)]


Seating = tuple[int, int, int, int]


@final
class _Listing:
    """The listed actions of one decision in order, the rank patterns of its plays, and
    whether the listing is complete (every play, or one per pattern)."""

    def __init__(self, actions: list[Action], patterns: list[Pattern], complete: bool) -> None:
        self.actions = actions
        self.patterns = patterns
        self.complete = complete
        self.legal: tuple[Action, ...] | None = None
        """The actions as an observation holds them (made when first observed)."""


_NO_LISTING = _Listing([], [], True)
_LABELS = tuple([kind.label for kind in Kind])
_JOKER_TRIPLE: Final = int(Kind.JOKER_TRIPLE)
_POINTS = [card_points(card) for card in range(NUM_KINDS)]
_LEADS = [Event("lead", seat) for seat in range(NUM_SEATS)]
_RANK_TEXTS = [rank_text(v) if v >= LOWEST_VALUE else "" for v in range(BIG_JOKER_VALUE + 1)]


def _refuse(action: Action, reason: str) -> NoReturn:
    """Refuse ``action`` (quoted) for ``reason``: the quote is made only when refused."""
    raise IllegalActionError(f"illegal action {quote_action(action)}: {reason}")


def deal_order(hands: Sequence[Sequence[Card] | str]) -> list[Card]:
    """Explicit hands (seats 0..3, 41/41/40/40 cards) as the order they are dealt in,
    one card at a time from seat 0 (SF-1); :class:`ConfigError` naming what is wrong."""
    parsed = [parse_cards(h) if isinstance(h, str) else tuple(h) for h in hands]
    if len(parsed) != NUM_SEATS or tuple([len(h) for h in parsed]) != HAND_SIZES:
        raise ConfigError(
            f"sanfu deals hands of {'/'.join(map(str, HAND_SIZES))} cards to seats 0..3, got "
            f"{'/'.join(str(len(h)) for h in parsed)}"
        )
    counts = [0] * NUM_KINDS
    for hand in parsed:
        given: Sequence[object] = hand  # read as given: anything may have been passed
        for card in given:
            if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_KINDS:
                raise ConfigError(f"{card!r} is not a card (cards are ints 0..53)")
            counts[card] += 1
    extra = [card for card in range(NUM_KINDS) if counts[card] > DECKS]
    if extra:
        raise ConfigError(f"more than three of {format_cards(extra)} (SF-1: three decks)")
    return [parsed[k % NUM_SEATS][k // NUM_SEATS] for k in range(DEAL_SIZE)]


def deal(deal_order: Sequence[Card], turned: Sequence[int], setup: SanfuSetup) -> SanfuState:
    """The deal of ``deal_order`` (dealt one card at a time from seat 0, SF-1) with the
    cards at the indices ``turned`` shown, up to its first lead."""
    seating = list(setup.seating)
    counts = [[0] * NUM_KINDS for _ in range(NUM_SEATS)]
    events: list[Event] = [Event("deal", value=setup.deal_index)]
    receivers: list[Seat] = []
    shown: list[Card] = []
    for index, card in enumerate(deal_order):  # SF-1: one at a time from seat 0
        seat = index % NUM_SEATS
        counts[seat][card] += 1
        if index in turned:  # SF-2: shown to everyone as it is dealt
            receivers.append(seat)
            shown.append(card)
    before = list(seating)
    moves = rearrange(seating, receivers, setup)
    now_at = list(range(NUM_SEATS))  # by dealt seat: the seat after the rearrangement
    for mover, target in moves:  # SF-4: the players take their cards with them
        counts[mover], counts[target] = counts[target], counts[mover]
        now_at[mover], now_at[target] = target, mover
    # Every seat in the deal's events is a seat of the rearranged table (the seating
    # the deal is played in); ``value`` names the player sitting there.
    for seat, card in zip(receivers, shown, strict=True):
        events.append(Event("turn", now_at[seat], (card,), value=before[seat]))
    for mover, target in moves:  # public, naming both players
        events.append(
            Event("swap", target, target=mover, value=before[mover], tag=str(before[target]))
        )
    state = SanfuState(
        setup,
        (seating[0], seating[1], seating[2], seating[3]),
        counts,
        [None] * NUM_SEATS,
        [None] * NUM_SEATS,
        [None] * NUM_SEATS,
        [sum(c) for c in counts],
        [0] * NUM_SEATS,
        [],
        [],
        _Table(),
        events,
        NOBODY,
        "play",
        NOBODY,
        LIST_LIMIT,
        None,
        False,
    )
    if len(receivers) == 2 or setup.previous_first is None:
        leader = now_at[receivers[0]]  # SF-6
    else:
        leader = state.seating.index(setup.previous_first)
    state._lead(leader)
    return state


@final
class _PublicFacts(FactsOnDemand):
    """An observation's public facts, made when first read: the seating, hand sizes,
    points captured, players out, and the trick's best play as it stood (the table object
    changes in place, so its numbers are kept)."""

    def __init__(
        self,
        seating: Seating,
        counts: list[int],
        captured: list[int],
        finished: tuple[Seat, ...],
        seat: Seat,
        points: int,
        reading: Reading | None,
    ) -> None:
        super().__init__()
        self._seating, self._counts, self._captured = seating, counts, captured
        self._finished, self._seat, self._points, self._reading = finished, seat, points, reading

    def _make(self) -> dict[str, Any]:
        combo = self._reading
        return {
            "seating": self._seating,
            "counts": self._counts,
            "captured": self._captured,
            "finished": self._finished,
            "table": None
            if combo is None
            else {
                "seat": self._seat,
                "points": self._points,
                "kind": _LABELS[combo[0]],
                "rank": _RANK_TEXTS[combo[2]],
                "size": combo[1],
            },
        }


class SanfuState(ClimbingState[_Table]):
    """One sanfu deal (made by :func:`deal`).

    Per seat it keeps the counts of its cards and their :class:`Rank` per rank value;
    a play replaces the seat's two lists rather than changing them, so copies may
    share them. A copy (:meth:`clone`) shares every container with its original until
    either of them applies an action (copy on write: ``_shared``); the listing of the
    decision, the hands and the special plays computed for one serve both.
    """

    game_name = GAME_NAME
    syntax = SYNTAX

    def __init__(
        self,
        setup: SanfuSetup,
        seating: Seating,
        counts: list[list[int]],
        ranks: list[list[Rank] | None],
        hands: list[tuple[Card, ...] | None],
        ladders: list[Ladder | None],
        sizes: list[int],
        captured: list[int],
        out: list[Seat],
        joker_triples: list[Seat],
        table: _Table,
        events: list[Event],
        to_act: Seat,
        phase: str,
        fled: Seat,
        list_limit: int,
        listing: _Listing | None,
        shared: bool,
    ) -> None:
        """The parts of a state, as they are (a new deal comes from :func:`deal`)."""
        self.setup = setup
        self.seating = seating
        self._counts = counts
        self._ranks = ranks
        self._hands = hands
        self._ladders = ladders
        self._sizes = sizes
        self._captured = captured
        self._out = out
        self._joker_triples = joker_triples
        self._table = table
        self._events = events
        self._to_act = to_act
        self._phase = phase
        self.fled = fled
        self.list_limit = list_limit
        """Most distinct plays listed before one per rank pattern is listed instead."""
        self._listing = listing
        self._shared = shared
        self._public: _PublicFacts | None = None
        """The public part of an observation, kept until something in it changes (then
        rebuilt, never changed: observations already handed out keep theirs)."""
        self._captured_view: list[int] | None = None
        self._finished_view: tuple[Seat, ...] | None = None

    def clone(self) -> SanfuState:
        self._shared = True
        copy = SanfuState(
            self.setup,
            self.seating,
            self._counts,
            self._ranks,
            self._hands,
            self._ladders,
            self._sizes,
            self._captured,
            self._out,
            self._joker_triples,
            self._table,
            self._events,
            self._to_act,
            self._phase,
            self.fled,
            self.list_limit,
            self._listing,
            True,
        )
        copy._public = self._public
        copy._captured_view = self._captured_view
        copy._finished_view = self._finished_view
        return copy

    def _own(self) -> None:
        """Copy what a clone may share, before changing it."""
        self._counts = list(self._counts)
        self._ranks = list(self._ranks)
        self._hands = list(self._hands)
        self._ladders = list(self._ladders)
        self._sizes = list(self._sizes)
        self._captured = list(self._captured)
        self._out = list(self._out)
        self._joker_triples = list(self._joker_triples)
        t = self._table
        self._table = _Table(t.seat, t.reading, t.passes, t.points)
        self._events = list(self._events)
        self._shared = False

    # --------------------------------------------------------------------- play

    def player_at(self, seat: Seat) -> int:
        return self.seating[seat]

    def is_terminal(self) -> bool:
        return self._to_act == NOBODY

    def hand(self, seat: Seat) -> tuple[Card, ...]:
        cards = self._hands[seat]
        if cards is None:
            ranks = self._seat_ranks(seat)
            cards = ()
            for value in CARD_ORDER_VALUES:
                cards += ranks[value].held
            self._hands[seat] = cards
        return cards

    def _lead(self, seat: Seat, tag: str = "") -> None:
        table = self._table
        table.seat, table.reading, table.passes, table.points = NOBODY, None, 0, 0
        self._public = None
        self._to_act = seat
        self._events.append(Event("lead", seat, tag=tag) if tag else _LEADS[seat])

    def _seat_ranks(self, seat: Seat) -> list[Rank]:
        """The seat's ranks, made from its counts when first needed (a replay needs none)."""
        ranks = self._ranks[seat]
        if ranks is None:
            ranks = self._ranks[seat] = ranks_in(self._counts[seat])
        return ranks

    def _play(self, seat: Seat, cards: tuple[Card, ...], combo: Reading) -> None:
        counts = self._counts[seat][:]
        points = 0
        for card in cards:
            counts[card] -= 1
            points += _POINTS[card]
        self._counts[seat] = counts
        held = self._ranks[seat]
        if held is not None:  # the ranks of the cards played change, the others stay
            ranks = held[:]
            changed = 0
            for card in cards:  # sorted: the cards of one rank follow each other
                value = card_rank_value(card)
                if value != changed:
                    ranks[value] = rank_in(counts, value)
                    changed = value
            self._ranks[seat] = ranks
        self._ladders[seat] = None
        before = self._hands[seat]
        if before is not None:  # the hand known: the cards played taken out of it
            after = list(before)
            for card in cards:
                after.remove(card)
            self._hands[seat] = tuple(after)
        self._sizes[seat] -= len(cards)
        table = self._table
        table.seat, table.reading, table.passes = seat, combo, 0
        table.points += points
        self._public = None
        kind: int = combo[0]
        if kind == _JOKER_TRIPLE:
            self._joker_triples.append(seat)
        self._events.append(new_event(("play", seat, cards, NOBODY, combo[2], _LABELS[kind])))
        if self._sizes[seat] == 0:
            self._out.append(seat)
            self._finished_view = None
            self._events.append(Event("out", seat, value=len(self._out)))
            if self._team_out():
                self._capture(seat)  # the last play takes what is on the table
                self._finish()
                return
        self._to_act = self._next_active(seat)

    def _trick_won(self, seat: Seat) -> None:
        self._capture(seat)  # SF-10: the last player to play takes the trick

    def _capture(self, seat: Seat) -> None:
        points = self._table.points
        self._captured[seat] += points
        self._events.append(Event("capture", seat, value=points))
        self._table.points = 0
        self._public = self._captured_view = None

    def _team_out(self) -> bool:
        """SF-11: the deal ends as soon as both players of one team are out."""
        out = self._out
        return any(team_of(a) == team_of(b) for i, a in enumerate(out) for b in out[i + 1 :])

    def _finish(self) -> None:
        self._phase = "over"
        self._to_act = NOBODY

    # ------------------------------------------------------- time and fleeing

    def note_automatic(self, seat: Seat) -> None:
        if self._shared:
            self._own()
        super().note_automatic(seat)

    def flee(self, seat: Seat) -> None:
        """SF-12/SF-15: the seat has fled; the deal ends at once (scored by SF-15)."""
        if self._phase == "over":
            raise IllegalActionError("the deal is already over")
        if self._shared:
            self._own()
        self.fled = seat
        self._events.append(Event("fled", seat, value=self.seating[seat]))
        self._finish()
        self._listing = None

    # ---------------------------------------------------------------- interface

    def legal_actions(self) -> list[Action]:
        return list(self._listed().actions)

    def _listed(self) -> _Listing:
        listing = self._listing
        if listing is None:
            listing = self._listing = self._list()
        return listing

    def _list(self) -> _Listing:
        seat = self._to_act
        if seat == NOBODY:
            return _NO_LISTING
        ranks = self._seat_ranks(seat)
        table = self._table.reading
        if table is None:
            found = lead_patterns(ranks)
        else:
            ladder = self._ladders[seat]
            if ladder is None:
                ladder = self._ladders[seat] = specials(ranks)
            found = beating_patterns(ranks, table, ladder)
        complete = count(found) <= self.list_limit
        actions = [PASS] if table is not None else []
        if complete:
            for pattern in found:
                plays = pattern.spelled
                actions += plays if plays is not None else pattern.plays()
        else:
            for pattern in found:
                actions += pattern.canonical()
        return _Listing(actions, found, complete)

    def list_briefly(self, brief: bool = True) -> None:
        """One play per rank pattern from now on (the incomplete listing of SF moves),
        or again every play up to :data:`LIST_LIMIT`."""
        self.list_limit = 0 if brief else LIST_LIMIT
        self._listing = None

    def apply(self, action: Action) -> None:
        seat = self._to_act
        if seat == NOBODY:
            raise IllegalActionError(f"illegal action {quote_action(action)}: the deal is over")
        combo = None if action is PASS else self._listed_reading(action)
        if combo is None:  # a pass, or a play not taken from the listing itself
            if action is not PASS:  # the one pass is well formed
                action = well_formed(action)
            if action == PASS:
                if self._table.reading is None:
                    raise IllegalActionError("illegal action 'pass': the leader must play (SF-10)")
                if self._shared:
                    self._own()
                self._pass(seat)
                self._listing = None
                return
            combo = self._check_play(seat, action)
        if self._shared:
            self._own()
        self._play(seat, action.cards, combo)
        self._listing = None

    def _listed_reading(self, action: Action) -> Reading | None:
        """The reading of ``action`` if it is one of the listed plays itself (the very
        object, so well formed), else ``None``."""
        listing = self._listing
        if listing is None or type(action) is not Action:
            return None
        size, complete = len(action.cards), listing.complete
        for pattern in listing.patterns:
            if pattern.reading.size == size:
                plays = listed(pattern, complete)
                if action in plays:
                    return pattern.reading if plays[plays.index(action)] is action else None
        return None

    def _check_play(self, seat: Seat, action: Action) -> Reading:
        if self._listing is None and self.list_limit:
            self._listing = self._list()  # a listed play's reading is known
        if self._listing is not None:
            size, complete = len(action.cards), self._listing.complete
            for pattern in self._listing.patterns:
                if pattern.reading.size == size and action in listed(pattern, complete):
                    return pattern.reading
        if action.verb != "play" or not action.cards or action.tag:
            _refuse(action, "expected 'pass' or 'play CARDS'")
        counts = self._counts[seat]
        for card in set(action.cards):
            if counts[card] < action.cards.count(card):
                _refuse(action, f"not (all) in the hand of seat {seat}")
        combo = reading(action.cards)
        if combo is None:
            _refuse(action, f"{no_combination_reason(action.cards)} (SF-8)")
        table = self._table.reading
        if table is not None and not beats(combo, table):
            _refuse(action, "does not beat the table (SF-9)")
        return combo

    def observe(self, seat: Seat) -> Observation:
        public = self._public
        if public is None:
            public = self._public = self._public_view()
        legal: tuple[Action, ...] = ()
        complete = True
        if seat == self._to_act:
            listing = self._listed()
            complete = listing.complete
            listed_legal = listing.legal
            if listed_legal is None:
                listed_legal = listing.legal = tuple(listing.actions)
            legal = listed_legal
        return new_observation(
            (
                GAME_NAME,
                seat,
                self._phase,
                self._to_act,
                self.hand(seat),
                legal,
                SoFar(self._events, len(self._events)),
                public,
                NO_FACTS,
                complete,
                "" if complete else INCOMPLETE_DESCRIPTION,
            )
        )

    def _public_view(self) -> _PublicFacts:
        """The public part of an observation now: the pieces that did not change since
        the last one are shared with it (none of them is ever changed)."""
        captured = self._captured_view
        if captured is None:
            captured = self._captured_view = self._captured[:]
        finished = self._finished_view
        if finished is None:
            finished = self._finished_view = tuple(self._out)
        table = self._table
        return _PublicFacts(
            self.seating,
            self._sizes[:],
            captured,
            finished,
            table.seat,
            table.points,
            table.reading,
        )

    def outcome(self) -> Outcome:
        if self._phase != "over":
            raise IllegalActionError("the deal is not over")
        return settle(self)


def settle(state: SanfuState) -> Outcome:
    """SF-13 … SF-16 (or SF-15 after fleeing), per player, and the next deal's setup."""
    seating = state.seating
    player_team = [0] * NUM_SEATS
    for seat, player in enumerate(seating):
        player_team[player] = team_of(seat)
    setup = state.setup
    out_players = [seating[s] for s in state._out]
    first = out_players[0] if out_players else None
    sweep = len(out_players) >= 2 and team_of(state._out[0]) == team_of(state._out[1])
    details: dict[str, Any] = {"seating": list(seating), "order": out_players}
    if state.fled != NOBODY:
        fled = seating[state.fled]
        scores = scoring.flee_results(fled)
        details["fled"] = fled
        summary = f"player {fled} fled: pays {scoring.FLEE_STAKE}"
    else:
        captured = [0] * NUM_SEATS
        hand_points = [0] * NUM_SEATS
        for seat, player in enumerate(seating):
            captured[player] = state._captured[seat]
            hand_points[player] = sum(card_points(c) for c in state.hand(seat))
        last = [seating[s] for s in range(NUM_SEATS) if state._sizes[s]]
        points = scoring.team_points(captured, hand_points, last, player_team)
        first_team = player_team[first] if first is not None else 0
        winner, stake = scoring.deal_stake(points.points, first_team, sweep)
        stakes = scoring.stake_results(winner, stake, player_team)
        bonus = scoring.joker_bonus([seating[s] for s in state._joker_triples])
        scores = [a + b for a, b in zip(stakes, bonus, strict=True)]
        details.update(
            captured=captured,
            hand_points=hand_points,
            last=last,
            team_points=list(points.points),
            transferred=list(points.transferred),
            teams=[[p for p in range(NUM_SEATS) if player_team[p] == t] for t in (0, 1)],
            sweep=sweep,
            winner_team=winner,
            stake=stake,
            joker_bonus=bonus,
        )
        teams = details["teams"]
        summary = (
            f"players {teams[0][0]}+{teams[0][1]} {counted(points.points[0], 'point')}, "
            f"players {teams[1][0]}+{teams[1][1]} {points.points[1]}; "
            f"players {teams[winner][0]}+{teams[winner][1]} win {stake}×"
            + (" (sweep)" if sweep else "")
        )
    details["scores"] = list(scores)
    done = setup.deal_index + 1 >= setup.deals
    next_setup = (
        None
        if done
        else SanfuSetup(
            seating=seating,
            previous_first=first,
            previous_sweep=sweep,
            deal_index=setup.deal_index + 1,
            deals=setup.deals,
        )
    )
    return Outcome(
        scores=(scores[0], scores[1], scores[2], scores[3]),
        summary=summary,
        details=details,
        next_setup=next_setup,
        match_winner=None,
    )


__all__ = ["SanfuSetup", "SanfuState", "deal", "rearrange", "settle"]
