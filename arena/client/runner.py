"""Play a bot on an arena server: one Play.Connect stream, matches one after another.

:func:`run_bot` says Hello and Join, answers every DecisionRequest with the bot's
``act`` (the observation rebuilt as the engine's, events kept from the EventBatch
messages of the current deal), and on an ILLEGAL or MALFORMED ActionResult calls the
bot's optional ``on_illegal(action, reason)`` and asks ``act`` again while the decision
has time and attempts left (the decision's own time, then the seat's time bank). After
``matches`` MatchResults it leaves; when the connection breaks or the server is
UNAVAILABLE it connects again after a pause that doubles each time (simple backoff), and
a seat still waiting for it (within its grace period) comes back with a ``Resume``.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

import grpc

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.client.bot import decide, is_async, notify_illegal
from arena.client.wire import event_from_proto, observation_from_proto, reply_action
from arena.errors import ArenaError, IllegalActionError
from arena.games.base import Action, Event, Observation
from arena.protocol import MAX_ATTEMPTS

__all__ = ["ClientError", "PlayedMatch", "RunSummary", "run_bot", "run_bot_async"]

PROTOCOL: Final = 1
CLIENT: Final = "arena-python"
DEFAULT_SERVER: Final = "127.0.0.1:50051"
_RETRY: Final = (
    arena_pb2.ACTION_STATUS_ILLEGAL,
    arena_pb2.ACTION_STATUS_MALFORMED,
)


class ClientError(ArenaError):
    """The server refused the bot (a gRPC status other than UNAVAILABLE, or an Error)."""

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


Send = Callable[..., Awaitable[None]]


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


@dataclass
class _Stream:
    """What one connection keeps: the match it is in and the current deal's events."""

    match: arena_pb2.MatchInfo | None = None
    player: int | None = None
    deal: int = 0
    seq: int = 0
    """The last public event received (a resumed stream repeats none)."""
    events: list[Event] = field(default_factory=list)
    open: _Decision | None = None
    welcomed: bool = False
    on_decision: Callable[[float], None] | None = None
    inline: bool = False
    fill_after_ms: int = 0
    fill_bot: str = ""


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
    on_decision: Callable[[float], None] | None = None,
    inline: bool = False,
    root_certificates: bytes | None = None,
    fill_after: float | None = None,
    fill_bot: str = "",
) -> RunSummary:
    """:func:`run_bot` in a running event loop (several bots can share one).

    ``on_match`` is called after each match; ``tls`` uses a TLS channel with the system's
    roots, or ``root_certificates`` (PEM) when given; ``backoff`` is the first and the
    longest pause before connecting again after UNAVAILABLE; ``max_retries`` bounds the
    reconnections in a row (``None``: no bound), after which the last UNAVAILABLE is
    raised as :class:`ClientError`.
    ``on_decision`` is called with each accepted decision's round trip in seconds: from
    reading the DecisionRequest to reading the ActionResult that accepts the answer.
    ``fill_after`` (seconds) asks for built-in bots (``fill_bot``, default ``random``) in
    the seats still empty after that wait.
    ``inline`` calls a plain (not ``async``) ``act`` on the event loop rather than in a
    worker thread: quicker for a bot that answers in well under a millisecond, but while
    it thinks every other stream of the loop waits.
    """
    if matches is not None and matches < 1:
        raise ValueError(f"matches must be at least 1 or None, got {matches}")
    summary = RunSummary()
    first, longest = backoff
    delay = first
    failures = 0
    while matches is None or summary.matches < matches:
        stream = _Stream(
            on_decision=on_decision,
            inline=inline,
            fill_after_ms=0 if fill_after is None else round(fill_after * 1000),
            fill_bot=fill_bot,
        )
        try:
            credentials = (
                grpc.ssl_channel_credentials(root_certificates)
                if tls or root_certificates
                else None
            )
            await _connect(
                bot, server, token, variants, rated, matches, summary, stream, on_match, credentials
            )
            if matches is not None and summary.matches >= matches:
                break
            reason = "the server ended the stream"
        except _Closed as err:
            if err.code != grpc.StatusCode.UNAVAILABLE:
                raise ClientError(err.code.name, err.details) from None
            reason = err.details or "unavailable"
        if stream.welcomed:
            delay, failures = first, 0
        failures += 1
        if max_retries is not None and failures > max_retries:
            raise ClientError("UNAVAILABLE", f"{server}: {reason}")
        summary.reconnects += 1
        await asyncio.sleep(delay)
        delay = min(delay * 2, longest)
    return summary


async def _connect(
    bot: object,
    server: str,
    token: str,
    variants: Sequence[str],
    rated: bool,
    matches: int | None,
    summary: RunSummary,
    stream: _Stream,
    on_match: Callable[[PlayedMatch], None] | None,
    credentials: grpc.ChannelCredentials | None,
) -> None:
    channel = (
        grpc.aio.secure_channel(server, credentials)
        if credentials is not None
        else grpc.aio.insecure_channel(server)
    )
    async with channel:
        call = arena_pb2_grpc.PlayStub(channel).Connect(
            metadata=(("authorization", f"Bearer {token}"),)
        )

        async def send(**body: object) -> None:
            # a failed write means the stream is over: the next read says why
            with contextlib.suppress(grpc.aio.AioRpcError):
                await call.write(arena_pb2.ClientMessage(**body))  # type: ignore[arg-type]

        try:
            done = await _play(call, send, bot, variants, rated, matches, summary, stream, on_match)
        except grpc.aio.AioRpcError as err:
            # a write may fail before the server's status is in: ask the call for it
            code = await call.code()
            details: str | None = await call.details()
            if code is None or code == grpc.StatusCode.OK:
                code, details = err.code(), err.details()
            raise _Closed(code, details or "") from None
        if done:
            return
        code = await call.code()  # the server ended the stream: why?
        if code not in (None, grpc.StatusCode.OK):
            raise _Closed(code, await call.details() or "")


async def _play(
    call: grpc.aio.StreamStreamCall[arena_pb2.ClientMessage, arena_pb2.ServerMessage],
    send: Send,
    bot: object,
    variants: Sequence[str],
    rated: bool,
    matches: int | None,
    summary: RunSummary,
    stream: _Stream,
    on_match: Callable[[PlayedMatch], None] | None,
) -> bool:
    """Hello, Join, then the messages until EOF (False) or the last match is over (True)."""
    left = 0 if matches is None else matches - summary.matches
    await send(hello=arena_pb2.Hello(protocol=PROTOCOL, client=CLIENT, events_in_requests=True))
    while True:
        message = await call.read()
        if message is grpc.aio.EOF:
            return False
        assert isinstance(message, arena_pb2.ServerMessage)
        body = message.WhichOneof("body")
        if body == "welcome":  # Join only now: a refused token is told before any write fails
            stream.welcomed = True
            join = arena_pb2.Join(
                variants=list(variants),
                rated=rated,
                matches=left,
                fill_after_ms=stream.fill_after_ms,
                fill_bot=stream.fill_bot,
            )
            await send(join=join)
        elif body == "seat_assigned":
            stream.match = message.seat_assigned.match
            assigned = message.seat_assigned
            stream.player = assigned.player if assigned.HasField("player") else None
            if matches is not None and summary.matches + 1 >= matches:
                await send(leave=arena_pb2.Leave(now=False))  # no match after this one
        elif body == "resume":  # a seat taken back: the whole state, then on as usual
            resume = message.resume
            stream.match = resume.seat.match
            stream.player = resume.seat.player if resume.seat.HasField("player") else None
            stream.deal = resume.deal.deal
            stream.events = [event_from_proto(e) for e in resume.observation.events]
            stream.seq = resume.observation.seq
            stream.open = None
            if matches is not None and summary.matches + 1 >= matches:
                await send(leave=arena_pb2.Leave(now=False))
        elif body == "deal_started":
            stream.deal = message.deal_started.deal
            stream.events = []
        elif body == "events":
            _keep_events(stream, message.events.events)
        elif body == "decision":
            received = time.perf_counter()
            request = message.decision
            stream.open = _Decision(
                request.request_id,
                observation_from_proto(request.observation, stream.events),
                time.monotonic() + (request.decision_ms + request.time_bank_ms) / 1000,
                received=received,
            )
            _keep_events(stream, request.observation.events)  # carried in the request
            await _answer(bot, stream.open, send, stream.inline)
        elif body == "action_result":
            await _result(bot, stream, message.action_result, send)
        elif body == "match_result":
            stream.seq = 0  # seqs start again with the next match
            played = _played(stream, message.match_result)
            summary.results.append(played)
            stream.match, stream.open = None, None
            if on_match is not None:
                on_match(played)
            if matches is not None and summary.matches >= matches:
                await call.done_writing()
                return True
        elif body == "error" and not message.error.request_id:
            raise ClientError(message.error.code, message.error.message)


def _keep_events(stream: _Stream, events: Iterable[arena_pb2.Event]) -> None:
    """Keep the current deal's events not seen yet (a resumed stream repeats none)."""
    for wire in events:
        if wire.seq > stream.seq:
            stream.seq = wire.seq
            if wire.deal == stream.deal:
                stream.events.append(event_from_proto(wire))


async def _answer(bot: object, decision: _Decision, send: Send, inline: bool) -> None:
    """Ask the bot and reply; an answer that is no action at all is refused here."""
    act = getattr(bot, "act") if inline and not is_async(bot) else None  # noqa: B009
    while time.monotonic() < decision.deadline and decision.attempts < MAX_ATTEMPTS:
        decision.attempts += 1
        seen = decision.observation
        action: Action | str = act(seen) if act is not None else await decide(bot, seen)
        decision.last = action
        try:
            wire = reply_action(action)
        except IllegalActionError as err:
            notify_illegal(bot, action, str(err))
            continue
        reply = arena_pb2.ActionReply(request_id=decision.request_id, action=wire)
        await send(action=reply)
        return


async def _result(bot: object, stream: _Stream, result: arena_pb2.ActionResult, send: Send) -> None:
    decision = stream.open
    if decision is None or result.request_id != decision.request_id:
        return  # stale: about an earlier request
    if result.status not in _RETRY:
        stream.open = None  # accepted, timed out or out of attempts: closed
        if result.status == arena_pb2.ACTION_STATUS_ACCEPTED and stream.on_decision is not None:
            stream.on_decision(time.perf_counter() - decision.received)
        return
    notify_illegal(bot, decision.last, result.reason)
    left = (result.decision_ms + result.time_bank_ms) / 1000
    decision.deadline = min(decision.deadline, time.monotonic() + left)
    if result.attempts_left > 0 and left > 0:
        await _answer(bot, decision, send, stream.inline)


def _played(stream: _Stream, result: arena_pb2.MatchResult) -> PlayedMatch:
    info = stream.match
    return PlayedMatch(
        match_id=result.match_id,
        variant=info.variant if info is not None else "",
        player=stream.player,
        players=list(info.players) if info is not None else [],
        result=result,
    )
