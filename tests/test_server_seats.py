"""Seats on a real server: time banks, timeouts, disconnects and resuming, leaving,
bots that stop reading, filling seats with built-in bots, limits, shutdown mid-match."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from test_server import OTHER_KEY, OWNER_KEY, ServerThread, bearer, code_of, register

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.client.runner import run_bot_async
from arena.deal_loop import action_text
from arena.replay import MatchRecord, replay_entry, start_deal
from arena.server.play import ClockConfig, PlayConfig
from arena.store import Store
from bots.simple import FirstBot

WAIT = 60.0
"""Seconds a test waits for a message before it fails (never reached when all is well)."""


class Arena(ServerThread):
    """A server with the given play settings, on its own loop in a thread."""

    def __init__(self, store: Store, play: PlayConfig, **options: Any) -> None:
        super().__init__(store, play=play, **options)

    def tokens(self, *names: str) -> list[str]:
        with grpc.insecure_channel(self.address) as channel:
            return [register(channel, name).token for name in names]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        yield store


@contextlib.contextmanager
def arena(store: Store, **play: Any) -> Iterator[Arena]:
    server = Arena(store, PlayConfig(**play))
    try:
        yield server
    finally:
        server.close()


def clock(decision: float = 5.0, bank: float = 0.0, grace: float = 10.0) -> ClockConfig:
    return ClockConfig(decision_seconds=decision, time_bank_seconds=bank, grace_seconds=grace)


class Raw:
    """A hand-driven Play stream."""

    def __init__(self, address: str, token: str) -> None:
        self.channel = grpc.aio.insecure_channel(address)
        self.call = arena_pb2_grpc.PlayStub(self.channel).Connect(metadata=bearer(token))
        self.seen: list[arena_pb2.ServerMessage] = []

    async def send(self, **body: Any) -> None:
        await self.call.write(arena_pb2.ClientMessage(**body))

    async def hello(
        self, resume: str = "", carry: bool = False, protocol: int = 1
    ) -> arena_pb2.Welcome:
        await self.send(
            hello=arena_pb2.Hello(
                protocol=protocol, resume_match_id=resume, events_in_requests=carry
            )
        )
        return (await self.until("welcome")).welcome

    async def join(self, variant: str = "guandan", **options: Any) -> None:
        await self.send(join=arena_pb2.Join(variants=[variant], **options))

    async def read(self) -> arena_pb2.ServerMessage:
        message = await asyncio.wait_for(self.call.read(), WAIT)
        assert message is not grpc.aio.EOF, "the stream ended"
        self.seen.append(message)
        return message

    async def until(self, *kinds: str) -> arena_pb2.ServerMessage:
        while True:
            message = await self.read()
            if message.WhichOneof("body") in kinds:
                return message

    async def answer(self, request: arena_pb2.DecisionRequest) -> None:
        """The first legal action: by its index in protocol 2's texts, else echoed."""
        if request.observation.legal.texts:
            reply = arena_pb2.ActionReply(request_id=request.request_id, index=0)
        else:
            first = request.observation.legal.actions[0]
            reply = arena_pb2.ActionReply(request_id=request.request_id, action=first)
        await self.send(action=reply)

    async def play_out(self) -> arena_pb2.MatchResult:
        """Answer every decision with the first legal action until the match result."""
        while True:
            message = await self.until("decision", "match_result")
            if message.HasField("match_result"):
                return message.match_result
            await self.answer(message.decision)

    async def close(self) -> None:
        self.call.cancel()
        await self.channel.close()


def fillers(arena: Arena, tokens: list[str], variant: str = "guandan") -> asyncio.Future[Any]:
    """SDK bots that play the first legal action, one match each, casual."""
    return asyncio.gather(
        *(
            run_bot_async(
                FirstBot(), arena.address, token, [variant], rated=False, matches=1, inline=True
            )
            for token in tokens
        )
    )


async def joined_with_fillers(
    arena: Arena, token: str, others: list[str]
) -> tuple[Raw, asyncio.Future[Any]]:
    """A raw casual Guandan bot that has joined, and three fillers to make up its match."""
    bot = Raw(arena.address, token)
    await bot.hello()
    await bot.join(rated=False)
    return bot, fillers(arena, others)


def assert_fled(store: Store, summaries: list[Any]) -> None:
    """The fillers' match ended because a seat fled, and the record says so."""
    result = summaries[0].results[0].result
    assert result.reason == arena_pb2.END_REASON_FORFEIT
    stored = store.match(result.match_id)
    assert stored is not None and "!fled" in str(stored.record)


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 180))


# -- time ----------------------------------------------------------------------------


def test_sf12_the_time_bank_lets_a_late_answer_through_then_shrinks(store: Store) -> None:
    with arena(store, clock=clock(decision=0.5, bank=3.0), max_deals=1) as server:
        slow, *others = server.tokens("bank-slow", "bank-1", "bank-2", "bank-3")

        async def main() -> None:
            bot, fill = await joined_with_fillers(server, slow, others)
            first = (await bot.until("decision")).decision
            assert first.decision_ms <= 500 and first.time_bank_ms == 3000
            left = first.deadline.ToNanoseconds() / 1e9 - time.time()
            assert 0 < left <= 3.5  # the absolute deadline, on the server's clock
            await asyncio.sleep(1.5)  # a second into the bank
            await bot.answer(first)
            result = (await bot.until("action_result")).action_result
            assert result.status == arena_pb2.ACTION_STATUS_ACCEPTED
            second = (await bot.until("decision")).decision
            assert 500 < second.time_bank_ms < 2500  # what was left, never refilled
            await bot.answer(second)
            await bot.play_out()
            await fill
            await bot.close()

        run(main())


def test_sf12_an_unanswered_decision_is_played_automatically_and_announced(store: Store) -> None:
    with arena(store, clock=clock(decision=0.3), max_deals=1) as server:
        idle, *others = server.tokens("auto-idle", "auto-1", "auto-2", "auto-3")

        async def main() -> None:
            bot, fill = await joined_with_fillers(server, idle, others)
            request = (await bot.until("decision")).decision
            seat = request.observation.seat
            result = (await bot.until("action_result")).action_result
            assert result.request_id == request.request_id
            assert result.status == arena_pb2.ACTION_STATUS_TIMED_OUT
            assert result.action.text == request.observation.legal.actions[0].text
            batch = (await bot.until("events")).events
            assert [(e.kind, e.seat) for e in batch.events][:1] == [("auto", seat)]
            await bot.send(
                action=arena_pb2.ActionReply(request_id=request.request_id, action=result.action)
            )
            stale = (await bot.until("action_result")).action_result
            assert stale.status == arena_pb2.ACTION_STATUS_STALE  # too late: changes nothing
            await bot.play_out()
            await fill
            await bot.close()

        run(main())


# -- disconnects ---------------------------------------------------------------------


def test_a_lost_connection_resumes_its_seat_with_the_whole_state(store: Store) -> None:
    with arena(store, clock=clock(decision=20.0, grace=20.0), max_deals=1) as server:
        mine, *others = server.tokens("res-me", "res-1", "res-2", "res-3")

        async def main() -> None:
            bot, fill = await joined_with_fillers(server, mine, others)
            assigned = (await bot.until("seat_assigned")).seat_assigned
            match_id = assigned.match.match_id
            assert assigned.match.clock.grace_ms == 20000
            request = (await bot.until("decision")).decision
            await bot.close()  # the connection breaks at the seat's decision

            again = Raw(server.address, mine)
            welcome = await again.hello(resume=match_id)
            assert list(welcome.pending_matches) == []
            resume = (await again.read()).resume
            assert resume.seat.match.match_id == match_id
            assert resume.seat.player == assigned.player
            assert resume.deal.deal == 1 and resume.deal.hand
            observation = resume.observation
            assert observation.seat == request.observation.seat
            assert list(observation.hand) == list(request.observation.hand)
            seqs = [e.seq for e in observation.events]
            assert seqs == list(range(1, len(seqs) + 1)) and seqs[-1] == observation.seq
            decision = (await again.read()).decision  # the open request again
            assert decision.request_id == request.request_id
            assert decision.decision_ms <= request.decision_ms
            await again.answer(decision)
            accepted = (await again.until("action_result")).action_result
            assert accepted.status == arena_pb2.ACTION_STATUS_ACCEPTED
            later = (await again.until("events")).events.events
            assert later[0].seq == observation.seq + 1  # no gap, no repeat
            result = await again.play_out()
            assert result.reason in (
                arena_pb2.END_REASON_COMPLETE,
                arena_pb2.END_REASON_DEAL_LIMIT,
            )
            await fill
            await again.close()

        run(main())
        stored = store.match(next(m.id for m in store.matches()))
        assert stored is not None and "!fled" not in str(stored.record)


def test_a_seat_not_taken_back_within_its_grace_period_flees(store: Store) -> None:
    with arena(store, clock=clock(decision=20.0, grace=0.3), max_deals=1) as server:
        mine, *others = server.tokens("gone-me", "gone-1", "gone-2", "gone-3")

        async def main() -> list[Any]:
            bot, fill = await joined_with_fillers(server, mine, others)
            await bot.until("decision")
            await bot.close()
            return list(await fill)

        assert_fled(store, run(main()))


def test_leave_after_the_match_ends_the_stream_with_ok(store: Store) -> None:
    with arena(store, clock=clock(), max_deals=1) as server:
        mine, *others = server.tokens("leave-me", "leave-1", "leave-2", "leave-3")

        async def main() -> None:
            bot, fill = await joined_with_fillers(server, mine, others)
            await bot.until("seat_assigned")
            await bot.send(leave=arena_pb2.Leave(now=False))
            await bot.play_out()
            assert await asyncio.wait_for(bot.call.read(), WAIT) is grpc.aio.EOF
            assert await bot.call.code() == grpc.StatusCode.OK
            await fill
            await bot.close()

        run(main())


def test_a_bot_that_stops_reading_is_cut_off_not_buffered(store: Store) -> None:
    with arena(store, clock=clock(decision=0.5, grace=0.2), send_queue_limit=8) as server:
        mute, *others = server.tokens("mute-me", "mute-1", "mute-2", "mute-3")
        options = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]

        async def main() -> list[Any]:
            channel = grpc.aio.insecure_channel(server.address, options=options)
            call = arena_pb2_grpc.PlayStub(channel).Connect(metadata=bearer(mute))
            await call.write(arena_pb2.ClientMessage(hello=arena_pb2.Hello(protocol=1)))
            await call.write(arena_pb2.ClientMessage(join=arena_pb2.Join(variants=["shengji-4"])))
            summaries = list(await fillers(server, others, "shengji-4"))  # it never reads
            await channel.close()
            return summaries

        summaries = run(main())
        result = summaries[0].results[0].result
        assert result.reason == arena_pb2.END_REASON_FORFEIT  # its seat fled
        play = server.running.play
        assert play.cut_off == 1  # its unread messages filled its queue: cut off
        assert all(c.bot != "mute-me" for c in play.connections)  # nothing of it is kept


# -- seats filled by built-in bots, limits -------------------------------------------


def test_built_in_bots_fill_the_empty_seats_after_the_wait(store: Store) -> None:
    with arena(store, clock=clock(), max_deals=1) as server:
        (mine,) = server.tokens("fill-me")

        async def main() -> tuple[arena_pb2.SeatAssigned, arena_pb2.MatchResult]:
            bot = Raw(server.address, mine)
            await bot.hello()
            await bot.join(rated=False, fill_after_ms=50, fill_bot="first")
            assigned = (await bot.until("seat_assigned")).seat_assigned
            result = await bot.play_out()
            await bot.close()
            return assigned, result

        assigned, result = run(main())
        assert sorted(assigned.match.players) == ["fill-me", "first", "first", "first"]
        assert result.deals == 1
        stored = store.match(result.match_id)
        assert stored is not None
    # the seats filled by "first" were played by it: each of their actions is the one
    # FirstBot chooses from the seat's observation (not another bot under its name)
    record = MatchRecord.from_dict(stored.record)
    game = games.make(record.game, **record.options)
    filled = 0
    for deal in record.deals:
        state = start_deal(game, deal)
        for text in deal.actions:
            seat = state.to_act
            if not text.startswith("!") and stored.seating[state.player_at(seat)] == "first":
                assert text == action_text(FirstBot().act(state.observe(seat))), text
                filled += 1
            replay_entry(state, text)
    assert filled > 10


def test_an_unknown_fill_bot_is_refused(store: Store) -> None:
    with arena(store) as server:
        (mine,) = server.tokens("fill-bad")

        async def main() -> arena_pb2.Error:
            bot = Raw(server.address, mine)
            await bot.hello()
            await bot.join(fill_after_ms=50, fill_bot="nobody")
            error = (await bot.until("error")).error
            await bot.close()
            return error

        error = run(main())
        assert error.code == "INVALID_ARGUMENT" and "'nobody'" in error.message


def test_connections_per_bot_and_messages_per_second_are_limited(store: Store) -> None:
    """A bot's second connection is refused while another bot connects; a flooding
    connection's extra messages are refused while another connection is answered: fails
    if either limit is kept for the whole server instead of per bot or per connection."""
    with arena(store, max_connections_per_bot=1, max_messages_per_second=5) as server:
        mine, other = server.tokens("lim-me", "lim-other")

        async def main() -> tuple[grpc.StatusCode, list[str], list[int]]:
            first = Raw(server.address, mine)
            await first.hello()
            second = Raw(server.address, mine)
            await second.send(hello=arena_pb2.Hello(protocol=1))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await second.read()
            neighbour = Raw(server.address, other)
            await neighbour.hello()  # another bot's first connection is let in
            for nonce in range(40):
                await first.send(ping=arena_pb2.Ping(nonce=nonce))
            errors = []
            for _ in range(40):
                message = await first.read()
                if message.HasField("error"):
                    errors.append(message.error.code)
                if message.HasField("pong") and message.pong.nonce >= 30:
                    break
                if len(errors) >= 5:
                    break
            for nonce in range(3):  # within its own rate while the first floods
                await neighbour.send(ping=arena_pb2.Ping(nonce=100 + nonce))
            answered = [(await neighbour.until("pong", "error")) for _ in range(3)]
            await first.close()
            await second.close()
            await neighbour.close()
            return refused.value.code(), errors, [m.pong.nonce for m in answered]

        code, errors, pongs = run(main())
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert errors and set(errors) == {"RESOURCE_EXHAUSTED"}
        assert pongs == [100, 101, 102]


def test_registrations_are_rate_limited_per_owner(store: Store) -> None:
    """One owner's fourth registration in a minute is refused, another owner's first is
    not: fails if the limit is kept for the whole server."""
    server = Arena(store, PlayConfig(), registrations_per_minute=3)
    try:
        with grpc.insecure_channel(server.address) as channel:
            for n in range(3):
                register(channel, f"reg-{n}")
            code, details = code_of(lambda: register(channel, "reg-3"))
            assert register(channel, "reg-grace", OTHER_KEY).token
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "a minute" in details
        assert store.bot("reg-3") is None and store.bot("reg-grace") is not None
    finally:
        server.close()


def test_a_garbled_message_fails_the_call_and_the_server_goes_on(store: Store) -> None:
    with arena(store) as server:
        (mine,) = server.tokens("garble")
        with grpc.insecure_channel(server.address) as channel:
            connect = channel.stream_stream(
                "/arena.v1.Play/Connect",
                request_serializer=lambda raw: raw,
                response_deserializer=arena_pb2.ServerMessage.FromString,
            )
            responses = connect(iter([b"\xff\xff\xff garbage"]), metadata=bearer(mine))
            with pytest.raises(grpc.RpcError) as info:
                list(responses)
            assert info.value.code() != grpc.StatusCode.OK  # type: ignore[attr-defined]
            health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
            assert health.status == health_pb2.HealthCheckResponse.SERVING


# -- shutdown --------------------------------------------------------------------------


def test_shutdown_mid_match_drains_then_stores_the_match_as_cut_short(store: Store) -> None:
    server = Arena(store, PlayConfig(clock=clock(decision=30.0)))
    try:
        idle, *others = server.tokens("down-idle", "down-1", "down-2", "down-3")

        async def main() -> tuple[list[arena_pb2.ServerMessage], list[Any]]:
            bot = Raw(server.address, idle)
            await bot.hello()
            await bot.join(rated=False)
            fill = asyncio.gather(
                *(
                    run_bot_async(
                        FirstBot(),
                        server.address,
                        t,
                        ["guandan"],
                        rated=False,
                        matches=1,
                        inline=True,
                        max_retries=0,
                    )
                    for t in others
                ),
                return_exceptions=True,
            )
            await bot.until("decision")  # the match now waits for this bot
            stopping = asyncio.wrap_future(
                asyncio.run_coroutine_threadsafe(
                    server.running.stop(grace=1.0, drain=0.5), server.loop
                )
            )
            draining = await bot.until("draining")
            result = await bot.until("match_result")
            await stopping
            await bot.close()
            return [draining, result], list(await fill)

        (draining, result), _ = run(main())
        assert "shutting down" in draining.draining.reason
        match = result.match_result
        assert match.reason == arena_pb2.END_REASON_SHUTDOWN and not match.rated
        stored = store.match(match.match_id)
        assert stored is not None and stored.outcome["aborted"] == "shutdown"
    finally:
        server.loop.call_soon_threadsafe(server.loop.stop)
        server.thread.join(5)
        server.loop.close()


def test_a_draining_server_seats_nobody_new(store: Store) -> None:
    with arena(store) as server:
        (mine,) = server.tokens("late-comer")
        server.run(server.running.play.drain("maintenance", 0.0))

        async def main() -> grpc.StatusCode:
            bot = Raw(server.address, mine)
            await bot.send(hello=arena_pb2.Hello(protocol=1))
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await bot.read()
            await bot.close()
            return refused.value.code()

        assert run(main()) == grpc.StatusCode.UNAVAILABLE


def test_revoking_a_token_closes_its_connections(store: Store) -> None:
    with arena(store) as server:
        (mine,) = server.tokens("revoked-me")

        async def main() -> tuple[grpc.StatusCode, str]:
            bot = Raw(server.address, mine)
            await bot.hello()
            await bot.join()
            async with grpc.aio.insecure_channel(server.address) as channel:
                await arena_pb2_grpc.RegistryStub(channel).RevokeToken(
                    arena_pb2.RevokeTokenRequest(bot_id="revoked-me"), metadata=bearer(OWNER_KEY)
                )
            with pytest.raises(grpc.aio.AioRpcError) as closed:
                while True:
                    await bot.read()
            await bot.close()
            return closed.value.code(), closed.value.details() or ""

        code, details = run(main())
        assert code == grpc.StatusCode.UNAUTHENTICATED and "revoked" in details


def test_timeouts_illegal_answers_and_forfeits_are_counted_and_logged(store: Store) -> None:
    from structlog.testing import capture_logs

    from arena.metrics import REGISTRY

    def value(name: str, bot: str) -> float:
        sample = REGISTRY.get_sample_value(name, {"variant": "guandan", "bot": bot})
        return sample or 0.0

    with arena(store, clock=clock(decision=0.3, grace=0.2), max_deals=1) as server:
        tokens = server.tokens("obs-idle", "obs-1", "obs-2", "obs-3")

        async def main() -> None:
            bot, fill = await joined_with_fillers(server, tokens[0], tokens[1:])
            request = (await bot.until("decision")).decision
            bad = arena_pb2.Action(text="play BJ BJ BJ BJ BJ BJ BJ")
            await bot.send(action=arena_pb2.ActionReply(request_id=request.request_id, action=bad))
            illegal = (await bot.until("action_result")).action_result
            assert illegal.status == arena_pb2.ACTION_STATUS_ILLEGAL  # then the time runs out
            timed_out = (await bot.until("action_result")).action_result
            assert timed_out.status == arena_pb2.ACTION_STATUS_TIMED_OUT
            await bot.close()  # and never comes back: fled
            await fill

        with capture_logs() as logs:
            run(main())
    # each count in the series of the bot it happened to, as many as the stored match
    # keeps: fails if a count goes to another seat's bot, to every bot, or is not the
    # number that happened
    [stored] = [m for m in store.matches() if "obs-idle" in m.seating]
    timeouts = dict(zip(stored.seating, stored.outcome["conduct"]["timeouts"], strict=True))
    assert timeouts["obs-idle"] >= 1
    for name in ("obs-idle", "obs-1", "obs-2", "obs-3"):
        idle = name == "obs-idle"
        assert value("arena_decision_timeouts_total", name) == timeouts[name], name
        assert value("arena_illegal_actions_total", name) == (1 if idle else 0), name
        assert value("arena_forfeits_total", name) == (1 if idle else 0), name
    assert value("arena_decision_seconds_count", "obs-1") >= 1
    events = [(e["event"], e.get("bot")) for e in logs]
    assert ("illegal_action", "obs-idle") in events
    assert ("decision_timeout", "obs-idle") in events
    assert ("forfeit", "obs-idle") in events
    assert sum(1 for e, _ in events if e == "match_finished") == 1
    started = next(e for e in logs if e["event"] == "match_started")
    assert started["variant"] == "guandan" and "obs-idle" in started["players"]


def test_leave_now_flees_the_seat_at_once(store: Store) -> None:
    with arena(store, clock=clock(decision=20.0), max_deals=1) as server:
        mine, *others = server.tokens("flee-me", "flee-1", "flee-2", "flee-3")

        async def main() -> list[Any]:
            bot, fill = await joined_with_fillers(server, mine, others)
            await bot.until("decision")
            await bot.send(leave=arena_pb2.Leave(now=True))
            while await asyncio.wait_for(bot.call.read(), WAIT) is not grpc.aio.EOF:
                pass
            assert await bot.call.code() == grpc.StatusCode.OK
            await bot.close()
            return list(await fill)

        assert_fled(store, run(main()))


def test_events_come_inside_the_decision_requests_when_asked(store: Store) -> None:
    with arena(store, clock=clock(), max_deals=1) as server:
        mine, *others = server.tokens("carry-me", "carry-1", "carry-2", "carry-3")

        async def main() -> list[arena_pb2.ServerMessage]:
            bot = Raw(server.address, mine)
            await bot.hello(carry=True)
            await bot.join(rated=False)
            fill = fillers(server, others)
            await bot.play_out()
            await fill
            await bot.close()
            return bot.seen

        seen = run(main())
    seqs: list[int] = []
    for message in seen:
        if message.HasField("decision"):
            carried = [e.seq for e in message.decision.observation.events]
            seqs += carried
            assert seqs == list(range(1, len(seqs) + 1))  # no gap, no repeat
            assert not seqs or seqs[-1] == message.decision.observation.seq
        elif message.HasField("events"):
            seqs += [e.seq for e in message.events.events]
            assert seqs == list(range(1, len(seqs) + 1))
    kinds = [m.WhichOneof("body") for m in seen]
    first_decision = kinds.index("decision")
    assert "events" not in kinds[:first_decision]  # the deal's first events came inside it
    assert seen[first_decision].decision.observation.events
