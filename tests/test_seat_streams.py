"""A seat's stream depends only on the game and that seat's own actions, and every event
reaches each seat once (docs/protocol.md: the message flow, resuming).

The same seeded fixture (four hand-driven bots answering every decision with the first
legal action) is played twice on fresh servers: once undisturbed, once with spectators
watching mid-deal and one seat (player 1) losing its connection and taking its seat back
twice. The other three seats must receive the same messages, one by one, in both runs;
every seat, the resumed one included, must get each event exactly once per connection
and all of them across its connections, in protocol 1 (events in batches, or inside the
requests) and protocol 2."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import text_format
from test_server import ADMIN, bearer
from test_server_seats import WAIT, Arena, Raw, arena, clock, run

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.store import Store

PLAYERS = ("stream-0", "stream-1", "stream-2", "stream-3")
RESUMED = 1
"""The player whose connection breaks in the disturbed run."""
UNTOUCHED = (0, 2, 3)


@dataclass(frozen=True)
class WireForm:
    """What a seat's Hello asks for."""

    protocol: int
    carry: bool = False

    def __str__(self) -> str:
        return f"protocol-{self.protocol}{'-carry' if self.carry else ''}"


WIRES = (WireForm(1), WireForm(1, carry=True), WireForm(2))

# -- the messages, without what is genuinely time-dependent ----------------------------


def normalized(message: arena_pb2.ServerMessage) -> arena_pb2.ServerMessage:
    """``message`` without what depends on the clock or on chance by design: a request's
    time left (``decision_ms``, ``time_bank_ms``, ``deadline``: counted on the server's
    clock from the moment it is sent, so they differ in every run) and the Welcome's
    ``connection_id`` (random, for logs)."""
    copy = arena_pb2.ServerMessage()
    copy.CopyFrom(message)
    body = copy.WhichOneof("body")
    if body == "decision":
        for name in ("decision_ms", "time_bank_ms", "deadline"):
            copy.decision.ClearField(name)
    elif body == "action_result":
        copy.action_result.ClearField("decision_ms")
        copy.action_result.ClearField("time_bank_ms")
    elif body == "welcome":
        copy.welcome.ClearField("connection_id")
    return copy


def first_difference(
    plain: list[arena_pb2.ServerMessage], disturbed: list[arena_pb2.ServerMessage]
) -> str:
    for index, (a, b) in enumerate(zip(plain, disturbed, strict=False)):
        if normalized(a) != normalized(b):
            return (
                f"message {index} differs:\n--- undisturbed\n{text_format.MessageToString(a)}"
                f"--- disturbed\n{text_format.MessageToString(b)}"
            )
    return f"{len(plain)} messages undisturbed, {len(disturbed)} disturbed"


def event_seqs(message: arena_pb2.ServerMessage) -> list[int]:
    """The seqs of the events a message carries (a batch, a request, a Resume)."""
    body = message.WhichOneof("body")
    if body == "events":
        return [e.seq for e in message.events.events]
    if body == "decision":
        return [e.seq for e in message.decision.observation.events]
    if body == "resume":
        return [e.seq for e in message.resume.observation.events]
    return []


# -- playing the fixture -----------------------------------------------------------------


@dataclass
class Seat:
    """One player's hand-driven bot: each of its connections' messages, in order."""

    player: int
    token: str
    wire: WireForm
    connections: list[Raw] = field(default_factory=list)

    @property
    def now(self) -> Raw:
        return self.connections[-1]

    async def connect(self, address: str, resume: str = "") -> None:
        """A new connection (taking back the seat of match ``resume``, once the server
        has seen the old one break)."""
        while True:
            raw = Raw(address, self.token)
            await raw.send(
                hello=arena_pb2.Hello(
                    protocol=self.wire.protocol,
                    resume_match_id=resume,
                    events_in_requests=self.wire.carry,
                )
            )
            first = await asyncio.wait_for(raw.call.read(), WAIT)
            if first is not grpc.aio.EOF:
                raw.seen.append(first)
                self.connections.append(raw)
                return
            assert resume and await raw.call.code() == grpc.StatusCode.NOT_FOUND
            await raw.close()  # the server has not seen the old connection break yet
            await asyncio.sleep(0.02)

    async def answer(self, request: arena_pb2.DecisionRequest) -> None:
        await self.now.answer(request)


Hook = Callable[[Seat, int, arena_pb2.DecisionRequest], Awaitable[bool]]
"""Called at a seat's n-th decision (from 1) before it answers; True: it answered."""


async def play_seat(seat: Seat, address: str, hook: Hook | None) -> None:
    await seat.connect(address)
    await seat.now.join(rated=False, matches=1)
    decisions = 0
    while True:
        message = await seat.now.until("decision", "match_result")
        if message.HasField("match_result"):
            return
        decisions += 1
        answered = hook is not None and await hook(seat, decisions, message.decision)
        if not answered:
            await seat.answer(message.decision)


@dataclass
class Spectators:
    """Watch calls opened during a match, read in the background."""

    address: str
    match_id: str
    channel: grpc.aio.Channel | None = None
    readers: list[asyncio.Task[None]] = field(default_factory=list)

    async def open(self) -> grpc.aio.UnaryStreamCall[Any, Any]:
        """A new Watch, once its catch-up has begun (the server has run it)."""
        if self.channel is None:
            self.channel = grpc.aio.insecure_channel(self.address)
        stub = arena_pb2_grpc.SpectateStub(self.channel)
        call = stub.Watch(arena_pb2.WatchRequest(match_id=self.match_id))
        first = await asyncio.wait_for(call.read(), WAIT)
        assert first is not grpc.aio.EOF and first.HasField("match")

        async def drain() -> None:
            while await call.read() is not grpc.aio.EOF:
                pass

        self.readers.append(asyncio.create_task(drain()))
        return call

    async def close(self) -> None:
        for reader in self.readers:
            reader.cancel()
        if self.channel is not None:
            await self.channel.close()


def disturbances(address: str, match_id: str, spectators: Spectators) -> dict[int, Hook]:
    """Spectators opened (and one closed) while other seats hold their decision, and
    player 1's connection broken twice: at its decision (before answering) and right
    after answering (the others play on while it is away)."""
    watched: list[grpc.aio.UnaryStreamCall[Any, Any]] = []

    async def watcher(seat: Seat, n: int, request: arena_pb2.DecisionRequest) -> bool:
        if (seat.player, n) in ((0, 2), (2, 9), (0, 17)):
            watched.append(await spectators.open())
        if (seat.player, n) == (3, 12) and watched:
            watched[0].cancel()  # a spectator leaves mid-deal
        return False

    async def resumed(seat: Seat, n: int, request: arena_pb2.DecisionRequest) -> bool:
        if n == 3:  # breaks at its decision, then answers the request sent again
            await seat.now.close()
            await seat.connect(address, resume=match_id)
            await seat.now.until("resume")
            again = (await seat.now.until("decision")).decision
            assert again.request_id == request.request_id
            await seat.answer(again)
            return True
        if n in (8, 20):  # answers, breaks, and is away while the others play
            await seat.answer(request)
            await asyncio.sleep(0.05)
            await seat.now.close()
            await asyncio.sleep(0.3)
            await seat.connect(address, resume=match_id)
            return True
        return False

    return {0: watcher, 1: resumed, 2: watcher, 3: watcher}


def play_fixture(path: Path, wire: WireForm, disturbed: bool) -> list[Seat]:
    """The seeded fixture played on a fresh server: every seat's connections."""
    with Store.open(path) as store, arena(store, clock=clock(decision=60.0, grace=60.0)) as server:
        tokens = server.tokens(*PLAYERS)
        seats = [Seat(player, token, wire) for player, token in enumerate(tokens)]
        match_id = create_fixture(server)
        run(_play(server, seats, match_id, disturbed))
        return seats


def create_fixture(server: Arena) -> str:
    with grpc.insecure_channel(server.address) as channel:
        created = arena_pb2_grpc.AdminStub(channel).CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="streams",
                variant="guandan",
                players=list(PLAYERS),
                deals=2,
                seed=20261207,
                clock=arena_pb2.ClockSettings(decision_ms=60_000, grace_ms=60_000),
            ),
            metadata=bearer(ADMIN),
        )
    (match_id,) = created.match_ids
    return str(match_id)


async def _play(server: Arena, seats: list[Seat], match_id: str, disturbed: bool) -> None:
    spectators = Spectators(server.address, match_id)
    hooks = disturbances(server.address, match_id, spectators) if disturbed else {}
    try:
        await asyncio.gather(
            *(play_seat(seat, server.address, hooks.get(seat.player)) for seat in seats)
        )
    finally:
        await spectators.close()
        for seat in seats:
            for connection in seat.connections:
                with contextlib.suppress(Exception):
                    await connection.close()


@pytest.fixture(scope="module", params=WIRES, ids=str)
def runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[list[Seat], list[Seat]]]:
    """The fixture played undisturbed, then disturbed, in one wire form."""
    wire: WireForm = request.param
    folder = tmp_path_factory.mktemp(str(wire))
    plain = play_fixture(folder / "plain.sqlite", wire, disturbed=False)
    disturbed = play_fixture(folder / "disturbed.sqlite", wire, disturbed=True)
    yield plain, disturbed


# -- the classes -----------------------------------------------------------------------------


def test_a_seats_stream_depends_only_on_the_game_and_its_own_actions(
    runs: tuple[list[Seat], list[Seat]],
) -> None:
    """Spectators opening (and leaving) a Watch mid-deal and another seat breaking and
    taking its seat back change nothing, message by message, in what an untouched seat
    receives: neither an EventBatch flushed early nor a batch cut differently."""
    plain, disturbed = runs
    assert len(disturbed[RESUMED].connections) == 4  # it did break, three times
    for player in UNTOUCHED:
        (before,) = plain[player].connections
        (after,) = disturbed[player].connections
        assert before.seen[-1].HasField("match_result")
        assert [normalized(m) for m in after.seen] == [normalized(m) for m in before.seen], (
            f"player {player}: " + first_difference(before.seen, after.seen)
        )


def test_each_event_reaches_each_seat_once_across_resumes(
    runs: tuple[list[Seat], list[Seat]],
) -> None:
    """On each connection every event comes once, in seq order without a gap from the
    first it carries (a Resume restarts the deal: every event of it so far), and a
    seat's connections together carry every event of the match. The request sent again
    after a Resume carries none the Resume brought."""
    plain, disturbed = runs
    total = max(s for m in plain[0].connections[0].seen for s in event_seqs(m))
    for seats in (plain, disturbed):
        for seat in seats:
            received: set[int] = set()
            for connection in seat.connections:
                seqs = [s for m in connection.seen for s in event_seqs(m)]
                assert len(seqs) == len(set(seqs)), (
                    f"player {seat.player}: events twice on one connection: "
                    f"{sorted(s for s in set(seqs) if seqs.count(s) > 1)}"
                )
                if seqs:
                    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seat.player
                received |= set(seqs)
            assert received == set(range(1, total + 1)), f"player {seat.player}"
