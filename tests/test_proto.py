"""The wire contract: generated code imports, messages round-trip, the code is fresh,
every element of the .proto is documented, and docs/protocol.md's examples parse."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from google.protobuf import descriptor_pb2, json_format, struct_pb2
from google.protobuf.message import Message

from arena._proto.arena.v1 import arena_pb2 as pb
from arena._proto.arena.v1 import arena_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parent.parent
PROTO = ROOT / "proto" / "arena" / "v1" / "arena.proto"
PROTOCOL_DOC = ROOT / "docs" / "protocol.md"
GEN_SCRIPT = ROOT / "scripts" / "gen_proto.py"

SERVICES = {
    "Registry": ["Register", "RevokeToken"],
    "Play": ["Connect"],
    "Spectate": ["Watch", "ListMatches"],
    "Leaderboard": ["GetRatings", "GetRatingHistory", "GetMatchRecord"],
    "Admin": ["CreateFixture", "CreateTournament", "ListMatches", "CancelMatch", "RevokeToken"],
}


def load_gen_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_proto", GEN_SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def struct(data: dict[str, Any]) -> struct_pb2.Struct:
    value = struct_pb2.Struct()
    value.update(data)
    return value


def action(text: str) -> pb.Action:
    verb, *cards = text.split()
    return pb.Action(verb=verb, cards=cards, text=text)


# -- the generated modules ---------------------------------------------------------


def test_generated_modules_import_from_the_package() -> None:
    assert pb.DESCRIPTOR.package == "arena.v1"
    assert pb.DESCRIPTOR.name == "arena/v1/arena.proto"
    assert pb.Action.__module__ == "arena._proto.arena.v1.arena_pb2"
    assert pb_grpc.arena_dot_v1_dot_arena__pb2 is pb  # imported from the package, not arena.v1


def test_every_service_has_its_methods_stub_and_servicer() -> None:
    for service, methods in SERVICES.items():
        described = pb.DESCRIPTOR.services_by_name[service]
        assert [m.name for m in described.methods] == methods
        for suffix in ("Stub", "Servicer"):
            assert hasattr(pb_grpc, service + suffix), service + suffix
        assert hasattr(pb_grpc, f"add_{service}Servicer_to_server")
    play = pb.DESCRIPTOR.services_by_name["Play"].methods_by_name["Connect"]
    assert play.client_streaming and play.server_streaming
    watch = pb.DESCRIPTOR.services_by_name["Spectate"].methods_by_name["Watch"]
    assert watch.server_streaming and not watch.client_streaming


def test_servicer_methods_are_unimplemented_until_overridden() -> None:
    class Context:
        code: object = None

        def set_code(self, code: object) -> None:
            self.code = code

        def set_details(self, details: str) -> None:
            self.details = details

    context = Context()
    with pytest.raises(NotImplementedError):
        pb_grpc.LeaderboardServicer().GetRatings(pb.GetRatingsRequest(), context)
    assert str(context.code).endswith("UNIMPLEMENTED")


# -- round trips -------------------------------------------------------------------


def server_bodies() -> dict[str, Message]:
    """One filled-in example of every ServerMessage body."""
    clock = pb.ClockSettings(
        decision_ms=10_000, time_bank_ms=60_000, grace_ms=30_000, auto_plays_to_flee=5
    )
    info = pb.MatchInfo(
        match_id="m-1",
        variant="guandan",
        options=struct({"a_fail_limit": 3}),
        players=["random", "my-bot", "random", "first"],
        clock=clock,
    )
    seat = pb.SeatAssigned(match=info, player=1, partner="first", opponents=["random", "random"])
    deal = pb.DealStarted(
        match_id="m-1",
        deal=1,
        seat=1,
        seating=info.players,
        players=[0, 1, 2, 3],
        setup=struct({"levels": [0, 0], "leader": None}),
        hand=["2h", "2h", "Ts", "SJ", "BJ"],
    )
    events = [
        pb.Event(seq=1, deal=1, kind="deal", description="level 2"),
        pb.Event(seq=2, deal=1, kind="lead", seat=0),
        pb.Event(
            seq=3, deal=1, kind="play", seat=0, cards=["8h", "8d", "8c", "8c"], value=8, tag="bomb"
        ),
        pb.Event(seq=4, deal=1, kind="tribute", seat=2, cards=["Ah"], target=1),
    ]
    observation = pb.Observation(
        game="guandan",
        seat=1,
        phase="play",
        to_act=1,
        hand=list(deal.hand),
        public_facts=struct({"level": 0, "counts": [None, 27, None, 25], "table": {"seat": 0}}),
        legal=pb.LegalActions(actions=[action("pass"), action("play SJ BJ")], complete=True),
        seq=3,
    )
    request = pb.DecisionRequest(
        request_id="r-1",
        match_id="m-1",
        deal=1,
        observation=observation,
        decision_ms=10_000,
        time_bank_ms=60_000,
    )
    request.deadline.FromSeconds(1_700_000_070)
    rating = pb.RatingChange(bot="my-bot", variant="guandan", system="elo", after=1508.0)
    rating.at.FromSeconds(1_700_000_500)
    pong = pb.Pong(nonce=7)
    pong.server_time.FromSeconds(1_700_000_000)
    draining = pb.Draining(reason="maintenance")
    draining.deadline.FromSeconds(1_700_000_600)
    return {
        "welcome": pb.Welcome(
            bot_id="b-1",
            bot_name="my-bot",
            connection_id="c-1",
            protocol=1,
            server_version="0.1.0",
            variants=["guandan", "sanfu"],
            limits=pb.Limits(max_receive_bytes=1 << 20, max_send_bytes=4 << 20),
            pending_matches=["m-0"],
        ),
        "joined": pb.Joined(variants=["guandan"], rated=True),
        "seat_assigned": seat,
        "deal_started": deal,
        "events": pb.EventBatch(match_id="m-1", events=events),
        "decision": request,
        "action_result": pb.ActionResult(
            request_id="r-1",
            match_id="m-1",
            status=pb.ACTION_STATUS_ILLEGAL,
            reason="illegal action 'play 2h': single 2 does not beat bomb 8 (GD-9)",
            action=action("play 2h"),
            decision_ms=9_000,
            time_bank_ms=60_000,
            attempts_left=9,
        ),
        "deal_result": pb.DealResult(
            match_id="m-1",
            deal=1,
            scores=[-1, 1, -1, 1],
            summary="team 1 (seats 1 and 3) up 1",
            details=struct({"order": [3, 0, 2, 1], "match_winner": None}),
            totals=[-1, 1, -1, 1],
        ),
        "match_result": pb.MatchResult(
            match_id="m-1",
            reason=pb.END_REASON_COMPLETE,
            winner_team=0,
            totals=[13, -13, 13, -13],
            deals=9,
            rated=True,
            rating_changes=[rating],
        ),
        "resume": pb.Resume(seat=seat, deal=deal, observation=observation, totals=[0, 0, 0, 0]),
        "error": pb.Error(code="INVALID_ARGUMENT", message="unknown variant 'gandan'"),
        "pong": pong,
        "draining": draining,
    }


def test_the_examples_cover_every_server_body() -> None:
    oneof = pb.ServerMessage.DESCRIPTOR.oneofs_by_name["body"]
    assert sorted(f.name for f in oneof.fields) == sorted(server_bodies())


@pytest.mark.parametrize("body", sorted(server_bodies()))
def test_server_message_round_trip(body: str) -> None:
    message = pb.ServerMessage(**{body: server_bodies()[body]})
    assert message.WhichOneof("body") == body
    wire = message.SerializeToString()
    back = pb.ServerMessage.FromString(wire)
    assert back == message
    assert back.WhichOneof("body") == body
    text = json_format.MessageToJson(message, preserving_proto_field_name=True)
    assert json_format.Parse(text, pb.ServerMessage()) == message


def test_client_messages_round_trip() -> None:
    bodies: dict[str, Message] = {
        "hello": pb.Hello(protocol=1, client="test 1", resume_match_id="m-0"),
        "join": pb.Join(variants=["guandan"], rated=True, matches=3),
        "action": pb.ActionReply(request_id="r-1", action=pb.Action(text="play 3s 3d")),
        "ping": pb.Ping(nonce=1),
        "leave": pb.Leave(now=True),
    }
    oneof = pb.ClientMessage.DESCRIPTOR.oneofs_by_name["body"]
    assert sorted(f.name for f in oneof.fields) == sorted(bodies)
    for body, value in bodies.items():
        message = pb.ClientMessage(**{body: value})
        assert pb.ClientMessage.FromString(message.SerializeToString()) == message
        assert message.WhichOneof("body") == body


def test_seat_zero_is_present_and_no_seat_is_absent() -> None:
    lead = pb.Event(seq=2, deal=1, kind="lead", seat=0)
    deal = pb.Event(seq=1, deal=1, kind="deal")
    assert pb.Event.FromString(lead.SerializeToString()).HasField("seat")
    assert not pb.Event.FromString(deal.SerializeToString()).HasField("seat")
    assert json.loads(json_format.MessageToJson(lead))["seat"] == 0
    assert "seat" not in json.loads(json_format.MessageToJson(deal))


def test_struct_facts_keep_their_shape() -> None:
    facts = {"level": 12, "counts": [None, 3, 27, None], "table": {"cards": "As Ah", "seat": 2}}
    observation = pb.Observation(public_facts=struct(facts))
    back = pb.Observation.FromString(observation.SerializeToString())
    assert json_format.MessageToDict(back.public_facts) == facts


# -- freshness ---------------------------------------------------------------------


def test_generated_code_is_fresh() -> None:
    done = subprocess.run(
        [sys.executable, str(GEN_SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fresh" in done.stdout


def test_the_check_names_stale_missing_and_extra_files(tmp_path: Path) -> None:
    gen = load_gen_script()
    committed, fresh = tmp_path / "committed", tmp_path / "fresh"
    gen.generate(fresh)
    gen.generate(committed)
    assert gen.stale_files(committed, fresh) == []
    pb2 = committed / "arena" / "v1" / "arena_pb2.pyi"
    pb2.write_text(pb2.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    (committed / "arena" / "v1" / "arena_pb2_grpc.py").unlink()
    (committed / "arena" / "v1" / "old_pb2.py").write_text("", encoding="utf-8")
    assert gen.stale_files(committed, fresh) == [
        "arena/v1/arena_pb2_grpc.py: missing",
        "arena/v1/old_pb2.py: not generated (remove it)",
        "arena/v1/arena_pb2.pyi: differs",
    ]


def test_imports_of_generated_modules_point_into_the_package() -> None:
    gen = load_gen_script()
    assert (
        gen.fix_imports("from arena.v1 import arena_pb2 as arena_dot_v1_dot_arena__pb2\n")
        == "from . import arena_pb2 as arena_dot_v1_dot_arena__pb2\n"
    )
    assert gen.fix_imports("x: arena.v1.arena_pb2.Hello") == (
        "x: arena._proto.arena.v1.arena_pb2.Hello"
    )
    assert gen.fix_imports("from google.protobuf import struct_pb2\n") == (
        "from google.protobuf import struct_pb2\n"
    )


# -- documentation -----------------------------------------------------------------


def source_descriptor(tmp_path: Path) -> descriptor_pb2.FileDescriptorProto:
    out = tmp_path / "arena.pb"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{ROOT / 'proto'}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            "arena/v1/arena.proto",
        ],
        check=True,
        cwd=ROOT / "proto",
    )
    return descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes()).file[0]


def elements(proto: descriptor_pb2.FileDescriptorProto) -> Iterator[tuple[str, tuple[int, ...]]]:
    """Every message, field, enum, value, service and method, with its source path."""
    for i, message in enumerate(proto.message_type):
        yield message.name, (4, i)
        for j, field in enumerate(message.field):
            yield f"{message.name}.{field.name}", (4, i, 2, j)
    for i, enum in enumerate(proto.enum_type):
        yield enum.name, (5, i)
        for j, value in enumerate(enum.value):
            yield value.name, (5, i, 2, j)
    for i, service in enumerate(proto.service):
        yield service.name, (6, i)
        for j, method in enumerate(service.method):
            yield f"{service.name}.{method.name}", (6, i, 2, j)


def test_every_element_of_the_contract_is_documented(tmp_path: Path) -> None:
    proto = source_descriptor(tmp_path)
    comments = {
        tuple(location.path): (location.leading_comments + location.trailing_comments).strip()
        for location in proto.source_code_info.location
    }
    undocumented = [name for name, path in elements(proto) if not comments.get(path)]
    assert undocumented == []


EXAMPLE = re.compile(r"^```json (arena\.v1\.\w+)\n(.*?)^```", re.M | re.S)


def test_the_protocol_document_examples_are_valid_messages() -> None:
    examples = EXAMPLE.findall(PROTOCOL_DOC.read_text(encoding="utf-8"))
    assert len(examples) >= 15
    kinds = set()
    for name, text in examples:
        message_class = getattr(pb, name.removeprefix("arena.v1."))
        message = json_format.Parse(text, message_class())
        if isinstance(message, pb.ServerMessage | pb.ClientMessage | pb.WatchMessage):
            kinds.add(message.WhichOneof("body"))
        else:
            kinds.add(name)
    for needed in (
        "hello",
        "welcome",
        "join",
        "joined",
        "seat_assigned",
        "deal_started",
        "events",
        "decision",
        "action",
        "action_result",
        "deal_result",
        "match_result",
        "arena.v1.RegisterRequest",
        "arena.v1.RegisterResponse",
    ):
        assert needed in kinds, f"docs/protocol.md has no example of {needed}"


def test_facts_go_into_a_struct_whole() -> None:
    from types import MappingProxyType

    from google.protobuf import json_format

    from arena.server.remote import struct

    facts = MappingProxyType(
        {"level": 3, "empty": (), "none": None, "nested": {"a": [1, (2, "x")], "b": {}}, 4: True}
    )
    assert json_format.MessageToDict(struct(facts)) == {
        "level": 3,
        "empty": [],
        "none": None,
        "nested": {"a": [1, [2, "x"]], "b": {}},
        "4": True,
    }
    with pytest.raises(ValueError, match="cannot send"):
        struct({"card": object()})
