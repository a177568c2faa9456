"""``arena web``: the web face of a store (leaderboards, bots, tournaments, matches drawn
on a card table, balance reports) until SIGINT or SIGTERM.

It opens the store read-only and shows what is stored; live matches are shown by the
web face of a running server (``arena serve --web-port``), which this module's
:func:`add_web_arguments` gives its options. With ``--metrics-port`` its request
metrics are served for Prometheus, as ``arena serve`` serves them.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
from collections.abc import Callable
from pathlib import Path

from arena.commands import Subcommands, add_db_argument, arguments
from arena.commands.metrics_endpoint import add_metrics_arguments, metrics_endpoint
from arena.errors import ArenaError
from arena.store import Store

DEFAULT_WEB_PORT = 8080


def add_reports_argument(parser: argparse.ArgumentParser) -> None:
    """``--reports DIR``: the balance reports the site lists."""
    parser.add_argument(
        "--reports",
        type=arguments.existing_directory,
        metavar="DIR",
        help="a folder of balance reports (arena balance --json FILE) to list",
    )


def add_web_arguments(parser: argparse.ArgumentParser, port_default: int | None) -> None:
    """``--web-port``, ``--web-host`` and ``--reports`` (the web face beside a server)."""
    parser.add_argument(
        "--web-port",
        type=arguments.port,
        default=port_default,
        metavar="PORT",
        help="serve the web face on http://HOST:PORT/ too (0: any free port)",
    )
    parser.add_argument(
        "--web-host",
        type=arguments.host,
        default="127.0.0.1",
        help="address of the web face (127.0.0.1)",
    )
    add_reports_argument(parser)


def add_parser(sub: Subcommands) -> None:
    """``arena web --db FILE [--host H] [--port N] [--reports DIR]``."""
    parser = sub.add_parser(
        "web",
        help="serve the web face of a store (leaderboards, matches, replays) until interrupted",
        description="Serve the web face of a store, read-only: leaderboards, bots, "
        "tournaments, matches drawn on a card table, balance reports, in Chinese and "
        "English. Live matches are shown by 'arena serve --web-port'.",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--host", type=arguments.host, default="127.0.0.1", help="address to listen on (127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=arguments.port,
        default=DEFAULT_WEB_PORT,
        help=f"port; 0 for any free ({DEFAULT_WEB_PORT})",
    )
    add_reports_argument(parser)
    add_metrics_arguments(parser)
    parser.set_defaults(handler=run_web, terminal_log_level=None)  # its log is its output


async def serve_web(
    store: Store,
    host: str,
    port: int,
    reports: Path | None,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve the web face of ``store`` until SIGINT or SIGTERM."""
    from arena.web.app import create_app
    from arena.web.serving import WebServer
    from arena.web.viewer import Viewer

    web = WebServer(create_app(Viewer(store, reports=reports)), host, port)
    await web.start()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    announce(f"web face on {web.url}")
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)
        await web.stop()
        announce("web face stopped")


def run_web(args: argparse.Namespace) -> int:
    with Store.open(args.db, read_only=True) as store, metrics_endpoint(args):
        try:
            asyncio.run(
                serve_web(
                    store,
                    args.host,
                    args.port,
                    args.reports,
                    announce=lambda line: print(line, flush=True),
                )
            )
        except OSError as err:
            raise ArenaError(str(err)) from None
    return 0
