"""Spectate: a stored match's public messages (Watch) and the list of matches (ListMatches).

A finished match is re-played from its stored record: the game is re-created with the
record's options, each deal started from its recorded setup and seed, and every entry
applied; the engine's public events (``State.events``, never a hidden card) are sent
as they appear, numbered 1, 2, 3 … across the match. A running match is followed live:
the spectator is caught up (the match, the current deal so far) and then gets every
public message as the seats do.
"""

from __future__ import annotations

import asyncio
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import ArenaError
from arena.games.base import NUM_SEATS, State
from arena.replay import MatchRecord, replay_entry, start_deal
from arena.server.remote import event_to_proto, struct
from arena.server.results import end_of_match, rating_change
from arena.server.services import Failure, Services, list_matches
from arena.store import RATING_SYSTEMS, Store, StoredMatch, StoreError

__all__ = ["LiveFeed", "SpectateService", "stored_messages"]

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, AsyncIterator, Mapping

    from arena.server.session import MatchSession

    Context = grpc.aio.ServicerContext[Any, Any]


@dataclass
class _Deal:
    """One re-played deal's messages: its start, its event batches, its result."""

    started: arena_pb2.DealStarted
    batches: list[list[arena_pb2.Event]]
    result: arena_pb2.DealResult
    game_over: bool
    """The game ended the match with this deal (not its number of deals)."""


def _replay_deals(match: StoredMatch, record: MatchRecord) -> list[_Deal]:
    game = games.make(record.game, **record.options)
    players = list(record.players) or list(match.seating)
    deals: list[_Deal] = []
    totals = [0] * NUM_SEATS
    seq = 0
    for number, deal in enumerate(record.deals, start=1):
        state: State = start_deal(game, deal)
        started = arena_pb2.DealStarted(
            match_id=match.id,
            deal=number,
            seating=[_name(players, state.player_at(s)) for s in range(NUM_SEATS)],
            players=[state.player_at(s) for s in range(NUM_SEATS)],
            setup=struct(deal.setup),
        )
        batches: list[list[arena_pb2.Event]] = []
        seen = 0
        for text in (None, *deal.actions):
            if text is not None:
                replay_entry(state, text)
            batch: list[arena_pb2.Event] = []
            for event in state.events[seen:]:
                seq += 1
                description = game.describe_event(event, state)
                batch.append(event_to_proto(event, seq, number, description))
            seen = len(state.events)
            if batch:
                batches.append(batch)
        if not state.is_terminal():
            raise ArenaError(f"deal {number}: the recorded actions end before the deal does")
        outcome = state.outcome()
        for seat, score in enumerate(outcome.scores):
            totals[seat] += score
        result = arena_pb2.DealResult(
            match_id=match.id,
            deal=number,
            scores=list(outcome.scores),
            summary=game.describe_outcome(outcome),
            details=struct(outcome.details),
            totals=list(totals),
            match_over=number == len(record.deals),  # the match's last deal: its result follows
        )
        deals.append(_Deal(started, batches, result, outcome.match_over))
    return deals


def _name(players: list[str], player: int) -> str:
    return players[player] if 0 <= player < len(players) else ""


def _match_result(
    store: Store, match: StoredMatch, record: MatchRecord, deals: list[_Deal]
) -> arena_pb2.MatchResult:
    changes = [
        change
        for bot in sorted(set(match.seating))
        for system in RATING_SYSTEMS
        for change in store.rating_history(bot, match.variant, system)
        if change.match_id == match.id
    ]
    winner_team = match.winner_team
    stored_totals = match.outcome.get("totals")
    if stored_totals:
        totals = [int(t) for t in stored_totals]
    else:
        totals = list(deals[-1].result.totals) if deals else []
    aborted = match.outcome.get("aborted")
    detail = match.outcome.get("reason")
    reason, summary = end_of_match(
        aborted=aborted if isinstance(aborted, str) else None,
        detail=detail if isinstance(detail, str) else "",
        forfeit=any("forfeit" in d.result.details for d in deals),
        complete=bool(deals) and deals[-1].game_over,
        winner=winner_team,
        deals=len(deals),
    )
    return arena_pb2.MatchResult(
        match_id=match.id,
        reason=reason,
        winner_team=winner_team,
        totals=totals,
        deals=len(deals),
        summary=summary,
        rated=bool(changes),
        rating_changes=[rating_change(c) for c in changes],
    )


def stored_messages(
    store: Store, match_id: str, after_seq: int = 0
) -> list[arena_pb2.WatchMessage]:
    """The Watch stream of a stored match (``live`` false); Failure if unknown or broken.

    With ``after_seq``, deals wholly before the next event are left out, as are the
    current deal's events up to ``after_seq``; the MatchInfo, the current deal's
    DealStarted and every later message are sent.
    """
    try:
        match = store.match(match_id)
    except StoreError as err:  # a row changed by hand
        raise Failure(grpc.StatusCode.INTERNAL, f"match {match_id!r}: {err}") from None
    if match is None:
        raise Failure(grpc.StatusCode.NOT_FOUND, f"no match {match_id!r}")
    try:
        record = MatchRecord.from_dict(match.record)
        deals = _replay_deals(match, record)
    except (ArenaError, ValueError, TypeError, KeyError) as err:
        raise Failure(
            grpc.StatusCode.INTERNAL, f"match {match_id!r}: its record does not re-play: {err}"
        ) from None
    changes_rated = _match_result(store, match, record, deals)
    info = arena_pb2.MatchInfo(
        match_id=match.id,
        variant=match.variant,
        options=struct(match.options),
        players=list(match.seating),
        rated=changes_rated.rated,
        tournament_id=match.tournament_id or "",
    )
    messages = [arena_pb2.WatchMessage(match=info, live=False)]
    first = _first_deal(deals, after_seq)
    for deal in deals[first:]:
        messages.append(arena_pb2.WatchMessage(deal_started=deal.started, live=False))
        for batch in deal.batches:
            events = [e for e in batch if e.seq > after_seq]
            if events:
                messages.append(
                    arena_pb2.WatchMessage(
                        events=arena_pb2.EventBatch(match_id=match.id, events=events),
                        live=False,
                    )
                )
        messages.append(arena_pb2.WatchMessage(deal_result=deal.result, live=False))
    messages.append(arena_pb2.WatchMessage(match_result=changes_rated, live=False))
    return messages


def _first_deal(deals: list[_Deal], after_seq: int) -> int:
    """The index of the deal holding the first event after ``after_seq`` (else the last)."""
    for index, deal in enumerate(deals):
        if any(e.seq > after_seq for batch in deal.batches for e in batch):
            return index
    return max(len(deals) - 1, 0)


class LiveFeed:
    """A spectator's seat at a running match: :meth:`open` catches it up (``busy`` held,
    taken in a worker thread so the event loop never waits on the match thread), then
    :meth:`messages` gives every public message, handed over from the match thread, until
    the match is over; the watcher is removed however the reading ends."""

    def __init__(self, session: MatchSession) -> None:
        self._session = session
        self._loop = asyncio.get_running_loop()
        self._inbox: asyncio.Queue[arena_pb2.WatchMessage | None] = asyncio.Queue()

    def _watcher(self, message: arena_pb2.WatchMessage | None) -> None:
        self._loop.call_soon_threadsafe(self._inbox.put_nowait, message)

    async def open(self, after_seq: int = 0) -> bool:
        """Start watching: False (nothing sent) if the match is over already."""
        session = self._session
        await asyncio.to_thread(session.busy.acquire)
        try:
            return session.watch(self._watcher, after_seq)
        finally:
            session.busy.release()

    async def messages(self) -> AsyncGenerator[arena_pb2.WatchMessage, None]:
        """The catch-up, then every public message up to the match's result."""
        try:
            while (message := await self._inbox.get()) is not None:
                yield message
        finally:
            self._session.unwatch(self._watcher)


class SpectateService(arena_pb2_grpc.SpectateServicer):
    def __init__(
        self, services: Services, running: Mapping[str, MatchSession] | None = None
    ) -> None:
        self._s = services
        self._running = running if running is not None else {}

    async def Watch(
        self, request: arena_pb2.WatchRequest, context: Context
    ) -> AsyncIterator[arena_pb2.WatchMessage]:
        if not request.match_id:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "match_id is required")
        session = self._running.get(request.match_id)
        if session is not None:
            feed = LiveFeed(session)
            if await feed.open(request.after_seq):
                async with aclosing(feed.messages()) as live:  # unwatched when left
                    async for message in live:
                        yield message
                return
        try:
            messages = await asyncio.to_thread(
                stored_messages, self._s.store, request.match_id, request.after_seq
            )
        except Failure as failure:
            await context.abort(failure.code, failure.message)
        for message in messages:
            yield message

    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: Context
    ) -> arena_pb2.ListMatchesResponse:
        live = [session.summary() for session in list(self._running.values())]
        try:
            return list_matches(self._s.store, request, live)
        except Failure as failure:
            await context.abort(failure.code, failure.message)
