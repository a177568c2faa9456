"""Play.Connect: a bot's stream, the matchmaker, fixtures, resuming seats, draining.

Each connection says Hello (Welcome back), then Join (Joined back) and waits in the
:class:`~arena.server.matchmaker.Matchmaker`. When four connections want the same
variant — or one asked for built-in bots after a wait, or an operator's fixture names
them — a :class:`~arena.server.session.MatchSession` plays the match, a coroutine on
the server's event loop.

A connection that breaks while seated leaves its seat waiting for the grace period; a
new connection of the same bot takes it back (``Hello.resume_match_id``, or the first
seat waiting) and gets a ``Resume`` first. ``Leave{now: false}`` ends the stream once the
match is over; ``Leave{now: true}`` flees at once. :meth:`PlayService.drain` stops
seating, tells every connection (``Draining``), lets running matches finish until a
deadline and then stops them (stored with END_REASON_SHUTDOWN).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import count
from typing import TYPE_CHECKING, Any, Final

import grpc
from google.protobuf import timestamp_pb2

from arena import games, metrics
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import quoted
from arena.inputs import one_line
from arena.log import get_logger
from arena.plural import counted
from arena.protocol import DEFAULT_FILL_BOT, MAX_ATTEMPTS, PROTOCOLS
from arena.server.builtin import builtin_problem, is_builtin
from arena.server.connection import Connection
from arena.server.interceptor import current_principal
from arena.server.matchmaker import Matchmaker, Waiting
from arena.server.remote import Wire
from arena.server.services import refuse
from arena.server.session import (
    DEFAULT_DECISION_SECONDS,
    ClockConfig,
    MatchPlan,
    MatchSession,
    decision_seconds,
    unplayed_match,
)
from arena.store import CANCELLED, Bot, Store, StoreError

__all__ = [
    "DEFAULT_DECISION_SECONDS",
    "ClockConfig",
    "Connection",
    "MatchPlan",
    "MatchSession",
    "PlayConfig",
    "PlayService",
    "decision_seconds",
]

if TYPE_CHECKING:
    Context = grpc.aio.ServicerContext[Any, Any]

log = get_logger(__name__)

SERVER_VERSION: Final = "0.1"


@dataclass(frozen=True)
class PlayConfig:
    """How matches are played and what one connection may do."""

    clock: ClockConfig = field(default_factory=ClockConfig)
    max_deals: int | None = None
    max_receive_bytes: int = 1024 * 1024
    max_send_bytes: int = 4 * 1024 * 1024
    send_queue_limit: int = 4096
    """Messages waiting to be sent on one stream before the stream is cut off."""
    max_messages_per_second: float = 1000.0
    max_connections_per_bot: int = 8
    fixture_matches_at_once: int = 2
    """Fixture matches between built-in bots only played at the same time."""


def _error(code: grpc.StatusCode, message: str, request_id: str = "") -> arena_pb2.ServerMessage:
    return arena_pb2.ServerMessage(
        error=arena_pb2.Error(code=code.name, message=one_line(message), request_id=request_id)
    )


def _timestamp(seconds: float) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def playable_variants(bot: Bot | None) -> list[str]:
    """The variants a bot may join: those it registered for that this server offers."""
    offered = games.names()
    if bot is None or bot.games is None:
        return offered
    return [variant for variant in offered if variant in bot.games]


class PlayService(arena_pb2_grpc.PlayServicer):
    """Play.Connect, and the matches it starts."""

    def __init__(self, store: Store, config: PlayConfig | None = None) -> None:
        self.store = store
        self.config = config or PlayConfig()
        self.matchmaker = Matchmaker(self._start_matchmade)
        self.sessions: dict[str, MatchSession] = {}
        self.connections: set[Connection] = set()
        self.scheduled: list[MatchPlan] = []
        self.tasks: set[asyncio.Task[None]] = set()
        """The running matches' coroutines."""
        self.draining = False
        self.cut_off = 0
        """Connections ended because they stopped reading (their send queue filled)."""
        self._lock = threading.RLock()
        self._league_lock = threading.Lock()
        self._request_numbers = count(1)
        """Numbers of decision request ids, unique on this server."""
        self._connection_numbers = count(1)
        self._builtin: dict[str, bool] = {}
        """Player names known to be (or not to be) built-in bots."""

    # -- starting matches -------------------------------------------------------------

    def _is_builtin(self, name: str) -> bool:
        """Whether a scheduled player is a built-in bot (asked once per name)."""
        known = self._builtin.get(name)
        if known is None:
            known = self._builtin[name] = is_builtin(name)
        return known

    def _start_matchmade(self, variant: str, rated: bool, waiting: list[Waiting]) -> None:
        connections: list[Connection | None] = [
            w.token if isinstance(w.token, Connection) else None for w in waiting
        ]
        plan = MatchPlan(
            variant=variant,
            players=tuple(w.bot for w in waiting),
            rated=rated,
            max_deals=self.config.max_deals,
        )
        self.launch(plan, connections)

    def launch(self, plan: MatchPlan, connections: list[Connection | None]) -> MatchSession | None:
        """Start ``plan`` with these connections in its remote seats (None: a built-in
        bot's seat): the running session, or None when it could not be set up (logged,
        and each connection told)."""
        try:
            session = MatchSession(
                self.store,
                plan,
                connections,
                clock=self.config.clock,
                league_lock=self._league_lock,
                request_numbers=self._request_numbers,
            )
        except Exception as err:  # the seated connections are told, never left waiting
            self._not_started(plan, connections, err)
            return None
        session.on_end = self._ended
        for connection in connections:
            if connection is not None and connection.matches_left is not None:
                connection.matches_left -= 1
                if connection.matches_left <= 0:
                    connection.wish = None
        with self._lock:
            self.sessions[session.match_id] = session
        task = session.start()
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return session

    def _not_started(
        self, plan: MatchPlan, connections: list[Connection | None], error: Exception
    ) -> None:
        """A match could not be set up: logged and counted once as ``failed``; each of its
        connections gets an Error and waits for no more matches (it may Join again)."""
        log.error(
            "match_not_started",
            variant=plan.variant,
            players=list(plan.players),
            match_id=plan.match_id,
            error=str(error),
            exc_info=error,
        )
        metrics.record_failed_match(plan.variant)
        message = _error(
            grpc.StatusCode.INTERNAL,
            f"the server could not start a {plan.variant} match between "
            f"{', '.join(plan.players)}: Join again to wait for another",
        )
        for connection in connections:
            if connection is not None:
                connection.wish = None
                connection.session = connection.player = None  # seated in no match
                connection.send(message)
        self._tournament_over(plan.tournament_id)

    def _ended(self, session: MatchSession) -> None:
        """A match is over: each connection still open waits for its next one (or ends)."""
        with self._lock:
            self.sessions.pop(session.match_id, None)
        self._tournament_over(session.plan.tournament_id)
        for connection in session.connections:
            if connection is None or connection.closed:
                continue
            if connection.leaving:
                connection.end()
            elif connection.wish is not None and not self.draining:
                self._queue(connection)
        self._run_scheduled()
        if not self.draining:
            self.matchmaker.form()
        self._publish_queues()

    def _tournament_over(self, tournament_id: str | None) -> None:
        """Once none of a tournament's matches is scheduled or running, it is ``finished``
        (``aborted`` when the server is shutting down)."""
        if tournament_id is None:
            return
        with self._lock:
            left = any(p.tournament_id == tournament_id for p in self.scheduled) or any(
                s.plan.tournament_id == tournament_id for s in self.sessions.values()
            )
        if not left:
            self._set_tournament_status(tournament_id, "aborted" if self.draining else "finished")

    def _set_tournament_status(self, tournament_id: str, status: str) -> None:
        try:
            self.store.set_tournament_status(tournament_id, status)
        except StoreError as err:  # logged, never silent; the matches are stored apart
            log.error(
                "tournament_status_not_stored",
                tournament_id=tournament_id,
                status=status,
                error=str(err),
            )
        else:
            log.info("tournament_over", tournament_id=tournament_id, status=status)

    def schedule(self, plans: Sequence[MatchPlan]) -> None:
        """Fixture matches: played as soon as each named bot has a connection waiting."""
        with self._lock:
            self.scheduled.extend(plans)
        self._run_scheduled()

    def _run_scheduled(self) -> None:
        if self.draining:
            return
        while True:
            with self._lock:
                running_builtin = sum(
                    1 for s in self.sessions.values() if all(c is None for c in s.connections)
                )
                chosen: tuple[MatchPlan, list[Connection | None]] | None = None
                for plan in self.scheduled:
                    remote = [p for p in plan.players if not self._is_builtin(p)]
                    if not remote:
                        if running_builtin >= self.config.fixture_matches_at_once:
                            continue
                        chosen = (plan, [None] * len(plan.players))
                        break
                    taken = self.matchmaker.take(remote, plan.variant)
                    if taken is None:
                        continue
                    by_bot = iter(taken)
                    chosen = (
                        plan,
                        [
                            None if self._is_builtin(p) else next(by_bot).token  # type: ignore[misc]
                            for p in plan.players
                        ],
                    )
                    break
                if chosen is None:
                    return
                self.scheduled.remove(chosen[0])
            self.launch(*chosen)

    # -- operators -----------------------------------------------------------------------

    def cancel(self, match_id: str, reason: str) -> str:
        """Cancel a scheduled or running match: ``scheduled`` or ``running`` (what it was);
        KeyError if neither. A scheduled one is stored at once, cancelled before its
        first deal (a running one when its coroutine stops)."""
        with self._lock:
            plan = next((p for p in self.scheduled if p.match_id == match_id), None)
            if plan is not None:
                self.scheduled.remove(plan)
            session = self.sessions.get(match_id)
        if plan is None and session is None:
            raise KeyError(match_id)
        was = "scheduled" if plan is not None else "running"
        log.info("match_cancelled", match_id=match_id, was=was, reason=quoted(reason))
        if session is not None:
            session.abort(CANCELLED, reason)
            return was
        assert plan is not None
        try:
            self.store.add_match(unplayed_match(plan, self.config.clock, CANCELLED, reason))
        except StoreError as err:  # logged, never silent: the match is not played either way
            log.error("cancelled_match_not_stored", match_id=match_id, error=str(err))
        self._tournament_over(plan.tournament_id)
        return was

    async def drain(self, reason: str, timeout: float) -> None:
        """Seat nothing more, tell every connection, let running matches finish within
        ``timeout`` seconds, then stop those left (stored as cut short by shutdown)."""
        self.draining = True
        self.matchmaker.clear()
        deadline = time.time() + timeout
        message = arena_pb2.ServerMessage(
            draining=arena_pb2.Draining(reason=reason, deadline=_timestamp(deadline))
        )
        for connection in list(self.connections):
            connection.send(message)
        log.info("shutdown_draining", matches=len(self.sessions), seconds=timeout, reason=reason)
        tasks = set(self.tasks)
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
        with self._lock:
            running = list(self.sessions.values())
        if running:
            log.warning("shutdown_cutting_short", matches=[s.match_id for s in running])
        for session in running:
            session.abort("shutdown")
        if tasks:
            await asyncio.wait(tasks, timeout=30.0)
        with self._lock:
            unplayed = {p.tournament_id for p in self.scheduled if p.tournament_id is not None}
        for tournament_id in sorted(unplayed):  # its scheduled matches will not be played
            self._set_tournament_status(tournament_id, "aborted")
        for connection in list(self.connections):
            connection.end()
        log.info("shutdown_drained")

    def _publish_queues(self) -> None:
        queued = self.matchmaker.queued()
        for variant in games.names():
            metrics.set_queue_length(variant, queued.get(variant, 0))

    def revoked(self, bot: str, token_id: str | None) -> int:
        """Close the connections using a revoked token (every token of ``bot`` when
        ``token_id`` is None); their seats wait for a reconnection as after any break.
        How many were closed."""
        closed = 0
        for connection in list(self.connections):
            if connection.closed or connection.refusal is not None:
                continue
            if connection.bot == bot and (token_id is None or connection.token_id == token_id):
                connection.refusal = (grpc.StatusCode.UNAUTHENTICATED, "the token was revoked")
                connection.end()
                closed += 1
        return closed

    # -- the stream ---------------------------------------------------------------------

    def _pending_seats(self, bot: str) -> list[tuple[MatchSession, int]]:
        """Seats of ``bot`` waiting for a reconnection (in their grace period)."""
        with self._lock:
            sessions = list(self.sessions.values())
        return [
            (session, player)
            for session in sessions
            for player, seat in enumerate(session.seats)
            if seat is not None
            and session.players[player] == bot
            and not seat.connected
            and not seat.gone
        ]

    async def Connect(
        self, request_iterator: AsyncIterator[arena_pb2.ClientMessage], context: Context
    ) -> AsyncIterator[arena_pb2.ServerMessage]:
        principal = current_principal()
        try:
            first = await anext(aiter(request_iterator))
        except StopAsyncIteration:
            return
        if first.WhichOneof("body") != "hello":
            await refuse(
                context, grpc.StatusCode.INVALID_ARGUMENT, "the first Play message must be a Hello"
            )
        protocol = first.hello.protocol
        if protocol not in PROTOCOLS:
            served = " and ".join(str(p) for p in PROTOCOLS)
            await refuse(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol {protocol} is not supported; this server speaks {served} "
                f"(Hello.protocol)",
            )
        if self.draining:
            await refuse(context, grpc.StatusCode.UNAVAILABLE, "the server is shutting down")
        open_for_bot = sum(1 for c in self.connections if c.bot == principal.name)
        if open_for_bot >= self.config.max_connections_per_bot:
            await refuse(
                context,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"bot {quoted(principal.name)} already has {counted(open_for_bot, 'connection')} "
                f"open "
                f"(at most {self.config.max_connections_per_bot})",
            )
        bot = self.store.bot(principal.name)
        connection = Connection(
            principal.name,
            bot.owner if bot else None,
            asyncio.get_running_loop(),
            number=next(self._connection_numbers),
            queue_limit=self.config.send_queue_limit,
            messages_per_second=self.config.max_messages_per_second,
        )
        connection.task = asyncio.current_task()
        connection.variants = playable_variants(bot)
        connection.wire = Wire(protocol, first.hello.events_in_requests)
        connection.token_id = principal.token_id
        self.connections.add(connection)
        pending = self._pending_seats(connection.bot)
        wanted = first.hello.resume_match_id
        resumed = next((p for p in pending if not wanted or p[0].match_id == wanted), None)
        if wanted and resumed is None:
            self.connections.discard(connection)
            await refuse(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no seat of bot {quoted(connection.bot)} waits for a reconnection "
                f"in match {quoted(wanted)}",
            )
        yield arena_pb2.ServerMessage(
            welcome=arena_pb2.Welcome(
                bot_id=connection.bot,
                bot_name=connection.bot,
                connection_id=connection.id,
                protocol=protocol,
                server_version=SERVER_VERSION,
                variants=connection.variants,
                limits=arena_pb2.Limits(
                    max_receive_bytes=self.config.max_receive_bytes,
                    max_send_bytes=self.config.max_send_bytes,
                    max_connections_per_bot=self.config.max_connections_per_bot,
                    max_attempts_per_request=MAX_ATTEMPTS,
                    max_messages_per_second=int(self.config.max_messages_per_second),
                ),
                pending_matches=[s.match_id for s, _ in pending if (s, _) != resumed],
            )
        )
        metrics.set_connected_bots(len(self.connections))
        log.info(
            "bot_connected",
            bot=connection.bot,
            connection_id=connection.id,
            token_id=principal.token_id,
            protocol=protocol,
            client=quoted(first.hello.client) if first.hello.client else None,
            resumes=resumed[0].match_id if resumed is not None else None,
        )
        if resumed is not None:
            session, player = resumed
            session.resume(player, connection)
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
        if connection.refusal is not None:
            await refuse(context, *connection.refusal)
        if self.draining:
            await refuse(context, grpc.StatusCode.UNAVAILABLE, "the server has shut down")

    def _drop(self, connection: Connection) -> None:
        """The stream ended: no new match; a seat held waits for a reconnection."""
        if connection in self.connections:
            self._log_disconnected(connection)
            if connection.overflowed:
                self.cut_off += 1
        connection.closed = True
        self.connections.discard(connection)
        self.matchmaker.leave(connection)
        metrics.set_connected_bots(len(self.connections))
        self._publish_queues()
        session, player = connection.session, connection.player
        if session is not None and player is not None:
            session.lost(player, "it stopped reading" if connection.overflowed else "closed")

    def _log_disconnected(self, connection: Connection) -> None:
        session, player = connection.session, connection.player
        if connection.refusal is not None:
            why = connection.refusal[1]
        elif connection.overflowed:
            why = "it stopped reading"
        elif self.draining:
            why = "the server is shutting down"
        else:
            why = "the stream ended"
        log.info(
            "bot_disconnected",
            bot=connection.bot,
            connection_id=connection.id,
            why=why,
            seat_waits_in=session.match_id if session is not None else None,
            player=player,
        )

    async def _read(
        self, connection: Connection, requests: AsyncIterator[arena_pb2.ClientMessage]
    ) -> None:
        try:
            async for message in requests:
                if not connection.rate.allow():
                    connection.send(
                        _error(
                            grpc.StatusCode.RESOURCE_EXHAUSTED,
                            f"more than {self.config.max_messages_per_second:g} messages "
                            "a second: message ignored",
                        )
                    )
                    continue
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
            self._action(connection, message.action)
        elif body == "ping":
            now = timestamp_pb2.Timestamp()
            now.GetCurrentTime()
            connection.send(
                arena_pb2.ServerMessage(
                    pong=arena_pb2.Pong(nonce=message.ping.nonce, server_time=now)
                )
            )
        elif body == "leave":
            self._leave(connection, now=message.leave.now)
        elif body == "hello":
            connection.send(
                _error(grpc.StatusCode.FAILED_PRECONDITION, "Hello was already received")
            )
        else:
            connection.send(
                _error(grpc.StatusCode.INVALID_ARGUMENT, "a Play message with no known body")
            )

    def _action(self, connection: Connection, reply: arena_pb2.ActionReply) -> None:
        session, player = connection.session, connection.player
        seat = session.seats[player] if session is not None and player is not None else None
        if seat is None:
            connection.send(
                arena_pb2.ServerMessage(
                    action_result=arena_pb2.ActionResult(
                        request_id=reply.request_id,
                        status=arena_pb2.ACTION_STATUS_STALE,
                        reason=f"unknown request id {quoted(reply.request_id)}: "
                        "this connection holds no seat",
                    )
                )
            )
            return
        seat.offer(reply.request_id, reply)

    def _leave(self, connection: Connection, *, now: bool) -> None:
        connection.wish = None
        self.matchmaker.leave(connection)
        self._publish_queues()
        session, player = connection.session, connection.player
        seat = session.seats[player] if session is not None and player is not None else None
        if seat is None:
            connection.end()
        elif now:
            seat.leave()
            connection.session = connection.player = None
            connection.end()
        else:
            connection.leaving = True

    def _join(self, connection: Connection, join: arena_pb2.Join) -> None:
        problem = self._join_problem(connection, join)
        if problem is not None:
            connection.send(_error(grpc.StatusCode.INVALID_ARGUMENT, problem))
            return
        if self.draining:
            connection.send(
                _error(grpc.StatusCode.UNAVAILABLE, "the server is shutting down: no new matches")
            )
            return
        wanted = list(join.variants) or connection.variants
        connection.send(
            arena_pb2.ServerMessage(
                joined=arena_pb2.Joined(variants=wanted, rated=join.rated, matches=join.matches)
            )
        )
        connection.leaving = False
        connection.matches_left = join.matches or None
        connection.fill = (
            (join.fill_after_ms / 1000, join.fill_bot or DEFAULT_FILL_BOT)
            if join.fill_after_ms
            else None
        )
        connection.wish = Waiting(
            connection.bot, connection.owner, tuple(wanted), join.rated, connection
        )
        if connection.session is not None:
            return  # seated: it waits once the match is over
        self._queue(connection)
        self._run_scheduled()
        self.matchmaker.form()
        self._publish_queues()

    @staticmethod
    def _join_problem(connection: Connection, join: arena_pb2.Join) -> str | None:
        """Why a Join can never be seated (then it is refused), or None."""
        offered = games.names()
        unknown = [v for v in join.variants if v not in offered]
        if unknown:
            return f"unknown variant {quoted(unknown[0])}; this server offers: {', '.join(offered)}"
        unregistered = [v for v in join.variants if v not in connection.variants]
        if unregistered:
            return (
                f"bot {quoted(connection.bot)} did not register for variant "
                f"{quoted(unregistered[0])}; "
                f"it registered for: {', '.join(connection.variants) or 'none'}"
            )
        if join.fill_after_ms:
            problem = builtin_problem(join.fill_bot or DEFAULT_FILL_BOT)
            if problem is not None:
                return f"cannot fill seats: {problem}"
        return None

    def _queue(self, connection: Connection) -> None:
        """Put a connection that wants matches in the queue; when its
        Join asked for built-in bots, they fill its seats after the wait it gave."""
        wish = connection.wish
        assert wish is not None
        waiting = replace(wish)  # this wait's own entry
        connection.queued = waiting
        self.matchmaker.join(waiting, form=False)
        if connection.fill is None:
            return
        seconds, bot = connection.fill

        def fill() -> None:
            if connection.queued is waiting and connection.session is None:
                self.matchmaker.fill(connection, bot)
                self._publish_queues()

        connection.loop.call_later(seconds, fill)
