"""What Registry, Play and Admin promise, on a real server: revocations count the
connections they close, a bot plays only the games it registered for (Welcome, Join,
fixtures, tournaments), an operator's reason for cancelling reaches the seats and the
store, and a match of built-in bots alone can be cancelled."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import grpc
import pytest
from stores import on_both_servers
from test_contract import stored_match
from test_server import ADMIN, OWNER_KEY, bearer, code_of
from test_server_admin import admin, wait_stored
from test_server_seats import Arena, Raw, run

from arena import games
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.store import RatingUpdate, Store


def register(arena: Arena, name: str, *games_: str) -> arena_pb2.RegisterResponse:
    with grpc.insecure_channel(arena.address) as channel:
        response: arena_pb2.RegisterResponse = arena_pb2_grpc.RegistryStub(channel).Register(
            arena_pb2.RegisterRequest(name=name, games=list(games_)), metadata=bearer(OWNER_KEY)
        )
        return response


# -- revoking ------------------------------------------------------------------------


@on_both_servers
def test_a_revocation_counts_the_connections_it_closes(server: tuple[Store, Arena]) -> None:
    _, arena = server
    first = register(arena, "revoked")
    second = register(arena, "revoked")

    async def main() -> list[arena_pb2.RevokeTokenResponse]:
        bots = [Raw(arena.address, t) for t in (first.token, first.token, second.token)]
        for bot in bots:
            await bot.hello()
        channel = grpc.aio.insecure_channel(arena.address)
        registry = arena_pb2_grpc.RegistryStub(channel)
        by_token: arena_pb2.RevokeTokenResponse = await registry.RevokeToken(
            arena_pb2.RevokeTokenRequest(token_id=first.token_id), metadata=bearer(OWNER_KEY)
        )
        by_bot: arena_pb2.RevokeTokenResponse = await arena_pb2_grpc.AdminStub(channel).RevokeToken(
            arena_pb2.RevokeTokenRequest(bot_id="revoked"), metadata=bearer(ADMIN)
        )
        again: arena_pb2.RevokeTokenResponse = await registry.RevokeToken(
            arena_pb2.RevokeTokenRequest(bot_id="revoked"), metadata=bearer(OWNER_KEY)
        )
        for bot in bots:
            with pytest.raises(grpc.aio.AioRpcError) as info:
                await bot.until("never")
            assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED
            await bot.close()
        await channel.close()
        return [by_token, by_bot, again]

    by_token, by_bot, again = run(main())
    assert (by_token.revoked, by_token.connections_closed) == (1, 2)
    assert (by_bot.revoked, by_bot.connections_closed) == (1, 1)
    assert (again.revoked, again.connections_closed) == (0, 0)


# -- the games a bot registered for --------------------------------------------------


@on_both_servers
def test_registration_names_only_variants_the_server_offers(server: tuple[Store, Arena]) -> None:
    store, arena = server
    with grpc.insecure_channel(arena.address) as channel:
        code, details = code_of(
            lambda: arena_pb2_grpc.RegistryStub(channel).Register(
                arena_pb2.RegisterRequest(name="chess-bot", games=["guandan", "chess"]),
                metadata=bearer(OWNER_KEY),
            )
        )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "'chess'" in details and "guandan" in details
    assert store.bot("chess-bot") is None
    register(arena, "mixed", "sanfu", "guandan", "sanfu")
    bot = store.bot("mixed")
    assert bot is not None and bot.games == ("sanfu", "guandan")
    register(arena, "mixed")  # registered again without games: every variant
    bot = store.bot("mixed")
    assert bot is not None and bot.games is None


def test_a_bot_joins_only_the_games_it_registered_for(server: tuple[Store, Arena]) -> None:
    _, arena = server
    limited = register(arena, "limited", "sanfu", "guandan").token
    everything = register(arena, "everything").token

    async def main() -> tuple[list[arena_pb2.Welcome], list[arena_pb2.ServerMessage]]:
        bots = [Raw(arena.address, limited), Raw(arena.address, everything)]
        welcomes = [await bot.hello() for bot in bots]
        answers = []
        for variants in (["shengji-2"], ["guandan", "shengji-1"], ["chess"], [], ["sanfu"]):
            await bots[0].send(join=arena_pb2.Join(variants=variants))
            answers.append(await bots[0].until("error", "joined"))
        for bot in bots:
            await bot.close()
        return welcomes, answers

    (mine, theirs), answers = run(main())
    assert list(mine.variants) == ["guandan", "sanfu"]  # in the server's order
    assert list(theirs.variants) == games.names()
    not_registered, one_not_registered, unknown, every, sanfu = answers
    for answer, variant in (
        (not_registered, "'shengji-2'"),
        (one_not_registered, "'shengji-1'"),
    ):
        assert answer.error.code == "INVALID_ARGUMENT"
        assert variant in answer.error.message
        assert "registered for: guandan, sanfu" in answer.error.message
    assert unknown.error.code == "INVALID_ARGUMENT" and "'chess'" in unknown.error.message
    assert list(every.joined.variants) == ["guandan", "sanfu"]
    assert list(sanfu.joined.variants) == ["sanfu"]


def test_fixtures_and_tournaments_seat_a_bot_only_in_its_games(
    server: tuple[Store, Arena],
) -> None:
    _, arena = server
    register(arena, "guandan-only", "guandan")
    channel, stub = admin(arena)
    with channel:
        code, details = code_of(
            lambda: stub.CreateFixture(
                arena_pb2.CreateFixtureRequest(
                    name="f",
                    variant="sanfu",
                    players=["guandan-only", "random", "random", "random"],
                ),
                metadata=bearer(ADMIN),
            )
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert "'guandan-only'" in details and "'sanfu'" in details and "guandan" in details
        toml = (
            'name = "t"\nvariant = "shengji-1"\nteams = [["guandan-only", "random"], '
            '["first", "first"]]\n'
        )
        code, details = code_of(
            lambda: stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(toml=toml), metadata=bearer(ADMIN)
            )
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "'guandan-only'" in details
        created = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="f", variant="guandan", players=["guandan-only", "random", "random", "random"]
            ),
            metadata=bearer(ADMIN),
        )
        assert len(created.match_ids) == 1


# -- cancelling ----------------------------------------------------------------------


@on_both_servers
def test_a_match_of_built_in_bots_alone_is_cancelled_with_its_reason(
    server: tuple[Store, Arena],
) -> None:
    """Search bots take tenths of a second a decision: the match is still being played
    when the cancellation comes (random bots play a whole match in a few milliseconds)."""
    store, arena = server
    channel, stub = admin(arena)
    with channel:
        created = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="long", variant="guandan", players=["search"] * 4, seed=1
            ),
            metadata=bearer(ADMIN),
        )
        [match_id] = created.match_ids
        end = time.monotonic() + 60
        while match_id not in arena.running.play.sessions:
            assert time.monotonic() < end, "the fixture never started"
            time.sleep(0.01)
        watch = arena_pb2_grpc.SpectateStub(channel).Watch(
            arena_pb2.WatchRequest(match_id=match_id)
        )
        cancelled = stub.CancelMatch(
            arena_pb2.CancelMatchRequest(match_id=match_id, reason="room needed"),
            metadata=bearer(ADMIN),
        )
        assert cancelled.match.status == arena_pb2.MATCH_STATUS_CANCELLED
        ends = [m.match_result for m in watch if m.HasField("match_result")]
    wait_stored(store, [match_id])
    stored = store.match(match_id)
    assert stored is not None
    assert stored.outcome["aborted"] == "cancelled"
    assert stored.outcome["reason"] == "room needed"
    [live] = ends
    assert live.reason == arena_pb2.END_REASON_CANCELLED
    assert live.summary.endswith(": room needed")


def test_a_cancellation_after_the_last_decision_says_the_match_was_played(
    server: tuple[Store, Arena], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cancellation that reaches a match between its last decision and its storing
    changes nothing: the match is stored as played, and the operator is told so rather
    than "cancelled"."""
    from arena.server import session as sessions

    played = sessions.play_match_async
    played_out = threading.Event()

    async def then_wait_for_the_cancellation(*args: Any, **kwargs: Any) -> Any:
        result = await played(*args, **kwargs)
        played_out.set()
        session = kwargs["on_event"].__self__
        end = time.monotonic() + 30
        while session._stopped() is None and time.monotonic() < end:
            await asyncio.sleep(0.005)
        return result

    monkeypatch.setattr(sessions, "play_match_async", then_wait_for_the_cancellation)
    store, arena = server
    channel, stub = admin(arena)
    with channel:
        created = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="short", variant="guandan", players=["random"] * 4, seed=2
            ),
            metadata=bearer(ADMIN),
        )
        [match_id] = created.match_ids
        assert played_out.wait(60), "the fixture was never played"
        code, details = code_of(
            lambda: stub.CancelMatch(
                arena_pb2.CancelMatchRequest(match_id=match_id, reason="too late"),
                metadata=bearer(ADMIN),
            )
        )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "finished its play before the cancellation reached it" in details
    stored = store.match(match_id)
    assert stored is not None and stored.outcome.get("aborted") is None


def test_the_reason_reaches_a_seated_bot(server: tuple[Store, Arena]) -> None:
    _, arena = server
    token = register(arena, "seated").token

    async def main() -> arena_pb2.MatchResult:
        bot = Raw(arena.address, token)
        await bot.hello()
        await bot.join(fill_after_ms=1)
        assigned = (await bot.until("seat_assigned")).seat_assigned
        channel = grpc.aio.insecure_channel(arena.address)
        await arena_pb2_grpc.AdminStub(channel).CancelMatch(
            arena_pb2.CancelMatchRequest(match_id=assigned.match.match_id, reason="maintenance"),
            metadata=bearer(ADMIN),
        )
        result = (await bot.until("match_result")).match_result
        await channel.close()
        await bot.close()
        return result

    result = run(asyncio.wait_for(main(), 60))
    assert result.reason == arena_pb2.END_REASON_CANCELLED
    assert result.summary.endswith(": maintenance")


# -- what an owner says of its bot ---------------------------------------------------


@on_both_servers
def test_a_registrations_description_owner_and_version_are_shown_on_the_leaderboard(
    server: tuple[Store, Arena],
) -> None:
    """RegisterRequest: the owner's display name and the description are "shown on the
    leaderboard"; registering again replaces them."""
    store, arena = server
    with grpc.insecure_channel(arena.address) as channel:
        registry = arena_pb2_grpc.RegistryStub(channel)
        for description in ("plays the lowest card", "now with bombs"):
            registry.Register(
                arena_pb2.RegisterRequest(
                    name="shown", owner="Ada", version="2.1", description=description
                ),
                metadata=bearer(OWNER_KEY),
            )
        store.add_match(stored_match("shown-1"), [RatingUpdate("shown", "guandan", "elo", 1510)])
        board = arena_pb2_grpc.LeaderboardStub(channel)
        [entry] = board.GetRatings(arena_pb2.GetRatingsRequest(variant="guandan")).ratings
    assert (entry.bot, entry.description, entry.owner, entry.version) == (
        "shown",
        "now with bombs",
        "Ada",
        "2.1",
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", "x" * 201),
        ("description", "two\nlines"),
        ("owner", "o" * 65),
        ("owner", "tab\there"),
        ("version", "v" * 65),
        ("version", "1.0\x00"),
    ],
)
def test_a_registrations_free_text_is_one_bounded_line(
    server: tuple[Store, Arena], field: str, value: str
) -> None:
    store, arena = server
    with grpc.insecure_channel(arena.address) as channel:
        request = arena_pb2.RegisterRequest(name="texts", **{field: value})
        code, details = code_of(
            lambda: arena_pb2_grpc.RegistryStub(channel).Register(
                request, metadata=bearer(OWNER_KEY)
            )
        )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details.startswith(field)
    assert store.bot("texts") is None  # nothing stored
