"""``arena bench guandan-ws``: platform bots through the WebSocket gateway beside gRPC bots.

One run, one server, the same matches twice (fixtures with the same seeds, one match at a
time, ``--deals`` deals each), every seat playing its first legal action:

* *gRPC* — four SDK bots (``bots.simple.FirstBot``) on Play.Connect: the baseline;
* *gateway* — four platform clients (``{"actIndex": 0}`` to every ``act`` message, the
  first entry being the first legal action) through the Guandan competition platform's
  WebSocket gateway (:mod:`arena.gateways.guandan_ws.server`) in front of the same server.

Printed: decisions/s (the decisions of the phase over its wall time, first request to last
acceptance) and the decision round trip's p50, each phase's and the gateway's as a ratio of
the gRPC baseline measured in the same run. The round trip is the SDK's
(``run_bot_async(on_decision=…)``): from the DecisionRequest read to its acceptance read;
through the gateway it covers the platform messages built, sent over the WebSocket and
answered. The server runs on its own loop in a thread; the bots, the gateway and the
platform clients share this process's main loop.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
from typing import Any, Final

from arena.commands.bench_phases import (
    Phase,
    Times,
    play_phases,
    report_head,
    run_gateway_bench,
)
from arena.plural import counted

__all__ = ["measure", "run_guandan_ws_bench"]

VARIANT: Final = "guandan"
PHASE_TIMEOUT: Final = 600.0


async def _grpc_phase(address: str, tokens: tuple[str, ...], matches: int) -> Times:
    from arena.client.runner import run_bot_async
    from bots.simple import FirstBot

    times = Times()
    await asyncio.gather(
        *(
            run_bot_async(
                FirstBot(),
                address,
                token,
                [VARIANT],
                False,
                matches,
                on_decision=times.heard,
                max_retries=0,
                inline=True,
            )
            for token in tokens
        )
    )
    return times


async def _platform_client(url: str) -> None:
    """A platform bot: ``{"actIndex": 0}`` to every ``act``, until the gateway closes."""
    from websockets.asyncio.client import connect

    async with connect(url) as socket:
        async for text in socket:
            if '"type":"act"' in text and json.loads(text)["type"] == "act":
                await socket.send('{"actIndex":0}')


async def _gateway_phase(address: str, tokens: tuple[str, ...], matches: int) -> Times:
    from arena.gateways.guandan_ws.server import GatewayConfig, serving

    times = Times()
    config = GatewayConfig(
        server=address,
        answer_seconds=60.0,
        tokens={f"client{n}": token for n, token in enumerate(tokens)},
        rated=False,
        matches=lambda name: matches,
        on_decision=times.heard,
        give_up_after=5.0,
    )
    async with serving(config, "127.0.0.1", 0) as gateway:
        port = gateway.port
        await asyncio.gather(
            *(_platform_client(f"ws://127.0.0.1:{port}/game/client{n}") for n in range(4))
        )
    return times


def measure(matches: int, deals: int, seed: int) -> dict[str, Any]:
    """Both phases on one server; the report (JSON-ready)."""
    load = os.getloadavg()[0]

    def phases(folder: Path) -> dict[str, Phase]:
        return {
            "grpc": lambda address, tokens: _grpc_phase(address, tokens, matches),
            "gateway": lambda address, tokens: _gateway_phase(address, tokens, matches),
        }

    played = play_phases(
        "bench-guandan-ws",
        VARIANT,
        matches,
        deals,
        seed,
        phases,
        PHASE_TIMEOUT,
        ("arena.server", "arena.gateways"),
    )
    base, through = played["grpc"].figures(), played["gateway"].figures()
    return {
        **report_head(VARIANT, matches, deals, "first legal action (actIndex 0)", load),
        "grpc": base,
        "gateway": through,
        "ratios": {
            "decisions_per_second": through["decisions_per_second"] / base["decisions_per_second"],
            "p50": through["p50_ms"] / base["p50_ms"],
        },
    }


def _print(report: dict[str, Any]) -> None:
    base, through, ratios = report["grpc"], report["gateway"], report["ratios"]
    print(
        f"{report['variant']}: {counted(report['matches'], 'match')} of "
        f"{counted(report['deals_per_match'], 'deal')}, one at a time, each seat playing its "
        f"{report['strategy']}; {report['cores']} cores, load average "
        f"{report['load_average']:.2f} at start"
    )
    print(f"  {report['round_trip']}")
    print(
        f"  gRPC SDK bots (the baseline): {base['decisions_per_second']:.0f} decisions/s, "
        f"round trip p50 {base['p50_ms']:.3f} ms ({counted(base['decisions'], 'decision')})"
    )
    print(
        f"  platform clients through the WebSocket gateway: "
        f"{through['decisions_per_second']:.0f} decisions/s "
        f"({ratios['decisions_per_second']:.2f}x the baseline), round trip p50 "
        f"{through['p50_ms']:.3f} ms ({ratios['p50']:.2f}x) "
        f"({counted(through['decisions'], 'decision')})"
    )


def run_guandan_ws_bench(args: argparse.Namespace) -> int:
    """``arena bench guandan-ws``."""
    return run_gateway_bench(args, measure, _print)
