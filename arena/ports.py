"""One process per address: a port another process listens on is refused, in one line.

gRPC sets ``SO_REUSEPORT`` on its listening sockets by default, so a second server on a
taken port would start and share it, each with its own store, and bots would land on
either. The server turns that off (``grpc.so_reuseport`` 0) unless sharing is asked for on
purpose, and :func:`check_free` tries the address first, so that a taken port is an
``OSError`` naming the address and the listener rather than gRPC's own log lines.
"""

from __future__ import annotations

import errno
import socket

__all__ = ["check_free", "listen_error", "shown_address"]


def shown_address(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets."""
    bare = host.strip("[]")
    return f"[{bare}]:{port}" if ":" in bare else f"{bare}:{port}"


def listen_error(what: str, host: str, port: int, cause: OSError | str) -> OSError:
    """The one-line error of a listener (``what``) that cannot have its address."""
    reason = cause if isinstance(cause, str) else cause.strerror or str(cause)
    if isinstance(cause, OSError) and cause.errno == errno.EADDRINUSE:
        reason = f"{reason}: another process listens there"
    return OSError(f"cannot listen on {shown_address(host, port)} ({what}): {reason}")


def check_free(host: str, port: int, what: str) -> None:
    """Bind ``host:port`` for a moment, the way a listener that shares nothing would:
    :func:`listen_error` if another socket holds it (port 0 is always free)."""
    if port == 0:
        return
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as err:
        raise listen_error(what, host, port, err.strerror or str(err)) from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no owner
        try:
            probe.bind(address)
        except OSError as err:
            raise listen_error(what, host, port, err) from None
