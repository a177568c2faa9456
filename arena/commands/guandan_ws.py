"""The Guandan competition platform's WebSocket protocol on the command line.

``arena serve --guandan-ws-port N`` serves it beside the gRPC server (seat addresses
``ws://HOST:N/game/<name>``; tokens in the URL or ``--guandan-ws-tokens FILE``);
``arena guandan-ws series`` runs the platform's local series on an arena of its own.
The work lives in :mod:`arena.gateways.guandan_ws`; this module parses and calls.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, TypeVar

from arena.commands import (
    Subcommands,
    add_clock_arguments,
    add_db_argument,
    arguments,
    print_json,
)
from arena.commands.numbers import signed
from arena.errors import ArenaError, ConfigError
from arena.inputs import read_text
from arena.plural import counted

if TYPE_CHECKING:
    from arena.server.app import RunningServer
    from arena.server.session import ClockConfig

T = TypeVar("T")

DEFAULT_WS_PORT = 23456
"""The port the platform's local server and its clients use."""
LOOPBACK = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}
"""Where the gateway reaches a server listening on every address."""


# -- arena serve --guandan-ws-port ------------------------------------------------------


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """``arena serve``'s options of the platform's WebSocket gateway."""
    parser.add_argument(
        "--guandan-ws-port",
        type=arguments.port,
        default=None,
        metavar="PORT",
        help="also serve the Guandan competition platform's WebSocket protocol on this port "
        f"(its clients use {DEFAULT_WS_PORT}; 0 for any free): ws://HOST:PORT/game/<name>",
    )
    parser.add_argument(
        "--guandan-ws-tokens",
        type=arguments.readable_file,
        default=None,
        metavar="FILE",
        help="tokens of bots that connect without ?token= in their URL: lines 'NAME TOKEN', "
        "NAME as in /game/NAME",
    )


def check_serve_arguments(args: argparse.Namespace) -> None:
    """The gateway's options make sense together (one-line errors)."""
    if args.guandan_ws_port is None:
        if args.guandan_ws_tokens is not None:
            raise ConfigError("--guandan-ws-tokens needs --guandan-ws-port")
        return
    if args.tls_cert is not None:
        raise ConfigError(
            "--guandan-ws-port serves plain ws:// only: put a TLS proxy in front of both "
            "rather than --tls-cert"
        )
    args.guandan_ws_token_map = _tokens(args.guandan_ws_tokens)


def _tokens(path: str | None) -> dict[str, str]:
    if path is None:
        return {}
    from arena.gateways.guandan_ws.server import parse_tokens

    try:
        return parse_tokens(read_text(path, "Guandan WebSocket tokens"), path)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def beside(
    args: argparse.Namespace, clock: ClockConfig
) -> Callable[[RunningServer], AbstractAsyncContextManager[Sequence[str]]] | None:
    """The gateway as a service beside ``arena serve``'s server (None: not asked for)."""
    if args.guandan_ws_port is None:
        return None

    @contextlib.asynccontextmanager
    async def gateway(running: RunningServer) -> AsyncIterator[Sequence[str]]:
        from arena.gateways.guandan_ws.server import GatewayConfig, serving, url

        config = GatewayConfig(
            server=f"{LOOPBACK.get(args.host, args.host)}:{running.port}",
            answer_seconds=clock.decision_seconds + clock.time_bank_seconds,
            tokens=getattr(args, "guandan_ws_token_map", {}),
        )
        async with serving(config, args.host, args.guandan_ws_port) as served:
            yield [f"Guandan competition platform on {url(args.host, served.port)}"]

    return gateway


# -- arena guandan-ws series -------------------------------------------------------------


def add_parser(sub: Subcommands) -> None:
    """``arena guandan-ws series``."""
    parser = sub.add_parser(
        "guandan-ws",
        help="the Guandan competition platform's WebSocket protocol: its local series",
        description="Bots written for the Guandan competition platform play unchanged. "
        "'series' serves the platform's four seat addresses /game/client0 … /game/client3 "
        "on an arena of its own and plays N games between the bots there; --seat gives a "
        "seat to one of ours instead. arena serve --guandan-ws-port serves the protocol "
        "beside a server.",
    )
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    series = actions.add_parser(
        "series",
        help="play a series of N games on /game/client0 … /game/client3 and say who won",
        description="Serve ws://HOST:PORT/game/client0 … client3 (seats 0 and 2 against 1 "
        "and 3) and play --games games there, each stored and rated in --db; then print "
        "seats 0 and 2's score with its 95% interval, the Elo difference and the "
        "likelihood of superiority.",
    )
    series.add_argument("--games", type=arguments.count, default=1, help="games in the series (1)")
    series.add_argument(
        "--seat",
        action="append",
        default=[],
        type=_seat,
        metavar="N=BOT",
        help="give seat N (0-3) to one of ours: a built-in bot (heuristic, "
        "search:samples=16 …) or 'grpc' (a gRPC bot, with the token printed)",
    )
    series.add_argument(
        "--host", type=arguments.host, default="127.0.0.1", help="address to listen on"
    )
    series.add_argument(
        "--port",
        type=arguments.port,
        default=DEFAULT_WS_PORT,
        help=f"WebSocket port; 0 for any free ({DEFAULT_WS_PORT})",
    )
    series.add_argument(
        "--grpc-port",
        type=arguments.port,
        default=0,
        help="the series' gRPC server's port on 127.0.0.1 (0: any free)",
    )
    series.add_argument(
        "--deals",
        type=arguments.count,
        default=None,
        help="end a game after this many deals (default: when a team passes A)",
    )
    add_clock_arguments(series)
    series.add_argument("--casual", action="store_true", help="the games are not rated")
    series.add_argument(
        "--web-port",
        type=arguments.port,
        default=None,
        help="serve the web face on 127.0.0.1 at this port (0: any free): the games live",
    )
    add_db_argument(series)
    series.add_argument("--json", action="store_true", help="the result as JSON")
    series.set_defaults(handler=run_series_command)


def _seat(text: str) -> tuple[int, str]:
    seat, sep, who = text.partition("=")
    if not sep or seat.strip() not in ("0", "1", "2", "3") or not who.strip():
        raise argparse.ArgumentTypeError(
            f"expected N=BOT with N 0-3 and BOT a built-in bot or grpc, got {text!r}"
        )
    return int(seat), who.strip()


def run_series_command(args: argparse.Namespace) -> int:
    from arena.gateways.guandan_ws.series import SeriesConfig, run_series, seats_of
    from arena.sim.stopping import Stopped
    from arena.store import Store

    taken = [seat for seat, _ in args.seat]
    if len(set(taken)) != len(taken):
        raise ConfigError("--seat names a seat twice")
    try:
        config = SeriesConfig(
            games=args.games,
            seats=seats_of(args.seat),
            host=args.host,
            port=args.port,
            grpc_port=args.grpc_port,
            deals=args.deals,
            decision_seconds=args.decision_seconds,
            time_bank=args.time_bank,
            grace=args.grace,
            rated=not args.casual,
            web_port=args.web_port,
        )
    except ValueError as err:
        raise ConfigError(str(err)) from None

    def game_over(result: Any) -> None:
        winner = result.winners[-1]
        who = "drawn" if winner is None else f"won by seats {winner} and {winner + 2}"
        print(f"game {len(result.winners)} of {args.games}: {who}", flush=True)

    with Store.open(args.db) as store:
        try:
            result, came = asyncio.run(
                _until_stopped(
                    run_series(
                        store,
                        config,
                        announce=lambda line: print(line, flush=True),
                        on_game=None if args.json else game_over,
                    )
                )
            )
        except (OSError, ValueError) as err:
            raise ArenaError(str(err)) from None
    if result is None:  # the games over are stored already
        raise Stopped(came)
    summary = result.summary()
    if args.json:
        print_json(summary)
    else:
        print(describe(summary))
    return 0


async def _until_stopped(work: Coroutine[Any, Any, T]) -> tuple[T | None, int]:
    """``work``'s result, or None and the stop signal (SIGINT, SIGTERM, SIGHUP) that
    cancelled it: handled on the loop, so the work unwinds as a cancellation does."""
    from arena.sim.stopping import STOP_SIGNALS

    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(work)
    came: list[int] = []

    def stop(signum: int) -> None:
        if not came:
            came.append(signum)
            task.cancel()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop, signum)
    try:
        return await task, 0
    except asyncio.CancelledError:
        if not came:
            raise
        return None, came[0]
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)


def describe(summary: dict[str, Any]) -> str:
    """The series' result for people."""
    team0 = " and ".join(summary["team_0"])
    team1 = " and ".join(summary["team_1"])
    lines = [
        f"series {summary['series']}: {team0} (seats 0, 2) against {team1} (seats 1, 3)",
        f"  {counted(summary['games'], 'game')}: {summary['wins']} won, {summary['losses']} lost, "
        f"{summary['draws']} drawn by seats 0 and 2",
    ]
    if summary["score"] is not None:
        low, high = summary["score_95"]
        elo_low, elo_high = summary["elo_95"]
        elo = "unknown" if summary["elo"] is None else signed(summary["elo"])
        lines.append(
            f"  score {summary['score']:.1%} (95%: {low:.1%} … {high:.1%}); Elo difference "
            f"{elo} (95%: {signed(elo_low)} … {signed(elo_high)}); likelihood of "
            f"superiority {summary['los']:.1%}"
        )
    return "\n".join(lines)
