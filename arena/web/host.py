"""The tables people open from the site: who sits where, when the match starts, and each
person's seat stream and answers.

A table names its four seats: people (the one who opened it, and friends who come with
the table's invitation) and bots (built in, parameters included, or registered and
connected). It starts as soon as every person's seat is taken: the server plays it as a
match (:meth:`PlayService.launch`) whose id is the table's, so its drawn table, live
stream and stored record are every match's. A rated table (every person signed in to an
account) is rated in the variant's people's pool, apart from the bots' league. People get
a longer clock than bots' default (:data:`PEOPLE_CLOCK`), the same for every seat.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, Final

import bots
from arena import games
from arena._proto.arena.v1 import arena_pb2
from arena.chance import derive_seed
from arena.errors import ConfigError
from arena.games.base import NUM_SEATS, Observation
from arena.rating.pools import people_pool
from arena.server.builtin import builtin_problem
from arena.server.connection import Connection
from arena.server.play import PlayService
from arena.server.remote import RemotePolicy
from arena.server.session import ClockConfig, MatchPlan, MatchSession
from arena.web.i18n import Refusal
from arena.web.people import Person
from arena.web.seats import BrowserSeat, Event, held_event, seat_events

__all__ = ["PEOPLE_CLOCK", "PERSON", "Table", "TableHost", "TableProblem"]

PERSON: Final = "person"
"""A seat choice: a person sits there (the opener in seat 0, else an invited friend)."""
PEOPLE_CLOCK: Final = ClockConfig(
    decision_seconds=30.0, time_bank_seconds=180.0, grace_seconds=90.0
)
"""A table's clock: 30 s a decision, a 3-minute bank, 90 s to come back after a reload."""
HINT_BOT: Final = "heuristic"
"""The bot asked what it would play (``hint``)."""
MAX_OPEN_TABLES: Final = 200
"""Tables waiting or playing at once on this server."""
INVITE_SECONDS: Final = 3600.0
"""How long a table waits for invited friends before it is forgotten."""
FINISHED_KEPT: Final = 500
"""Finished tables kept (their seat pages say the match is over and link its replay)."""


class TableProblem(Refusal):
    """A table that cannot be opened, joined or answered at, and why
    (``tables.cannot.*``)."""

    PREFIX = "tables.cannot."


@dataclass
class Table:
    """A table: its seats (a bot's name, or :data:`PERSON`), who sits in each person's
    seat, its invitation, and the match once it started."""

    id: str
    variant: str
    seats: tuple[str, ...]
    options: Mapping[str, Any]
    max_deals: int | None
    invite: str
    people: list[Person | None]
    names: list[str | None]
    """Each person's player name as they sat down (a later rename changes no table)."""
    connections: list[BrowserSeat | None] = field(default_factory=lambda: [None] * NUM_SEATS)
    session: MatchSession | None = None
    started: asyncio.Event = field(default_factory=asyncio.Event)
    failed: str | None = None
    opened: float = 0.0
    """When it was opened (the host's clock)."""
    tutorial: bool = False
    """A tutorial deal: the page shows the game's first rules and the bot's suggestion."""
    remote: tuple[int, ...] = ()
    """The seats of registered bots (their connections are taken as the table starts)."""
    rated: bool = False
    """Rated in the people's pool (every person signed in to an account)."""

    @property
    def over(self) -> bool:
        """Whether its match was played to its end (or stopped)."""
        return self.session is not None and self.session.over

    def player_of(self, person: Person) -> int | None:
        """The seat (player number) ``person`` holds at this table, if any: their
        session's, or their account's (signed in elsewhere too)."""
        for player, sitting in enumerate(self.people):
            if sitting is person or (
                sitting is not None
                and sitting.account
                and person.account
                and sitting.name == person.name
            ):
                return player
        return None

    def free_seats(self) -> list[int]:
        """People's seats nobody has taken yet."""
        return [p for p, seat in enumerate(self.seats) if seat == PERSON and self.people[p] is None]

    def players(self) -> tuple[str, ...]:
        """The match's player names: a person's as they sat down, else the bot's."""
        return tuple(
            name if name is not None else seat
            for seat, name in zip(self.seats, self.names, strict=True)
        )


class TableHost:
    """The open tables of one server, on its event loop."""

    def __init__(self, play: PlayService, now: Callable[[], float] = time.monotonic) -> None:
        self.play = play
        self._now = now
        self.tables: dict[str, Table] = {}
        self._numbers = count(1)

    # -- opening and joining ----------------------------------------------------------

    def open(
        self,
        person: Person,
        variant: str,
        seats: Sequence[str],
        options: Mapping[str, Any] | None = None,
        max_deals: int | None = None,
        tutorial: bool = False,
        rated: bool = False,
    ) -> Table:
        """A table of ``variant`` (with its game ``options``) with ``person`` in seat 0 and
        ``seats`` (the other three: a bot's name or :data:`PERSON`), playing ``max_deals``
        deals (None: the whole match; never more than the server's own limit); started at
        once when no friend is awaited. ``rated``: rated in the variant's people's pool,
        every person signed in. :class:`TableProblem` naming the bad choice."""
        if rated and tutorial:
            raise TableProblem("tutorial_rated")
        if rated and not person.account:
            raise TableProblem("rated_guest")
        if len(seats) != NUM_SEATS - 1:
            raise TableProblem("seats", n=NUM_SEATS)
        if variant not in games.names():
            raise TableProblem("variant", variant=variant[:40])
        try:
            games.make(variant, **dict(options or {}))
        except (ConfigError, ValueError, TypeError) as err:
            raise TableProblem("options", variant=variant, detail=err) from None
        remote = tuple(
            player
            for player, seat in enumerate(seats, start=1)
            if seat != PERSON and self._is_remote(player, seat, variant)
        )
        self._forget_old_tables()
        live = [t for t in self.tables.values() if t.failed is None and not t.over]
        if len(live) >= MAX_OPEN_TABLES:
            raise TableProblem("full")
        limit = self.play.config.max_deals
        if max_deals is not None and max_deals < 1:
            raise TableProblem("deals_min", deals=max_deals)
        if limit is not None:
            max_deals = limit if max_deals is None else min(max_deals, limit)
        table = Table(
            id=f"table-{variant}-{secrets.token_hex(5)}",
            variant=variant,
            seats=(PERSON, *seats),
            options=dict(options or {}),
            max_deals=max_deals,
            invite=secrets.token_urlsafe(16),
            people=[person, None, None, None],
            names=[person.player, None, None, None],
            opened=self._now(),
            tutorial=tutorial,
            remote=remote,
            rated=rated,
        )
        self.tables[table.id] = table
        self._start_when_seated(table)
        return table

    def _is_remote(self, player: int, name: str, variant: str) -> bool:
        """Whether the bot ``name`` for seat ``player`` is a registered one (False: built
        in); :class:`TableProblem` when it is neither, or is not connected and waiting
        for a casual match of ``variant``."""
        problem = builtin_problem(name)
        if problem is None:
            return False
        if self.play.store.bot(name) is None:
            raise TableProblem("seat_bot", seat=player + 1, detail=problem)
        if not self.play.matchmaker.waits(name, variant, rated=False):
            raise TableProblem("not_waiting", seat=player + 1, bot=name, variant=variant)
        return True

    def _forget_old_tables(self) -> None:
        """Forget tables whose friends never came (after :data:`INVITE_SECONDS`) and all
        but the last :data:`FINISHED_KEPT` finished ones (their matches stay stored)."""
        now = self._now()
        for table in list(self.tables.values()):
            if table.session is None and now - table.opened > INVITE_SECONDS:
                del self.tables[table.id]
        finished = [t.id for t in self.tables.values() if t.over or t.failed is not None]
        for table_id in finished[: max(0, len(finished) - FINISHED_KEPT)]:
            del self.tables[table_id]

    def table(self, table_id: str) -> Table | None:
        return self.tables.get(table_id)

    def join(self, table: Table, person: Person, invite: str) -> int:
        """Seat ``person`` in the table's first free person's seat (the invitation must be
        the table's); the seat they hold already if they sit there."""
        held = table.player_of(person)
        if held is not None:
            return held
        if not secrets.compare_digest(invite.encode(), table.invite.encode()):
            raise TableProblem("invite")
        if table.rated and not person.account:
            raise TableProblem("rated_join")
        if person.player in table.names:
            raise TableProblem("seated_name", name=person.name)
        free = table.free_seats()
        if not free:
            raise TableProblem("taken")
        player = free[0]
        table.people[player] = person
        table.names[player] = person.player
        self._start_when_seated(table)
        return player

    def _start_when_seated(self, table: Table) -> None:
        if table.free_seats() or table.session is not None:
            return
        remote = [table.seats[player] for player in table.remote]
        taken = self.play.matchmaker.take(remote, table.variant, rated=False)
        if taken is None:
            names = ", ".join(remote)
            table.failed = f"a bot of this table stopped waiting before it started ({names})"
            table.started.set()
            return
        loop = asyncio.get_running_loop()
        connections: list[Connection | None] = [None] * NUM_SEATS
        for player, name in enumerate(table.names):
            if name is not None:
                seat = BrowserSeat(name, loop, next(self._numbers))
                table.connections[player] = connections[player] = seat
        for player, waiting in zip(table.remote, taken, strict=True):
            assert isinstance(waiting.token, Connection)
            connections[player] = waiting.token
        plan = MatchPlan(
            variant=table.variant,
            players=table.players(),
            rated=table.rated,
            options=table.options,
            match_id=table.id,
            max_deals=table.max_deals,
            clock=PEOPLE_CLOCK,
            rating_pool=people_pool(table.variant) if table.rated else None,
        )
        session = self.play.launch(plan, connections)
        if session is None:
            table.failed = "the server could not start this table's match"
        table.session = session
        table.started.set()

    # -- a person's seat ----------------------------------------------------------------

    async def seat_stream(self, table: Table, player: int) -> AsyncIterator[Event]:
        """The seat's events for its browser, from now until the match is over, or until
        a newer stream of the same seat (a reload, another tab) takes it: this one then
        ends with ``replaced``, and its page stops rather than take the seat back."""
        yield "table", {"seats": list(table.seats), "players": list(table.players())}
        await table.started.wait()
        session = table.session
        if session is None:
            yield "problem", {"message": table.failed or "the table did not start"}
            return
        connection = table.connections[player]
        assert connection is not None
        if connection.task is not None or session.over:
            # a reload or a second tab: a new connection takes the seat back
            old = connection
            connection = BrowserSeat(old.bot, old.loop, next(self._numbers))
            table.connections[player] = connection
            old.closed = True
            old.outbox.put_nowait(None)
            if not session.over:
                session.resume(player, connection)
        connection.task = asyncio.current_task()

        def watcher(message: arena_pb2.WatchMessage | None) -> None:
            connection.look_again()

        watched = session.watch(watcher, after_seq=0)
        hand: tuple[int, list[str]] | None = None
        deal: int | None = None
        """The deal the seat's stream is in: its hand told, its result not yet."""
        try:
            if session.over:
                if session.result is not None:
                    yield (
                        "over",
                        seat_events(arena_pb2.ServerMessage(match_result=session.result))[0][1],
                    )
                return
            async for message in connection.messages():
                if message.WhichOneof("body") is None:  # LOOK_AGAIN
                    # the deal the stream is in only: the next one's hand comes after
                    # this one's result, with its start
                    now = session.hand_of(player)
                    if now is not None and now != hand and deal == session.deal_number:
                        hand = now
                        held = ("hand", {"deal": deal, "seat": now[0], "hand": now[1]})
                        yield held_event(held, session.deal_state)
                    continue
                for event in seat_events(message):
                    if event[0] == "hand":
                        hand = (event[1]["seat"], event[1]["hand"])
                        deal = int(event[1]["deal"])
                    elif event[0] == "deal":
                        deal = None  # over: no hand until the next deal starts
                    yield held_event(event, session.deal_state)
                    if event[0] == "over":
                        return
            if table.connections[player] is not connection:
                yield "replaced", {}  # a newer page (another tab) took the seat
        finally:
            if watched:
                session.unwatch(watcher)
            if table.connections[player] is connection and not session.over:
                connection.closed = True
                session.lost(player, "the page was closed")

    async def hint(self, table: Table, player: int) -> tuple[str, str]:
        """What :data:`HINT_BOT` would play in the seat's open decision: the request's id
        and the action's text (made from the seat's own observation only)."""
        request_id, observation = self.open_decision(table, player)
        bot = bots.make(HINT_BOT, derive_seed(0, "hint", request_id))
        action = await asyncio.to_thread(bot.act, observation)
        return request_id, str(action)

    def open_decision(self, table: Table, player: int) -> tuple[str, Observation]:
        """The seat's open request: its id and its observation (TableProblem: none)."""
        decision = self._seat(table, player).open_decision
        if decision is None:
            raise TableProblem("no_decision")
        return decision

    def _seat(self, table: Table, player: int) -> RemotePolicy:
        session = table.session
        if session is None or session.over:
            raise TableProblem("not_playing")
        seat = session.seats[player]
        if seat is None:
            raise TableProblem("not_person")
        return seat

    def act(self, table: Table, player: int, request_id: str, text: str) -> None:
        """The person's answer to the open request (its refusal, if any, comes through
        the seat's stream as a bot's does)."""
        seat = self._seat(table, player)
        reply = arena_pb2.ActionReply(request_id=request_id, action=arena_pb2.Action(text=text))
        seat.offer(request_id, reply)
