"""One Play stream: its bot, a bounded outgoing queue, a message rate limit, its seat."""

from __future__ import annotations

import asyncio
import secrets
import threading
from typing import Protocol

import grpc

from arena._proto.arena.v1 import arena_pb2
from arena.server.limits import RateLimit
from arena.server.matchmaker import Waiting
from arena.server.remote import RemotePolicy, Wire

__all__ = ["Connection", "Seating"]


class Seating(Protocol):
    """The match a connection holds a seat in, as its stream sees it (a
    :class:`~arena.server.session.MatchSession`, which sits above connections)."""

    match_id: str
    seats: list[RemotePolicy | None]
    """Per player, the remote seat (None for a built-in bot)."""

    def lost(self, player: int, why: str) -> None:
        """The seat's connection broke."""
        ...


class Connection:
    """One Play stream. ``send`` may be called from any thread; a stream whose queue
    of unsent messages reaches ``queue_limit`` (a bot that stopped reading) is cut off
    rather than allowed to grow the server's memory."""

    def __init__(
        self,
        bot: str,
        owner: str | None,
        loop: asyncio.AbstractEventLoop,
        *,
        number: int,
        queue_limit: int,
        messages_per_second: float,
    ) -> None:
        self.bot = bot
        self.owner = owner
        self.id = f"c-{number}-{secrets.token_hex(3)}"
        """For logs and support: ``number`` counts the server's connections."""
        self.loop = loop
        self._loop_thread = threading.get_ident()
        """The event loop's thread: a connection is made there."""
        self.outbox: asyncio.Queue[arena_pb2.ServerMessage | None] = asyncio.Queue()
        self.queue_limit = queue_limit
        self.rate = RateLimit(messages_per_second, burst=max(messages_per_second * 2, 10.0))
        self.session: Seating | None = None
        self.player: int | None = None
        self.wish: Waiting | None = None
        """What the current Join asks for (None: no more matches)."""
        self.queued: Waiting | None = None
        """The matchmaker's entry of the connection's latest wait."""
        self.fill: tuple[float, str] | None = None
        """The Join's wait before built-in bots fill the seats, and that bot."""
        self.variants: list[str] = []
        """The variants this connection may join (Welcome.variants)."""
        self.matches_left: int | None = None
        """Matches still to seat for the current Join (None: no limit)."""
        self.wire = Wire()
        """What the Hello asked for: the protocol, events inside decision requests."""
        self.leaving = False
        """Leave{now: false}: end the stream once the current match is over."""
        self.closed = False
        self.overflowed = False
        self.task: asyncio.Task[object] | None = None
        self.token_id: str | None = None
        self.refusal: tuple[grpc.StatusCode, str] | None = None
        """Why the server ends the call, if not OK (set before :meth:`end`)."""

    def send(self, message: arena_pb2.ServerMessage | None) -> None:
        """Queue a message (``None`` ends the stream), from any thread; dropped once closed."""
        if self.closed:
            return
        if threading.get_ident() == self._loop_thread:
            self._put(message)  # on the event loop already: no wake-up needed
            return
        try:
            self.loop.call_soon_threadsafe(self._put, message)
        except RuntimeError:  # the loop is closed: the server is gone
            self.closed = True

    def _put(self, message: arena_pb2.ServerMessage | None) -> None:
        if self.closed:
            return
        if message is not None and self.outbox.qsize() >= self.queue_limit:
            self.overflowed = True
            self.closed = True
            if self.task is not None:
                self.task.cancel()  # ends the call; the seat waits for a reconnection
            return
        self.outbox.put_nowait(message)

    def end(self) -> None:
        """End the stream after the messages already queued (the call ends with OK)."""
        self.send(None)
