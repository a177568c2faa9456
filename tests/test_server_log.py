"""What the server does is in its log: one event each when a bot registers, connects, is
seated and disconnects, when a match is cancelled and when a token is revoked — read
from the JSON lines a real server on 127.0.0.1 writes, never holding a token's secret,
each line short whatever the input."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from test_server import ADMIN, OTHER_KEY, OWNER_KEY, bearer
from test_server_seats import Arena, Raw, arena, run

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.log import configure
from arena.store import Store

WAIT = 30.0
"""Seconds a test waits for an event (never reached when all is well)."""
LINE_BOUND = 1_000
"""Characters a log line of these events may have, whatever the input."""


class ServerLog:
    """The server's log as it is written: JSON lines in a buffer."""

    def __init__(self) -> None:
        self.buffer = io.StringIO()
        self.secrets = [OWNER_KEY, OTHER_KEY, ADMIN]
        """What must never be in it (a test adds the tokens it is given)."""

    @property
    def text(self) -> str:
        return self.buffer.getvalue()

    def events(self, name: str, **fields: Any) -> list[dict[str, Any]]:
        """The ``name`` events whose fields have these values, in order."""
        lines = (json.loads(line) for line in self.text.splitlines())
        return [
            event
            for event in lines
            if event["event"] == name and all(event.get(k) == v for k, v in fields.items())
        ]

    async def logged(self, name: str, **fields: Any) -> None:
        """Wait until the server (on its own loop) has logged such an event."""
        for _ in range(int(WAIT / 0.01)):
            if self.events(name, **fields):
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"no {name} event with {fields} in {WAIT:g} s")

    def one(self, name: str, **fields: Any) -> dict[str, Any]:
        found = self.events(name, **fields)
        assert len(found) == 1, f"{len(found)} {name} events with {fields}: {self.text[-3000:]}"
        return found[0]


@pytest.fixture
def server_log() -> Iterator[ServerLog]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    log = ServerLog()
    configure(stream=log.buffer, fmt="json", level="info")
    try:
        yield log
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
        structlog.reset_defaults()
    for secret in log.secrets:
        assert secret not in log.text, "a secret in the server's log"
    for line in own_lines(log.text):
        assert len(line) < LINE_BOUND, f"a log line of {len(line)} characters: {line[:300]}"


def own_lines(text: str) -> list[str]:
    """The lines of the server's own loggers (``arena.*``): a library's record (asyncio
    telling of gRPC's poller after a closed event loop, with its traceback) is bounded
    by no input of ours."""
    return [
        line
        for line in text.splitlines()
        if str(json.loads(line).get("logger", "")).startswith("arena")
    ]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "arena.sqlite") as store:
        yield store


def register(server: Arena, name: str) -> arena_pb2.RegisterResponse:
    with grpc.insecure_channel(server.address) as channel:
        answer: arena_pb2.RegisterResponse = arena_pb2_grpc.RegistryStub(channel).Register(
            arena_pb2.RegisterRequest(name=name, games=["guandan"]), metadata=bearer(OWNER_KEY)
        )
    return answer


async def seated(server: Arena, token: str, client: str = "") -> tuple[Raw, str]:
    """A bot seated beside built-in bots (protocol 2): its stream and its match id."""
    bot = Raw(server.address, token)
    await bot.send(hello=arena_pb2.Hello(protocol=2, client=client))
    await bot.until("welcome")
    await bot.join(rated=False, fill_after_ms=1, matches=1)
    assigned = (await bot.until("seat_assigned")).seat_assigned
    return bot, assigned.match.match_id


async def admin(server: Arena, method: str, request: Any) -> Any:
    async with grpc.aio.insecure_channel(server.address) as channel:
        return await getattr(arena_pb2_grpc.AdminStub(channel), method)(
            request, metadata=bearer(ADMIN)
        )


def test_a_bots_life_is_one_event_per_step_with_its_names(
    store: Store, server_log: ServerLog
) -> None:
    """Registered, connected, seated, its match cancelled, disconnected, its tokens
    revoked: each once, naming the bot, the connection and the match; the client's
    free text is a bounded prefix."""
    with arena(store) as server:
        registered = register(server, "logged-bot")
        server_log.secrets.append(registered.token)

        async def main() -> str:
            bot, match_id = await seated(server, registered.token, client="my-client " * 2_000)
            await admin(
                server,
                "CancelMatch",
                arena_pb2.CancelMatchRequest(match_id=match_id, reason="room needed"),
            )
            await bot.until("match_result")
            await bot.close()
            return match_id

        match_id = run(main())
        with grpc.insecure_channel(server.address) as channel:
            arena_pb2_grpc.RegistryStub(channel).RevokeToken(
                arena_pb2.RevokeTokenRequest(bot_id="logged-bot"), metadata=bearer(OWNER_KEY)
            )
        run(server_log.logged("bot_disconnected", bot="logged-bot"))
    made = server_log.one("bot_registered", bot="logged-bot")
    assert made["owner"] == "ada" and made["created"] is True
    assert made["token_id"] == registered.token_id and made["games"] == ["guandan"]
    connected = server_log.one("bot_connected", bot="logged-bot")
    connection = connected["connection_id"]
    assert connected["protocol"] == 2 and connected["token_id"] == registered.token_id
    assert connected["client"].startswith("'my-client my-client") and len(connected["client"]) < 100
    seat = server_log.one("bot_seated", bot="logged-bot")
    assert seat["match_id"] == match_id and seat["connection_id"] == connection
    assert seat["player"] in range(4)
    cancelled = server_log.one("match_cancelled", match_id=match_id)
    assert cancelled["was"] == "running" and "room needed" in cancelled["reason"]
    gone = server_log.one("bot_disconnected", bot="logged-bot")
    assert gone["connection_id"] == connection and gone["seat_waits_in"] is None
    revoked = server_log.one("token_revoked", bot="logged-bot")
    assert revoked["by"] == "owner" and revoked["owner"] == "ada"
    assert revoked["token_id"] is None and revoked["revoked"] == 1


def test_a_token_revoked_mid_match_is_logged_without_its_secret_and_the_seat_waits(
    store: Store, server_log: ServerLog
) -> None:
    """Revoking by the secret itself: the log names the token's id, never the secret; the
    connection it closes is logged as disconnected for that reason, its seat waiting."""
    with arena(store) as server:
        registered = register(server, "revoked-bot")
        server_log.secrets.append(registered.token)

        async def main() -> str:
            bot, match_id = await seated(server, registered.token)
            async with grpc.aio.insecure_channel(server.address) as channel:
                answer = await arena_pb2_grpc.RegistryStub(channel).RevokeToken(
                    arena_pb2.RevokeTokenRequest(token=registered.token),
                    metadata=bearer(OWNER_KEY),
                )
            assert answer.connections_closed == 1
            with pytest.raises(grpc.aio.AioRpcError):
                while True:
                    await bot.read()
            await bot.close()
            await server_log.logged("bot_disconnected", bot="revoked-bot")
            return match_id

        match_id = run(main())
    revoked = server_log.one("token_revoked", bot="revoked-bot")
    assert revoked["token_id"] == registered.token_id and revoked["connections_closed"] == 1
    gone = server_log.one("bot_disconnected", bot="revoked-bot")
    assert gone["why"] == "the token was revoked"
    assert gone["seat_waits_in"] == match_id and gone["player"] in range(4)


def test_a_scheduled_match_cancelled_is_logged_as_scheduled(
    store: Store, server_log: ServerLog
) -> None:
    with arena(store) as server:
        register(server, "absent-bot")  # registered, never connected: its match waits
        fixture = arena_pb2.CreateFixtureRequest(
            name="logged",
            variant="guandan",
            players=["absent-bot", "random", "random", "random"],
            deals=1,
        )

        async def main() -> str:
            created = await admin(server, "CreateFixture", fixture)
            (match_id,) = created.match_ids
            request = arena_pb2.CancelMatchRequest(match_id=match_id, reason="x" * 200)
            await admin(server, "CancelMatch", request)
            return str(match_id)

        match_id = run(main())
    cancelled = server_log.one("match_cancelled", match_id=match_id)
    assert cancelled["was"] == "scheduled"
    assert cancelled["reason"].startswith("'xxx") and len(cancelled["reason"]) < 100
