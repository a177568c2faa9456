"""The Admin RPCs check what they are given with the same schema as the command line:
a tournament's TOML text or definition and a fixture's name and options are refused
with INVALID_ARGUMENT and the one line that names the field."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import struct_pb2
from test_server import ADMIN, bearer, code_of
from test_server_seats import Arena, clock

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.server.play import PlayConfig
from arena.store import Store


@pytest.fixture
def stub(tmp_path: Path) -> Iterator[arena_pb2_grpc.AdminStub]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        arena = Arena(store, PlayConfig(clock=clock(decision=20.0)))
        try:
            with grpc.insecure_channel(arena.address) as channel:
                yield arena_pb2_grpc.AdminStub(channel)
        finally:
            arena.close()


@pytest.mark.parametrize(
    ("toml", "details"),
    [
        ("teams = 5", "teams: must be a list, got 5"),
        ("teams = [[]]", "teams[0]: a team must be a list of exactly two bots, got []"),
        ('bots = ["random", "first"]\nmatches = "x"', "matches: must be an integer from 1 to"),
        ('bots = ["random", "first"]\nseed = 1e400', "seed: must be an integer from 0 to"),
        ('bots = ["random", "first"]\nseed = ' + "9" * 5000, "not valid TOML"),
        ("name = [broken", "not valid TOML"),
        ('bots = ["random", "first"]\noptions = { a_fail_limit = nan }', "options.a_fail_limit"),
    ],
)
def test_a_bad_tournament_text_is_invalid_argument_naming_the_field(
    stub: arena_pb2_grpc.AdminStub, toml: str, details: str
) -> None:
    code, message = code_of(
        lambda: stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(toml=toml), metadata=bearer(ADMIN)
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details in message and "\n" not in message


def test_a_bad_definition_message_is_invalid_argument_naming_the_field(
    stub: arena_pb2_grpc.AdminStub,
) -> None:
    definition = arena_pb2.TournamentDefinition(
        name="t", teams=[arena_pb2.Team(bots=["random"]), arena_pb2.Team(bots=["first"] * 2)]
    )
    code, message = code_of(
        lambda: stub.CreateTournament(
            arena_pb2.CreateTournamentRequest(definition=definition), metadata=bearer(ADMIN)
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert message.startswith("teams[0]: a team must be a list of exactly two bots")


@pytest.mark.parametrize(
    ("name", "options", "details"),
    [
        ("a\u0007b", {}, "name: must be printable text"),
        ("n" * 101, {}, "name: must be printable text of 1 to 100 characters"),
        ("f", {"a_fail_limit": 1e300}, "options.a_fail_limit: must be an integer from"),
        ("f", {"a_fail_limit": [1, 2]}, "options.a_fail_limit: an option value must be"),
    ],
)
def test_a_bad_fixture_is_invalid_argument_naming_the_field(
    stub: arena_pb2_grpc.AdminStub, name: str, options: dict[str, object], details: str
) -> None:
    struct = struct_pb2.Struct()
    struct.update(options)
    request = arena_pb2.CreateFixtureRequest(
        name=name, variant="guandan", players=["random"] * 4, options=struct
    )
    code, message = code_of(lambda: stub.CreateFixture(request, metadata=bearer(ADMIN)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert details in message and "\n" not in message
