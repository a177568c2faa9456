"""The arena gRPC server (arena.v1): authentication, servicers, health and reflection."""

from __future__ import annotations

from typing import Any

from arena.errors import quoted
from arena.server.auth import Authenticator, AuthError, Principal, issue_token, parse_owner_keys

__all__ = [
    "AuthError",
    "Authenticator",
    "Principal",
    "RunningServer",
    "issue_token",
    "parse_owner_keys",
    "start_server",
]


def __getattr__(name: str) -> Any:
    """``RunningServer`` and ``start_server`` load gRPC only when asked for."""
    if name in ("RunningServer", "start_server"):
        from arena.server import app

        return getattr(app, name)
    raise AttributeError(f"module 'arena.server' has no attribute {quoted(name)}")
