"""The arena gRPC server (arena.v1): authentication, servicers, health and reflection."""

from __future__ import annotations

from arena.server.app import RunningServer, start_server
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
