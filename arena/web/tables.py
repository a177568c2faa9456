"""The match routes: the drawn table's page, its frames as JSON, and its live event stream.

A stored, finished match is drawn from its stored messages with every hand revealed
(its record, as the Leaderboard service gives anyone). A running match is drawn from
the public messages only (:meth:`~arena.web.viewer.Viewer.follow`, the Spectate
operations): its frames carry no hands, ever.

The stream (``/api/matches/{id}/live``) sends server-sent events: ``header`` (the match
object) first, then ``frame`` for each new step, then ``result``, after which it ends.
``after=SEQ`` (the highest event number the client holds) leaves out the frames of
earlier events: a reconnecting page asks for what it has not drawn yet. The frames of
event SEQ itself are sent again (a deal's result shares its last event's number), and
the client drops those it holds. The fold always starts from the match's beginning, so
the frames are the same as in the page and the JSON.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import aclosing
from typing import Any, Final

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.web.errors import BadParameter
from arena.web.events import Event, EventStream
from arena.web.rendering import Renderer, page_language
from arena.web.table import TableFold, table_view
from arena.web.viewer import Viewer

__all__ = ["CATCH_UP_SECONDS", "MAX_AFTER", "TablePages"]

CATCH_UP_SECONDS: Final = 0.2
"""How long a running match's page waits for one more caught-up message before it draws
what it has (the stream brings the rest)."""
MAX_AFTER: Final = 10_000_000


def _after(params: Mapping[str, str]) -> int:
    """``after``: the highest event number the client holds (absent: 0, none)."""
    text = params.get("after")
    if text is None or text == "":
        return 0
    if len(text) > 9 or not (text.isascii() and text.isdigit()) or int(text) > MAX_AFTER:
        raise BadParameter("after", text, f"must be an integer from 0 to {MAX_AFTER:,}")
    return int(text)


async def _then(first: Event, rest: AsyncGenerator[Event, None]) -> AsyncIterator[Event]:
    """``first``, then ``rest``."""
    yield first
    async with aclosing(rest) as more:
        async for event in more:
            yield event


def _json(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class TablePages:
    """``/matches/{id}``, ``/api/matches/{id}/table`` and ``/api/matches/{id}/live``."""

    def __init__(self, viewer: Viewer, renderer: Renderer) -> None:
        self.viewer = viewer
        self.renderer = renderer

    async def view(self, match_id: str, lang: str) -> tuple[dict[str, Any], bool]:
        """The table of a match (all of a stored one, what was played so far of a
        running one) and whether it is running."""
        row = await run_in_threadpool(self.viewer.match, match_id)
        if not row.live:
            return await run_in_threadpool(self._stored, match_id, lang), False
        messages = await self._caught_up(match_id)
        view = await run_in_threadpool(table_view, messages, None, lang)
        view["match"]["live"] = True
        return view, True

    def _stored(self, match_id: str, lang: str) -> dict[str, Any]:
        messages = self.viewer.watch_messages(match_id)
        return table_view(messages, self.viewer.revealed_record(match_id), lang)

    async def _caught_up(self, match_id: str) -> list[dict[str, Any]]:
        """A running match's public messages up to now: those that come at once, until
        the first live one or the end."""
        messages: list[dict[str, Any]] = []
        async with aclosing(self.viewer.follow(match_id)) as stream:
            while True:
                try:
                    message = await asyncio.wait_for(anext(stream), CATCH_UP_SECONDS)
                except (StopAsyncIteration, TimeoutError):
                    break
                messages.append(message)
                if message.get("live") or "match_result" in message:
                    break
        return messages

    async def page(self, request: Request) -> Response:
        lang = page_language(request)
        view, live = await self.view(request.path_params["id"], lang)
        return self.renderer.page(request, "match.html", {"view": view, "live": live})

    async def table(self, request: Request) -> Response:
        view, _ = await self.view(request.path_params["id"], page_language(request))
        return JSONResponse(view, headers={"cache-control": "no-store"})

    async def live(self, request: Request) -> Response:
        after = _after(request.query_params)
        events = self._events(request.path_params["id"], page_language(request), after)
        # the first event (the header) before the response starts: an unknown match is a
        # 404 and a broken one a 500, not a stream that ends at once
        first = await anext(events)
        return EventStream(_then(first, events))

    async def _events(self, match_id: str, lang: str, after: int) -> AsyncGenerator[Event, None]:
        fold = TableFold(lang)
        header_sent = False
        async with aclosing(self.viewer.follow(match_id)) as stream:
            async for message in stream:
                frames = fold.feed(message)
                if not header_sent and "match" in message:
                    yield "header", _json(fold.header)
                    header_sent = True
                for frame in frames:
                    if int(frame.get("seq", 0)) >= after:
                        yield "frame", _json(frame)
                result = fold.result
                if result is not None:
                    yield "result", _json(result)
                    return
