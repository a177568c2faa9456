"""The bare transport ``arena bench grpc`` measures the arena against: grpc.aio ping-pong.

A server (grpc.aio, on its own event loop) answers each stream the way the arena's Play
service answers a bot: it writes a message of the arena's request size, reads the
client's answer of the arena's reply size, and writes the next at once. The payloads are
bytes: nothing is parsed, no game is played. A round trip is timed on the server, as the
arena's: from writing a message to having its answer.

The clients run where the bench's bots run (:func:`ping_pong`: one event loop, any
number of streams), so the echo and the arena share one process layout.
"""

from __future__ import annotations

import asyncio
import struct
import threading
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

import grpc

__all__ = ["EchoPhase", "EchoServer", "ping_pong"]

METHOD: Final = "/arena.bench.v1.Echo/PingPong"
_HEADER: Final = struct.Struct("<II")
"""The client's first message: how many round trips, and the size of the server's messages."""

T = TypeVar("T")


@dataclass(frozen=True)
class EchoPhase:
    """What the clients do: ``streams`` streams at once, ``rounds`` round trips each,
    messages of ``request_bytes`` from the server and ``reply_bytes`` back."""

    address: str
    streams: int
    rounds: int
    request_bytes: int
    reply_bytes: int


@dataclass
class EchoTimes:
    """The server's round trips (seconds) and the span they cover."""

    round_trips: list[float] = field(default_factory=list)
    first: float = float("inf")
    last: float = float("-inf")

    @property
    def seconds(self) -> float:
        return max(self.last - self.first, 1e-9)


class EchoServer:
    """The ping-pong server on its own event loop in a background thread."""

    def __init__(self) -> None:
        self.times = EchoTimes()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self._server, port = self._run(self._start())
        self.address = f"127.0.0.1:{port}"

    def _run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(30)

    async def _start(self) -> tuple[grpc.aio.Server, int]:
        server = grpc.aio.server()
        handler: grpc.RpcMethodHandler[bytes, bytes] = grpc.stream_stream_rpc_method_handler(
            self._ping_pong
        )
        service, method = METHOD.strip("/").split("/")
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(service, {method: handler}),)
        )
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, port

    async def _ping_pong(self, _: object, context: grpc.aio.ServicerContext[bytes, bytes]) -> None:
        first: object = await context.read()
        if not isinstance(first, bytes) or len(first) != _HEADER.size:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "expected rounds and a size")
        rounds, size = _HEADER.unpack(first)
        payload = bytes(size)
        times = self.times
        for _ in range(rounds):
            sent = time.perf_counter()
            await context.write(payload)
            answer: object = await context.read()
            if answer is grpc.aio.EOF:
                return
            now = time.perf_counter()
            times.round_trips.append(now - sent)
            times.first = min(times.first, sent)
            times.last = max(times.last, now)

    def take(self) -> EchoTimes:
        """The round trips timed since the last call."""
        taken, self.times = self.times, EchoTimes()
        return taken

    def close(self) -> None:
        self._run(self._server.stop(0))
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


async def ping_pong(phase: EchoPhase) -> float:
    """The clients' side of a phase; the CPU seconds this process spent on it."""
    cpu = time.process_time()
    reply = bytes(phase.reply_bytes)
    header = _HEADER.pack(phase.rounds, phase.request_bytes)
    async with grpc.aio.insecure_channel(phase.address) as channel:
        method: grpc.aio.StreamStreamMultiCallable[bytes, bytes] = channel.stream_stream(METHOD)

        async def one() -> None:
            call = method()
            await call.write(header)
            while await call.read() is not grpc.aio.EOF:
                await call.write(reply)

        await asyncio.gather(*(one() for _ in range(phase.streams)))
    return time.process_time() - cpu
