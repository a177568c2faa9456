"""Operators on a real server: fixtures, tournaments, cancelling, listing; live
spectating; TLS."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from stores import on_both_servers
from test_server import ADMIN, OWNER_KEY, bearer, code_of, register
from test_server_seats import Arena, Raw, run
from waiting import wait_for_tournament

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.server.app import TlsFiles, start_server
from arena.server.auth import parse_owner_keys
from arena.store import Store


def admin(arena: Arena) -> tuple[grpc.Channel, arena_pb2_grpc.AdminStub]:
    channel = grpc.insecure_channel(arena.address)
    return channel, arena_pb2_grpc.AdminStub(channel)


def wait_stored(store: Store, match_ids: list[str], seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while any(store.match(m) is None for m in match_ids):
        assert time.monotonic() < end, f"not stored: {match_ids}"
        time.sleep(0.05)


@on_both_servers
def test_a_fixture_seats_the_named_bots_and_is_stored_as_a_tournament(
    server: tuple[Store, Arena],
) -> None:
    store, arena = server
    (token,) = arena.tokens("fix-me")
    channel, stub = admin(arena)
    with channel:
        created = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="cup",
                variant="guandan",
                players=["fix-me", "random", "first", "random"],
                matches=1,
                deals=1,
                seed=7,
                paired=True,
            ),
            metadata=bearer(ADMIN),
        )
        assert len(created.match_ids) == 2 and created.tournament_id.startswith("cup-")
        listed = stub.ListMatches(
            arena_pb2.ListMatchesRequest(tournament_id=created.tournament_id),
            metadata=bearer(ADMIN),
        )
        assert {m.status for m in listed.matches} == {arena_pb2.MATCH_STATUS_SCHEDULED}

        async def play() -> list[str]:
            bot = Raw(arena.address, token)
            await bot.hello()
            await bot.join(variant="guandan")  # casual: a fixture seats it all the same
            played = []
            for _ in range(2):
                assigned = (await bot.until("seat_assigned")).seat_assigned
                played.append(assigned.match.match_id)
                assert assigned.match.tournament_id == created.tournament_id
                await bot.play_out()
            await bot.close()
            return played

        assert sorted(run(play())) == sorted(created.match_ids)
        wait_stored(store, list(created.match_ids))
        first, second = (store.match(m) for m in created.match_ids)
        assert first is not None and second is not None
        assert first.seed == second.seed  # paired: the same cards, partnerships swapped
        assert first.seating == ("fix-me", "random", "first", "random")
        assert second.seating == ("random", "fix-me", "random", "first")
        assert first.tournament_id == created.tournament_id

        code, details = code_of(
            lambda: stub.CreateFixture(
                arena_pb2.CreateFixtureRequest(
                    name="cup", variant="guandan", players=["nobody", "random", "random", "random"]
                ),
                metadata=bearer(ADMIN),
            )
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "'nobody'" in details
        code, details = code_of(
            lambda: stub.CreateFixture(
                arena_pb2.CreateFixtureRequest(name="x", variant="chess", players=["random"] * 4),
                metadata=bearer(ADMIN),
            )
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "chess" in details


@on_both_servers
def test_a_tournament_of_built_in_bots_is_played_and_stored(server: tuple[Store, Arena]) -> None:
    store, arena = server
    channel, stub = admin(arena)
    toml = (
        'name = "house"\nvariant = "shengji-1"\nbots = ["random", "first"]\n'
        "matches = 2\ndeals = 1\n"
    )
    with channel:
        created = stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(toml=toml), metadata=bearer(ADMIN)
        )
        assert created.matches == 2
        wait_for_tournament(store, created.tournament_id, 2)
        code, details = code_of(
            lambda: stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(toml=toml), metadata=bearer(ADMIN)
            )
        )
        assert code == grpc.StatusCode.ALREADY_EXISTS
        code, details = code_of(
            lambda: stub.CreateTournament(
                arena_pb2.CreateTournamentRequest(toml="name = [broken"), metadata=bearer(ADMIN)
            )
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT and "TOML" in details


@on_both_servers
def test_cancel_a_scheduled_and_a_running_match(server: tuple[Store, Arena]) -> None:
    store, arena = server
    (_, idle) = arena.tokens("cancel-absent", "cancel-idle")
    channel, stub = admin(arena)
    with channel:
        waiting = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="never",
                variant="guandan",
                players=["cancel-absent", "random", "random", "random"],
            ),
            metadata=bearer(ADMIN),
        )
        cancelled = stub.CancelMatch(
            arena_pb2.CancelMatchRequest(match_id=waiting.match_ids[0], reason="no show"),
            metadata=bearer(ADMIN),
        )
        assert cancelled.match.status == arena_pb2.MATCH_STATUS_CANCELLED
        assert cancelled.match.end_reason == arena_pb2.END_REASON_CANCELLED
        for statuses in ([], [arena_pb2.MATCH_STATUS_CANCELLED]):
            (listed,) = stub.ListMatches(
                arena_pb2.ListMatchesRequest(
                    tournament_id=waiting.tournament_id, statuses=statuses
                ),
                metadata=bearer(ADMIN),
            ).matches
            assert listed.info.match_id == waiting.match_ids[0]
            assert (listed.status, listed.deals) == (arena_pb2.MATCH_STATUS_CANCELLED, 0)
        assert not stub.ListMatches(
            arena_pb2.ListMatchesRequest(
                tournament_id=waiting.tournament_id, statuses=[arena_pb2.MATCH_STATUS_FINISHED]
            ),
            metadata=bearer(ADMIN),
        ).matches
        unplayed = store.match(waiting.match_ids[0])
        assert unplayed is not None and unplayed.deals == 0
        assert unplayed.outcome["aborted"] == "cancelled"
        assert unplayed.outcome["reason"] == "no show"
        code, details = code_of(
            lambda: stub.CancelMatch(
                arena_pb2.CancelMatchRequest(match_id=waiting.match_ids[0]),
                metadata=bearer(ADMIN),
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION and "cancelled already" in details
        watched = list(
            arena_pb2_grpc.SpectateStub(channel).Watch(
                arena_pb2.WatchRequest(match_id=waiting.match_ids[0])
            )
        )
        assert [m.WhichOneof("body") for m in watched] == ["match", "match_result"]
        assert watched[-1].match_result.reason == arena_pb2.END_REASON_CANCELLED

        running = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="stuck",
                variant="guandan",
                players=["cancel-idle", "random", "random", "random"],
            ),
            metadata=bearer(ADMIN),
        )
        match_id = running.match_ids[0]

        async def main() -> arena_pb2.MatchResult:
            bot = Raw(arena.address, idle)
            await bot.hello()
            await bot.join()
            await bot.until("decision")  # and never answers
            response = await asyncio.to_thread(
                stub.CancelMatch,
                arena_pb2.CancelMatchRequest(match_id=match_id, reason="stuck"),
                metadata=bearer(ADMIN),
            )
            assert response.match.status == arena_pb2.MATCH_STATUS_CANCELLED
            result = (await bot.until("match_result")).match_result
            await bot.close()
            return result

        result = run(main())
        assert result.reason == arena_pb2.END_REASON_CANCELLED
        stored = store.match(match_id)
        assert stored is not None and stored.outcome["aborted"] == "cancelled"
        watched = list(
            arena_pb2_grpc.SpectateStub(channel).Watch(arena_pb2.WatchRequest(match_id=match_id))
        )
        assert watched[-1].match_result.reason == arena_pb2.END_REASON_CANCELLED
        (listed,) = stub.ListMatches(
            arena_pb2.ListMatchesRequest(tournament_id=running.tournament_id),
            metadata=bearer(ADMIN),
        ).matches
        assert listed.status == arena_pb2.MATCH_STATUS_CANCELLED
        code, _ = code_of(
            lambda: stub.CancelMatch(
                arena_pb2.CancelMatchRequest(match_id=match_id), metadata=bearer(ADMIN)
            )
        )
        assert code == grpc.StatusCode.FAILED_PRECONDITION


def test_a_running_match_is_watched_live_with_public_messages_only(
    server: tuple[Store, Arena],
) -> None:
    _, arena = server
    (token,) = arena.tokens("watched")

    async def main() -> list[arena_pb2.WatchMessage]:
        bot = Raw(arena.address, token)
        await bot.hello()
        await bot.join(rated=False, fill_after_ms=10, fill_bot="random")
        match_id = (await bot.until("seat_assigned")).seat_assigned.match.match_id
        request = (await bot.until("decision")).decision  # the match waits for it
        async with grpc.aio.insecure_channel(arena.address) as channel:
            watch = arena_pb2_grpc.SpectateStub(channel).Watch(
                arena_pb2.WatchRequest(match_id=match_id)
            )
            seen = [await watch.read()]
            while not any(m.HasField("events") for m in seen):
                seen.append(await watch.read())
            await bot.answer(request)
            play = asyncio.create_task(bot.play_out())
            while (message := await watch.read()) is not grpc.aio.EOF:
                seen.append(message)
            await play
        await bot.close()
        return seen

    messages = run(main())
    kinds = [m.WhichOneof("body") for m in messages]
    assert kinds[0] == "match" and kinds[-1] == "match_result"
    assert not messages[0].live and messages[-1].live
    assert any(m.live and m.HasField("events") for m in messages)
    for message in messages:
        if message.HasField("deal_started"):
            assert not message.deal_started.hand and not message.deal_started.HasField("seat")
    seqs = [e.seq for m in messages if m.HasField("events") for e in m.events.events]
    assert seqs == list(range(1, len(seqs) + 1))


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1 and its key, made by openssl in ``folder``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_tls_with_certificate_files(tmp_path: Path) -> None:
    cert, key = self_signed_certificate(tmp_path)

    async def main() -> tuple[int, grpc.StatusCode]:
        with Store.open(tmp_path / "arena.sqlite") as store:
            running = await start_server(
                store,
                port=0,
                owner_keys=parse_owner_keys(f"ada {OWNER_KEY}\n"),
                tls=TlsFiles(str(cert), str(key)),
            )
            try:
                credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
                async with grpc.aio.secure_channel(f"127.0.0.1:{running.port}", credentials) as ch:
                    answer = await health_pb2_grpc.HealthStub(ch).Check(
                        health_pb2.HealthCheckRequest()
                    )
                async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as plain:
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await health_pb2_grpc.HealthStub(plain).Check(
                            health_pb2.HealthCheckRequest(), timeout=5
                        )
            finally:
                await running.stop(0, drain=0)
        return answer.status, refused.value.code()

    status, code = asyncio.run(main())
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert code == grpc.StatusCode.UNAVAILABLE


def test_tls_files_that_cannot_be_read_are_named(tmp_path: Path) -> None:
    with pytest.raises(OSError, match=r"missing\.pem"):
        TlsFiles(str(tmp_path / "missing.pem"), str(tmp_path / "key.pem")).credentials()


def test_registered_bots_are_known_to_fixtures(server: tuple[Store, Arena]) -> None:
    _, arena = server
    with grpc.insecure_channel(arena.address) as channel:
        register(channel, "known-bot")
    channel, stub = admin(arena)
    with channel:
        created = stub.CreateFixture(
            arena_pb2.CreateFixtureRequest(
                name="k", variant="sanfu", players=["known-bot", "random", "random", "random"]
            ),
            metadata=bearer(ADMIN),
        )
        assert len(created.match_ids) == 1
