"""The Guandan competition platform's WebSocket endpoint in front of an arena server.

A platform bot connects to ``ws://HOST:PORT/game/<name>`` as it does to the platform
(its published clients use ``/game/client0`` … ``/game/client3``). The gateway takes
the connection's token from the address (``?token=TOKEN``, a token ``arena bot register``
printed) or, for a bot that cannot change more than the host and port of its URL, from
the tokens the gateway was given per name (``client0 TOKEN`` …); ``?rated=0`` asks for
casual matches. An unknown path, an address without a token, a bad ``rated`` or a name
already connected is refused in the handshake (HTTP 404, 401, 400, 409) with a line
saying why (never quoting the token).

Each connection then *is* a bot of the arena's own SDK: :func:`run_bot_async` plays a
:class:`SeatBot` over gRPC on the arena's server, so the seat is seated, clocked,
automatically played, resumed and rated exactly as any gRPC bot's; the gateway decides
nothing about what a seat may see. The seat's ``act`` sends the platform's messages
built from its observation (:mod:`arena.gateways.guandan_ws.messages`: the notices of
the plays since its last decision, then the ``act`` message with its ``actionList``) and
awaits ``{"actIndex": i}``; the index names exactly one of the seat's legal actions. An
answer that names none (an index out of range, anything that is not that JSON) goes to
the server as it is, as a text no action has: the server refuses and counts it as it
does any bot's malformed answer, and the seat is asked again (the same ``act`` message
sent again). A bot silent past the decision's time and bank is played for by the server
(its answer, when it comes, answers nothing: the platform's messages carry no request
ids, so answers that arrived before a new ``act`` message are dropped). A closed
socket leaves the seat as a broken gRPC stream does: it waits for its bot for the
server's grace period, and a connection to the same address takes it back.

Each deal's end (``episodeOver``) and each match's (``gameOver``, and ``gameResult``
after a series' last game) are sent as the platform sends them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Final
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from arena.client.bot import asked
from arena.client.report import LogReporter, Reporter
from arena.client.runner import ClientError, PlayedMatch, run_bot_async
from arena.errors import ParseError, quoted
from arena.games.base import Action, Event, Observation
from arena.gateways.guandan_ws.actions import parse_answer
from arena.gateways.guandan_ws.messages import PlatformSeat, game_over
from arena.inputs import one_line
from arena.log import get_logger
from arena.ports import listen_error

__all__ = [
    "DEFAULT_WS_PORT",
    "GatewayConfig",
    "GuandanWsGateway",
    "SeatAnswer",
    "SeatBot",
    "parse_tokens",
    "serving",
    "url",
]

log = get_logger(__name__)

DEFAULT_WS_PORT: Final = 23456
"""The port the platform's local server and its clients use."""
PATH_PREFIX: Final = "/game/"
NAME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
MAX_NAME: Final = 64
MAX_ANSWER: Final = 4096
"""Bytes of an answer read at most (an ``{"actIndex": i}`` is a few dozen)."""
QUOTED_ANSWER: Final = 80
"""Characters of a bad answer quoted to the server."""
GIVE_UP_AFTER: Final = 30.0
"""Seconds a connection's SDK bot tries to reach the arena's server before the
connection is closed saying so."""
ANSWER_SLACK: Final = 0.5
"""Seconds an ``act`` message waits past the decision's deadline (the server's clock
decides; this only stops waiting for an answer that can no longer count)."""
LET_GO_SECONDS: Final = 5.0
"""Seconds a connection to a name waits for the name's closing connection to let go."""
CLOSE_NORMAL: Final = 1000
CLOSE_POLICY: Final = 1008
CLOSE_UNAVAILABLE: Final = 1013


@dataclass(frozen=True)
class GatewayConfig:
    """Where the arena is and how a connection plays on it.

    An ``act`` message waits for its answer until the decision's deadline
    (:func:`arena.client.bot.asked`); ``answer_seconds`` is the bound where none is
    known (the server's decision time plus its time bank). ``matches`` says how many
    matches a connection to a name still has to play (None: as many as come);
    ``series`` and ``games_played`` count a series' games for ``gameOver``."""

    server: str
    answer_seconds: float
    tokens: Mapping[str, str] = field(default_factory=dict)
    rated: bool = True
    variant: str = "guandan"
    matches: Callable[[str], int | None] = lambda name: None
    series: Callable[[], int] = lambda: 0
    """``settingTimes``: the games of the series (0: no series)."""
    games_played: Callable[[], int] = lambda: 0
    """The series' games over: ``curTimes`` is this or the games the connection played,
    whichever is more."""
    farewell: Callable[[], Mapping[str, Any] | None] | None = None
    """The message a connection gets once its matches are over (a series' ``gameResult``)."""
    give_up_after: float = GIVE_UP_AFTER
    reporter: Callable[[str], Reporter] | None = None
    """The reporter of the SDK bot of a connection to a name (:mod:`arena.client.report`);
    by default its facts are logged (``arena.gateways.guandan_ws.server``, with the
    name as ``address``)."""
    on_decision: Callable[[float], None] | None = None
    """Hears each accepted decision's round trip (seconds), as ``run_bot_async`` does:
    from the server's request read by the gateway to its acceptance, the platform bot's
    answer in between."""


def parse_tokens(text: str, source: str) -> dict[str, str]:
    """``NAME TOKEN`` lines (``#`` comments, blank lines) → {name: token}; ValueError
    naming the line otherwise."""
    tokens: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2 or not _good_name(parts[0]):
            raise ValueError(
                f"{source}, line {number}: expected 'NAME TOKEN' (a name of letters, digits, "
                f"_ . -), got {quoted(one_line(line)[:40])}"
            )
        if parts[0] in tokens:
            raise ValueError(f"{source}, line {number}: name {quoted(parts[0])} given twice")
        tokens[parts[0]] = parts[1]
    return tokens


def _good_name(name: str) -> bool:
    return 0 < len(name) <= MAX_NAME and set(name) <= NAME_CHARS


@dataclass(frozen=True)
class _Address:
    """What a connection's URL asked for."""

    name: str
    token: str
    rated: bool


@dataclass
class _Held:
    """A name's connection, and whether its seat is let go (its handler over)."""

    connection: ServerConnection
    done: asyncio.Event = field(default_factory=asyncio.Event)


class SeatAnswer(Exception):
    """The seat's bot gave no answer: its socket closed, or it stayed silent."""


class SeatBot:
    """One platform connection as an SDK bot: its messages go out through ``send``, the
    bot's answers come in through :meth:`heard`. The messages themselves are made by
    :class:`~arena.gateways.guandan_ws.messages.PlatformSeat` from the seat's
    observations and each deal's end."""

    def __init__(
        self,
        name: str,
        send: Callable[[str], None],
        answer_seconds: float,
        series: int = 0,
    ) -> None:
        self.name = name
        self._send = send
        self._answer_seconds = answer_seconds
        self._series = series
        self._answers: asyncio.Queue[str | None] = asyncio.Queue()
        self._talk: PlatformSeat | None = None

    # -- from the socket -------------------------------------------------------

    def heard(self, text: str | None) -> None:
        """A message from the bot (None: its socket closed)."""
        self._answers.put_nowait(text)

    # -- the SDK's calls -------------------------------------------------------

    async def act(self, observation: Observation) -> Action | str:
        talk = self._talk
        if talk is None or talk.seat != observation.seat:
            talk = self._talk = PlatformSeat(observation.seat)
        messages = talk.update(observation)
        if not any(m.get("type") == "act" for m in messages):  # asked again: refused
            pending = talk.pending_act
            if pending is not None:
                messages.append(pending)
        while not self._answers.empty():  # answers to earlier messages answer nothing now
            if self._answers.get_nowait() is None:
                raise SeatAnswer("the socket closed")
        for message in messages:
            self.post(message)
        text = await self._answer()
        try:
            return talk.action_for(parse_answer(text))
        except ParseError as err:  # refused and counted by the server, as any bot's
            return f"not an answer: {one_line(str(err))[:QUOTED_ANSWER]}"

    async def _answer(self) -> str:
        """The bot's next message, within the decision's time and the seat's bank."""
        decision = asked()
        seconds = self._answer_seconds
        if decision is not None:
            seconds = max(0.0, decision.deadline - time.monotonic()) + ANSWER_SLACK
        try:
            async with asyncio.timeout(seconds):
                text = await self._answers.get()
        except TimeoutError:
            raise SeatAnswer(
                f"no answer within {seconds:.1f} s: the server plays for the seat"
            ) from None
        if text is None:
            raise SeatAnswer("the socket closed")
        return text

    def on_illegal(self, action: Action | str, reason: str) -> None:
        log.info("guandan_ws_answer_refused", name=self.name, answer=str(action), reason=reason)

    def on_deal_over(self, events: Sequence[Event], details: Mapping[str, Any]) -> None:
        talk = self._talk
        if talk is None:  # taken back after its last decision of the deal: untold
            return
        with contextlib.suppress(ValueError):  # no observation of this deal: untold
            for message in talk.end_deal(events, details):
                self.post(message)

    def match_over(self, games: int) -> None:
        """``gameOver`` (``curTimes``: the games this connection played, or the series')."""
        self.post(game_over(games, self._series))

    def post(self, message: Mapping[str, Any]) -> None:
        """Send one of the platform's messages."""
        self._send(json.dumps(message, separators=(",", ":")))


class GuandanWsGateway:
    """The WebSocket endpoint: start it on a loop, then :meth:`close` it."""

    def __init__(self, config: GatewayConfig) -> None:
        self.config = config
        self._server: Server | None = None
        self._connected: dict[str, _Held] = {}
        """Each name's connection, until its SDK bot has let the seat go."""
        self.port = 0
        self.seats: dict[str, SeatBot] = {}
        """The seat of each name now connected."""

    async def start(self, host: str = "127.0.0.1", port: int = DEFAULT_WS_PORT) -> int:
        """Listen on ``host:port`` (0: any free port); the port bound."""
        self._server = await serve(
            self._play,
            host,
            port,
            process_request=self._check,
            max_size=MAX_ANSWER,
            compression=None,
            logger=_Quiet(logging.getLogger("websockets.server")),
        )
        self.port = next(iter(self._server.sockets)).getsockname()[1]
        log.info("guandan_ws_listening", host=host, port=self.port)
        return self.port

    async def close(self) -> None:
        """Stop listening and close every connection (each seat waits as a lost stream)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    # -- the handshake -----------------------------------------------------------------

    def _address(self, request: Request) -> _Address | tuple[HTTPStatus, str]:
        """The name, token and rating a URL asks for, or why it is refused."""
        url = urlsplit(request.path)
        name = url.path[len(PATH_PREFIX) :] if url.path.startswith(PATH_PREFIX) else ""
        if not _good_name(name):
            return (
                HTTPStatus.NOT_FOUND,
                f"no seat at {quoted(url.path[:80])}: connect to /game/<name> (a name of "
                "letters, digits, _ . -)",
            )
        query = parse_qs(url.query)
        token = (query.get("token") or [""])[-1] or self.config.tokens.get(name, "")
        if not token:
            return (
                HTTPStatus.UNAUTHORIZED,
                f"no token for /game/{name}: add ?token=TOKEN (from arena bot register) or "
                "give the gateway a token for this name",
            )
        rated_text = (query.get("rated") or ["1"])[-1].lower()
        if rated_text not in ("0", "1", "true", "false"):
            return HTTPStatus.BAD_REQUEST, f"rated={quoted(rated_text[:20])}: expected 0 or 1"
        held = self._connected.get(name)
        if held is not None and held.connection.state is State.OPEN:
            return HTTPStatus.CONFLICT, f"/game/{name} is connected already: one bot a seat"
        return _Address(name, token, self.config.rated and rated_text in ("1", "true"))

    def _check(self, connection: ServerConnection, request: Request) -> Response | None:
        address = self._address(request)
        if isinstance(address, _Address):
            return None
        status, reason = address
        path = urlsplit(request.path).path[:80]  # the query may hold a token: never logged
        log.info("guandan_ws_refused", path=path, status=status.value, reason=reason)
        return connection.respond(status, reason + "\n")

    # -- a connection ------------------------------------------------------------------

    async def _play(self, connection: ServerConnection) -> None:
        assert connection.request is not None
        address = self._address(connection.request)
        if not isinstance(address, _Address):  # taken since its handshake was checked
            await connection.close(CLOSE_POLICY, _reason(address[1]))
            return
        before = self._connected.get(address.name)
        held = self._connected[address.name] = _Held(connection)
        try:
            if before is not None:  # a bot back at once: its last connection lets go first
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(LET_GO_SECONDS):
                        await before.done.wait()
            await self._seat(connection, address)
        finally:
            held.done.set()
            if self._connected.get(address.name) is held:
                del self._connected[address.name]
                self.seats.pop(address.name, None)

    async def _seat(self, connection: ServerConnection, address: _Address) -> None:
        config = self.config
        outbox: asyncio.Queue[str] = asyncio.Queue()
        seat = SeatBot(address.name, outbox.put_nowait, config.answer_seconds, config.series())
        self.seats[address.name] = seat
        played = 0

        def on_match(match: PlayedMatch) -> None:
            nonlocal played
            played += 1
            seat.match_over(max(config.games_played(), played))

        log.info("guandan_ws_connected", name=address.name, rated=address.rated)
        bot = asyncio.create_task(
            run_bot_async(
                seat,
                config.server,
                address.token,
                [config.variant],
                address.rated,
                config.matches(address.name),
                on_match=on_match,
                give_up_after=config.give_up_after,
                reporter=(
                    config.reporter(address.name)
                    if config.reporter is not None
                    else LogReporter(log.bind(address=address.name))
                ),
                on_decision=config.on_decision,
            )
        )
        reader = asyncio.create_task(_read(connection, seat))
        writer = asyncio.create_task(_write(connection, outbox))
        try:
            await asyncio.wait({bot, reader, writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (bot, reader):
                task.cancel()
            await asyncio.gather(bot, reader, return_exceptions=True)
        why = _ending(bot)
        if why is not None and why[0] == CLOSE_NORMAL and config.farewell is not None:
            farewell = config.farewell()
            if farewell is not None:
                seat.post(farewell)
        await _flush(outbox, writer)
        if why is None:
            log.info("guandan_ws_disconnected", name=address.name, games=played)
            return
        code, reason = why
        log.info("guandan_ws_closed", name=address.name, reason=reason)
        await connection.close(code, _reason(reason))


@contextlib.asynccontextmanager
async def serving(
    config: GatewayConfig, host: str, port: int = DEFAULT_WS_PORT
) -> AsyncIterator[GuandanWsGateway]:
    """The gateway listening on ``host:port`` for the life of the block (an address
    taken is an ``OSError`` naming it)."""
    gateway = GuandanWsGateway(config)
    try:
        await gateway.start(host, port)
    except OSError as err:
        raise listen_error("Guandan WebSocket", host, port, err) from None
    try:
        yield gateway
    finally:
        await gateway.close()


def url(host: str, port: int) -> str:
    """The gateway's seat addresses as people read them."""
    shown = f"[{host}]" if ":" in host else host
    return f"ws://{shown}:{port}/game/<name>"


class _Quiet(logging.LoggerAdapter):  # type: ignore[type-arg]
    """The websockets library's log without its line per connection opened or closed
    (the gateway logs each connection's story itself)."""

    def isEnabledFor(self, level: int) -> bool:
        return level >= logging.WARNING and self.logger.isEnabledFor(level)


async def _read(connection: ServerConnection, seat: SeatBot) -> None:
    """Every message of the bot to its seat, then None when the socket closes."""
    try:
        async for message in connection:
            seat.heard(message if isinstance(message, str) else message.decode("utf-8", "replace"))
    except ConnectionClosed:
        pass
    finally:
        seat.heard(None)


async def _write(connection: ServerConnection, outbox: asyncio.Queue[str]) -> None:
    """Send each message in order until the socket closes."""
    with contextlib.suppress(ConnectionClosed):
        while True:
            await connection.send(await outbox.get())


async def _flush(outbox: asyncio.Queue[str], writer: asyncio.Task[None]) -> None:
    """Let the writer send what is queued (the last match's end), then stop it."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(2.0):
            while not outbox.empty() and not writer.done():
                await asyncio.sleep(0.01)
    writer.cancel()
    await asyncio.gather(writer, return_exceptions=True)


def _ending(bot: asyncio.Task[Any]) -> tuple[int, str] | None:
    """Why the gateway closes the socket: the SDK bot's end (None: the bot closed it, or
    its matches are over)."""
    if not bot.done() or bot.cancelled():
        return None
    error = bot.exception()
    if error is None:
        return CLOSE_NORMAL, "the matches asked for are over"
    if isinstance(error, ClientError):
        return (CLOSE_UNAVAILABLE if error.code == "UNAVAILABLE" else CLOSE_POLICY), str(error)
    log.error("guandan_ws_failed", error=f"{type(error).__name__}: {error}", exc_info=error)
    return 1011, f"the gateway failed: {type(error).__name__}"


def _reason(text: str) -> str:
    """A close reason: one line, at most 123 bytes (the protocol's bound)."""
    line = one_line(text)
    while len(line.encode()) > 123:
        line = line[:-2] + "…"
    return line
