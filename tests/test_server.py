"""The gRPC server: a real server on 127.0.0.1 (any free port), called over a channel."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from stores import on_sqlite_only

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.errors import ArenaError
from arena.server.app import ARENA_SERVICES, RunningServer, start_server
from arena.server.auth import hash_secret, parse_owner_keys
from arena.store import APPLICATION_ID, RatingUpdate, Store, StoredMatch
from arena.store.legacy import SCHEMA_V1

OWNER_KEY = "ok_ada_secret"
OTHER_KEY = "ok_grace_secret"
ADMIN = "admin-secret"
T = TypeVar("T")
RECORD = {"format": "arena-record/1", "game": "guandan", "deals": [], "seed": 2**63 - 1}


def bearer(token: str) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {token}"),)


class ServerThread:
    """A server on its own event loop in a background thread, on 127.0.0.1 (any free
    port), owners ``ada`` and ``grace``, the admin token :data:`ADMIN`; ``options`` go to
    :func:`start_server` (``play=``, ``metrics_port=`` …)."""

    def __init__(self, store: Store, **options: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        keys = parse_owner_keys(f"ada {OWNER_KEY}\ngrace sha256:{hash_secret(OTHER_KEY)}\n")
        self.running: RunningServer = self.run(
            start_server(store, port=0, owner_keys=keys, admin_tokens=[ADMIN], **options)
        )
        self.port = self.running.port
        self.address = f"127.0.0.1:{self.port}"

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(10)

    def close(self) -> None:
        self.run(self.running.stop(0, drain=0))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture(scope="module")
def store(module_store_target: str) -> Iterator[Store]:
    """The server's store: on SQLite, then on PostgreSQL."""
    with Store.open(module_store_target) as store:
        store.add_bot("random", "builtin")
        store.add_match(
            StoredMatch(
                id="m-1",
                tournament_id=None,
                variant="guandan",
                options={"a_fail_limit": 3},
                seed=RECORD["seed"],  # type: ignore[arg-type]
                seating=("random", "random", "random", "random"),
                outcome={"winner": 1, "totals": [-2, 2, -2, 2], "team_score": 0.0},
                record=RECORD,
                deals=1,
                decisions=40,
            ),
            [RatingUpdate("random", "guandan", "elo", 1500.0)],
        )
        yield store


@pytest.fixture(scope="module")
def channel(store: Store) -> Iterator[grpc.Channel]:
    server = ServerThread(store)
    with grpc.insecure_channel(f"127.0.0.1:{server.running.port}") as channel:
        yield channel
    server.close()


def register(channel: grpc.Channel, name: str, key: str = OWNER_KEY) -> arena_pb2.RegisterResponse:
    stub = arena_pb2_grpc.RegistryStub(channel)
    response: arena_pb2.RegisterResponse = stub.Register(
        arena_pb2.RegisterRequest(name=name, owner="Ada", version="1.0"), metadata=bearer(key)
    )
    return response


def code_of(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()  # type: ignore[operator]
    error = info.value
    return error.code(), error.details()  # type: ignore[attr-defined]


# -- tokens and the store ----------------------------------------------------------


def test_v1_store_is_migrated_to_tokens(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    for statement in SCHEMA_V1:
        conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with Store.open(path) as store:
        store.add_bot("b", "remote", "ada")
        token = store.add_token("tok-1", "b", hash_secret("s"))
        assert store.token(hash=hash_secret("s")) == token
        assert store.revoke_tokens(bot="b") == 1
        assert store.revoke_tokens(token_id="tok-1") == 0
        assert store.tokens("b")[0].revoked


def test_owner_keys_file_errors() -> None:
    assert parse_owner_keys("# c\n\nada k1\nada k2\n") == {
        hash_secret("k1"): "ada",
        hash_secret("k2"): "ada",
    }
    with pytest.raises(ArenaError, match="line 1"):
        parse_owner_keys("ada")
    with pytest.raises(ArenaError, match="SHA-256"):
        parse_owner_keys("ada sha256:xyz")


# -- Registry ------------------------------------------------------------------------


def test_register_with_owner_key_issues_token(channel: grpc.Channel, store: Store) -> None:
    response = register(channel, "my-bot")
    assert response.created and response.bot_id == "my-bot" and response.token
    token = store.token(token_id=response.token_id)
    assert token is not None and token.bot == "my-bot"
    assert token.hash == hash_secret(response.token)  # only the hash is kept
    again = register(channel, "my-bot")
    assert not again.created and again.token != response.token


def test_register_rejects_wrong_or_missing_key(channel: grpc.Channel) -> None:
    code, details = code_of(lambda: register(channel, "x-bot", key="not-a-key"))
    assert code == grpc.StatusCode.UNAUTHENTICATED
    assert details == "wrong owner key: no owner key of this server matches"
    stub = arena_pb2_grpc.RegistryStub(channel)
    code, details = code_of(lambda: stub.Register(arena_pb2.RegisterRequest(name="x")))
    assert code == grpc.StatusCode.UNAUTHENTICATED and "missing token" in details
    code, details = code_of(
        lambda: stub.Register(
            arena_pb2.RegisterRequest(name="x"), metadata=(("authorization", "Basic abc"),)
        )
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED and "Bearer" in details


def test_register_checks_names_and_owners(channel: grpc.Channel) -> None:
    register(channel, "ada-bot")
    code, _ = code_of(lambda: register(channel, "ada-bot", key=OTHER_KEY))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    code, _ = code_of(lambda: register(channel, "random"))
    assert code == grpc.StatusCode.ALREADY_EXISTS
    code, details = code_of(lambda: register(channel, "bad name!"))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "bad bot name" in details


def test_bot_token_is_wrong_kind_for_registry(channel: grpc.Channel) -> None:
    token = register(channel, "kind-bot").token
    code, details = code_of(lambda: register(channel, "y", key=token))
    assert code == grpc.StatusCode.PERMISSION_DENIED and "wrong kind" in details


def test_revoked_token_is_unauthenticated(channel: grpc.Channel) -> None:
    issued = register(channel, "rev-bot")
    registry = arena_pb2_grpc.RegistryStub(channel)
    # Another owner may not revoke it.
    code, _ = code_of(
        lambda: registry.RevokeToken(
            arena_pb2.RevokeTokenRequest(token_id=issued.token_id), metadata=bearer(OTHER_KEY)
        )
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    revoked = registry.RevokeToken(
        arena_pb2.RevokeTokenRequest(token=issued.token), metadata=bearer(OWNER_KEY)
    )
    assert revoked.revoked == 1
    admin = arena_pb2_grpc.AdminStub(channel)
    code, details = code_of(
        lambda: admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=bearer(issued.token))
    )
    assert code == grpc.StatusCode.UNAUTHENTICATED and "revoked" in details
    # Every token of the bot, by the admin.
    register(channel, "rev-bot")
    register(channel, "rev-bot")
    response = admin.RevokeToken(
        arena_pb2.RevokeTokenRequest(bot_id="rev-bot"), metadata=bearer(ADMIN)
    )
    assert response.revoked == 2
    code, _ = code_of(
        lambda: admin.RevokeToken(
            arena_pb2.RevokeTokenRequest(token_id="tok-none"), metadata=bearer(ADMIN)
        )
    )
    assert code == grpc.StatusCode.NOT_FOUND


# -- Admin -----------------------------------------------------------------------------


def test_admin_needs_admin_token(channel: grpc.Channel) -> None:
    admin = arena_pb2_grpc.AdminStub(channel)
    token = register(channel, "adm-bot").token
    code, details = code_of(
        lambda: admin.ListMatches(arena_pb2.ListMatchesRequest(), metadata=bearer(token))
    )
    assert code == grpc.StatusCode.PERMISSION_DENIED
    assert "needs an admin token, this is a bot token" in details
    page = admin.ListMatches(arena_pb2.ListMatchesRequest(page_size=1), metadata=bearer(ADMIN))
    assert [m.info.match_id for m in page.matches] == ["m-1"]
    assert page.matches[0].status == arena_pb2.MATCH_STATUS_FINISHED
    assert page.matches[0].winner_team == 1 and list(page.matches[0].totals) == [-2, 2, -2, 2]
    assert page.next_page_token == ""
    other = admin.ListMatches(arena_pb2.ListMatchesRequest(bot="nobody"), metadata=bearer(ADMIN))
    assert not other.matches


def test_cancel_match_names_what_is_missing_or_unknown(channel: grpc.Channel) -> None:
    admin = arena_pb2_grpc.AdminStub(channel)
    code, details = code_of(
        lambda: admin.CancelMatch(arena_pb2.CancelMatchRequest(), metadata=bearer(ADMIN))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "match_id is required" in details
    code, details = code_of(
        lambda: admin.CancelMatch(
            arena_pb2.CancelMatchRequest(match_id="nope"), metadata=bearer(ADMIN)
        )
    )
    assert code == grpc.StatusCode.NOT_FOUND and "'nope'" in details
    code, details = code_of(
        lambda: admin.CancelMatch(
            arena_pb2.CancelMatchRequest(match_id="m-1"), metadata=bearer(ADMIN)
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "over already" in details


# -- Leaderboard ----------------------------------------------------------------------


def test_leaderboard_needs_no_token(channel: grpc.Channel) -> None:
    board = arena_pb2_grpc.LeaderboardStub(channel)
    ratings = board.GetRatings(arena_pb2.GetRatingsRequest(variant="guandan"))
    assert [(r.rank, r.bot, r.system, r.value) for r in ratings.ratings] == [
        (1, "random", "elo", 1500.0)
    ]
    assert not ratings.ratings[0].HasField("sigma")
    history = board.GetRatingHistory(
        arena_pb2.GetRatingHistoryRequest(bot="random", variant="guandan", system="elo"),
        metadata=bearer("ignored"),
    )
    assert [(c.match_id, c.HasField("before"), c.after) for c in history.changes] == [
        ("m-1", False, 1500.0)
    ]
    code, _ = code_of(lambda: board.GetRatings(arena_pb2.GetRatingsRequest()))
    assert code == grpc.StatusCode.INVALID_ARGUMENT


def test_ratings_are_ranked_best_first_in_each_system(channel: grpc.Channel, store: Store) -> None:
    """Ranks follow the values within each system, not the names (the best named last
    here), a limit keeps each system's best, a system may be asked alone, and only
    OpenSkill has a sigma: fails if ratings come in the store's or the names' order."""
    names = ("ladder-a", "ladder-b", "ladder-c")
    for name in names:
        store.add_bot(name, "builtin")
    values = {"ladder-a": (1490.0, 27.0), "ladder-b": (1530.0, 24.0), "ladder-c": (1510.0, 25.0)}
    store.add_match(
        StoredMatch("ladder-1", None, "sanfu", {}, 1, (*names, "ladder-a"), {}, {}, 1, 1),
        [
            *(RatingUpdate(bot, "sanfu", "elo", elo) for bot, (elo, _) in values.items()),
            *(RatingUpdate(bot, "sanfu", "openskill", mu, 6.0) for bot, (_, mu) in values.items()),
        ],
    )
    board = arena_pb2_grpc.LeaderboardStub(channel)

    def ranked(**request: Any) -> list[tuple[int, str, str, float, bool]]:
        response = board.GetRatings(arena_pb2.GetRatingsRequest(variant="sanfu", **request))
        return [(r.rank, r.bot, r.system, r.value, r.HasField("sigma")) for r in response.ratings]

    elo = [
        (1, "ladder-b", "elo", 1530.0, False),
        (2, "ladder-c", "elo", 1510.0, False),
        (3, "ladder-a", "elo", 1490.0, False),
    ]
    skill = [
        (1, "ladder-a", "openskill", 27.0, True),
        (2, "ladder-c", "openskill", 25.0, True),
        (3, "ladder-b", "openskill", 24.0, True),
    ]
    assert ranked() == [*elo, *skill]
    assert ranked(limit=1) == [elo[0], skill[0]]
    assert ranked(system="openskill", limit=2) == skill[:2]


def test_match_record(channel: grpc.Channel) -> None:
    board = arena_pb2_grpc.LeaderboardStub(channel)
    response = board.GetMatchRecord(arena_pb2.GetMatchRecordRequest(match_id="m-1"))
    assert json.loads(response.record_json) == RECORD  # the 64-bit seed stays exact
    assert response.summary.info.players == ["random"] * 4
    assert response.summary.info.options["a_fail_limit"] == 3
    code, details = code_of(
        lambda: board.GetMatchRecord(arena_pb2.GetMatchRecordRequest(match_id="nope"))
    )
    assert code == grpc.StatusCode.NOT_FOUND and "nope" in details


# -- health, reflection, limits -------------------------------------------------------


@on_sqlite_only
def test_health_serving(channel: grpc.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for name in ("", *ARENA_SERVICES):
        status = stub.Check(health_pb2.HealthCheckRequest(service=name)).status
        assert status == health_pb2.HealthCheckResponse.SERVING, name


@on_sqlite_only
def test_reflection_lists_services(channel: grpc.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (response,) = list(stub.ServerReflectionInfo(iter([request])))
    names = {service.name for service in response.list_services_response.service}
    assert set(ARENA_SERVICES) <= names
    assert {"arena.v1.Registry", "arena.v1.Play", "arena.v1.Leaderboard"} <= names


@on_sqlite_only
def test_oversized_message_is_resource_exhausted(channel: grpc.Channel) -> None:
    board = arena_pb2_grpc.LeaderboardStub(channel)
    big = arena_pb2.GetMatchRecordRequest(match_id="x" * (1024 * 1024 + 10))
    code, _ = code_of(lambda: board.GetMatchRecord(big))
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED


@on_sqlite_only
def test_stop_reports_not_serving(store: Store) -> None:
    server = ServerThread(store)
    try:
        server.run(server.running.health.enter_graceful_shutdown())
        with grpc.insecure_channel(f"127.0.0.1:{server.running.port}") as channel:
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert status.status == health_pb2.HealthCheckResponse.NOT_SERVING
    finally:
        server.close()


# -- arena serve ----------------------------------------------------------------------


def test_serve_command_starts_and_stops_on_sigterm(tmp_path: Path) -> None:
    keys = tmp_path / "owners"
    keys.write_text(f"ada {OWNER_KEY}\n")
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from arena.commands.serve import add_parser, run_serve; "
            "import argparse; p = argparse.ArgumentParser(); s = p.add_subparsers(dest='c'); "
            "add_parser(s); sys.exit(run_serve(p.parse_args(sys.argv[1:])))",
            "serve",
            "--port",
            "0",
            "--db",
            str(tmp_path / "a.sqlite"),
            "--owner-keys",
            str(keys),
            "--admin-token",
            ADMIN,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("arena server listening on 127.0.0.1:"), line
        port = int(line.rsplit(":", 1)[1])
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            assert register(channel, "cli-bot").created
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err
    assert "shutting down" in out
