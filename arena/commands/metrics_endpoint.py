"""``--metrics-port``: the ``/metrics`` endpoint of a command's driver, while it runs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from arena.commands import arguments
from arena.errors import ConfigError
from arena.log import get_logger
from arena.metrics import MetricsServer, start_metrics_server
from arena.ports import listen_error


def add_metrics_arguments(parser: argparse.ArgumentParser) -> None:
    """``--metrics-port PORT`` and ``--metrics-host HOST``."""
    parser.add_argument(
        "--metrics-port",
        type=arguments.port,
        default=None,
        metavar="PORT",
        help="serve Prometheus metrics on http://HOST:PORT/metrics while playing (0: any port)",
    )
    parser.add_argument(
        "--metrics-host",
        type=arguments.host,
        default="127.0.0.1",
        help="address of the metrics endpoint (127.0.0.1)",
    )


@contextmanager
def metrics_endpoint(args: argparse.Namespace) -> Iterator[MetricsServer | None]:
    """Serve the metrics for the duration of the block if ``--metrics-port`` was given,
    announcing the URL on stderr."""
    port: int | None = getattr(args, "metrics_port", None)
    if port is None:
        yield None
        return
    host: str = getattr(args, "metrics_host", "127.0.0.1")
    try:
        server = start_metrics_server(port, host)
    except OSError as err:
        raise ConfigError(str(listen_error("metrics", host, port, err))) from None
    get_logger(__name__).info("metrics_serving", url=server.url)
    print(f"metrics on {server.url}", file=sys.stderr, flush=True)
    try:
        yield server
    finally:
        server.stop()
