"""Re-playing a record: every action legal, every result the same, the record whole.

:func:`verify` re-plays a :class:`~arena.record.MatchRecord` through the engine and
checks it as a whole, the way the match driver (:mod:`arena.match`) made it:

- it has at least one deal, unless it says the match was cut short (``aborted``);
- a record with a match seed shuffles deal *n* with ``deal_seed(match seed, n)`` and
  gives no hands; a record without one (a composed position) gives every deal's hands;
- the first deal starts from the game's first setup (any setup in a composed record)
  and every later one from the setup the deal before led to (levels, dealer, tribute…);
  the match does not go on after a deal that ended it;
- every action is legal, each deal ends with its last entry and with its recorded
  result, and the match result is the sum of the deals;
- ``!auto`` (a late decision made by automatic play) appears only in a record with a
  clock, is followed by the action automatic play chooses (the first legal one), and
  comes at most five times in a row for a seat (a sixth late decision is fleeing);
- ``!fled SEAT`` names the seat whose decision it was and is the last entry of its deal.

:func:`verify_stored` checks a stored match's record against the store as well: the
game, its options, the seed, the players, the deals and decisions counted and the
result must be those the store holds for the match.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import ArenaError, ParseError
from arena.games import make
from arena.games.base import NUM_SEATS, Event, Game, Outcome, Seat, State
from arena.match import AUTO_MARK, AUTO_PLAYS_TO_FLEE, FLED_MARK, FirstLegal, can_flee, deal_seed
from arena.record import (
    FORMAT,
    DealRecord,
    MatchRecord,
    match_summary,
    outcome_to_dict,
    start_deal,
)

if TYPE_CHECKING:  # the store (SQLAlchemy, Alembic) loads only where a stored match is
    from arena.store import StoredMatch

__all__ = [
    "FORMAT",
    "DealRecord",
    "EventSink",
    "MatchRecord",
    "ReplayError",
    "ReplayReport",
    "match_summary",
    "outcome_to_dict",
    "replay_entry",
    "start_deal",
    "verify",
    "verify_stored",
]

EventSink = Callable[[State, Event], None]
SEAT_NUMBERS = tuple(str(seat) for seat in range(NUM_SEATS))


class ReplayError(ArenaError):
    """A record that does not re-play to what it says."""


@dataclass(frozen=True)
class ReplayReport:
    deals: int
    actions: int
    """Entries re-played: actions and clock marks (the driver's ``decisions``)."""
    result: dict[str, Any]
    outcomes: tuple[Outcome, ...] = ()


def verify(record: MatchRecord, on_event: EventSink | None = None) -> ReplayReport:
    """Re-play ``record``; raise :class:`ReplayError` at the first inconsistency.

    ``on_event`` is told every public event as it happens (a readable log).
    """
    game = make(record.game, **record.options)
    if not record.deals and record.aborted is None:
        raise ReplayError("the record has no deal (and does not say the match was cut short)")
    expected = game.first_setup() if record.seed is not None else None
    outcomes: list[Outcome] = []
    entries = 0
    for number, deal in enumerate(record.deals, start=1):
        if outcomes and outcomes[-1].match_over:
            raise ReplayError(f"deal {number - 1}: the match ended here but the record goes on")
        state = _start(game, record, number, deal, expected)
        _replay_entries(state, record, number, deal, on_event)
        outcome = state.outcome()
        got = json.loads(json.dumps(outcome_to_dict(outcome)))  # as the record writes it
        if got != deal.result:
            raise ReplayError(
                f"deal {number}: result differs: recorded {deal.result}, replayed {got}"
            )
        outcomes.append(outcome)
        entries += len(deal.actions)
        expected = outcome.next_setup
    result = match_summary(outcomes)
    if record.result != result:
        raise ReplayError(f"match result differs: recorded {record.result}, replayed {result}")
    if record.aborted is not None and outcomes and outcomes[-1].match_over:
        raise ReplayError(
            f"the record says the match was cut short ({record.aborted}), "
            f"but deal {len(outcomes)} ended it"
        )
    return ReplayReport(len(outcomes), entries, result, tuple(outcomes))


def _start(game: Game, record: MatchRecord, number: int, deal: DealRecord, expected: Any) -> State:
    """The state at the start of deal ``number``, once its seed, hands and setup are
    those the match leads to (``expected``: the setup, ``None`` when free)."""
    where = f"deal {number}"
    if record.seed is not None:
        if deal.hands is not None:
            raise ReplayError(f"{where}: gives hands, but the match seed shuffles every deal")
        seed = deal_seed(record.seed, number - 1)
        if deal.seed != seed:
            raise ReplayError(
                f"{where}: seed {deal.seed} is not the one match seed {record.seed} "
                f"gives deal {number} ({seed})"
            )
    elif deal.hands is None:
        raise ReplayError(f"{where}: a record without a match seed gives every deal's hands")
    try:
        setup = game.setup_from_dict(deal.setup)
        state = start_deal(game, deal)
    except ArenaError as err:
        raise ReplayError(f"{where}: cannot start the deal: {err}") from None
    written = game.setup_to_dict(setup if expected is None else expected)
    if deal.setup != written:
        led_to = (
            "is not in the form the game writes"
            if expected is None
            else "is not how a match starts"
            if number == 1
            else f"is not what deal {number - 1} led to"
        )
        raise ReplayError(f"{where}: setup {deal.setup} {led_to} ({written})")
    return state


def _replay_entries(
    state: State, record: MatchRecord, number: int, deal: DealRecord, on_event: EventSink | None
) -> None:
    """Apply every entry of a deal, checking the clock's marks; the deal must end with
    its last entry."""
    seen = _publish(state, 0, on_event)
    in_a_row = [0] * NUM_SEATS  # automatic plays in a row, per seat
    automatic: str | None = None  # the action automatic play chose, still to come
    fled: str | None = None  # the seat's flight, due after its last automatic play
    for index, text in enumerate(deal.actions, start=1):
        where = f"deal {number}, action {index}"
        if state.is_terminal():
            raise ReplayError(f"{where} {text!r}: the deal is already over")
        seat = state.to_act
        try:
            if fled is not None and text != fled:
                raise ReplayError(
                    f"{text!r}: the seat was played automatically {AUTO_PLAYS_TO_FLEE} "
                    f"times in a row, so {fled!r} comes here (SF-12)"
                )
            if fled is None and text != AUTO_MARK and fled_seat(text) not in (None, seat):
                raise ReplayError(f"{text!r}: only the seat to act ({seat}) can leave here")
            if automatic is not None:
                if text != automatic:
                    raise ReplayError(f"{text!r}: automatic play chooses {automatic!r} here")
                automatic = None
            elif text == AUTO_MARK:
                automatic = _automatic_choice(state, record, in_a_row)
            else:
                in_a_row[seat] = 0
            replay_entry(state, text)
        except ArenaError as err:
            raise ReplayError(f"{where}: {err}") from None
        if automatic is None and in_a_row[seat] == AUTO_PLAYS_TO_FLEE and can_flee(state, seat):
            fled = f"{FLED_MARK} {seat}"
        seen = _publish(state, seen, on_event)
    if automatic is not None:
        raise ReplayError(f"deal {number}: ends with {AUTO_MARK!r}, without the automatic play")
    if not state.is_terminal():
        raise ReplayError(
            f"deal {number}: the recorded actions end before the deal does "
            f"(seat {state.to_act} to act)"
        )


def _automatic_choice(state: State, record: MatchRecord, in_a_row: list[int]) -> str:
    """The action automatic play makes for the seat to act (after ``!auto``)."""
    seat = state.to_act
    if record.clock is None:
        raise ReplayError(
            f"{AUTO_MARK!r} in a record without a clock: no decision could run out of time"
        )
    in_a_row[seat] += 1
    return str(FirstLegal().act(state.observe(seat)))


def _publish(state: State, seen: int, on_event: EventSink | None) -> int:
    """Tell ``on_event`` the events after the first ``seen``; how many there are now."""
    events = state.events
    if on_event is not None:
        for event in events[seen:]:
            on_event(state, event)
    return len(events)


def fled_seat(text: str) -> Seat | None:
    """The seat a ``!fled SEAT`` entry names; ``None`` for an action."""
    if not text.startswith("!"):
        return None
    words = text.split()
    if words[0] != FLED_MARK or len(words) != 2 or words[1] not in SEAT_NUMBERS:
        raise ParseError(f"bad record entry {text!r}: expected '!auto' or '!fled SEAT'")
    return int(words[1])


def replay_entry(state: State, text: str) -> None:
    """Apply one recorded entry: an action, or a clock mark (``!auto``, ``!fled SEAT``)."""
    if text == AUTO_MARK:
        state.note_automatic(state.to_act)
        return
    seat = fled_seat(text)
    if seat is not None:
        if not can_flee(state, seat):
            raise ParseError(f"{text!r}: seat {seat} holds no cards, so it cannot flee")
        state.flee(seat)
        return
    state.apply(state.parse_action(text))


def verify_stored(match: StoredMatch) -> tuple[MatchRecord, ReplayReport]:
    """Re-play a stored match's record and check it against what the store holds."""
    where = f"stored match {match.id!r}"
    try:
        record = MatchRecord.from_dict(match.record)
    except ParseError as err:
        raise ParseError(f"{where}: {err}") from None
    _check_stored(match, record, where)
    report = verify(record)
    counted = {"deals": report.deals, "decisions": report.actions}
    stored = {"deals": match.deals, "decisions": match.decisions}
    if counted != stored:
        raise ReplayError(f"{where}: the store counts {stored}, the record {counted}")
    return record, report


def _check_stored(match: StoredMatch, record: MatchRecord, where: str) -> None:
    """The record is that of the stored match: game, options, seed, players, ending."""
    if not isinstance(match.options, dict) or not isinstance(match.outcome, dict):
        raise ReplayError(f"{where}: the store's options or outcome is not a JSON object")
    if record.game != match.variant:
        raise ReplayError(f"{where}: the record's game {record.game!r} is not {match.variant!r}")
    options = dict(make(match.variant, **match.options).options)
    if dict(make(record.game, **record.options).options) != options:
        raise ReplayError(f"{where}: the record's options {record.options} are not {options}")
    if record.seed != match.seed:
        raise ReplayError(f"{where}: the record's seed {record.seed} is not {match.seed}")
    if record.players != list(match.seating):
        raise ReplayError(
            f"{where}: the record's players {record.players} are not the stored "
            f"match's bots {list(match.seating)}"
        )
    outcome = match.outcome
    if record.aborted != outcome.get("aborted"):
        raise ReplayError(
            f"{where}: the record says cut short: {record.aborted}, "
            f"the store: {outcome.get('aborted')}"
        )
    for mine, theirs in (("match_winner", "winner"), ("totals", "totals")):
        if theirs in outcome and record.result.get(mine) != outcome[theirs]:
            raise ReplayError(
                f"{where}: the record's {mine} {record.result.get(mine)} is not the "
                f"stored {theirs} {outcome[theirs]}"
            )
