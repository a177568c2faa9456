"""Unparsable request bodies: every method of every service answers INVALID_ARGUMENT with a
plain message, and the server goes on serving (a real server on 127.0.0.1, any port)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor, message_factory
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_server import ADMIN, OWNER_KEY, ServerThread, bearer, register

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.store import Store

SERVICES: tuple[descriptor.ServiceDescriptor, ...] = (
    *arena_pb2.DESCRIPTOR.services_by_name.values(),
    health_pb2.DESCRIPTOR.services_by_name["Health"],
    reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"],
)
METHODS: tuple[descriptor.MethodDescriptor, ...] = tuple(
    method for service in SERVICES for method in service.methods
)
CORRUPT = (
    b"\xff\xff\xff",  # field number 0 … a tag no message has
    b"\x08\x80\x80",  # a varint cut short
    b"\x0a\x05ab",  # a length past the end of the body
    b"\x0b",  # a group that never ends
)
"""Bodies no message parses."""
PYTHON_WORDS = ("<class", "Traceback", "DecodeError", "Exception", "Error parsing")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerThread]:
    path: Path = tmp_path_factory.mktemp("decoding") / "arena.sqlite"
    with Store.open(path) as store:
        running = ServerThread(store)
        yield running
        running.close()


@pytest.fixture(scope="module")
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as channel:
        yield channel


@pytest.fixture(scope="module")
def bot_token(channel: grpc.Channel) -> str:
    return register(channel, "decoding-bot").token


def credentials(method: descriptor.MethodDescriptor, bot_token: str) -> tuple[tuple[str, str]]:
    """The secret the method's service wants (public services ignore it)."""
    service = method.containing_service.full_name
    secret = {"arena.v1.Admin": ADMIN, "arena.v1.Play": bot_token}.get(service, OWNER_KEY)
    return bearer(secret)


def call_raw(
    channel: grpc.Channel, method: descriptor.MethodDescriptor, body: bytes, bot_token: str
) -> tuple[grpc.StatusCode, str]:
    """Send ``body`` as the method's request (the only one of a request stream)."""
    path = f"/{method.containing_service.full_name}/{method.name}"
    metadata = credentials(method, bot_token)
    try:
        if method.client_streaming and method.server_streaming:
            for _ in channel.stream_stream(path)(iter([body]), metadata=metadata, timeout=10):
                pass
        elif method.client_streaming:
            channel.stream_unary(path)(iter([body]), metadata=metadata, timeout=10)
        elif method.server_streaming:
            for _ in channel.unary_stream(path)(body, metadata=metadata, timeout=10):
                pass
        else:
            channel.unary_unary(path)(body, metadata=metadata, timeout=10)
    except grpc.RpcError as err:
        return err.code(), err.details()  # type: ignore[attr-defined]
    return grpc.StatusCode.OK, ""


def parses(method: descriptor.MethodDescriptor, body: bytes) -> bool:
    request = message_factory.GetMessageClass(method.input_type)()
    try:
        request.ParseFromString(body)
    except DecodeError:
        return False
    return True


def assert_refused(method: descriptor.MethodDescriptor, code: grpc.StatusCode, text: str) -> None:
    assert code == grpc.StatusCode.INVALID_ARGUMENT, (method.full_name, code, text)
    assert method.input_type.full_name in text
    assert not any(word in text for word in PYTHON_WORDS), text


def assert_still_serving(channel: grpc.Channel) -> None:
    status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest()).status
    assert status == health_pb2.HealthCheckResponse.SERVING
    board = arena_pb2_grpc.LeaderboardStub(channel)
    assert board.GetRatings(arena_pb2.GetRatingsRequest(variant="guandan")).variant == "guandan"


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.full_name)
def test_every_method_refuses_a_corrupt_body(
    channel: grpc.Channel, bot_token: str, method: descriptor.MethodDescriptor
) -> None:
    for body in CORRUPT:
        assert not parses(method, body)
        code, text = call_raw(channel, method, body, bot_token)
        assert_refused(method, code, text)
    assert_still_serving(channel)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_unparsable_body_is_invalid_argument(
    channel: grpc.Channel, bot_token: str, data: st.DataObject
) -> None:
    method = data.draw(st.sampled_from(METHODS), label="method")
    body = data.draw(
        st.binary(min_size=1, max_size=64).filter(lambda b: not parses(method, b)), label="body"
    )
    code, text = call_raw(channel, method, body, bot_token)
    assert_refused(method, code, text)


def test_a_corrupt_message_later_in_a_play_stream(channel: grpc.Channel, bot_token: str) -> None:
    hello = arena_pb2.ClientMessage(hello=arena_pb2.Hello(protocol=1)).SerializeToString()
    connect = channel.stream_stream("/arena.v1.Play/Connect")
    answers = []
    with pytest.raises(grpc.RpcError) as info:
        for answer in connect(iter([hello, CORRUPT[0]]), metadata=bearer(bot_token), timeout=10):
            answers.append(arena_pb2.ServerMessage.FromString(answer))
    assert [a.WhichOneof("body") for a in answers] == ["welcome"]
    method = arena_pb2.DESCRIPTOR.services_by_name["Play"].methods_by_name["Connect"]
    assert_refused(method, info.value.code(), info.value.details())  # type: ignore[attr-defined]
    assert_still_serving(channel)


def test_without_a_token_a_corrupt_body_is_still_unauthenticated(channel: grpc.Channel) -> None:
    with pytest.raises(grpc.RpcError) as info:
        channel.unary_unary("/arena.v1.Admin/ListMatches")(CORRUPT[0], timeout=10)
    assert info.value.code() == grpc.StatusCode.UNAUTHENTICATED  # type: ignore[attr-defined]
