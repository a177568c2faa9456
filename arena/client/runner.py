"""Play a bot on an arena server: one Play.Connect stream, matches one after another.

:func:`run_bot` says Hello (protocol 2: one server message per decision) and Join,
answers every DecisionRequest with the bot's ``act`` (the observation rebuilt as the
engine's, decoded on demand, events kept from the requests of the current deal; the
answer sent as its index in the legal list when it is there), and on an ILLEGAL or
MALFORMED ActionResult calls the
bot's optional ``on_illegal(action, reason)`` and asks ``act`` again while the decision
has time and attempts left (the decision's own time, then the seat's time bank). After
``matches`` MatchResults it leaves. When the connection breaks (the call ends with
UNAVAILABLE, or INTERNAL or CANCELLED as a stream reset by the server does) it connects
again after a pause that doubles each time (simple backoff), and a seat still waiting for
it (within its grace period) comes back with a ``Resume``. An Error about a request is
told; one refusing the Join ends the run (:class:`ClientError`); after a match the server
could not start the bot joins again.

One :class:`_Stream` per connection: a reader task takes each message as it comes (also
while the bot thinks), and the stream hands each kind to its own handler, in order.
Whatever happens is told to a reporter (:mod:`arena.client.report`): lines for people,
structured logs, or nothing (the default).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import traceback
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any, Final

import grpc

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.client.bot import ASKED, Asked, decide, is_async, notify_deal_over, notify_illegal
from arena.client.report import (
    BotFailed,
    Connected,
    DealOver,
    DecisionLost,
    Draining,
    Fact,
    MatchOver,
    Reconnecting,
    Refused,
    Reporter,
    Resumed,
    Seated,
    ServerError,
    SilentReporter,
    Waiting,
    end_reason,
    match_outcome,
)
from arena.client.wire import (
    event_from_proto,
    facts_from_struct,
    observation_from_proto,
    reply_message,
)
from arena.errors import ArenaError, IllegalActionError
from arena.games.base import Action, Event, Observation
from arena.games.views import SoFar
from arena.protocol import DEFAULT_FILL_BOT, DEFAULT_SERVER, MAX_ATTEMPTS, PROTOCOL

__all__ = ["ClientError", "PlayedMatch", "RunSummary", "run_bot", "run_bot_async"]

CLIENT: Final = "arena-python"
_RETRY: Final = (
    arena_pb2.ACTION_STATUS_ILLEGAL,
    arena_pb2.ACTION_STATUS_MALFORMED,
)
_LOST: Final = (
    arena_pb2.ACTION_STATUS_TIMED_OUT,
    arena_pb2.ACTION_STATUS_TOO_MANY_ATTEMPTS,
)
_RECONNECT: Final = (
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.INTERNAL,
    grpc.StatusCode.CANCELLED,
)
"""How a stream may end when the connection or the server goes away: connect again."""
LAST_ATTEMPT: Final = 1.0
"""Seconds a connection attempt is given at least, even past ``give_up_after``: time to
learn why it fails (refused at once, or no Welcome from a server that never answers)."""
_FATAL: Final = ("INVALID_ARGUMENT", "FAILED_PRECONDITION", "PERMISSION_DENIED", "UNAUTHENTICATED")
"""Codes of an Error about the stream that no retry can mend (a Join refused)."""


class ClientError(ArenaError):
    """The server refused the bot (a status no reconnection mends, or an Error refusing
    the Join), or stayed unreachable after ``max_retries`` reconnections."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class _Closed(Exception):
    """The stream ended with a status other than OK."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


@dataclass
class PlayedMatch:
    """A match the bot played: which player it was, and the server's MatchResult."""

    match_id: str
    variant: str
    player: int | None
    players: list[str]
    result: arena_pb2.MatchResult

    @property
    def total(self) -> int | None:
        """The bot's own total (in the game's unit), if known."""
        totals = list(self.result.totals)
        return (
            totals[self.player] if self.player is not None and self.player < len(totals) else None
        )


@dataclass
class RunSummary:
    """What :func:`run_bot` did: the matches played (in order) and reconnections."""

    results: list[PlayedMatch] = field(default_factory=list)
    reconnects: int = 0

    @property
    def matches(self) -> int:
        return len(self.results)


@dataclass(frozen=True)
class _Settings:
    """What a run asks for: the same on each of its connections."""

    server: str
    token: str
    variants: tuple[str, ...]
    rated: bool
    matches: int | None
    fill_after: float | None
    fill_bot: str
    inline: bool
    on_decision: Callable[[float], None] | None
    on_match: Callable[[PlayedMatch], None] | None
    reporter: Reporter

    def done(self, summary: RunSummary) -> bool:
        return self.matches is not None and summary.matches >= self.matches

    def last_match(self, summary: RunSummary) -> bool:
        """Whether the match starting now is the run's last."""
        return self.matches is not None and summary.matches + 1 >= self.matches


@dataclass
class _Decision:
    request_id: str
    observation: Observation
    deadline: float
    attempts: int = 0
    last: Action | str = ""
    """The bot's last answer (what a refusal is about)."""
    received: float = 0.0
    """When the DecisionRequest was read (``time.perf_counter``)."""
    match_id: str = ""
    deal: int = 0


def fill_after_ms(fill_after: float | None) -> int:
    """``Join.fill_after_ms`` for a wait of ``fill_after`` seconds (``None``: no filling).
    0 on the wire asks for no filling, so a wait of zero asks for the shortest, 1 ms."""
    if fill_after is None:
        return 0
    return max(1, round(fill_after * 1000))


def run_bot(
    bot: object,
    server: str = DEFAULT_SERVER,
    token: str = "",
    variants: Sequence[str] = ("guandan",),
    rated: bool = True,
    matches: int | None = None,
    **options: object,
) -> RunSummary:
    """Play ``bot`` on ``server`` (``HOST:PORT``) until ``matches`` matches are over
    (``None``: forever); keyword options as for :func:`run_bot_async`."""
    return asyncio.run(
        run_bot_async(
            bot,
            server,
            token,
            variants,
            rated,
            matches,
            **options,  # type: ignore[arg-type]
        )
    )


async def run_bot_async(
    bot: object,
    server: str = DEFAULT_SERVER,
    token: str = "",
    variants: Sequence[str] = ("guandan",),
    rated: bool = True,
    matches: int | None = None,
    *,
    on_match: Callable[[PlayedMatch], None] | None = None,
    tls: bool = False,
    backoff: tuple[float, float] = (0.5, 30.0),
    max_retries: int | None = None,
    give_up_after: float | None = None,
    on_decision: Callable[[float], None] | None = None,
    inline: bool = False,
    root_certificates: bytes | None = None,
    fill_after: float | None = None,
    fill_bot: str = "",
    reporter: Reporter | None = None,
) -> RunSummary:
    """:func:`run_bot` in a running event loop (several bots can share one).

    ``on_match`` is called after each match; ``tls`` uses a TLS channel with the system's
    roots, or ``root_certificates`` (PEM) when given; ``backoff`` is the first and the
    longest pause before connecting again after the stream broke (UNAVAILABLE, or
    INTERNAL or CANCELLED as a connection cut by the server's side ends); ``max_retries``
    bounds the reconnections in a row (``None``: no bound), and ``give_up_after`` the
    seconds without a connection (from the start, or from the last one the server
    welcomed; ``None``: no bound; an attempt not welcomed by then, or within
    :data:`LAST_ATTEMPT` of its start, is cut), after which
    the last status is raised as :class:`ClientError` saying so; any other status is
    raised at once.
    ``on_decision`` is called with each accepted decision's round trip in seconds: from
    reading the DecisionRequest to reading what says the answer was accepted (the
    seat's next DecisionRequest naming it, or the DealResult).
    ``fill_after`` (seconds) asks for built-in bots (``fill_bot``, default ``random``) in
    the seats still empty after that wait.
    ``inline`` calls a plain (not ``async``) ``act`` on the event loop rather than in a
    worker thread: quicker for a bot that answers in well under a millisecond, but while
    it thinks every other stream of the loop waits.
    ``reporter`` is told what happens (:mod:`arena.client.report`: ``HumanReporter``
    for lines, ``LogReporter`` for structured logs); by default nothing is told.
    """
    if matches is not None and matches < 1:
        raise ValueError(f"matches must be at least 1 or None, got {matches}")
    settings = _Settings(
        server=server,
        token=token,
        variants=tuple(variants),
        rated=rated,
        matches=matches,
        fill_after=fill_after,
        fill_bot=fill_bot,
        inline=inline,
        on_decision=on_decision,
        on_match=on_match,
        reporter=reporter or SilentReporter(),
    )
    credentials = (
        grpc.ssl_channel_credentials(root_certificates) if tls or root_certificates else None
    )
    summary = RunSummary()
    first, longest = backoff
    delay = first
    failures = 0
    clock = asyncio.get_running_loop().time
    lost_since = clock()
    """When the bot was last connected (welcomed), or the run started."""
    while not settings.done(summary):
        stream = _Stream(bot, settings, summary)
        code = grpc.StatusCode.UNAVAILABLE
        try:
            # an attempt that gets no Welcome (a server that accepts and never answers)
            # ends when the run gives up, the last one given a moment to say why
            deadline = (
                None
                if give_up_after is None
                else max(lost_since + give_up_after, clock() + LAST_ATTEMPT)
            )
            async with asyncio.timeout_at(deadline) as stream.unwelcomed:
                if await stream.run(credentials):
                    break
            reason = "the server ended the stream"
        except _Closed as err:
            if err.code not in _RECONNECT:
                raise ClientError(err.code.name, err.details) from None
            code = err.code
            reason = err.details or code.name.lower()
            if code != grpc.StatusCode.UNAVAILABLE:
                reason = f"{code.name}: {reason}"
        except TimeoutError:
            if stream.unwelcomed is None or not stream.unwelcomed.expired():
                raise  # not this bound's
            reason = "no Welcome from the server"
        now = clock()
        if stream.welcomed:
            delay, failures, lost_since = first, 0, now
        failures += 1
        if max_retries is not None and failures > max_retries:
            raise ClientError(code.name, f"{server}: {reason}")
        pause = delay
        if give_up_after is not None:
            left = give_up_after - (now - lost_since)
            if left <= 0:
                raise ClientError(
                    code.name,
                    f"{server}: {reason}; no connection for {now - lost_since:.1f} s "
                    f"(at most {give_up_after:g} s): giving up",
                )
            pause = round(min(delay, left), 2)
        summary.reconnects += 1
        settings.reporter.report(Reconnecting(server, failures, pause, reason))
        await asyncio.sleep(pause)
        delay = min(delay * 2, longest)
    return summary


def _described(err: BaseException) -> str:
    """``Type: message`` (or just the type's name)."""
    text = str(err)
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def _status(status: int) -> str:
    """An ActionStatus as its short name: ``ILLEGAL``, ``TIMED_OUT`` …"""
    try:
        name = arena_pb2.ActionStatus.Name(status)
    except ValueError:
        return f"status {status}"
    return name.removeprefix("ACTION_STATUS_")


_Call = grpc.aio.StreamStreamCall[arena_pb2.ClientMessage, arena_pb2.ServerMessage]


async def _read_all(
    call: _Call, inbox: asyncio.Queue[arena_pb2.ServerMessage | grpc.aio.AioRpcError | None]
) -> None:
    """Read each message as it comes, while the bot may be thinking, then None at the end
    (or the call's error): what the server sent before it ended the call is never lost
    to a stream reset."""
    try:
        while (message := await call.read()) is not grpc.aio.EOF:
            assert isinstance(message, arena_pb2.ServerMessage)
            inbox.put_nowait(message)
    except grpc.aio.AioRpcError as err:
        inbox.put_nowait(err)
        return
    inbox.put_nowait(None)


class _Stream:
    """One connection: the match it is in, the current deal's events, the open decision;
    one handler per kind of server message."""

    def __init__(self, bot: object, settings: _Settings, summary: RunSummary) -> None:
        self.bot = bot
        self.settings = settings
        self.summary = summary
        self.welcomed = False
        self.unwelcomed: asyncio.Timeout | None = None
        """Ends the attempt unless the server welcomes the bot in time."""
        self.draining = False
        """The server said it is shutting down."""
        self.seat: arena_pb2.SeatAssigned | None = None
        self.deal = 0
        self.seq = 0
        """The last public event received (a resumed stream repeats none)."""
        self.events: list[Event] = []
        self.open: _Decision | None = None
        self._inline_act = getattr(bot, "act") if settings.inline and not is_async(bot) else None  # noqa: B009
        """The bot's ``act``, when it is asked on the event loop."""
        self._write: Callable[[arena_pb2.ClientMessage], Awaitable[None]] | None = None
        self._handlers: Mapping[str, Callable[[Any], Awaitable[bool]]] = {
            "welcome": self._welcome,
            "joined": self._joined,
            "seat_assigned": self._seat_assigned,
            "resume": self._resume,
            "deal_started": self._deal_started,
            "events": self._events,
            "decision": self._decision,
            "action_result": self._action_result,
            "deal_result": self._deal_result,
            "match_result": self._match_result,
            "error": self._error,
            "draining": self._draining,
        }

    @property
    def player(self) -> int | None:
        seat = self.seat
        return seat.player if seat is not None and seat.HasField("player") else None

    def tell(self, fact: Fact) -> None:
        self.settings.reporter.report(fact)

    async def run(self, credentials: grpc.ChannelCredentials | None) -> bool:
        """Connect and play: True when the run's last match is over, False when the
        server ended the stream with OK; :class:`_Closed` for any other status."""
        server = self.settings.server
        channel = (
            grpc.aio.secure_channel(server, credentials)
            if credentials is not None
            else grpc.aio.insecure_channel(server)
        )
        async with channel:
            call = arena_pb2_grpc.PlayStub(channel).Connect(
                metadata=(("authorization", f"Bearer {self.settings.token}"),)
            )

            async def write(message: arena_pb2.ClientMessage) -> None:
                # a failed write means the stream is over (broken, or ended while the bot
                # thought): the next read says why
                with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    await call.write(message)

            self._write = write
            try:
                done = await self._play(call)
            except grpc.aio.AioRpcError as err:
                # a write may fail before the server's status is in: ask the call for it
                code = await call.code()
                details: str | None = await call.details()
                if code is None or code == grpc.StatusCode.OK:
                    code, details = err.code(), err.details()
                raise self._closed(code, details or "") from None
            if done:
                return True
            code = await call.code()  # the server ended the stream: why?
            if code not in (None, grpc.StatusCode.OK):
                raise self._closed(code, await call.details() or "")
            return False

    def _closed(self, code: grpc.StatusCode, details: str) -> _Closed:
        """Why the stream ended; after a Draining, whatever the status, the server went
        away (UNAVAILABLE: connect again later)."""
        if self.draining and code != grpc.StatusCode.UNAVAILABLE:
            return _Closed(grpc.StatusCode.UNAVAILABLE, f"the server shut down ({code.name})")
        return _Closed(code, details)

    async def _send(self, message: arena_pb2.ClientMessage | None = None, **body: Any) -> None:
        """Write ``message``, or one made of ``body``."""
        assert self._write is not None
        await self._write(message if message is not None else arena_pb2.ClientMessage(**body))

    async def _play(self, call: _Call) -> bool:
        """Hello, then each message to its handler until EOF (False) or the run's last
        match is over (True). Bodies this version does not know are ignored."""
        hello = arena_pb2.Hello(protocol=PROTOCOL, client=CLIENT, events_in_requests=True)
        await self._send(hello=hello)
        async with contextlib.aclosing(self._messages(call)) as messages:
            async for message in messages:
                body = message.WhichOneof("body") or ""
                handler = self._handlers.get(body)
                if handler is not None and await handler(getattr(message, body)):
                    await call.done_writing()
                    return True
        return False

    async def _messages(self, call: _Call) -> AsyncGenerator[arena_pb2.ServerMessage, None]:
        """The server's messages in order, then the error that ended the call (raised).
        A bot asked on the event loop (``inline``) is read between its answers: nothing
        thinks meanwhile. Any other is read by a task of its own, while it thinks too."""
        if self._inline_act is not None:
            while (message := await call.read()) is not grpc.aio.EOF:
                assert isinstance(message, arena_pb2.ServerMessage)
                yield message
            return
        inbox: asyncio.Queue[arena_pb2.ServerMessage | grpc.aio.AioRpcError | None]
        inbox = asyncio.Queue()
        reader = asyncio.create_task(_read_all(call, inbox))
        try:
            while (message := await inbox.get()) is not None:
                if isinstance(message, grpc.aio.AioRpcError):
                    raise message
                yield message
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)

    # -- the handlers: each returns True when the run is over -----------------------

    async def _welcome(self, welcome: arena_pb2.Welcome) -> bool:
        """Join only now: a refused token is told before any write fails."""
        self.welcomed = True
        if self.unwelcomed is not None:
            self.unwelcomed.reschedule(None)
        self.tell(
            Connected(
                server=self.settings.server,
                bot=welcome.bot_name,
                connection_id=welcome.connection_id,
                server_version=welcome.server_version,
                protocol=welcome.protocol,
            )
        )
        await self._join()
        return False

    async def _join(self) -> None:
        """Ask for the matches still to play."""
        settings = self.settings
        left = 0 if settings.matches is None else settings.matches - self.summary.matches
        join = arena_pb2.Join(
            variants=list(settings.variants),
            rated=settings.rated,
            matches=left,
            fill_after_ms=fill_after_ms(settings.fill_after),
            fill_bot=settings.fill_bot,
        )
        await self._send(join=join)

    async def _joined(self, joined: arena_pb2.Joined) -> bool:
        if self.seat is not None:  # a Join sent while a seat was taken back: not waiting
            return False
        settings = self.settings
        self.tell(
            Waiting(
                variants=tuple(joined.variants),
                rated=joined.rated,
                matches=joined.matches,
                fill_after=settings.fill_after,
                fill_bot=settings.fill_bot or DEFAULT_FILL_BOT,
            )
        )
        return False

    async def _seat_assigned(self, assigned: arena_pb2.SeatAssigned) -> bool:
        self.seat = assigned
        info = assigned.match
        self.tell(
            Seated(
                match_id=info.match_id,
                variant=info.variant,
                rated=info.rated,
                player=self.player,
                players=tuple(info.players),
                partner=assigned.partner,
                opponents=tuple(assigned.opponents),
            )
        )
        await self._leave_after_this_match()
        return False

    async def _resume(self, resume: arena_pb2.Resume) -> bool:
        """A seat taken back: the whole state, then on as usual."""
        self.seat = resume.seat
        self.deal = resume.deal.deal
        self.events = [event_from_proto(e) for e in resume.observation.events]
        self.seq = resume.observation.seq
        self.open = None
        info = resume.seat.match
        self.tell(Resumed(info.match_id, info.variant, self.player, self.deal))
        await self._leave_after_this_match()
        return False

    async def _leave_after_this_match(self) -> None:
        if self.settings.last_match(self.summary):
            await self._send(leave=arena_pb2.Leave(now=False))  # no match after this one

    async def _deal_started(self, started: arena_pb2.DealStarted) -> bool:
        self.deal = started.deal
        self.events = []
        return False

    async def _events(self, batch: arena_pb2.EventBatch) -> bool:
        self._keep(batch.events)
        return False

    async def _decision(self, request: arena_pb2.DecisionRequest) -> bool:
        received = time.perf_counter()
        if request.accepted:
            self._accepted(request.accepted, received)
        self._keep(request.observation.events)  # carried in the request
        events = self.events  # a new list each deal: this one only grows from now on
        self.open = _Decision(
            request.request_id,
            observation_from_proto(request.observation, SoFar(events, len(events)), kept=True),
            time.monotonic() + (request.decision_ms + request.time_bank_ms) / 1000,
            received=received,
            match_id=request.match_id,
            deal=request.deal,
        )
        await self._answer(self.open)
        return False

    def _keep(self, events: Iterable[arena_pb2.Event]) -> None:
        """Keep the current deal's events not seen yet (a resumed stream repeats none)."""
        for wire in events:
            if wire.seq > self.seq:
                self.seq = wire.seq
                if wire.deal == self.deal:
                    self.events.append(event_from_proto(wire))

    def _accepted(self, request_id: str, at: float) -> None:
        """The open decision's answer was applied (protocol 2: no ActionResult says so)."""
        decision = self.open
        if decision is None or decision.request_id != request_id:
            return
        self.open = None
        if self.settings.on_decision is not None:
            self.settings.on_decision(at - decision.received)

    async def _answer(self, decision: _Decision) -> None:
        """Ask the bot and reply; an answer that is no action at all is refused here."""
        bot = self.bot
        act = self._inline_act
        while time.monotonic() < decision.deadline and decision.attempts < MAX_ATTEMPTS:
            decision.attempts += 1
            seen = decision.observation
            token = ASKED.set(Asked(decision.match_id, decision.deal, decision.deadline))
            try:
                action: Action | str = act(seen) if act is not None else await decide(bot, seen)
            except Exception as err:  # the bot's own failure: told, the run goes on
                trace = "".join(traceback.format_exception(err))
                self.tell(BotFailed(decision.request_id, _described(err), trace))
                return
            finally:
                ASKED.reset(token)
            decision.last = action
            try:
                reply = reply_message(decision.request_id, action, seen.legal_actions)
            except IllegalActionError as err:
                left = MAX_ATTEMPTS - decision.attempts
                self.tell(Refused(decision.request_id, str(action), "MALFORMED", str(err), left))
                notify_illegal(bot, action, str(err))
                continue
            await self._send(reply)
            return

    async def _action_result(self, result: arena_pb2.ActionResult) -> bool:
        decision = self.open
        if decision is None or result.request_id != decision.request_id:
            return False  # stale: about an earlier request
        if result.status in _RETRY:
            await self._refused(decision, result)
            return False
        self.open = None  # accepted, timed out or out of attempts: closed
        if result.status in _LOST:
            self.tell(DecisionLost(result.request_id, _status(result.status), result.action.text))
        elif result.status == arena_pb2.ACTION_STATUS_ACCEPTED and self.settings.on_decision:
            self.settings.on_decision(time.perf_counter() - decision.received)
        return False

    async def _refused(self, decision: _Decision, result: arena_pb2.ActionResult) -> None:
        """Tell the refusal, then ask the bot again while time and attempts remain."""
        status = _status(result.status)
        self.tell(
            Refused(
                result.request_id, str(decision.last), status, result.reason, result.attempts_left
            )
        )
        notify_illegal(self.bot, decision.last, result.reason)
        left = (result.decision_ms + result.time_bank_ms) / 1000
        decision.deadline = min(decision.deadline, time.monotonic() + left)
        if result.attempts_left > 0 and left > 0:
            await self._answer(decision)

    async def _deal_result(self, result: arena_pb2.DealResult) -> bool:
        if self.open is not None:  # the deal's last answer was applied
            self._accepted(self.open.request_id, time.perf_counter())
        self.tell(
            DealOver(
                match_id=result.match_id,
                deal=result.deal,
                summary=result.summary,
                scores=tuple(result.scores),
                totals=tuple(result.totals),
                player=self.player,
            )
        )
        if result.deal == self.deal:  # its last events came just before it
            notify_deal_over(self.bot, self.events, facts_from_struct(result.details))
        return False

    async def _match_result(self, result: arena_pb2.MatchResult) -> bool:
        seat = self.seat
        info = seat.match if seat is not None else arena_pb2.MatchInfo()
        played = PlayedMatch(
            match_id=result.match_id,
            variant=info.variant,
            player=self.player,
            players=list(info.players),
            result=result,
        )
        self.summary.results.append(played)
        self.tell(
            MatchOver(
                match_id=result.match_id,
                variant=info.variant,
                reason=end_reason(result.reason),
                outcome=match_outcome(result, self.player, bool(seat and seat.partner)),
                winner_team=result.winner_team if result.HasField("winner_team") else None,
                summary=result.summary,
                deals=result.deals,
                totals=tuple(result.totals),
                player=self.player,
                rated=result.rated,
            )
        )
        self.seq = 0  # seqs start again with the next match
        self.seat, self.open = None, None
        if self.settings.on_match is not None:
            self.settings.on_match(played)
        return self.settings.done(self.summary)

    async def _error(self, error: arena_pb2.Error) -> bool:
        """An Error about a request is told and the stream goes on. One about the stream
        itself: a refused Join ends the run (:class:`ClientError`); UNAVAILABLE (no new
        matches: the server is shutting down) ends the connection, to connect again
        later; a match that could not start (INTERNAL) is told, then the bot joins again;
        any other is told."""
        code = error.code
        if not error.request_id and code in _FATAL:
            raise ClientError(code, error.message)
        self.tell(ServerError(code, error.message, error.request_id))
        if error.request_id:
            return False
        if code == grpc.StatusCode.UNAVAILABLE.name:
            raise _Closed(grpc.StatusCode.UNAVAILABLE, error.message)
        if code == grpc.StatusCode.INTERNAL.name and self.seat is None:
            await self._join()
        return False

    async def _draining(self, draining: arena_pb2.Draining) -> bool:
        deadline = ""
        if draining.HasField("deadline"):
            when = draining.deadline.ToDatetime(tzinfo=UTC)
            deadline = when.isoformat(timespec="seconds").replace("+00:00", "Z")
        self.draining = True
        self.tell(Draining(draining.reason, deadline))
        return False
