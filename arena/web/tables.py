"""The match routes: the drawn table's page, its frames as JSON, and its live event stream.

A stored, finished match is drawn from its stored messages with every hand revealed
(its record, as the Leaderboard service gives anyone). A running match is drawn from
the public messages only (:meth:`~arena.web.viewer.Viewer.follow`, the Spectate
operations): its frames carry no hands, ever.

The stream (``/api/matches/{id}/live``) sends server-sent events: ``header`` (the match
object) first, then ``frame`` for each new step and ``turn`` when whose turn it is
completes the newest frame (its ``i``, ``to_act``, ``phase``, ``clock``), then
``result``, after which it ends. ``viewer=N`` (a player's own page) names the seats
relative to player N, on the page, the JSON and the stream alike.
``after=SEQ`` (the highest event number the client holds) leaves out the frames of
earlier events: a reconnecting page asks for what it has not drawn yet. The frames of
event SEQ itself are sent again (a deal's result shares its last event's number), and
the client drops those it holds. The fold always starts from the match's beginning, so
the frames are the same as in the page and the JSON.

The page and the JSON hold the frames of one deal (``deal=N``; by default a stored
match's first deal, a running match's current one) and every deal's entry (its
number, summary and the numbers of its first and last frames); the page fetches the
other deals' frames as it moves into them. A stored deal is re-played alone
(:meth:`~arena.web.viewer.Viewer.deal_messages`); ``deal=all`` gives the whole match.
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
from arena.web.table import TableFold, deal_view, one_deal, table_view
from arena.web.viewer import NotFound, Viewer

__all__ = ["ALL_DEALS", "CATCH_UP_SECONDS", "MAX_AFTER", "MAX_DEAL", "TablePages"]

CATCH_UP_SECONDS: Final = 0.2
"""How long a running match's page waits for one more caught-up message before it draws
what it has (the stream brings the rest)."""
MAX_AFTER: Final = 10_000_000
MAX_DEAL: Final = 100_000
ALL_DEALS: Final = 0
"""``deal=all``: every deal's frames."""


def _after(params: Mapping[str, str]) -> int:
    """``after``: the highest event number the client holds (absent: 0, none)."""
    text = params.get("after")
    if text is None or text == "":
        return 0
    if len(text) > 9 or not (text.isascii() and text.isdigit()) or int(text) > MAX_AFTER:
        raise BadParameter(
            "after",
            text,
            f"must be an integer from 0 to {MAX_AFTER:,}",
            "number",
            low=0,
            high=MAX_AFTER,
        )
    return int(text)


def _deal(params: Mapping[str, str]) -> int | None:
    """``deal``: a deal's number, :data:`ALL_DEALS` for ``all``, None when absent."""
    text = params.get("deal")
    if text is None or text == "":
        return None
    if text == "all":
        return ALL_DEALS
    if len(text) > 6 or not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_DEAL:
        raise BadParameter(
            "deal",
            text,
            f"must be a deal number from 1 to {MAX_DEAL:,} or 'all'",
            "deal",
            high=MAX_DEAL,
        )
    return int(text)


def _viewer(params: Mapping[str, str]) -> int | None:
    """``viewer``: the player (0 … 3) whose own page draws the table; absent: None."""
    text = params.get("viewer")
    if text is None or text == "":
        return None
    if text not in ("0", "1", "2", "3"):
        raise BadParameter(
            "viewer", text, "must be a player from 0 to 3", "number", low=0, high=3
        )
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

    async def view(
        self, match_id: str, lang: str, deal: int | None = None, viewer: int | None = None
    ) -> tuple[dict[str, Any], bool]:
        """The table of a match (a stored one's, what was played so far of a running
        one) with the frames of ``deal`` (:data:`ALL_DEALS`: every deal; None: a stored
        match's first, a running one's current), and whether it is running."""
        row = await run_in_threadpool(self.viewer.match, match_id)
        if not row.live:
            if deal is None:
                deal = 1 if row.deals > 0 else ALL_DEALS
            return await run_in_threadpool(self._stored, match_id, lang, deal, viewer), False
        messages = await self._caught_up(match_id)
        view = await run_in_threadpool(table_view, messages, None, lang, viewer)
        view["match"]["live"] = True
        if deal == ALL_DEALS:
            return view, True
        try:
            return one_deal(view, deal), True
        except ValueError as err:
            raise NotFound(f"deal: {err}", "deal", "" if deal is None else str(deal)) from None

    def _stored(
        self, match_id: str, lang: str, deal: int, viewer: int | None = None
    ) -> dict[str, Any]:
        record = self.viewer.revealed_record(match_id)
        if deal == ALL_DEALS:
            return table_view(self.viewer.watch_messages(match_id), record, lang, viewer)
        messages, outline = self.viewer.deal_messages(match_id, deal)
        return deal_view(messages, outline, record, lang, deal, viewer)

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
        deal = _deal(request.query_params)
        viewer = _viewer(request.query_params)
        view, live = await self.view(request.path_params["id"], lang, deal, viewer)
        return self.renderer.page(request, "match.html", {"view": view, "live": live})

    async def table(self, request: Request) -> Response:
        deal = _deal(request.query_params)
        viewer = _viewer(request.query_params)
        view, _ = await self.view(request.path_params["id"], page_language(request), deal, viewer)
        return JSONResponse(view, headers={"cache-control": "no-store"})

    async def live(self, request: Request) -> Response:
        after = _after(request.query_params)
        viewer = _viewer(request.query_params)
        events = self._events(request.path_params["id"], page_language(request), after, viewer)
        # the first event (the header) before the response starts: an unknown match is a
        # 404 and a broken one a 500, not a stream that ends at once
        first = await anext(events)
        return EventStream(_then(first, events))

    async def _events(
        self, match_id: str, lang: str, after: int, viewer: int | None = None
    ) -> AsyncGenerator[Event, None]:
        fold = TableFold(lang, viewer=viewer)
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
                turn = fold.turn
                if "turn" in message and turn is not None and int(turn.get("seq") or 0) >= after:
                    yield "turn", _json(turn)
                result = fold.result
                if result is not None:
                    yield "result", _json(result)
                    return
