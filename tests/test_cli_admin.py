"""``arena admin``: every Admin RPC from the command line, against a real server on
127.0.0.1; refusals are one line with the status (exit 2), an unreachable server one
line too (exit 1)."""

from __future__ import annotations

import argparse
import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from test_server import ADMIN, ServerThread
from test_server_admin import self_signed_certificate
from test_server_seats import Arena
from waiting import wait_for_tournament

from arena._proto.arena.v1 import arena_pb2
from arena.cli import build_parser, main
from arena.server.app import TlsFiles
from arena.store import Store

ADMIN_RPCS = {m.name for m in arena_pb2.DESCRIPTOR.services_by_name["Admin"].methods}


def admin(
    capsys: pytest.CaptureFixture[str], address: str, action: str, *argv: str
) -> tuple[int, str, str]:
    status = main(["admin", action, "--server", address, "--admin-token", ADMIN, *argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_fixture_is_listed_cancelled_and_its_bot_revoked(
    server: tuple[Store, Arena], capsys: pytest.CaptureFixture[str]
) -> None:
    _, arena = server
    arena.tokens("absent", "elsewhere")  # registered, never connected: matches stay scheduled
    status, out, _ = admin(
        capsys,
        arena.address,
        "fixture",
        "other",
        "--variant",
        "guandan",
        "--players",
        "elsewhere,random,random,random",
        "--json",
    )
    assert status == 0
    (elsewhere,) = json.loads(out)["match_ids"]  # a match that --bot absent leaves out
    status, out, _ = admin(
        capsys,
        arena.address,
        "fixture",
        "cup",
        "--variant",
        "guandan",
        "--players",
        "absent,random,random,random",
        "--matches",
        "2",
        "--json",
    )
    assert status == 0
    fixture = json.loads(out)
    tournament, match_ids = fixture["tournament_id"], fixture["match_ids"]
    assert tournament.startswith("cup-") and len(match_ids) == 2

    status, out, _ = admin(capsys, arena.address, "list", "--tournament", tournament, "--json")
    rows = json.loads(out)["matches"]
    assert status == 0
    assert sorted(r["id"] for r in rows) == sorted(match_ids)
    assert {r["status"] for r in rows} == {"scheduled"}
    assert rows[0]["players"] == ["absent", "random", "random", "random"]
    status, out, _ = admin(capsys, arena.address, "list", "--status", "running", "--json")
    assert status == 0 and json.loads(out) == {"matches": []}
    status, out, _ = admin(capsys, arena.address, "list", "--bot", "absent")
    assert status == 0 and all(m in out for m in match_ids) and "scheduled" in out
    assert elsewhere not in out
    status, out, _ = admin(capsys, arena.address, "list", "--bot", "absent", "--json")
    assert sorted(r["id"] for r in json.loads(out)["matches"]) == sorted(match_ids)
    status, out, _ = admin(capsys, arena.address, "list", "--bot", "elsewhere", "--json")
    assert [r["id"] for r in json.loads(out)["matches"]] == [elsewhere]

    status, out, _ = admin(capsys, arena.address, "cancel", match_ids[0], "--reason", "no show")
    assert (status, out) == (0, f"cancelled {match_ids[0]} after 0 deals\n")
    status, out, _ = admin(capsys, arena.address, "list", "--tournament", tournament, "--json")
    listed = {r["id"]: (r["status"], r["end"]) for r in json.loads(out)["matches"]}
    assert listed == {match_ids[0]: ("cancelled", "cancelled"), match_ids[1]: ("scheduled", None)}
    status, out, _ = admin(capsys, arena.address, "list", "--status", "cancelled", "--json")
    assert [r["id"] for r in json.loads(out)["matches"]] == [match_ids[0]]
    status, out, _ = admin(capsys, arena.address, "list", "--status", "finished", "--json")
    assert json.loads(out) == {"matches": []}
    status, out, err = admin(capsys, arena.address, "cancel", match_ids[0])
    assert status == 2 and out == ""
    assert one_line(err) == (
        f"arena: the server refused: FAILED_PRECONDITION: match '{match_ids[0]}' "
        "is cancelled already\n"
    )

    status, out, _ = admin(capsys, arena.address, "revoke", "--bot", "absent")
    assert (status, out) == (0, "revoked 1 token, closed 0 connections\n")
    status, out, _ = admin(capsys, arena.address, "revoke", "--bot", "absent", "--json")
    assert status == 0 and json.loads(out) == {"revoked": 0, "connections_closed": 0}


def test_a_tournament_file_is_played_and_listed(
    server: tuple[Store, Arena], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store, arena = server
    definition = tmp_path / "house.toml"
    definition.write_text(
        'name = "house"\nvariant = "shengji-1"\nbots = ["random", "first"]\nmatches = 2\n'
        "deals = 1\n"
    )
    status, out, _ = admin(capsys, arena.address, "tournament", str(definition))
    assert status == 0 and out.startswith("tournament house-") and "2 matches scheduled" in out
    tournament = out.split()[1].rstrip(":")
    wait_for_tournament(store, tournament, 2)
    status, out, _ = admin(capsys, arena.address, "list", "--tournament", tournament, "--json")
    rows = json.loads(out)["matches"]
    assert {r["status"] for r in rows} == {"finished"} and len(rows) == 2
    assert all(r["deals"] == 1 and r["finished_at"] for r in rows)
    status, out, _ = admin(
        capsys, arena.address, "list", "--tournament", tournament, "--limit", "1"
    )
    assert status == 0 and "finished" in out and "--limit N for more" in out
    status, _, err = admin(capsys, arena.address, "tournament", str(definition))
    assert status == 2 and "ALREADY_EXISTS" in one_line(err)


@pytest.mark.parametrize(
    ("action", "argv", "status_name"),
    [
        ("cancel", ["no-such-match"], "NOT_FOUND"),
        (
            "fixture",
            ["x", "--variant", "guandan", "--players", "nobody,random,random,random"],
            "INVALID_ARGUMENT",
        ),
        ("revoke", ["--token-id", "nope"], "NOT_FOUND"),
    ],
)
def test_a_refusal_is_one_line_naming_the_status(
    server: tuple[Store, Arena],
    capsys: pytest.CaptureFixture[str],
    action: str,
    argv: list[str],
    status_name: str,
) -> None:
    _, arena = server
    status, out, err = admin(capsys, arena.address, action, *argv)
    assert status == 2 and out == ""
    assert one_line(err).startswith(f"arena: the server refused: {status_name}: ")


def test_a_bad_definition_file_is_refused_by_the_server(
    server: tuple[Store, Arena], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, arena = server
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [broken\n")
    status, _, err = admin(capsys, arena.address, "tournament", str(broken))
    assert status == 2 and "INVALID_ARGUMENT: not valid TOML" in one_line(err)


def test_the_admin_token_comes_from_the_option_or_the_environment(
    server: tuple[Store, Arena],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, arena = server
    monkeypatch.delenv("ARENA_ADMIN_TOKEN", raising=False)
    assert main(["admin", "list", "--server", arena.address]) == 2
    assert "no admin token" in one_line(capsys.readouterr().err)
    wrong = main(["admin", "list", "--server", arena.address, "--admin-token", "wrong"])
    assert wrong == 2 and "UNAUTHENTICATED" in one_line(capsys.readouterr().err)
    monkeypatch.setenv("ARENA_ADMIN_TOKEN", ADMIN)
    assert main(["admin", "list", "--server", arena.address, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"matches": []}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_an_unreachable_server_is_one_line_and_exit_status_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    address = f"127.0.0.1:{free_port()}"
    status, out, err = admin(capsys, address, "list", "--timeout", "5")
    assert status == 1 and out == ""
    assert one_line(err).startswith(f"arena: cannot reach an arena server at {address} ")


class Recorder:
    """An Admin stub that records which RPC each action calls, and with what."""

    def __init__(self) -> None:
        self.calls: dict[str, Message] = {}

    def __getattr__(self, rpc: str) -> Any:
        method = arena_pb2.DESCRIPTOR.services_by_name["Admin"].methods_by_name[rpc]
        reply = getattr(arena_pb2, method.output_type.name)

        def call(request: Message, **_: object) -> Message:
            self.calls[rpc] = request
            return reply()  # type: ignore[no-any-return]

        return call


ACTIONS = {
    "fixture": ["cup", "--variant", "sanfu", "--players", "a,b,c,d", "--decision-seconds", "2.5"],
    "tournament": ["DEFINITION"],
    "list": ["--status", "scheduled", "--status", "running"],
    "cancel": ["m-1"],
    "revoke": ["--token-id", "t-1"],
}


def test_every_admin_rpc_has_an_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    definition = tmp_path / "t.toml"
    definition.write_text('name = "t"\n')
    parser = build_parser()
    stub = Recorder()
    for action, argv in ACTIONS.items():
        given = [str(definition) if a == "DEFINITION" else a for a in argv]
        args = parser.parse_args(["admin", action, "--admin-token", "x", *given])
        args.token_value = "x"
        args.admin_action(stub, args)
    capsys.readouterr()
    assert set(stub.calls) == ADMIN_RPCS
    fixture = stub.calls["CreateFixture"]
    assert isinstance(fixture, arena_pb2.CreateFixtureRequest)
    assert fixture.clock.decision_ms == 2500 and not fixture.HasField("seed")
    listing = stub.calls["ListMatches"]
    assert isinstance(listing, arena_pb2.ListMatchesRequest)
    assert list(listing.statuses) == [
        arena_pb2.MATCH_STATUS_SCHEDULED,
        arena_pb2.MATCH_STATUS_RUNNING,
    ]


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_admin_over_tls_trusts_the_given_ca(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert, key = self_signed_certificate(tmp_path)
    with Store.open(tmp_path / "arena.sqlite") as store:
        running = ServerThread(store, tls=TlsFiles(str(cert), str(key)))
        try:
            status, out, _ = admin(capsys, running.address, "list", "--tls-ca", str(cert), "--json")
            assert status == 0 and json.loads(out) == {"matches": []}
            status, _, err = admin(capsys, running.address, "list", "--timeout", "5")
            assert status == 1 and "cannot reach" in one_line(err)
        finally:
            running.close()


LONG = "long-argument-" + "z" * 20_000
LINE_BOUND = 500
"""Characters of the line that refuses an argument, however long the argument."""


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (found,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(found.choices)


def long_argument_cases() -> list[tuple[str, list[str], str]]:
    """Each value an ``arena admin`` action takes (found in its parser: a new option is
    covered without a word here) made 20 KB long in turn, the others as in
    :data:`ACTIONS`: (action, argv, what was made long)."""
    actions = subcommands(subcommands(build_parser())["admin"])
    cases = []
    for action, sub in actions.items():
        base = ACTIONS[action]
        for argument in sub._actions:
            if argument.nargs == 0 or argument.dest in ("help",):
                continue
            if not argument.option_strings:  # the action's one positional
                argv = [LONG, *base[1:]]
            else:
                flag = argument.option_strings[-1]
                argv = [*base, flag, LONG]  # the last value given is the one taken
            cases.append((action, argv, argument.dest))
    return cases


def test_a_long_argument_gets_one_bounded_line_and_exit_status_2(
    server: tuple[Store, Arena], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 20 KB value in any argument of any action, refused where it is read (the
    command line) or by the server: exit status 2 and one line of bounded length that
    quotes a prefix of it (before it, argparse's usage for a bad command line); an
    argument the server only filters by lists nothing (exit status 0)."""
    _, arena = server
    definition = tmp_path / "t.toml"
    definition.write_text('name = "t"\n')
    cases = long_argument_cases()
    assert {action for action, _, _ in cases} == set(ACTIONS)
    assert {"match_id", "reason", "token", "token_id", "bot", "name", "players"} <= {
        dest for _, _, dest in cases
    }
    refused: dict[tuple[str, str], str] = {}
    for action, argv, dest in cases:
        given = [str(definition) if a == "DEFINITION" else a for a in argv]
        explicit = ["--server", arena.address, "--admin-token", ADMIN, "--timeout", "30"]
        try:
            status = main(["admin", action, *explicit, *given])
        except SystemExit as exit:  # refused by argparse, after its usage
            status = int(exit.code or 0)
        out, err = capsys.readouterr()
        lines = err.splitlines()
        assert "Traceback" not in err, (action, dest, err[:300])
        if status == 0:
            assert err == "" and LONG not in out, (action, dest, out[:300])
            continue
        assert status == 2 and out == "", (action, dest, status, err[:300])
        refusal = lines[-1]
        assert refusal.startswith(("arena: ", "arena admin")), (action, dest, err[:300])
        assert len(refusal) < LINE_BOUND, (action, dest, len(refusal), refusal[:300])
        if refusal.startswith("arena: the server refused"):
            assert len(lines) == 1, (action, dest, err[:300])
            code = refusal.split(": ")[2]
            assert code in ("NOT_FOUND", "INVALID_ARGUMENT"), (action, dest, refusal[:300])
            refused[action, dest] = code
    assert refused == refused | {
        ("cancel", "match_id"): "NOT_FOUND",
        ("cancel", "reason"): "INVALID_ARGUMENT",
    }
