"""Server-sent events: a Starlette streaming response of named events, with a comment
line on an idle stream every :data:`PING_SECONDS` so that proxies keep it open and a
client that went away is noticed (its next write fails).

The events come from an async iterator read by a task of the response's own, through a
small queue, so waiting for the next ping never interrupts the iterator; the task ends
with the response (the iterator is closed: a live match's watcher is removed). An error
of the iterator ends the stream and is raised to the server, which logs it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Final

from starlette.responses import StreamingResponse

__all__ = ["PING_SECONDS", "Event", "EventStream", "event_text"]

PING_SECONDS: Final = 10.0
QUEUE_SIZE: Final = 64
"""Events read ahead of the client at most."""

Event = tuple[str, str]
"""An event's name and its data (one line of JSON)."""


def event_text(name: str, data: str) -> str:
    """One event in the stream's text form."""
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"event: {name}\n{lines}\n"


async def _pump(events: AsyncIterator[Event], queue: asyncio.Queue[Event | None]) -> None:
    try:
        async for event in events:
            await queue.put(event)
    finally:
        await queue.put(None)
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()


async def _texts(events: AsyncIterator[Event], ping: float) -> AsyncIterator[str]:
    queue: asyncio.Queue[Event | None] = asyncio.Queue(QUEUE_SIZE)
    reader = asyncio.create_task(_pump(events, queue))
    try:
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), ping)
            except TimeoutError:
                yield ": ping\n\n"
                continue
            if event is None:
                break
            yield event_text(*event)
        await reader  # its error, if it had one
    finally:
        if not reader.done():
            reader.cancel()
            await asyncio.wait([reader])


class EventStream(StreamingResponse):
    """A ``text/event-stream`` response of ``events``, never cached."""

    def __init__(self, events: AsyncIterator[Event], ping: float = PING_SECONDS) -> None:
        super().__init__(
            _texts(events, ping),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )
