"""Play.Connect: a bot's stream, the matchmaker, and matches played in worker threads.

Each connection says Hello (Welcome back), then Join (Joined back) and waits in the
:class:`~arena.server.matchmaker.Matchmaker`. When four connections want the same
variant, a :class:`MatchSession` plays the match in a worker thread with
:func:`arena.match.play_match`; each seat's policy is a
:class:`~arena.server.remote.RemotePolicy` talking over its stream. Messages for a
stream are put on its asyncio queue with ``loop.call_soon_threadsafe``.

Only public events (``State.events``) and each seat's own observation are ever sent.
The finished match is stored, and rated when rated, like simulated ones (``League``).

Not yet: time banks, grace periods and Resume (a broken connection flees at its next
decision), Leave{now: false} waiting for the match end, Draining, DealStarted.setup.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import grpc
from google.protobuf import timestamp_pb2

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.cards import format_cards
from arena.games.base import NUM_SEATS, Event, Game, State, team_of
from arena.match import AUTO_PLAYS_TO_FLEE, Clock, play_match
from arena.server.interceptor import current_principal
from arena.server.matchmaker import Matchmaker, Waiting
from arena.server.remote import MAX_ATTEMPTS, RemotePolicy, event_to_proto, struct
from arena.server.services import rating_change
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import ELO, OPENSKILL, ROOM, League
from arena.store import RatingChange, Store, StoredMatch

__all__ = [
    "DEFAULT_DECISION_SECONDS",
    "Connection",
    "MatchSession",
    "PlayConfig",
    "PlayService",
    "decision_seconds",
]

if TYPE_CHECKING:
    Context = grpc.aio.ServicerContext[Any, Any]

log = logging.getLogger(__name__)

PROTOCOL: Final = 1
SERVER_VERSION: Final = "0.1"
DEFAULT_DECISION_SECONDS: Final = 10.0


def decision_seconds(game: Game, default: float = DEFAULT_DECISION_SECONDS) -> float:
    """The time for each decision: the variant's own (sanfu's ``time_limit``) or the default."""
    limit = game.options.get("time_limit")
    return float(limit) if isinstance(limit, int | float) else default


@dataclass(frozen=True)
class PlayConfig:
    """How matches are played: the default decision time and an optional deal limit."""

    decision_seconds: float = DEFAULT_DECISION_SECONDS
    max_deals: int | None = None
    max_receive_bytes: int = 1024 * 1024
    max_send_bytes: int = 4 * 1024 * 1024


class Connection:
    """One Play stream: its bot, its outgoing queue, its seat when seated."""

    _ids = itertools.count(1)

    def __init__(self, bot: str, owner: str | None, loop: asyncio.AbstractEventLoop) -> None:
        self.bot = bot
        self.owner = owner
        self.id = f"c-{next(self._ids)}-{secrets.token_hex(3)}"
        self.loop = loop
        self.outbox: asyncio.Queue[arena_pb2.ServerMessage | None] = asyncio.Queue()
        self.seat: RemotePolicy | None = None
        self.wish: Waiting | None = None
        self.closed = False

    def send(self, message: arena_pb2.ServerMessage | None) -> None:
        """Queue a message (from any thread); dropped once the stream is closed."""
        if self.closed:
            return
        try:
            self.loop.call_soon_threadsafe(self.outbox.put_nowait, message)
        except RuntimeError:  # the loop is closed: the server is gone
            self.closed = True


class MatchSession:
    """One match between four connections, played in a worker thread."""

    def __init__(
        self,
        store: Store,
        config: PlayConfig,
        variant: str,
        rated: bool,
        connections: list[Connection],
        league_lock: threading.Lock,
    ) -> None:
        self.store = store
        self.variant = variant
        self.rated = rated
        self.connections = connections
        self.game = games.make(variant)
        self.limit = decision_seconds(self.game, config.decision_seconds)
        self.max_deals = config.max_deals
        self.match_id = f"{'rated' if rated else 'casual'}-{variant}-{secrets.token_hex(4)}"
        self.players = [c.bot for c in connections]
        self._league_lock = league_lock
        self.on_end: Callable[[list[Connection]], None] | None = None
        self._state: State | None = None
        self._deal = 0
        self._seq = 0
        self._pending: list[arena_pb2.Event] = []
        self._totals = [0] * NUM_SEATS
        self.policies = [
            RemotePolicy(
                c.send,
                self.match_id,
                self.limit,
                seq=lambda: self._seq,
                deal=lambda: self._deal,
                before_request=self.flush,
            )
            for c in connections
        ]
        for connection, policy in zip(connections, self.policies, strict=True):
            connection.seat = policy

    # -- messages --------------------------------------------------------------------

    def info(self) -> arena_pb2.MatchInfo:
        return arena_pb2.MatchInfo(
            match_id=self.match_id,
            variant=self.variant,
            options=struct(self.game.options),
            players=self.players,
            rated=self.rated,
            max_deals=self.max_deals or 0,
            clock=arena_pb2.ClockSettings(
                decision_ms=int(self.limit * 1000),
                time_bank_ms=0,
                grace_ms=0,
                auto_plays_to_flee=AUTO_PLAYS_TO_FLEE,
            ),
        )

    def _all(self, message: arena_pb2.ServerMessage) -> None:
        for connection in self.connections:
            connection.send(message)

    def flush(self) -> None:
        """Confirm applied answers, then send the public events not sent yet."""
        for policy in self.policies:
            policy.confirm()
        if self._pending:
            batch = arena_pb2.EventBatch(match_id=self.match_id, events=self._pending)
            self._pending = []
            self._all(arena_pb2.ServerMessage(events=batch))

    def on_event(self, state: State, event: Event) -> None:
        if state is not self._state:
            self._end_deal()
            self._start_deal(state)
        for policy in self.policies:
            policy.confirm()
        self._seq += 1
        description = self.game.describe_event(event, state)
        self._pending.append(event_to_proto(event, self._seq, self._deal, description))

    def _start_deal(self, state: State) -> None:
        self._state = state
        self._deal += 1
        seats = {state.player_at(seat): seat for seat in range(NUM_SEATS)}
        seating = [self.players[state.player_at(seat)] for seat in range(NUM_SEATS)]
        for player, connection in enumerate(self.connections):
            seat = seats[player]
            hand = state.observe(seat).hand  # this seat's own cards only
            connection.send(
                arena_pb2.ServerMessage(
                    deal_started=arena_pb2.DealStarted(
                        match_id=self.match_id,
                        deal=self._deal,
                        seat=seat,
                        seating=seating,
                        players=[state.player_at(s) for s in range(NUM_SEATS)],
                        hand=format_cards(hand).split(),
                    )
                )
            )

    def _end_deal(self) -> None:
        state = self._state
        if state is None or not state.is_terminal():
            return
        self.flush()
        outcome = state.outcome()
        for seat, score in enumerate(outcome.scores):
            self._totals[seat] += score
        self._all(
            arena_pb2.ServerMessage(
                deal_result=arena_pb2.DealResult(
                    match_id=self.match_id,
                    deal=self._deal,
                    scores=list(outcome.scores),
                    summary=self.game.describe_outcome(outcome),
                    details=struct(outcome.details),
                    totals=self._totals,
                    match_over=outcome.match_over,
                )
            )
        )
        self._state = None

    # -- the match ---------------------------------------------------------------------

    def start(self) -> threading.Thread:
        for player, connection in enumerate(self.connections):
            fixed = self.variant != "sanfu"
            partner = self.players[(player + 2) % NUM_SEATS] if fixed else ""
            opponents = (
                [p for i, p in enumerate(self.players) if team_of(i) != team_of(player)]
                if fixed
                else []
            )
            connection.send(
                arena_pb2.ServerMessage(
                    seat_assigned=arena_pb2.SeatAssigned(
                        match=self.info(), player=player, partner=partner, opponents=opponents
                    )
                )
            )
        thread = threading.Thread(target=self.run, name=self.match_id, daemon=True)
        thread.start()
        return thread

    def run(self) -> None:
        try:
            self._play()
        except Exception:  # never let a match thread die silently
            log.exception("match %s failed", self.match_id)
        finally:
            for connection in self.connections:
                connection.seat = None
            if self.on_end is not None:
                self.on_end(self.connections)

    def _play(self) -> None:
        seed = secrets.randbits(63)
        result = play_match(
            self.game,
            self.policies,
            seed=seed,
            players=self.players,
            max_deals=self.max_deals,
            on_event=self.on_event,
            clock=Clock(limit=self.limit),
        )
        self._end_deal()
        job = MatchJob(
            id=self.match_id,
            variant=self.variant,
            options=dict(self.game.options),
            seed=seed,
            players=(self.players[0], self.players[1], self.players[2], self.players[3]),
            max_deals=self.max_deals,
        )
        report = MatchReport(
            job=job,
            winner=result.winner,
            totals=tuple(result.totals),
            deals=len(result.outcomes),
            decisions=result.decisions,
            record=result.record.to_dict(),
        )
        changes = self._store(report)
        forfeit = any("forfeit" in o.details for o in result.outcomes)
        reason = (
            arena_pb2.END_REASON_FORFEIT
            if forfeit
            else arena_pb2.END_REASON_COMPLETE
            if result.complete
            else arena_pb2.END_REASON_DEAL_LIMIT
        )
        winner = result.winner
        summary = (
            f"team {winner} wins after {len(result.outcomes)} deals"
            if winner is not None
            else f"no winner after {len(result.outcomes)} deals"
        )
        self._all(
            arena_pb2.ServerMessage(
                match_result=arena_pb2.MatchResult(
                    match_id=self.match_id,
                    reason=reason,
                    winner_team=winner,
                    totals=list(result.totals),
                    deals=len(result.outcomes),
                    summary=summary,
                    rated=self.rated,
                    rating_changes=[rating_change(c) for c in changes],
                )
            )
        )

    def _store(self, report: MatchReport) -> list[RatingChange]:
        """Store the match; rate it when rated. The rating changes it caused."""
        if not self.rated:
            job = report.job
            self.store.add_match(
                StoredMatch(
                    id=job.id,
                    tournament_id=None,
                    variant=job.variant,
                    options=dict(job.options),
                    seed=job.seed,
                    seating=job.players,
                    outcome={
                        "winner": report.winner,
                        "totals": list(report.totals),
                        "team_score": report.team_score(),
                    },
                    record=report.record,
                    deals=report.deals,
                    decisions=report.decisions,
                )
            )
            return []
        with self._league_lock:  # ratings are read, updated and written as one step
            League(self.store, self.variant).add(report, None)
        return [
            change
            for bot in sorted(set(self.players))
            for system in (ELO, OPENSKILL, ROOM)
            for change in self.store.rating_history(bot, self.variant, system)
            if change.match_id == self.match_id
        ]


def _error(code: grpc.StatusCode, message: str) -> arena_pb2.ServerMessage:
    return arena_pb2.ServerMessage(error=arena_pb2.Error(code=code.name, message=message))


class PlayService(arena_pb2_grpc.PlayServicer):
    """Play.Connect."""

    def __init__(self, store: Store, config: PlayConfig | None = None) -> None:
        self.store = store
        self.config = config or PlayConfig()
        self.matchmaker = Matchmaker(self._start_match)
        self.threads: list[threading.Thread] = []
        self._league_lock = threading.Lock()

    def _start_match(self, variant: str, rated: bool, waiting: list[Waiting]) -> None:
        connections: list[Connection] = [w.token for w in waiting]  # type: ignore[misc]
        session = MatchSession(
            self.store, self.config, variant, rated, connections, self._league_lock
        )
        session.on_end = self._rejoin
        self.threads = [t for t in self.threads if t.is_alive()]
        self.threads.append(session.start())

    def _rejoin(self, connections: list[Connection]) -> None:
        """After a match each connection still open waits for its next one."""
        for connection in connections:
            if not connection.closed and connection.wish is not None:
                self.matchmaker.join(connection.wish)

    async def Connect(
        self, request_iterator: AsyncIterator[arena_pb2.ClientMessage], context: Context
    ) -> AsyncIterator[arena_pb2.ServerMessage]:
        principal = current_principal()
        try:
            first = await anext(aiter(request_iterator))
        except StopAsyncIteration:
            return
        if first.WhichOneof("body") != "hello":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first Play message must be a Hello"
            )
        if first.hello.protocol != PROTOCOL:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol {first.hello.protocol} is not supported; this server speaks {PROTOCOL}",
            )
        bot = self.store.bot(principal.name)
        connection = Connection(
            principal.name, bot.owner if bot else None, asyncio.get_running_loop()
        )
        yield arena_pb2.ServerMessage(
            welcome=arena_pb2.Welcome(
                bot_id=connection.bot,
                bot_name=connection.bot,
                connection_id=connection.id,
                protocol=PROTOCOL,
                server_version=SERVER_VERSION,
                variants=games.names(),
                limits=arena_pb2.Limits(
                    max_receive_bytes=self.config.max_receive_bytes,
                    max_send_bytes=self.config.max_send_bytes,
                    max_attempts_per_request=MAX_ATTEMPTS,
                ),
            )
        )
        reader = asyncio.create_task(self._read(connection, request_iterator))
        try:
            while True:
                message = await connection.outbox.get()
                if message is None:
                    break
                yield message
        finally:
            reader.cancel()
            self._drop(connection)

    def _drop(self, connection: Connection) -> None:
        """The stream ended: no new match; a seat held flees (no grace period yet)."""
        connection.closed = True
        self.matchmaker.leave(connection)
        if connection.seat is not None:
            connection.seat.leave()

    async def _read(
        self, connection: Connection, requests: AsyncIterator[arena_pb2.ClientMessage]
    ) -> None:
        try:
            async for message in requests:
                self._handle(connection, message)
        except (asyncio.CancelledError, grpc.RpcError):
            pass
        finally:
            self._drop(connection)
            connection.outbox.put_nowait(None)  # ends the writing side

    def _handle(self, connection: Connection, message: arena_pb2.ClientMessage) -> None:
        body = message.WhichOneof("body")
        if body == "join":
            self._join(connection, message.join)
        elif body == "action":
            seat = connection.seat
            if seat is None:
                connection.send(
                    arena_pb2.ServerMessage(
                        action_result=arena_pb2.ActionResult(
                            request_id=message.action.request_id,
                            status=arena_pb2.ACTION_STATUS_STALE,
                            reason=f"unknown request id {message.action.request_id!r}: "
                            "this connection holds no seat",
                        )
                    )
                )
            else:
                seat.offer(message.action.request_id, message.action.action)
        elif body == "ping":
            now = timestamp_pb2.Timestamp()
            now.GetCurrentTime()
            connection.send(
                arena_pb2.ServerMessage(
                    pong=arena_pb2.Pong(nonce=message.ping.nonce, server_time=now)
                )
            )
        elif body == "leave":
            connection.wish = None
            self.matchmaker.leave(connection)
            if message.leave.now and connection.seat is not None:
                connection.seat.leave()
        elif body == "hello":
            connection.send(
                _error(grpc.StatusCode.FAILED_PRECONDITION, "Hello was already received")
            )

    def _join(self, connection: Connection, join: arena_pb2.Join) -> None:
        offered = games.names()
        wanted = list(join.variants) or offered
        unknown = [v for v in wanted if v not in offered]
        if unknown:
            connection.send(
                _error(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"unknown variant {unknown[0]!r}; this server offers: {', '.join(offered)}",
                )
            )
            return
        connection.send(
            arena_pb2.ServerMessage(
                joined=arena_pb2.Joined(variants=wanted, rated=join.rated, matches=join.matches)
            )
        )
        connection.wish = Waiting(
            connection.bot, connection.owner, tuple(wanted), join.rated, connection
        )
        if connection.seat is None:
            self.matchmaker.join(connection.wish)
