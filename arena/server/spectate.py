"""Spectate: a stored match's public messages (Watch) and the list of matches (ListMatches).

A finished match is re-played from its stored record: the game is re-created with the
record's options, each deal started from its recorded setup and seed, and every entry
applied; the engine's public events (``State.events``, never a hidden card) are sent
as they appear, numbered 1, 2, 3 … across the match, each batch followed by a ``Turn``
naming the seat whose decision brings the next one (who is to act is public). A running
match is followed live:
the spectator is caught up (the match, the current deal so far) and then gets every
public message as the seats do.
"""

from __future__ import annotations

import asyncio
import threading
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import ArenaError, quoted
from arena.games.base import NUM_SEATS, Action, Game, State
from arena.plural import counted
from arena.replay import DealRecord, MatchRecord, replay_entry, start_deal
from arena.server.remote import event_to_proto, struct
from arena.server.results import end_of_match, rating_change
from arena.server.services import Failure, Services, list_matches, refuse
from arena.store import RATING_SYSTEMS, Store, StoredMatch, StoreError

__all__ = [
    "DealOutline",
    "LiveFeed",
    "SpectateService",
    "StoredWatch",
    "stored_messages",
    "stored_watch",
]

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, AsyncIterator, Mapping

    from arena.server.session import MatchSession

    Context = grpc.aio.ServicerContext[Any, Any]


Kinds = tuple[tuple[tuple[str, int | None], ...], ...]
"""A deal's event batches, each event as (kind, seat): tuples of plain values, which the
garbage collector stops tracking (a viewer keeps many)."""


@dataclass
class _Deal:
    """One re-played deal's messages: its start, its event batches, its result."""

    started: arena_pb2.DealStarted
    batches: list[list[arena_pb2.Event]]
    result: arena_pb2.DealResult
    game_over: bool
    """The game ended the match with this deal (not its number of deals)."""
    events_before: int
    """Events of the match before this deal (its first event is numbered one more)."""
    kinds: Kinds
    """Each event batch's events as (kind, seat): the deal's shape, without a card."""
    turns: list[tuple[arena_pb2.Turn, ...]] = field(default_factory=list)
    """After each batch (when built), the first decision asked after it and the one that
    brought about the next batch (one of them if they are the same; none after the
    last)."""


@dataclass(frozen=True)
class DealOutline:
    """A stored deal's shape, public: its start and result, the events of the match
    before it, and each event batch's events as (kind, seat), no card or description
    (a page showing one deal at a time counts the other deals' steps from it)."""

    started: arena_pb2.DealStarted
    result: arena_pb2.DealResult
    events_before: int
    kinds: Kinds
    game_over: bool


def _replay_deals(
    match: StoredMatch,
    record: MatchRecord,
    only: int | None = None,
    outline: list[DealOutline] | None = None,
) -> list[_Deal]:
    """Every deal re-played; the events of deal ``only`` alone when given (the other
    deals' batches are left empty, their events counted and outlined, their entries
    applied without listing the legal actions first: the engine still refuses a
    malformed one). With the match's ``outline`` too (an earlier re-play's), deal
    ``only`` alone is re-played."""
    game = games.make(record.game, **record.options)
    players = list(record.players) or list(match.seating)
    if only is not None and outline is not None and len(outline) == len(record.deals):
        before = outline[only - 2].result.totals if only > 1 else [0] * NUM_SEATS
        shown = outline[only - 1]
        replayed = _Replay(game, match.id, players, len(record.deals))
        deal = replayed.deal(only, record.deals[only - 1], shown.events_before, list(before))
        return [
            deal
            if number == only
            else _Deal(o.started, [], o.result, o.game_over, o.events_before, o.kinds)
            for number, o in enumerate(outline, start=1)
        ]
    replay = _Replay(game, match.id, players, len(record.deals))
    deals: list[_Deal] = []
    totals = [0] * NUM_SEATS
    seq = 0
    for number, deal_record in enumerate(record.deals, start=1):
        played = replay.deal(number, deal_record, seq, totals, built=only is None or only == number)
        totals = list(played.result.totals)
        seq = played.events_before + sum(len(batch) for batch in played.kinds)
        deals.append(played)
    return deals


@dataclass
class _Replay:
    """Re-plays a stored match's deals one at a time."""

    game: Game
    match_id: str
    players: list[str]
    deals: int

    def deal(
        self, number: int, deal: DealRecord, seq: int, totals: list[int], built: bool = True
    ) -> _Deal:
        """Deal ``number`` re-played, its events numbered after ``seq``, its scores added
        to ``totals`` (the deals' before it); its events built, and each entry checked
        against the legal actions, only when ``built``."""
        game = self.game
        state: State = start_deal(game, deal)
        started = arena_pb2.DealStarted(
            match_id=self.match_id,
            deal=number,
            seating=[_name(self.players, state.player_at(s)) for s in range(NUM_SEATS)],
            players=[state.player_at(s) for s in range(NUM_SEATS)],
            setup=struct(deal.setup),
        )
        batches: list[list[arena_pb2.Event]] = []
        turns: list[tuple[arena_pb2.Turn, ...]] = []
        kinds: list[tuple[tuple[str, int | None], ...]] = []
        events_before = seq
        seen = 0
        apply = replay_entry if built else _count_entry
        asked: list[arena_pb2.Turn] = []  # since the last batch
        for text in (None, *deal.actions):
            if text is not None:
                if built and not state.is_terminal():  # public: whose decision comes next
                    turn = arena_pb2.Turn(
                        match_id=self.match_id,
                        deal=number,
                        seat=state.to_act,
                        phase=state.phase,
                        after_seq=seq,
                    )
                    asked = [asked[0], turn] if asked else [turn]
                apply(state, text)
            fresh = state.events[seen:]
            seen = len(state.events)
            if not fresh:
                continue
            kinds.append(tuple((event.kind, event.seat) for event in fresh))
            if built:
                if turns:
                    turns[-1] = tuple(asked)
                asked = []
                turns.append(())
                batches.append(
                    [
                        event_to_proto(event, seq + k, number, game.describe_event(event, state))
                        for k, event in enumerate(fresh, start=1)
                    ]
                )
            seq += len(fresh)
        if not state.is_terminal():
            raise ArenaError(f"deal {number}: the recorded actions end before the deal does")
        outcome = state.outcome()
        result = arena_pb2.DealResult(
            match_id=self.match_id,
            deal=number,
            scores=list(outcome.scores),
            summary=game.describe_outcome(outcome),
            details=struct(outcome.details),
            totals=[total + score for total, score in zip(totals, outcome.scores, strict=True)],
            match_over=number == self.deals,  # the match's last deal: its result follows
        )
        return _Deal(
            started, batches, result, outcome.match_over, events_before, tuple(kinds), turns
        )


def _count_entry(state: State, text: str) -> None:
    """Apply a recorded entry whose events are only counted: an action is read and
    applied (the engine refuses one it cannot apply) without listing the legal actions
    first, the costly part of checking it; a clock mark as :func:`replay_entry` does."""
    if text.startswith("!"):
        replay_entry(state, text)
        return
    action = Action.from_str(text)
    state.syntax.check(action)
    state.apply(action)


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
    store: Store, match_id: str, after_seq: int = 0, deal: int | None = None
) -> list[arena_pb2.WatchMessage]:
    """The Watch stream of a stored match (``live`` false); Failure if unknown or broken.

    With ``after_seq``, deals wholly before the next event are left out, as are the
    current deal's events up to ``after_seq``; the MatchInfo, the current deal's
    DealStarted and every later message are sent. With ``deal``, the messages of that
    deal alone (its start, events and result, numbered as in the whole stream) come
    between the MatchInfo and the MatchResult; a deal the match does not have is
    NOT_FOUND naming it.
    """
    return stored_watch(store, match_id, after_seq, deal).messages


@dataclass(frozen=True)
class StoredWatch:
    """A stored match's Watch messages (:func:`stored_messages`) and every deal's outline."""

    messages: list[arena_pb2.WatchMessage]
    outline: list[DealOutline]


def stored_watch(
    store: Store,
    match_id: str,
    after_seq: int = 0,
    deal: int | None = None,
    outline: list[DealOutline] | None = None,
) -> StoredWatch:
    """:func:`stored_messages` and the outline of every deal, from one re-play; given
    ``deal`` and the match's ``outline`` (an earlier call's), that deal alone is
    re-played."""
    match, record = _stored_record(store, match_id)
    if deal is not None and not 1 <= deal <= len(record.deals):
        raise Failure(
            grpc.StatusCode.NOT_FOUND,
            f"deal: match {quoted(match_id)} has {counted(len(record.deals), 'deal')}, no deal "
            f"{deal}",
        )
    try:
        deals = _replay_deals(match, record, deal, outline)
    except (ArenaError, ValueError, TypeError, LookupError) as err:
        raise Failure(
            grpc.StatusCode.INTERNAL,
            f"match {quoted(match_id)}: its record does not re-play: {err}",
        ) from None
    changes_rated = _match_result(store, match, record, deals)
    info = arena_pb2.MatchInfo(
        match_id=match.id,
        variant=match.variant,
        options=struct(match.options),
        players=list(match.seating),
        rated=changes_rated.rated,
        tournament_id=match.tournament_id or "",
        # a match cut to its deals played them all: the game's own count is not its
        max_deals=len(deals) if changes_rated.reason == arena_pb2.END_REASON_DEAL_LIMIT else 0,
    )
    messages = [arena_pb2.WatchMessage(match=info, live=False)]
    shown = deals[deal - 1 : deal] if deal is not None else deals[_first_deal(deals, after_seq) :]
    for played in shown:
        messages.extend(_deal_messages(match.id, played, after_seq))
    messages.append(arena_pb2.WatchMessage(match_result=changes_rated, live=False))
    outlined = [
        DealOutline(d.started, d.result, d.events_before, d.kinds, d.game_over) for d in deals
    ]
    return StoredWatch(messages, outlined)


def _stored_record(store: Store, match_id: str) -> tuple[StoredMatch, MatchRecord]:
    try:
        match = store.match(match_id)
    except StoreError as err:  # a row changed by hand
        raise Failure(grpc.StatusCode.INTERNAL, f"match {quoted(match_id)}: {err}") from None
    if match is None:
        raise Failure(grpc.StatusCode.NOT_FOUND, f"no match {quoted(match_id)}")
    try:
        return match, MatchRecord.from_dict(match.record)
    except (ArenaError, ValueError, TypeError, KeyError) as err:
        raise Failure(
            grpc.StatusCode.INTERNAL,
            f"match {quoted(match_id)}: its record does not re-play: {err}",
        ) from None


def _deal_messages(match_id: str, deal: _Deal, after_seq: int) -> list[arena_pb2.WatchMessage]:
    """A deal's start, its event batches (events after ``after_seq``), each followed by
    the first decision asked after it and the one that brings the next batch, its
    result."""
    messages = [arena_pb2.WatchMessage(deal_started=deal.started, live=False)]
    for batch, turns in zip(deal.batches, deal.turns or [()] * len(deal.batches), strict=True):
        events = [e for e in batch if e.seq > after_seq]
        if events:
            messages.append(
                arena_pb2.WatchMessage(
                    events=arena_pb2.EventBatch(match_id=match_id, events=events), live=False
                )
            )
            messages.extend(arena_pb2.WatchMessage(turn=turn, live=False) for turn in turns)
    messages.append(arena_pb2.WatchMessage(deal_result=deal.result, live=False))
    return messages


def _first_deal(deals: list[_Deal], after_seq: int) -> int:
    """The index of the deal holding the first event after ``after_seq`` (else the last)."""
    for index, deal in enumerate(deals):
        if any(e.seq > after_seq for batch in deal.batches for e in batch):
            return index
    return max(len(deals) - 1, 0)


class LiveFeed:
    """A spectator's seat at a running match: :meth:`open` catches it up (between two
    steps of the match's coroutine, on the match's event loop), then :meth:`messages`
    gives every public message until the match is over; the watcher is removed however
    the reading ends. The spectator's loop may be another thread's (a web face of its
    own): the messages are then handed over thread-safely."""

    def __init__(self, session: MatchSession) -> None:
        self._session = session
        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        self._inbox: asyncio.Queue[arena_pb2.WatchMessage | None] = asyncio.Queue()

    def _watcher(self, message: arena_pb2.WatchMessage | None) -> None:
        if threading.get_ident() == self._thread:
            self._inbox.put_nowait(message)
        else:
            self._loop.call_soon_threadsafe(self._inbox.put_nowait, message)

    async def open(self, after_seq: int = 0, history: bool = False) -> bool:
        """Start watching (``history``: the finished deals too, :meth:`MatchSession.watch`):
        False (nothing sent) if the match is over already."""
        session = self._session
        loop = session.loop
        if loop is None or loop is self._loop:
            return session.watch(self._watcher, after_seq, history)

        async def on_its_loop() -> bool:
            return session.watch(self._watcher, after_seq, history)

        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(on_its_loop(), loop))

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
            await refuse(context, grpc.StatusCode.INVALID_ARGUMENT, "match_id is required")
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
            await refuse(context, failure.code, failure.message)
        for message in messages:
            yield message

    async def ListMatches(
        self, request: arena_pb2.ListMatchesRequest, context: Context
    ) -> arena_pb2.ListMatchesResponse:
        live = [session.summary() for session in list(self._running.values())]
        try:
            return list_matches(self._s.store, request, live)
        except Failure as failure:
            await refuse(context, failure.code, failure.message)
