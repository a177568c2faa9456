"""``arena serve``: the gRPC server (arena.v1) until SIGINT or SIGTERM.

Owner keys come from ``--owner-keys FILE`` or, without it, the environment variable
``ARENA_OWNER_KEYS`` (same text; format in :mod:`arena.server.auth`). The admin token
comes from ``--admin-token`` or ``ARENA_ADMIN_TOKEN``; without one, Admin calls fail.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from arena.commands import (
    Subcommands,
    add_clock_arguments,
    add_db_argument,
    arguments,
    guandan_ws,
)
from arena.commands.metrics_endpoint import add_metrics_arguments
from arena.commands.web import add_web_arguments
from arena.errors import ArenaError
from arena.inputs import read_text
from arena.protocol import ADMIN_TOKEN_ENV, DEFAULT_PORT
from arena.server.auth import OWNER_KEYS_ENV, parse_owner_keys
from arena.store import Store


def add_parser(sub: Subcommands) -> None:
    """The ``serve`` subcommand's arguments."""
    parser = sub.add_parser(
        "serve",
        help="run the gRPC server (arena.v1) until interrupted",
        description="Serve the arena.v1 services. Owner keys: --owner-keys FILE or "
        f"${OWNER_KEYS_ENV} (lines 'OWNER KEY' or 'OWNER sha256:HEX'). "
        f"Admin token: --admin-token or ${ADMIN_TOKEN_ENV}.",
    )
    parser.add_argument(
        "--host", type=arguments.host, default="127.0.0.1", help="address to listen on (127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=arguments.port,
        default=DEFAULT_PORT,
        help=f"port; 0 for any free ({DEFAULT_PORT})",
    )
    parser.add_argument(
        "--reuse-port",
        action="store_true",
        help="share --port with other processes that ask the same (SO_REUSEPORT: each "
        "connection lands on one of them); without it a port in use is refused",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--owner-keys",
        type=arguments.readable_file,
        metavar="FILE",
        help="owner keys, one owner a line",
    )
    parser.add_argument(
        "--admin-token", type=arguments.secret, metavar="TOKEN", help="the admin token"
    )
    parser.add_argument(
        "--tls-cert", type=arguments.pem_file, metavar="FILE", help="TLS certificate chain (PEM)"
    )
    parser.add_argument(
        "--tls-key", type=arguments.pem_file, metavar="FILE", help="TLS private key (PEM)"
    )
    add_clock_arguments(parser)
    parser.add_argument(
        "--drain",
        type=arguments.seconds_or_zero,
        default=60.0,
        help="seconds matches get to finish on shutdown (60)",
    )
    add_metrics_arguments(parser)
    add_web_arguments(parser, port_default=None)
    guandan_ws.add_serve_arguments(parser)
    parser.set_defaults(handler=run_serve, terminal_log_level=None)  # its log is its output


def load_owner_keys(path: str | None) -> dict[str, str]:
    """Owner keys from FILE, else from the environment; none is fine (nobody registers)."""
    if path is not None:
        return parse_owner_keys(read_text(path, "owner keys"), path)
    return parse_owner_keys(os.environ.get(OWNER_KEYS_ENV, ""), f"${OWNER_KEYS_ENV}")


def run_serve(args: argparse.Namespace) -> int:
    # gRPC is loaded only for this command
    from arena.server.app import TlsFiles, serve
    from arena.server.play import ClockConfig, PlayConfig

    if (args.tls_cert is None) != (args.tls_key is None):
        raise ArenaError("TLS needs both --tls-cert and --tls-key")
    if args.reports is not None and args.web_port is None:
        raise ArenaError("--reports needs --web-port: the web face lists the reports")
    tls = TlsFiles(args.tls_cert, args.tls_key) if args.tls_cert else None
    guandan_ws.check_serve_arguments(args)
    play = PlayConfig(
        clock=ClockConfig(
            decision_seconds=args.decision_seconds,
            time_bank_seconds=args.time_bank,
            grace_seconds=args.grace,
        )
    )
    owner_keys = load_owner_keys(args.owner_keys)
    admin_token = arguments.secret_or_env(args.admin_token, ADMIN_TOKEN_ENV)
    with Store.open(args.db) as store:
        if not owner_keys:
            print("arena serve: no owner keys: Registry calls will fail", file=sys.stderr)
        if not admin_token:
            print("arena serve: no admin token: Admin calls will fail", file=sys.stderr)
        try:
            asyncio.run(
                serve(
                    store,
                    host=args.host,
                    port=args.port,
                    owner_keys=owner_keys,
                    admin_tokens=[admin_token] if admin_token else [],
                    play=play,
                    tls=tls,
                    drain=args.drain,
                    metrics_port=args.metrics_port,
                    metrics_host=args.metrics_host,
                    web_port=args.web_port,
                    web_host=args.web_host,
                    reports=args.reports,
                    reuse_port=args.reuse_port,
                    announce=lambda line: print(line, flush=True),
                    beside=guandan_ws.beside(args, play.clock),
                )
            )
        except OSError as err:
            raise ArenaError(str(err)) from None
    return 0
