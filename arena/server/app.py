"""The arena gRPC server: services, authentication, health, reflection, limits, shutdown."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.server.auth import Authenticator
from arena.server.interceptor import AuthInterceptor
from arena.server.play import PlayConfig, PlayService
from arena.server.services import AdminService, LeaderboardService, RegistryService, Services
from arena.server.spectate import SpectateService
from arena.store import Store

__all__ = [
    "ARENA_SERVICES",
    "MAX_RECEIVE_BYTES",
    "MAX_SEND_BYTES",
    "RunningServer",
    "start_server",
]

MAX_RECEIVE_BYTES: Final = 1024 * 1024
"""Largest message the server accepts (docs/protocol.md, Limits: 1 MiB)."""
MAX_SEND_BYTES: Final = 4 * 1024 * 1024
"""Largest message the server sends (docs/protocol.md, Limits: 4 MiB)."""
SHUTDOWN_GRACE: Final = 5.0
"""Seconds calls in flight get to finish when the server stops."""

ARENA_SERVICES: Final = tuple(
    service.full_name for service in arena_pb2.DESCRIPTOR.services_by_name.values()
)


def _builtin_bots() -> frozenset[str]:
    import bots

    return frozenset(bots.names())


@dataclass
class RunningServer:
    """A started server: its port, its health servicer, and a graceful stop."""

    server: grpc.aio.Server
    health: health.aio.HealthServicer
    port: int

    async def stop(self, grace: float | None = SHUTDOWN_GRACE) -> None:
        """Report NOT_SERVING, then stop, giving calls in flight ``grace`` seconds."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


async def start_server(
    store: Store,
    *,
    host: str = "127.0.0.1",
    port: int = 50051,
    owner_keys: Mapping[str, str] | None = None,
    admin_tokens: Sequence[str] = (),
    play: PlayConfig | None = None,
) -> RunningServer:
    """Build and start a server on ``host:port`` (port 0: any free port)."""
    auth = Authenticator(store, owner_keys, admin_tokens)
    services = Services(store=store, auth=auth, builtin_bots=_builtin_bots())
    server = grpc.aio.server(
        interceptors=[AuthInterceptor(auth)],
        options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
        ],
    )
    arena_pb2_grpc.add_RegistryServicer_to_server(RegistryService(services), server)
    arena_pb2_grpc.add_LeaderboardServicer_to_server(LeaderboardService(services), server)
    # Methods not written yet answer UNIMPLEMENTED (the generated base class).
    arena_pb2_grpc.add_AdminServicer_to_server(AdminService(services), server)  # type: ignore[abstract]
    play_service = PlayService(
        store,
        replace(
            play or PlayConfig(), max_receive_bytes=MAX_RECEIVE_BYTES, max_send_bytes=MAX_SEND_BYTES
        ),
        services.builtin_bots,
    )
    arena_pb2_grpc.add_PlayServicer_to_server(play_service, server)
    arena_pb2_grpc.add_SpectateServicer_to_server(SpectateService(services), server)

    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *ARENA_SERVICES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (*ARENA_SERVICES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )

    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    await server.start()
    return RunningServer(server, health_servicer, bound)


async def serve(
    store: Store,
    *,
    host: str,
    port: int,
    owner_keys: Mapping[str, str],
    admin_tokens: Sequence[str],
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully."""
    running = await start_server(
        store, host=host, port=port, owner_keys=owner_keys, admin_tokens=admin_tokens
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    shown = f"[{host}]" if ":" in host else host
    announce(f"arena server listening on {shown}:{running.port}")
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        announce("arena server shutting down")
        await running.stop()
