"""Registering a bot with an owner's key: the bot's token, once."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import grpc

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.client.runner import ClientError

__all__ = ["Registration", "register"]


@dataclass(frozen=True)
class Registration:
    """A registered bot: its id, its new token (shown once) and the token's handle."""

    bot_id: str
    token: str
    token_id: str
    created: bool


def register(
    server: str,
    owner_key: str,
    name: str,
    *,
    owner: str = "",
    version: str = "",
    games: Sequence[str] = (),
    description: str = "",
    tls: bool = False,
    root_certificates: bytes | None = None,
    timeout: float = 30.0,
) -> Registration:
    """Register (or update) the bot ``name`` on ``server`` with ``owner_key`` and get a new
    token for it; :class:`ClientError` with the server's reason if refused."""
    credentials = (
        grpc.ssl_channel_credentials(root_certificates) if tls or root_certificates else None
    )
    channel = (
        grpc.secure_channel(server, credentials)
        if credentials is not None
        else grpc.insecure_channel(server)
    )
    request = arena_pb2.RegisterRequest(
        name=name, owner=owner, version=version, games=list(games), description=description
    )
    with channel:
        try:
            response: arena_pb2.RegisterResponse = arena_pb2_grpc.RegistryStub(channel).Register(
                request, metadata=(("authorization", f"Bearer {owner_key}"),), timeout=timeout
            )
        except grpc.RpcError as err:
            code = err.code()
            raise ClientError(code.name, err.details() or "") from None
    return Registration(response.bot_id, response.token, response.token_id, response.created)
