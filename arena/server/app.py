"""The arena gRPC server: services, authentication, health, reflection, limits, shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import signal
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Final

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena import games, metrics
from arena._proto.arena.v1 import arena_pb2, arena_pb2_grpc
from arena.log import get_logger
from arena.metrics import MetricsServer
from arena.ports import check_free, listen_error
from arena.protocol import DEFAULT_PORT
from arena.rating.pools import people_pool
from arena.server.admin import AdminService
from arena.server.auth import Authenticator
from arena.server.decoding import DecodingInterceptor
from arena.server.interceptor import AuthInterceptor
from arena.server.play import PlayConfig, PlayService
from arena.server.services import (
    REGISTRATIONS_PER_MINUTE,
    LeaderboardService,
    RegistryService,
    Services,
)
from arena.server.spectate import SpectateService
from arena.server.tuning import tune_collector
from arena.store import Store

if TYPE_CHECKING:
    from arena.web.serving import WebServer

__all__ = [
    "ARENA_SERVICES",
    "MAX_RECEIVE_BYTES",
    "MAX_SEND_BYTES",
    "RunningServer",
    "TlsFiles",
    "start_server",
]

MAX_RECEIVE_BYTES: Final = 1024 * 1024
"""Largest message the server accepts (docs/protocol.md, Limits: 1 MiB)."""
MAX_SEND_BYTES: Final = 4 * 1024 * 1024
"""Largest message the server sends (docs/protocol.md, Limits: 4 MiB)."""
SHUTDOWN_GRACE: Final = 5.0
"""Seconds calls in flight get to finish when the server stops."""
DRAIN_SECONDS: Final = 60.0
"""Seconds running matches get to finish on shutdown before they are cut short."""

log = get_logger(__name__)

ARENA_SERVICES: Final = tuple(
    service.full_name for service in arena_pb2.DESCRIPTOR.services_by_name.values()
)


def _unfinished(play: PlayService, match_id: str) -> str | None:
    """Whether the match is running or scheduled on this server (None: neither)."""
    if match_id in play.sessions:
        return "running"
    if any(plan.match_id == match_id for plan in play.scheduled):
        return "scheduled"
    return None


@dataclass(frozen=True)
class TlsFiles:
    """PEM files for TLS: the server's certificate chain and private key."""

    certificate: str
    private_key: str

    def credentials(self) -> grpc.ServerCredentials:
        try:
            chain = Path(self.certificate).read_bytes()
            key = Path(self.private_key).read_bytes()
        except OSError as err:
            raise OSError(f"cannot read TLS file {err.filename}: {err.strerror}") from None
        return grpc.ssl_server_credentials([(key, chain)])


@dataclass
class RunningServer:
    """A started server: its port, its health servicer, its Play service, a graceful stop."""

    server: grpc.aio.Server
    health: health.aio.HealthServicer
    port: int
    play: PlayService
    metrics: MetricsServer | None = None
    web: WebServer | None = None

    @property
    def metrics_port(self) -> int | None:
        """The port of the ``/metrics`` endpoint, if the server has one."""
        return self.metrics.port if self.metrics is not None else None

    @property
    def web_port(self) -> int | None:
        """The port of the web face, if the server has one."""
        return self.web.port if self.web is not None else None

    async def stop(
        self, grace: float | None = SHUTDOWN_GRACE, drain: float = DRAIN_SECONDS
    ) -> None:
        """Report NOT_SERVING, seat no new match, give running matches ``drain`` seconds to
        finish (then cut them short, stored), then stop, giving calls ``grace`` seconds."""
        await self.health.enter_graceful_shutdown()
        log.info("shutdown_started", health="NOT_SERVING")
        await self.play.drain("the server is shutting down", drain)
        if self.web is not None:
            await self.web.stop()
        await self.server.stop(grace)
        if self.metrics is not None:
            self.metrics.stop()
        log.info("shutdown_finished")


async def start_server(
    store: Store,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    owner_keys: Mapping[str, str] | None = None,
    admin_tokens: Sequence[str] = (),
    play: PlayConfig | None = None,
    tls: TlsFiles | None = None,
    registrations_per_minute: float = REGISTRATIONS_PER_MINUTE,
    metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
    web_port: int | None = None,
    web_host: str = "127.0.0.1",
    reports: Path | None = None,
    reuse_port: bool = False,
) -> RunningServer:
    """Build and start a server on ``host:port`` (port 0: any free port), with TLS when
    ``tls`` is given, Prometheus metrics on ``metrics_host:metrics_port`` when a
    metrics port is given (0: any free port), and the web face on ``web_host:web_port``
    in the same event loop when a web port is given (its live tables are this server's
    running matches; ``reports``: the folder of balance reports it lists).

    An address another process listens on is an ``OSError`` naming it and the listener
    (:mod:`arena.ports`), and nothing is left listening; ``reuse_port`` lets the
    gRPC port be shared with other processes that ask the same (``SO_REUSEPORT``)."""
    auth = Authenticator(store, owner_keys, admin_tokens)
    services = Services(
        store=store,
        auth=auth,
        registrations_per_minute=registrations_per_minute,
    )
    server = grpc.aio.server(
        interceptors=[AuthInterceptor(auth), DecodingInterceptor()],
        options=[
            ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
            ("grpc.max_send_message_length", MAX_SEND_BYTES),
            ("grpc.so_reuseport", 1 if reuse_port else 0),
        ],
    )
    arena_pb2_grpc.add_RegistryServicer_to_server(RegistryService(services), server)
    arena_pb2_grpc.add_LeaderboardServicer_to_server(LeaderboardService(services), server)
    play_service = PlayService(
        store,
        replace(
            play or PlayConfig(), max_receive_bytes=MAX_RECEIVE_BYTES, max_send_bytes=MAX_SEND_BYTES
        ),
    )
    services.on_revoke.append(play_service.revoked)
    services.unfinished.append(functools.partial(_unfinished, play_service))
    arena_pb2_grpc.add_PlayServicer_to_server(play_service, server)
    arena_pb2_grpc.add_AdminServicer_to_server(AdminService(services, play_service), server)
    arena_pb2_grpc.add_SpectateServicer_to_server(
        SpectateService(services, play_service.sessions), server
    )

    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *ARENA_SERVICES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (*ARENA_SERVICES, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )

    bound = _bind(server, host, port, tls, reuse_port)
    endpoint = None
    web = None
    try:
        if metrics_port is not None:
            for variant in games.names():  # the bots' league and the people's pool
                metrics.publish_ratings(store, variant)
                metrics.publish_ratings(store, people_pool(variant))
            endpoint = _start_metrics(metrics_host, metrics_port)
        if web_port is not None:
            web = await _start_web(store, play_service, web_host, web_port, reports)
    except BaseException:
        await server.stop(None)
        if endpoint is not None:
            endpoint.stop()
        raise
    await server.start()
    log.info(
        "server_started",
        port=bound,
        tls=tls is not None,
        metrics_port=metrics_port,
        web_port=web.port if web is not None else None,
    )
    return RunningServer(server, health_servicer, bound, play_service, endpoint, web)


def _bind(
    server: grpc.aio.Server, host: str, port: int, tls: TlsFiles | None, reuse_port: bool
) -> int:
    """Add the listening port (``OSError`` naming it if taken); the port bound."""
    if not reuse_port:
        check_free(host, port, "gRPC")
    address = f"{host}:{port}"
    try:
        if tls is None:
            bound = server.add_insecure_port(address)
        else:
            bound = server.add_secure_port(address, tls.credentials())
    except RuntimeError:  # gRPC's "Failed to bind": taken since the check
        bound = 0
    if bound == 0:
        raise listen_error("gRPC", host, port, "the address cannot be bound")
    return bound


def _start_metrics(host: str, port: int) -> MetricsServer:
    """The ``/metrics`` endpoint, started; ``OSError`` naming the address if taken."""
    try:
        return metrics.start_metrics_server(port, host)
    except OSError as err:
        raise listen_error("metrics", host, port, err) from None


async def _start_web(
    store: Store, play: PlayService, host: str, port: int, reports: Path | None
) -> WebServer:
    """The web face of this server's store and running matches, started."""
    from arena.web.app import create_app
    from arena.web.serving import WebServer
    from arena.web.viewer import Viewer

    web = WebServer(create_app(Viewer(store, play.sessions, reports), play), host, port)
    await web.start()
    return web


async def serve(
    store: Store,
    *,
    host: str,
    port: int,
    owner_keys: Mapping[str, str],
    admin_tokens: Sequence[str],
    play: PlayConfig | None = None,
    tls: TlsFiles | None = None,
    drain: float = DRAIN_SECONDS,
    metrics_port: int | None = None,
    metrics_host: str = "127.0.0.1",
    web_port: int | None = None,
    web_host: str = "127.0.0.1",
    reports: Path | None = None,
    reuse_port: bool = False,
    announce: Callable[[str], None] = print,
    beside: Callable[[RunningServer], AbstractAsyncContextManager[Sequence[str]]] | None = None,
) -> None:
    """Serve until SIGINT or SIGTERM, then shut down gracefully (running matches get
    ``drain`` seconds to finish). ``beside`` runs a service beside the server (a gateway):
    entered once the server listens, its lines announced, left once the server stopped."""
    running = await start_server(
        store,
        host=host,
        port=port,
        owner_keys=owner_keys,
        admin_tokens=admin_tokens,
        play=play,
        tls=tls,
        metrics_port=metrics_port,
        metrics_host=metrics_host,
        web_port=web_port,
        web_host=web_host,
        reports=reports,
        reuse_port=reuse_port,
    )
    tune_collector()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    shown = f"[{host}]" if ":" in host else host
    announce(f"arena server listening on {shown}:{running.port}")
    if running.metrics is not None:
        announce(f"metrics on {running.metrics.url}")
    if running.web is not None:
        announce(f"web face on {running.web.url}")
    async with contextlib.AsyncExitStack() as services:
        try:
            if beside is not None:
                for line in await services.enter_async_context(beside(running)):
                    announce(line)
            await stop.wait()
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
            announce(f"arena server shutting down: running matches get {drain:g} s to finish")
            await running.stop(drain=drain)
            announce("arena server stopped")
