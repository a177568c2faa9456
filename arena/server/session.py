"""One match played on the server, a coroutine on its event loop, between remote and
built-in seats.

The match is played by :func:`arena.match.play_match_async`; each remote seat's policy
is a :class:`~arena.server.remote.RemotePolicy` talking over the seat's current
connection, each built-in seat a bot of :mod:`bots` (a quick one asked on the loop, any
other in a worker thread). The match's coroutine only pauses while it awaits an answer,
the state consistent, so the loop reads the match safely in between: to resume a seat
after a reconnection, or to catch a spectator up. Storing and rating run in a worker
thread.

Only public events (``State.events``) and each seat's own observation are ever sent.
The finished match is stored, and rated when rated, like simulated ones (``League``);
a match cut short (shutdown, cancellation) is stored with the deals it finished,
unrated, with its end reason.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from google.protobuf import timestamp_pb2

import bots
from arena import games, metrics
from arena._proto.arena.v1 import arena_pb2
from arena.cards import card_names
from arena.chance import derive_seed
from arena.games.base import NUM_SEATS, Action, Event, Game, Observation, State, team_of
from arena.log import get_logger
from arena.match import (
    AUTO_PLAYS_TO_FLEE,
    Ask,
    Clock,
    Conduct,
    MatchAborted,
    MatchResult,
    Policy,
    play_match_async,
)
from arena.record import ClockLimits, MatchRecord, match_summary
from arena.server.connection import Connection
from arena.server.remote import RemotePolicy, event_to_proto, observation_to_proto, struct
from arena.server.results import end_of_match, failed_match_result, rating_change
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import ELO, OPENSKILL, ROOM, League
from arena.store import RatingChange, Store, StoredMatch

__all__ = [
    "ClockConfig",
    "MatchPlan",
    "MatchSession",
    "decision_seconds",
    "plan_summary",
    "unplayed_match",
]

DEFAULT_DECISION_SECONDS: Final = 10.0
DEFAULT_TIME_BANK_SECONDS: Final = 60.0
DEFAULT_GRACE_SECONDS: Final = 30.0

Watcher = Callable[[arena_pb2.WatchMessage | None], None]
"""A spectator's sink: public messages, then ``None`` when the match is over."""


def decision_seconds(game: Game, default: float = DEFAULT_DECISION_SECONDS) -> float:
    """The time for each decision: the variant's own (sanfu's ``time_limit``) or the default."""
    limit = game.options.get("time_limit")
    return float(limit) if isinstance(limit, int | float) else default


@dataclass(frozen=True)
class ClockConfig:
    """Time limits: per decision (unless the variant sets its own), bank, grace period."""

    decision_seconds: float = DEFAULT_DECISION_SECONDS
    time_bank_seconds: float = DEFAULT_TIME_BANK_SECONDS
    grace_seconds: float = DEFAULT_GRACE_SECONDS


@dataclass(frozen=True)
class MatchPlan:
    """A match to play: the variant, its four players (bot names) and how it counts.
    Fixtures fix the id and the seed; matchmade matches draw them."""

    variant: str
    players: tuple[str, ...]
    rated: bool
    options: Mapping[str, Any] = field(default_factory=dict)
    match_id: str | None = None
    seed: int | None = None
    tournament_id: str | None = None
    max_deals: int | None = None
    clock: ClockConfig | None = None
    rating_pool: str | None = None
    """Where a rated match is rated (:mod:`arena.rating.pools`); None: the variant's own."""


def plan_summary(plan: MatchPlan) -> arena_pb2.MatchSummary:
    """A scheduled match as listed."""
    return arena_pb2.MatchSummary(
        info=arena_pb2.MatchInfo(
            match_id=plan.match_id or "",
            variant=plan.variant,
            options=struct(dict(plan.options)),
            players=list(plan.players),
            rated=plan.rated,
            tournament_id=plan.tournament_id or "",
            max_deals=plan.max_deals or 0,
        ),
        status=arena_pb2.MATCH_STATUS_SCHEDULED,
    )


def unplayed_match(plan: MatchPlan, clock: ClockConfig, reason: str, detail: str) -> StoredMatch:
    """A scheduled match stopped before its first deal (``reason``: ``cancelled``), as
    the store keeps it: no deal, not rated, the operator's ``detail`` with it."""
    game = games.make(plan.variant, **dict(plan.options))
    clock = plan.clock or clock
    seed = plan.seed if plan.seed is not None else secrets.randbits(63)
    limits = ClockLimits(decision_seconds(game, clock.decision_seconds), clock.time_bank_seconds)
    record = MatchRecord(
        game.name, dict(game.options), seed, list(plan.players), clock=limits, aborted=reason
    )
    record.result = match_summary([])
    a, b, c, d = plan.players
    job = MatchJob(
        id=plan.match_id or f"unplayed-{plan.variant}-{secrets.token_hex(4)}",
        variant=plan.variant,
        options=dict(game.options),
        seed=seed,
        players=(a, b, c, d),
        max_deals=plan.max_deals,
    )
    cut_short = {"aborted": reason, **({"reason": detail} if detail else {})}
    report = MatchReport.of(job, MatchResult([], record, aborted=reason))
    return report.stored(plan.tournament_id, **cut_short)


class Stoppable:
    """A built-in bot's policy that stops the match (``MatchAborted``) at its next
    decision once ``stopped()`` says why: built-in bots alone are cancelled too. Its
    decisions that ran out of time are counted in ``conduct``. Awaited, a ``quick`` bot
    is asked on the event loop, any other in a worker thread (the loop goes on)."""

    def __init__(
        self,
        policy: Policy,
        stopped: Callable[[], str | None],
        *,
        quick: bool = False,
        before: Callable[[], None] | None = None,
    ) -> None:
        self.policy = policy
        self._stopped = stopped
        self._quick = quick
        self._before = before
        """Called before each awaited decision (spectators are shown the plays so far)."""
        self.conduct = Conduct()

    def timed_out(self, fallback: Action | None) -> None:
        if fallback is not None:
            self.conduct.timeouts += 1

    def act(self, observation: Observation) -> Action | str:
        reason = self._stopped()
        if reason is not None:
            raise MatchAborted(reason)
        return self.policy.act(observation)

    async def act_async(self, observation: Observation) -> Action | str:
        if self._before is not None:
            self._before()
        if self._quick:  # the loop's other work first: a match of such bots never waits
            await asyncio.sleep(0)
            return self.act(observation)
        return await asyncio.to_thread(self.act, observation)


class MatchSession:
    """One match between remote connections (``None`` for a built-in seat)."""

    def __init__(
        self,
        store: Store,
        plan: MatchPlan,
        connections: list[Connection | None],
        *,
        clock: ClockConfig,
        league_lock: threading.Lock,
        request_numbers: Iterator[int] | None = None,
    ) -> None:
        self.store = store
        self.plan = plan
        self.variant = plan.variant
        self.rated = plan.rated
        self.rating_pool = plan.rating_pool or plan.variant
        self.game = games.make(plan.variant, **dict(plan.options))
        clock = plan.clock or clock
        self.clock = Clock(
            limit=decision_seconds(self.game, clock.decision_seconds),
            bank=clock.time_bank_seconds,
        )
        self.grace = clock.grace_seconds
        self.max_deals = plan.max_deals
        kind = "rated" if plan.rated else "casual"
        self.match_id = plan.match_id or f"{kind}-{plan.variant}-{secrets.token_hex(4)}"
        self._log = get_logger(__name__, match_id=self.match_id, variant=plan.variant)
        self.seed = plan.seed if plan.seed is not None else secrets.randbits(63)
        self.players = list(plan.players)
        self.connections = connections
        self._league_lock = league_lock
        self.on_end: Callable[[MatchSession], None] | None = None
        self.result: arena_pb2.MatchResult | None = None
        self.over = False
        """Set once spectators have had the last message."""
        self.task: asyncio.Task[None] | None = None
        """The match's coroutine, once started."""
        self.loop: asyncio.AbstractEventLoop | None = None
        """The event loop it runs on, once started."""
        self._state: State | None = None
        self._deal = 0
        self._seq = 0
        self._sent = [0] * NUM_SEATS
        """Per player, how many of the deal's events its connection has been sent."""
        self._watched = 0
        """How many of the deal's events the spectators have been sent."""
        self._turns: list[arena_pb2.Turn] = []
        """The deal's asks so far, as spectators were told them (of several at one event
        number, the first and the last): a newcomer's catch-up tells them again."""
        self._deal_events: list[arena_pb2.Event] = []
        self._deal_started: list[arena_pb2.DealStarted] = []
        self._finished_deals: list[arena_pb2.WatchMessage] = []
        """The public messages of the deals finished so far (a spectator may review them)."""
        self._totals = [0] * NUM_SEATS
        self._finished = 0
        self._started_at: timestamp_pb2.Timestamp | None = None
        """When the first deal started."""
        """Deals finished so far."""
        self._stopping: tuple[str, str] | None = None
        """Why and (an operator's words) how the match is being stopped."""
        self._stage = "starting the match"
        """What the match thread is doing (named when it fails)."""
        self._setup = self.game.first_setup()
        """The current (or next) deal's setup."""
        self._watchers: list[Watcher] = []
        self._asked: Ask | None = None
        """The question awaited now (whose turn, by when); None between decisions."""
        self.seats: list[RemotePolicy | None] = []
        self.policies: list[RemotePolicy | Stoppable] = []
        for player, connection in enumerate(connections):
            if connection is None:
                seed = derive_seed(self.seed, "bot", player)
                self.seats.append(None)
                name = self.players[player]
                builtin = bots.make(name, seed)
                self.policies.append(
                    Stoppable(
                        builtin, self._stopped, quick=bots.quick(name), before=self._show_plays
                    )
                )
                continue
            policy = RemotePolicy(
                self.match_id,
                variant=self.variant,
                bot=self.players[player],
                player=player,
                seq=lambda: self._seq,
                deal=lambda: self._deal,
                grace=self.grace,
                request_numbers=request_numbers,
                before_request=functools.partial(self._before_request, player),
            )
            policy.attach(connection.send, connection.wire)
            connection.session, connection.player = self, player
            self.seats.append(policy)
            self.policies.append(policy)

    # -- messages --------------------------------------------------------------------

    def info(self) -> arena_pb2.MatchInfo:
        return arena_pb2.MatchInfo(
            match_id=self.match_id,
            variant=self.variant,
            options=struct(self.game.options),
            players=self.players,
            rated=self.rated,
            max_deals=self.max_deals or 0,
            tournament_id=self.plan.tournament_id or "",
            clock=arena_pb2.ClockSettings(
                decision_ms=int(self.clock.limit * 1000) if self.clock.limit else 0,
                time_bank_ms=int(self.clock.bank * 1000),
                grace_ms=int(self.grace * 1000),
                auto_plays_to_flee=AUTO_PLAYS_TO_FLEE,
            ),
        )

    def summary(self) -> arena_pb2.MatchSummary:
        """The running match as listed."""
        summary = arena_pb2.MatchSummary(
            info=self.info(),
            status=arena_pb2.MATCH_STATUS_RUNNING,
            deals=max(self._deal - 1, 0),
            totals=self._totals,
        )
        if self._started_at is not None:
            summary.started_at.CopyFrom(self._started_at)
        return summary

    def seat_assigned(self, player: int) -> arena_pb2.SeatAssigned:
        fixed = self.variant != "sanfu"  # sanfu's partners are found anew every deal
        return arena_pb2.SeatAssigned(
            match=self.info(),
            player=player,
            partner=self.players[(player + 2) % NUM_SEATS] if fixed else "",
            opponents=[p for i, p in enumerate(self.players) if team_of(i) != team_of(player)]
            if fixed
            else [],
        )

    def _to(self, player: int, message: arena_pb2.ServerMessage) -> None:
        seat = self.seats[player]
        if seat is not None:
            seat.send(message)

    def _all(self, message: arena_pb2.ServerMessage, watch: arena_pb2.WatchMessage) -> None:
        for player in range(NUM_SEATS):
            self._to(player, message)
        for watcher in list(self._watchers):
            watcher(watch)

    def flush(self, players: Iterable[int] = range(NUM_SEATS)) -> None:
        """Confirm applied answers, then send the public events not sent yet to these
        players' connections (one, before its decision request; all at a deal's end) and
        to the spectators. A seat waits for the events until it must act or the deal
        ends: one batch a decision rather than one per seat. Nothing else sends a seat
        its events: what a seat receives depends on the game and its own decisions only,
        never on spectators or on other seats' connections."""
        for seat in self.seats:
            if seat is not None:
                seat.confirm()
        events = self._deal_events
        for p in players:
            if self._sent[p] < len(events):
                batch = arena_pb2.EventBatch(match_id=self.match_id, events=events[self._sent[p] :])
                self._sent[p] = len(events)
                self._to(p, arena_pb2.ServerMessage(events=batch))
        self._show_watchers()

    def _show_watchers(self) -> None:
        """The spectators get the public events they have not had (the seats nothing)."""
        events = self._deal_events
        if self._watched < len(events):
            batch = arena_pb2.EventBatch(match_id=self.match_id, events=events[self._watched :])
            self._watched = len(events)
            for watcher in list(self._watchers):
                watcher(arena_pb2.WatchMessage(events=batch, live=True))

    def _on_ask(self, ask: Ask) -> None:
        """A seat is asked: the spectators see the plays so far, then whose turn it is."""
        self._asked = ask
        turn = self._turn()
        turns = self._turns
        if len(turns) >= 2 and turns[-2].after_seq == turns[-1].after_seq == turn.after_seq:
            turns[-1] = turn  # the first and the last ask at one event number are enough
        else:
            turns.append(turn)
        if self._watchers:
            self._show_watchers()
            for watcher in list(self._watchers):
                watcher(arena_pb2.WatchMessage(turn=turn, live=True))

    def _turn(self) -> arena_pb2.Turn:
        """Whose decision is awaited, and the time it has left now."""
        ask = self._asked
        assert ask is not None
        observation = ask.observation
        turn = arena_pb2.Turn(
            match_id=self.match_id,
            deal=self._deal,
            seat=observation.seat,
            phase=observation.phase,
            after_seq=self._seq,
        )
        deadline = ask.deadline
        if deadline is not None:
            now = self.clock.now()
            turn.decision_ms = int(max(0.0, deadline.decision - now) * 1000)
            turn.time_bank_ms = int(max(0.0, deadline.final - max(now, deadline.decision)) * 1000)
            turn.deadline.FromMilliseconds(int((time.time() + deadline.final - now) * 1000))
        return turn

    def _show_plays(self) -> None:
        """Before a built-in bot decides: the spectators (a person's drawn table among
        them) see every play so far, rather than when a remote seat is next asked."""
        if self._watchers:
            self._show_watchers()

    def _before_request(self, player: int, carry: bool) -> list[arena_pb2.Event]:
        """Before ``player``'s decision request: the events it has not had, sent now, or
        returned to go inside the request (``carry``)."""
        if not carry:
            self.flush((player,))
            return []
        self.flush(())  # confirmations and spectators only
        carried = self._deal_events[self._sent[player] :]
        self._sent[player] = len(self._deal_events)
        return carried

    def on_event(self, state: State, event: Event) -> None:
        if state is not self._state:
            self._end_deal()
            self._start_deal(state)
        for seat in self.seats:
            if seat is not None:
                seat.confirm()
        self._seq += 1
        message = event_to_proto(
            event, self._seq, self._deal, self.game.describe_event(event, state)
        )
        self._deal_events.append(message)

    def _public_start(self) -> arena_pb2.DealStarted:
        public = arena_pb2.DealStarted()
        public.CopyFrom(self._deal_started[0])
        public.ClearField("seat")
        del public.hand[:]
        return public

    def _start_deal(self, state: State) -> None:
        self._state = state
        self._deal += 1
        if self._started_at is None:
            self._started_at = timestamp_pb2.Timestamp()
            self._started_at.GetCurrentTime()
        self._deal_events = []
        self._asked = None
        self._turns = []
        self._sent = [0] * NUM_SEATS
        self._watched = 0
        seats = {state.player_at(seat): seat for seat in range(NUM_SEATS)}
        seating = [self.players[state.player_at(seat)] for seat in range(NUM_SEATS)]
        setup = struct(self.game.setup_to_dict(self._setup))
        self._deal_started = []
        for player in range(NUM_SEATS):
            seat = seats[player]
            started = arena_pb2.DealStarted(
                match_id=self.match_id,
                deal=self._deal,
                seat=seat,
                seating=seating,
                players=[state.player_at(s) for s in range(NUM_SEATS)],
                setup=setup,
                hand=card_names(state.observe(seat).hand),  # its own cards only
            )
            self._deal_started.append(started)
            self._to(player, arena_pb2.ServerMessage(deal_started=started))
        for watcher in list(self._watchers):
            watcher(arena_pb2.WatchMessage(deal_started=self._public_start(), live=True))

    def _end_deal(self) -> None:
        state = self._state
        if state is None or not state.is_terminal():
            return
        self.flush()
        self._asked = None
        outcome = state.outcome()
        self._setup = outcome.next_setup
        for seat, score in enumerate(outcome.scores):
            self._totals[seat] += score
        self._finished += 1
        result = arena_pb2.DealResult(
            match_id=self.match_id,
            deal=self._deal,
            scores=list(outcome.scores),
            summary=self.game.describe_outcome(outcome),
            details=struct(outcome.details),
            totals=self._totals,
            match_over=outcome.match_over or self._finished == self.max_deals,
        )
        self._all(
            arena_pb2.ServerMessage(deal_result=result),
            arena_pb2.WatchMessage(deal_result=result, live=True),
        )
        batch = arena_pb2.EventBatch(match_id=self.match_id, events=self._deal_events)
        self._finished_deals += (
            arena_pb2.WatchMessage(deal_started=self._public_start()),
            arena_pb2.WatchMessage(events=batch),
            arena_pb2.WatchMessage(deal_result=result),
        )
        self._state = None

    # -- resume and spectators (event loop, between the match's steps) ----------------

    def resume(self, player: int, connection: Connection) -> None:
        """Give the seat to ``connection``: the Resume (every event of the deal so far),
        then the open request again, without the events the Resume brought. No other
        seat is sent anything."""
        resume = arena_pb2.Resume(seat=self.seat_assigned(player), totals=self._totals)
        state = self._state
        if state is not None and self._deal_started:
            seat = self._deal_started[player].seat
            resume.deal.CopyFrom(self._deal_started[player])
            observation = state.observe(seat)
            compact = connection.wire.compact
            resume.observation.CopyFrom(
                observation_to_proto(observation, self._seq, compact=compact)
            )
            resume.observation.events.extend(self._deal_events)
            self._sent[player] = len(self._deal_events)
        policy = self.seats[player]
        assert policy is not None
        connection.session, connection.player = self, player
        connection.send(arena_pb2.ServerMessage(resume=resume))
        policy.attach(connection.send, connection.wire)
        policy.resend_open()
        self._log.info("seat_changed", player=player, bot=connection.bot, change="taken back")

    @property
    def deal_state(self) -> State | None:
        """The deal being played (None between deals), to read its public order of
        cards (the web face sorts a seat's own hand by it); what a seat sees is
        ``observe``'s alone."""
        return self._state if self._deal_started else None

    @property
    def deal_number(self) -> int | None:
        """The number of the deal being played (None between deals)."""
        return self._deal if self._deal_started else None

    def hand_of(self, player: int) -> tuple[int, list[str]] | None:
        """``player``'s seat in the deal being played and its own cards now (for its own
        connection only); None between deals."""
        state = self._state
        if state is None or not self._deal_started:
            return None
        seat = self._deal_started[player].seat
        return seat, card_names(state.observe(seat).hand)

    def lost(self, player: int, why: str) -> None:
        """The seat's connection broke: it waits for its bot during the grace period."""
        seat = self.seats[player]
        if seat is not None and not seat.gone:
            seat.detach()
            self._log.info(
                "seat_changed",
                player=player,
                bot=self.players[player],
                change=f"connection lost ({why})",
                grace_seconds=self.grace,
            )

    def watch(self, watcher: Watcher, after_seq: int, history: bool = False) -> bool:
        """Catch a spectator up (info, the deal so far), then send it every public message;
        False (nothing sent) if the match is over already. ``history``: the deals finished
        so far are sent whole after the info, as a stored match's are (a page reviews
        them)."""
        if self.over:
            return False
        self._show_watchers()  # the others first: the newcomer's catch-up holds these
        watcher(arena_pb2.WatchMessage(match=self.info(), live=False))
        if history:
            for message in self._finished_deals:
                watcher(message)
        if self._state is not None and self._deal_started:
            watcher(arena_pb2.WatchMessage(deal_started=self._public_start(), live=False))
            self._catch_up(watcher, after_seq)
        self._watchers.append(watcher)
        return True

    def _catch_up(self, watcher: Watcher, after_seq: int) -> None:
        """The deal's events after ``after_seq``, each ask after the events before it
        (whose turn every frame awaited), the open one with the time it has now."""
        events = [e for e in self._deal_events if e.seq > after_seq]
        told = self._turns[:-1] if self._asked is not None else self._turns
        sent = 0
        for turn in (t for t in told if t.after_seq >= after_seq):
            upto = sent
            while upto < len(events) and events[upto].seq <= turn.after_seq:
                upto += 1
            if upto > sent:
                batch = arena_pb2.EventBatch(match_id=self.match_id, events=events[sent:upto])
                watcher(arena_pb2.WatchMessage(events=batch, live=False))
                sent = upto
            watcher(arena_pb2.WatchMessage(turn=turn, live=False))
        if sent < len(events):
            batch = arena_pb2.EventBatch(match_id=self.match_id, events=events[sent:])
            watcher(arena_pb2.WatchMessage(events=batch, live=False))
        if self._asked is not None:
            watcher(arena_pb2.WatchMessage(turn=self._turn(), live=False))

    def unwatch(self, watcher: Watcher) -> None:
        if watcher in self._watchers:
            self._watchers.remove(watcher)

    # -- the match ---------------------------------------------------------------------

    def abort(self, reason: str, detail: str = "") -> None:
        """Stop the match at its next decision (``shutdown`` or ``cancelled``); ``detail``
        (an operator's reason) is told to the seats and stored."""
        self._log.info("match_stopping", reason=reason, detail=detail)
        self._stopping = (reason, detail)
        for seat in self.seats:
            if seat is not None:
                seat.abort(reason)

    def _stopped(self) -> str | None:
        """Why the match is being stopped (``abort``), or None."""
        return self._stopping[0] if self._stopping is not None else None

    def _stop_detail(self) -> str:
        return self._stopping[1] if self._stopping is not None else ""

    def start(self) -> asyncio.Task[None]:
        """Tell the seats, then play the match on the running event loop."""
        for player in range(NUM_SEATS):
            self._to(player, arena_pb2.ServerMessage(seat_assigned=self.seat_assigned(player)))
        for player, connection in enumerate(self.connections):
            if connection is not None:
                self._log.info(
                    "bot_seated", player=player, bot=connection.bot, connection_id=connection.id
                )
        self.loop = asyncio.get_running_loop()
        self.task = self.loop.create_task(self.run(), name=self.match_id)
        return self.task

    async def run(self) -> None:
        """Play, store and rate the match; whatever happens, every seat and spectator
        gets a MatchResult (END_REASON_ERROR when the server failed: logged, counted as a
        ``failed`` match once, neither stored nor rated)."""
        self._log.info("match_started", players=self.players, rated=self.rated)
        try:
            with metrics.match_in_flight(self.variant):  # counts a failure
                result, record, changes = await self._play()
        except Exception:  # never let a match end silently
            self._log.exception("match_failed", stage=self._stage, deals=self._finished)
            self.result = failed_match_result(
                self.match_id, self._finished, self._totals, self._stage
            )
        else:
            self.result = self._match_result(result, changes)
            self._log.info(
                "match_finished",
                deals=len(result.outcomes),
                winner=result.winner,
                ended=result.aborted or "played",
                rated=bool(changes),
            )
            metrics.record_match(self.variant, record)
            if changes:
                metrics.publish_ratings(self.store, self.rating_pool)
        finally:
            self._end()

    def _end(self) -> None:
        """The match is over: its seats are free, its MatchResult goes to every seat and
        spectator, then ``on_end``."""
        for connection in self.connections:
            if connection is not None and connection.session is self:
                connection.session = connection.player = None
        if self.result is not None:
            message = arena_pb2.ServerMessage(match_result=self.result)
            for player in range(NUM_SEATS):
                self._to(player, message)
        for watcher in self._watchers:
            if self.result is not None:
                watcher(arena_pb2.WatchMessage(match_result=self.result, live=True))
            watcher(None)
        self._watchers.clear()
        self.over = True
        if self.on_end is not None:
            self.on_end(self)

    async def _play(self) -> tuple[MatchResult, dict[str, Any], list[RatingChange]]:
        """Play the match, then store it (and rate it, in a worker thread): the result,
        the record, the rating changes. ``_stage`` says what is being done, for a
        failure's report."""
        self._stage = "playing the match"
        result = await play_match_async(
            self.game,
            self.policies,
            seed=self.seed,
            players=self.players,
            max_deals=self.max_deals,
            on_event=self.on_event,
            clock=self.clock,
            on_ask=self._on_ask,
        )
        self._end_deal()
        self.flush()
        job = MatchJob(
            id=self.match_id,
            variant=self.variant,
            options=dict(self.game.options),
            seed=self.seed,
            players=(self.players[0], self.players[1], self.players[2], self.players[3]),
            max_deals=self.max_deals,
        )
        report = MatchReport.of(job, result, conduct=[p.conduct for p in self.policies])
        return result, report.record, await asyncio.to_thread(self._store, report, result)

    def _match_result(
        self, result: MatchResult, changes: list[RatingChange]
    ) -> arena_pb2.MatchResult:
        deals = len(result.outcomes)
        reason, summary = end_of_match(
            aborted=result.aborted,
            detail=self._stop_detail(),
            forfeit=any("forfeit" in o.details for o in result.outcomes),
            complete=result.complete,
            winner=result.winner,
            deals=deals,
        )
        return arena_pb2.MatchResult(
            match_id=self.match_id,
            reason=reason,
            winner_team=result.winner if result.aborted is None else None,
            totals=list(result.totals),
            deals=deals,
            summary=summary,
            rated=bool(changes),
            rating_changes=[rating_change(c) for c in changes],
        )

    def _store(self, report: MatchReport, result: MatchResult) -> list[RatingChange]:
        """Store the match; rate it when rated and played out. The rating changes.
        The built-in bots seated are made known to the store first."""
        self._stage = "storing the match"
        builtin = [p for p, c in zip(self.players, self.connections, strict=True) if c is None]
        if builtin:
            self.store.add_builtin_bots(builtin)
        if not self.rated or result.aborted is not None:
            cut_short = {} if result.aborted is None else {"aborted": result.aborted}
            if result.aborted is not None and self._stop_detail():
                cut_short["reason"] = self._stop_detail()
            self.store.add_match(report.stored(self.plan.tournament_id, **cut_short))
            return []
        self._stage = "rating and storing the match"
        with self._league_lock:  # ratings are read, updated and written as one step
            League(self.store, self.rating_pool).add(report, self.plan.tournament_id)
        return [
            change
            for bot in sorted(set(self.players))
            for system in (ELO, OPENSKILL, ROOM)
            for change in self.store.rating_history(bot, self.rating_pool, system)
            if change.match_id == self.match_id
        ]
