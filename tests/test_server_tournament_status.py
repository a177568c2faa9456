"""A tournament the server plays says where it is (real server, 127.0.0.1, any port):
``running`` while any of its matches is scheduled or running, ``finished`` once none is
(played, failed to start or cancelled), ``aborted`` when the server shuts down before
it played them all. Its web page stops following it then."""

from __future__ import annotations

import time
from pathlib import Path

import grpc
from test_server import ADMIN, bearer
from test_server_seats import Arena, clock
from waiting import wait_for_tournament

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.server.play import PlayConfig
from arena.store import Store
from arena.web.viewer import Viewer


def status(store: Store, tournament_id: str) -> str:
    found = store.tournament(tournament_id)
    assert found is not None
    return found.status


def wait_status(store: Store, tournament_id: str, expected: str, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while (seen := status(store, tournament_id)) != expected:
        assert time.monotonic() < end, f"tournament {tournament_id}: still {seen}"
        time.sleep(0.05)


def fixture(stub: arena_pb2_grpc.AdminStub, players: list[str]) -> arena_pb2.CreateFixtureResponse:
    request = arena_pb2.CreateFixtureRequest(
        name="cup", variant="guandan", players=players, matches=1, deals=1, seed=3
    )
    response: arena_pb2.CreateFixtureResponse = stub.CreateFixture(request, metadata=bearer(ADMIN))
    return response


def test_a_tournament_of_built_in_bots_is_finished_once_its_matches_are_played(
    server: tuple[Store, Arena],
) -> None:
    store, arena = server
    toml = 'name = "house"\nbots = ["random", "first"]\nmatches = 2\ndeals = 1\n'
    with grpc.insecure_channel(arena.address) as channel:
        stub = arena_pb2_grpc.AdminStub(channel)
        created = stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(toml=toml), metadata=bearer(ADMIN)
        )
    wait_for_tournament(store, created.tournament_id, 2)
    wait_status(store, created.tournament_id, "finished")
    [row] = [t for t in Viewer(store).tournaments() if t.id == created.tournament_id]
    assert (row.status, row.planned, row.played) == ("finished", 2, 2)


def test_cancelling_a_tournament_s_last_scheduled_match_finishes_it(
    server: tuple[Store, Arena],
) -> None:
    store, arena = server
    arena.tokens("absent")  # registered, never connected: its match stays scheduled
    with grpc.insecure_channel(arena.address) as channel:
        stub = arena_pb2_grpc.AdminStub(channel)
        created = fixture(stub, ["absent", "random", "first", "random"])
        assert status(store, created.tournament_id) == "running"
        [match_id] = created.match_ids
        stub.CancelMatch(arena_pb2.CancelMatchRequest(match_id=match_id), metadata=bearer(ADMIN))
    assert status(store, created.tournament_id) == "finished"


def test_a_shutdown_before_a_tournament_is_played_aborts_it(tmp_path: Path) -> None:
    with Store.open(tmp_path / "arena.sqlite") as store:
        arena = Arena(store, PlayConfig(clock=clock(decision=20.0)))
        try:
            arena.tokens("absent")
            with grpc.insecure_channel(arena.address) as channel:
                created = fixture(
                    arena_pb2_grpc.AdminStub(channel), ["absent", "random", "first", "random"]
                )
            assert status(store, created.tournament_id) == "running"
        finally:
            arena.close()
        assert status(store, created.tournament_id) == "aborted"
