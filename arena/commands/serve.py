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
from pathlib import Path

from arena.errors import ArenaError
from arena.server.auth import ADMIN_TOKEN_ENV, OWNER_KEYS_ENV, parse_owner_keys
from arena.store import Store

DEFAULT_DB = "arena.sqlite"


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """The ``serve`` subcommand's arguments."""
    parser = sub.add_parser(
        "serve",
        help="run the gRPC server (arena.v1) until interrupted",
        description="Serve the arena.v1 services. Owner keys: --owner-keys FILE or "
        f"${OWNER_KEYS_ENV} (lines 'OWNER KEY' or 'OWNER sha256:HEX'). "
        f"Admin token: --admin-token or ${ADMIN_TOKEN_ENV}.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    parser.add_argument("--port", type=int, default=50051, help="port; 0 for any free (50051)")
    parser.add_argument("--db", default=DEFAULT_DB, help=f"the store (default {DEFAULT_DB})")
    parser.add_argument("--owner-keys", metavar="FILE", help="owner keys, one owner a line")
    parser.add_argument("--admin-token", metavar="TOKEN", help="the admin token")


def load_owner_keys(path: str | None) -> dict[str, str]:
    """Owner keys from FILE, else from the environment; none is fine (nobody registers)."""
    if path is not None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as err:
            raise ArenaError(f"cannot read owner keys {path}: {err.strerror}") from None
        return parse_owner_keys(text, path)
    return parse_owner_keys(os.environ.get(OWNER_KEYS_ENV, ""), f"${OWNER_KEYS_ENV}")


def run_serve(args: argparse.Namespace) -> int:
    from arena.server.app import serve  # loads gRPC: only for this command

    if not 0 <= args.port <= 65535:
        raise ArenaError(f"port must be 0..65535, got {args.port}")
    owner_keys = load_owner_keys(args.owner_keys)
    admin_token = args.admin_token or os.environ.get(ADMIN_TOKEN_ENV, "")
    if not owner_keys:
        print("arena serve: no owner keys: Registry calls will fail", file=sys.stderr)
    if not admin_token:
        print("arena serve: no admin token: Admin calls will fail", file=sys.stderr)
    with Store.open(args.db) as store:
        try:
            asyncio.run(
                serve(
                    store,
                    host=args.host,
                    port=args.port,
                    owner_keys=owner_keys,
                    admin_tokens=[admin_token] if admin_token else [],
                    announce=lambda line: print(line, flush=True),
                )
            )
        except OSError as err:
            raise ArenaError(str(err)) from None
    return 0
