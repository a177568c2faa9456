"""Play a match — deal after deal — between four policies, and record it.

The driver is the same for every game and every kind of policy (in-process
bot, Ray worker, remote bot): it asks the seat to act for each decision,
passing only that seat's observation, applies the action, and carries the
match from one deal to the next through the game's setup.

The loop is written once, as generators that yield each question to a policy
(:class:`Ask`) and take its answer back: :func:`play_match` and :func:`play_deal`
answer them here, :func:`play_match_async` awaits a policy that answers in a coroutine
(a remote bot's seat on an event loop), so no thread waits for an answer.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, TypeVar, cast

from arena.chance import derive_seed
from arena.deal_loop import Unplayed, action_text, play_answers
from arena.errors import IllegalActionError, ParseError
from arena.games.base import (
    NUM_SEATS,
    Action,
    Event,
    Game,
    Observation,
    Outcome,
    Seat,
    State,
    well_formed,
)
from arena.record import ClockLimits, DealRecord, MatchRecord, match_summary, outcome_to_dict


class Policy(Protocol):
    """Anything that chooses an action from an observation."""

    def act(self, observation: Observation) -> Action | str: ...


class AsyncPolicy(Protocol):
    """A policy that answers in a coroutine (a remote bot's seat on an event loop):
    :func:`play_match_async` awaits ``act_async`` (``act_by_async`` under a clock)."""

    async def act_async(self, observation: Observation) -> Action | str: ...


class Deadline(NamedTuple):
    """When a decision is due, on the clock's time base: its own time runs out at
    ``decision``; with the seat's time bank drawn on, the answer is late after ``final``."""

    decision: float
    final: float


class TimedPolicy(Policy, Protocol):
    """A policy that answers by a deadline (a remote bot). The driver calls ``act_by``
    instead of ``act``: it answers ``None`` when no answer came in time (it knows when
    the answer arrived, which may be before the driver reads it). The driver then plays
    ``fallback`` and calls ``timed_out(fallback)`` (``None`` when the seat fled)."""

    def act_by(self, observation: Observation, deadline: Deadline) -> Action | str | None: ...

    def timed_out(self, fallback: Action | None) -> None: ...


class PolicyError(IllegalActionError):
    """A policy answered with an action the rules do not allow."""


class Ask(NamedTuple):
    """A question of the driver to a policy: the seat's observation, to be answered by
    ``deadline`` (None: no clock); ``timed`` when the policy answers by a deadline
    (``act_by``, or ``act_by_async`` awaited), else ``act`` / ``act_async``."""

    policy: Policy
    observation: Observation
    deadline: Deadline | None
    timed: bool

    def answer(self) -> object:
        """The policy's answer, asked here."""
        if self.timed:
            return self.policy.act_by(self.observation, self.deadline)  # type: ignore[attr-defined]
        return self.policy.act(self.observation)

    async def answer_async(self) -> object:
        """The policy's answer: awaited from ``act_by_async`` / ``act_async`` when the
        policy has it, else asked here."""
        method = getattr(self.policy, "act_by_async" if self.timed else "act_async", None)
        if method is None:
            return self.answer()
        given = (self.observation, self.deadline) if self.timed else (self.observation,)
        answer: Awaitable[object] = method(*given)
        return await answer


T = TypeVar("T")
Steps = Generator[Ask, object, T]
"""The driver's loop: yields each question, is sent its answer (or thrown what the
policy raised), returns what it plays."""


def drive(steps: Steps[T]) -> T:
    """Run the loop, every question answered here."""
    try:
        ask = next(steps)
        while True:
            try:
                answer = ask.answer()
            except Exception as err:  # a seat gone, a match stopped: the loop decides
                ask = steps.throw(err)
            else:
                ask = steps.send(answer)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def drive_async(steps: Steps[T], on_ask: Callable[[Ask], None] | None = None) -> T:
    """Run the loop, every question awaited (:meth:`Ask.answer_async`); ``on_ask`` is
    told each question first (whose turn it is, by when)."""
    try:
        ask = next(steps)
        while True:
            if on_ask is not None:
                on_ask(ask)
            try:
                answer = await ask.answer_async()
            except Exception as err:
                ask = steps.throw(err)
            else:
                ask = steps.send(answer)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


EventSink = Callable[[State, Event], None]


@dataclass
class MatchResult:
    """The outcome of each deal, the match winner (team) if any, and the record."""

    outcomes: list[Outcome]
    record: MatchRecord
    decisions: int = 0

    @property
    def winner(self) -> int | None:
        winner: int | None = self.record.result["match_winner"]
        return winner

    @property
    def totals(self) -> list[int]:
        totals: list[int] = self.record.result["totals"]
        return totals

    @property
    def complete(self) -> bool:
        return bool(self.record.result["complete"])

    aborted: str | None = None
    """Why the match was cut short (:class:`MatchAborted`); the record holds the deals
    finished before."""


@dataclass
class Conduct:
    """A player's refused answers and timed-out decisions in one match, kept with the
    stored match: ``illegal`` (answers the rules refused), ``malformed`` (answers that are
    no action of the game), ``timeouts`` (decisions made by automatic play because the
    answer came too late; each decision counted once). Only a policy that can be told
    (a remote bot) has answers refused: any other raises :class:`PolicyError`."""

    illegal: int = 0
    malformed: int = 0
    timeouts: int = 0


AUTO_MARK = "!auto"
"""Record entry: the next decision was made by automatic play (time ran out)."""
FLED_MARK = "!fled"
"""Record entry ``!fled SEAT``: the seat fled and the deal ended."""
AUTO_PLAYS_TO_FLEE = 5
"""SF-12: a seat played automatically this many times in a row has fled at once."""


class SeatGone(Exception):
    """Raised by a policy whose player has left (disconnected for good)."""


class MatchAborted(Exception):
    """Raised by a policy to stop the whole match now (shutdown, cancellation); the
    driver ends the match with the deals finished so far."""


class FirstLegal:
    """The automatic-play policy (托管): the first legal action."""

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions[0]


@dataclass
class Clock:
    """Decision time limits (SF-12, used for every game).

    A decision not answered within ``limit`` seconds is made by ``fallback`` and
    noted publicly; once a seat has been played automatically
    :data:`AUTO_PLAYS_TO_FLEE` times in a row (系統幫助出牌連續5次), or when a policy
    raises :class:`SeatGone`, the seat has fled and the deal ends.
    """

    limit: float | None = None
    bank: float = 0.0
    """Each player's time bank for the match: drawn on once a decision's own time has
    run out, never refilled."""
    fallback: Policy = field(default_factory=FirstLegal)
    now: Callable[[], float] = time.monotonic


def play_deal(
    state: State,
    policies: Sequence[Policy],
    on_event: EventSink | None = None,
    clock: Clock | None = None,
    banks: list[float] | None = None,
    actions: list[str] | None = None,
) -> list[str]:
    """Play one deal to its end; return the actions in text form (with clock marks).

    ``policies`` are per player; the policy asked is that of the player sitting at
    the seat to act (:meth:`State.player_at`). ``banks`` holds each player's time bank
    left (updated); ``actions`` is filled as the deal goes (and returned).
    """
    actions = actions if actions is not None else []
    if on_event is None and (clock is None or clock.limit is None):
        _play_untimed(state, policies, actions)
        return actions
    return drive(deal_steps(state, policies, on_event, clock, banks, actions))


def deal_steps(
    state: State,
    policies: Sequence[Policy],
    on_event: EventSink | None = None,
    clock: Clock | None = None,
    banks: list[float] | None = None,
    actions: list[str] | None = None,
) -> Steps[list[str]]:
    """:func:`play_deal`'s loop, every question to a policy yielded (see :func:`drive`)."""
    actions = actions if actions is not None else []
    clock = clock or Clock()
    banks = banks if banks is not None else [clock.bank] * NUM_SEATS
    automatic = [0] * NUM_SEATS
    seen = 0

    def publish() -> None:
        nonlocal seen
        if on_event is not None:
            events = state.events
            for event in events[seen:]:
                on_event(state, event)
            seen = len(events)

    publish()
    while not state.is_terminal():
        seat = state.to_act
        player = state.player_at(seat)
        policy = policies[player]
        try:
            played = yield from _decide(state, seat, policy, clock, banks, player)
        except SeatGone:
            _flee(state, seat, policy, actions)
            publish()
            break
        if played is not None:
            automatic[seat] = 0
            actions.append(played)
            if on_event is not None:
                publish()
            continue
        automatic[seat] += 1  # late: automatic play (托管)
        answer = clock.fallback.act(state.observe(seat))
        fallback = Action.from_str(answer) if isinstance(answer, str) else answer
        timed_out = getattr(policy, "timed_out", None)
        if timed_out is not None:
            timed_out(fallback)
        state.note_automatic(seat)
        state.apply(fallback)
        actions += [AUTO_MARK, str(fallback)]
        publish()
        if automatic[seat] == AUTO_PLAYS_TO_FLEE and can_flee(state, seat):
            _flee(state, seat, policy, actions)  # played for 5 times in a row: fled
            publish()
            break
    return actions


_UNTIMED = Clock()
"""No time limit: every answer is awaited."""


def _play_untimed(state: State, policies: Sequence[Policy], actions: list[str]) -> None:
    """A deal without clock or listener: the compiled loop (:func:`play_answers`) plays
    every answer that is an action the game takes; any other answer is read or refused by
    :func:`_decide`, as in a timed deal, and the loop goes on."""
    while True:
        try:
            unplayed = play_answers(state, policies, actions)
            if unplayed is None:
                return
            seat = state.to_act
            player = state.player_at(seat)
            played = drive(_decide(state, seat, policies[player], _UNTIMED, [], player, unplayed))
        except SeatGone:
            seat = state.to_act
            _flee(state, seat, policies[state.player_at(seat)], actions)
            return
        if played is not None:  # always: an untimed answer is never late
            actions.append(played)


def can_flee(state: State, seat: Seat) -> bool:
    """Whether the seat can still flee: the deal goes on and it holds cards."""
    return not state.is_terminal() and bool(state.hand(seat))


def _flee(state: State, seat: Seat, policy: Policy, actions: list[str]) -> None:
    """The seat has fled (SF-12): the deal ends (SF-15), the policy is told."""
    timed_out = getattr(policy, "timed_out", None)
    if timed_out is not None:
        timed_out(None)
    state.flee(seat)
    actions.append(f"{FLED_MARK} {seat}")


def _decide(
    state: State,
    seat: int,
    policy: Policy,
    clock: Clock,
    banks: list[float],
    player: int,
    given: Unplayed | None = None,
) -> Steps[str | None]:
    """Ask ``policy`` for the seat's action (yielding the question) and apply it; the
    action's text, or ``None`` if the answer came too late (after the decision's time and
    the player's bank).
    ``given`` is an untimed answer the policy gave already, to be read first.

    An answer that is no action of the game (:class:`ParseError`) or one the rules refuse
    here (:class:`IllegalActionError`) raises :class:`PolicyError`, unless the policy can
    be told (remote bots): then it is told why — ``malformed(action, reason)`` for the
    first kind when it has that method, else ``rejected(action, reason)`` — and asked
    again, until its time is up.
    """
    deadline = None
    if clock.limit is not None:
        started = clock.now()
        deadline = Deadline(started + clock.limit, started + clock.limit + banks[player])
    timed = deadline is not None and (hasattr(policy, "act_by") or hasattr(policy, "act_by_async"))
    while True:
        action: object
        if given is not None:
            action, given = given.answer, None
        else:
            action = yield Ask(policy, state.observe(seat), deadline, timed)
        if deadline is not None:
            finished = min(clock.now(), deadline.final)
            if action is None or (not timed and finished >= deadline.final):
                banks[player] = 0.0
                return None
            banks[player] -= max(0.0, finished - deadline.decision)
        try:
            if isinstance(action, str):  # a policy may answer in the text form
                action = Action.from_str(action)
            if action is None:
                raise ParseError("no action: the policy answered None")
            if not isinstance(action, Action):  # said here: a compiled apply takes Actions only
                action = well_formed(action)
            state.syntax.check(action)
            state.apply(action)
            return action_text(action)
        except (IllegalActionError, ParseError) as err:
            _refuse(policy, seat, action, err)


def _refuse(
    policy: Policy, seat: int, action: object, err: IllegalActionError | ParseError
) -> None:
    """Tell ``policy`` why its answer was refused, or raise :class:`PolicyError`."""
    tell = getattr(policy, "malformed", None) if isinstance(err, ParseError) else None
    if tell is None:
        tell = getattr(policy, "rejected", None)
    if tell is None:
        raise PolicyError(f"seat {seat}: {err}") from None
    tell(action, str(err))


def deal_seed(match_seed: int, number: int) -> int:
    """The shuffle seed of deal ``number`` (from 0) of the match seeded ``match_seed``."""
    return derive_seed(match_seed, "deal", number)


def play_match(
    game: Game,
    policies: Sequence[Policy],
    *,
    seed: int,
    players: Sequence[str] | None = None,
    max_deals: int | None = None,
    on_event: EventSink | None = None,
    clock: Clock | None = None,
) -> MatchResult:
    """Play deals until the game ends the match, or ``max_deals`` have been played.

    Deal ``i`` is shuffled with a seed derived from the match seed, so a match
    is fully determined by the game, its options, the seed and the policies (and,
    with a ``clock``, which decisions ran out of time: the record notes them).
    ``policies`` are per player; totals and scores are per player.
    """
    steps = match_steps(game, policies, seed, players, max_deals, on_event, clock, compiled=True)
    return drive(steps)


async def play_match_async(
    game: Game,
    policies: Sequence[Policy | AsyncPolicy],
    *,
    seed: int,
    players: Sequence[str] | None = None,
    max_deals: int | None = None,
    on_event: EventSink | None = None,
    clock: Clock | None = None,
    on_ask: Callable[[Ask], None] | None = None,
) -> MatchResult:
    """:func:`play_match` in a coroutine: a policy with ``act_async`` (``act_by_async``
    under a clock) is awaited, any other asked here; the same match for the same
    answers. ``on_ask`` is told each question before it is asked."""
    # each policy is only asked through Ask.answer_async, which awaits act_async first
    steps = match_steps(
        game, cast(Sequence[Policy], policies), seed, players, max_deals, on_event, clock
    )
    return await drive_async(steps, on_ask)


def match_steps(
    game: Game,
    policies: Sequence[Policy],
    seed: int,
    players: Sequence[str] | None = None,
    max_deals: int | None = None,
    on_event: EventSink | None = None,
    clock: Clock | None = None,
    *,
    compiled: bool = False,
) -> Steps[MatchResult]:
    """:func:`play_match`'s loop (see :func:`drive`). With ``compiled``, a deal without
    clock or listener is played by the compiled loop, its policies asked there."""
    if len(policies) != NUM_SEATS:
        raise ValueError(f"a match needs {NUM_SEATS} policies, got {len(policies)}")
    names = list(players) if players is not None else [type(p).__name__ for p in policies]
    limits = None if clock is None or clock.limit is None else ClockLimits(clock.limit, clock.bank)
    record = MatchRecord(game.name, dict(game.options), seed, names, clock=limits)
    result = MatchResult([], record)
    banks = [clock.bank if clock else 0.0] * NUM_SEATS
    untimed = on_event is None and (clock is None or clock.limit is None)
    setup = game.first_setup()
    while setup is not None and (max_deals is None or len(result.outcomes) < max_deals):
        seed_of_deal = deal_seed(seed, len(result.outcomes))
        state = game.new_deal(setup, seed=seed_of_deal)
        deal = DealRecord(setup=game.setup_to_dict(setup), seed=seed_of_deal)
        try:
            if compiled and untimed:
                _play_untimed(state, policies, deal.actions)
            else:
                yield from deal_steps(state, policies, on_event, clock, banks, deal.actions)
        except MatchAborted as err:  # the unfinished deal is not part of the record
            result.aborted = record.aborted = str(err) or "aborted"
            break
        outcome = state.outcome()
        deal.result = outcome_to_dict(outcome)
        record.deals.append(deal)
        result.outcomes.append(outcome)
        result.decisions += len(deal.actions)
        setup = outcome.next_setup
    record.result = match_summary(result.outcomes)
    return result
