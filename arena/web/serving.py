"""Serving the web face with uvicorn inside an event loop that is already running (the
gRPC server's, or the one of ``arena web``), on a socket bound before anything starts.

Binding first means a taken port is an ``OSError`` naming the address, raised by
:meth:`WebServer.start`, rather than uvicorn's own exit; the server never installs
signal handlers (the command that runs it owns them) and gives open streams (live
tables) :data:`GRACE_SECONDS` to end when it stops.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

import uvicorn
from starlette.types import ASGIApp

__all__ = ["GRACE_SECONDS", "WebServer", "bind"]

GRACE_SECONDS: Final = 1
"""Seconds open responses (event streams) get to finish when the server stops."""
MAX_REQUEST_HEAD: Final = 64 * 1024
"""Bytes of a request's line and headers uvicorn reads before it refuses the request
itself: a long address reaches the site, whose page says what was wrong with it."""


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: any free port), IPv4 or IPv6;
    an ``OSError`` naming the address if it cannot be had."""
    shown = f"[{host}]" if ":" in host else host
    bare = host.strip("[]")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            bare, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as err:
        raise OSError(f"cannot listen on {shown}:{port}: {err.strerror}") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        raise OSError(f"cannot listen on {shown}:{port}: {err.strerror}") from None
    sock.setblocking(False)
    return sock


class _Server(uvicorn.Server):
    """uvicorn's server without its signal handlers: the command running it has its own."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class WebServer:
    """An ASGI app served by uvicorn in the running event loop: ``await start()`` (the
    bound port), ``await stop()``."""

    def __init__(self, app: ASGIApp, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._config = uvicorn.Config(
            app,
            lifespan="off",
            log_config=None,
            access_log=False,
            server_header=False,
            timeout_graceful_shutdown=GRACE_SECONDS,
            h11_max_incomplete_event_size=MAX_REQUEST_HEAD,
        )
        self._server = _Server(self._config)
        # uvicorn's own lines (started, shutting down) would repeat the arena's events
        logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """The address of the site's front page."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    async def start(self) -> int:
        """Bind, start serving, and return the bound port; ``OSError`` if the address
        cannot be had."""
        if self._task is not None:
            raise RuntimeError("the web server is already started")
        sock = bind(self.host, self.port)
        self.port = int(sock.getsockname()[1])
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # its error, if it failed
                raise OSError(f"the web server on {self.url} stopped while starting")
            await asyncio.sleep(0.01)
        return self.port

    async def stop(self) -> None:
        """Stop accepting, give open responses their grace, and wait for the end."""
        if self._task is None:
            return
        self._server.should_exit = True
        task, self._task = self._task, None
        await task
