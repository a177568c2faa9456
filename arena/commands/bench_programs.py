"""``arena bench programs``: programs as seats (``--exec``, ``--botzone``) beside gRPC bots.

One run, one server, the same shengji-2 matches (fixtures with the same seeds, one match
at a time, ``--deals`` deals each) four times, every seat playing its first legal action:

* *gRPC* — four SDK bots (``bots.simple.FirstBot``) in this process: the baseline;
* *exec* — four ``--exec`` seats, each a Python program answering ``0`` to every line;
* *Botzone simple* — four ``--botzone`` seats, a program started for every turn, reading
  the whole deal so far; it answers as the engine's first legal action would;
* *Botzone long-running* — the same program kept running (one per seat and deal).

Printed: decisions/s (the decisions of the phase over its wall time) and the decision
round trip's p50 (the SDK's ``on_decision``: the DecisionRequest read to its acceptance
read, so it covers the program's answer), each as a ratio of the gRPC baseline measured
in the same run; and the cost per decision of Botzone's simple mode over its long-running
mode (programs started per decision, round trip p50 and mean). The server runs on its
own loop in a thread; the seats share this process's main loop, the programs are Python
processes (``sys.executable``) started from a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import textwrap
from collections.abc import Callable
from functools import partial
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

__all__ = ["measure", "run_programs_bench"]

VARIANT: Final = "shengji-2"
PHASE_TIMEOUT: Final = 900.0
EXEC_PROGRAM: Final = """
import sys
for line in sys.stdin:
    sys.stdout.write("0\\n")
    sys.stdout.flush()
"""
BOTZONE_PROGRAM: Final = """
import json, sys
from arena.cards import NUM_KINDS
from arena.gateways.botzone.cards import LEVELS, card_of
from arena.games.shengji.leads import all_leads, unit_leads
from arena.games.shengji.moves import LIST_LIMIT, follow_actions
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import decompose

def numbers(cards, hold):
    chosen = []
    for card in cards:
        chosen.append(next(n for n in hold if card_of(n) == card and n not in chosen))
    return chosen

def respond(requests, responses):
    hold = []
    for request, response in zip(requests, [*responses, None]):
        hold += request.get("deliver", [])
        if request["stage"] in ("cover", "play") and response:
            hold = [n for n in hold if n not in response]
    now = requests[-1]
    if now["stage"] == "deal":
        return []
    hand = sorted(card_of(n) for n in hold)
    if now["stage"] == "cover":
        return numbers(hand[: len(now["deliver"])], hold)
    major = now["global"]["banking"]["major"]
    level = LEVELS.index(now["global"]["level"])
    order = TrumpOrder(level, None if major == "n" else "shdc".index(major), False, False)
    trick = now["history"][1]
    if not trick:
        plays = all_leads(hand, order, LIST_LIMIT) or unit_leads(hand, order, 2)
    else:
        lead = [card_of(n) for n in trick[0]]
        suit = order.suits[lead[0]]
        units = decompose(lead, order)
        plays = follow_actions(hand, units, suit, len(lead), order, 2, LIST_LIMIT)[0]
    return numbers(plays[0].cards, hold)

long = "--long" in sys.argv
line = sys.stdin.readline()
first = json.loads(line)
requests, responses = first["requests"], first["responses"]
while True:
    response = respond(requests, responses)
    responses.append(response)
    print(json.dumps({"response": response}), flush=True)
    if not long:
        break
    print(">>>BOTZONE_REQUEST_KEEP_RUNNING<<<", flush=True)
    line = sys.stdin.readline()
    if not line:
        break
    requests.append(json.loads(line))
"""


async def _phase(
    address: str, tokens: tuple[str, ...], matches: int, make: Callable[[], Any]
) -> Times:
    from arena.client.runner import run_bot_async

    times = Times()
    bots = [make() for _ in tokens]
    try:
        await asyncio.gather(
            *(
                run_bot_async(
                    bot,
                    address,
                    token,
                    [VARIANT],
                    False,
                    matches,
                    on_decision=times.heard,
                    max_retries=0,
                    inline=True,
                )
                for bot, token in zip(bots, tokens, strict=True)
            )
        )
    finally:
        for bot in bots:
            if hasattr(bot, "aclose"):
                await bot.aclose()
    times.programs = sum(getattr(bot, "started", 0) for bot in bots)
    return times


def measure(matches: int, deals: int, seed: int) -> dict[str, Any]:
    """The four phases on one server; the report (JSON-ready)."""
    from arena.gateways.botzone import BotzoneBot
    from arena.gateways.exec_bot import ExecBot
    from bots.simple import FirstBot

    load = os.getloadavg()[0]

    def phases(folder: Path) -> dict[str, Phase]:
        exec_path, botzone_path = folder / "exec.py", folder / "botzone.py"
        exec_path.write_text(textwrap.dedent(EXEC_PROGRAM))
        botzone_path.write_text(textwrap.dedent(BOTZONE_PROGRAM))
        python = sys.executable
        makers: dict[str, Callable[[], Any]] = {
            "grpc": FirstBot,
            "exec": lambda: ExecBot([python, str(exec_path)]),
            "botzone_simple": lambda: BotzoneBot([python, str(botzone_path)]),
            "botzone_long": lambda: BotzoneBot([python, str(botzone_path), "--long"]),
        }
        return {tag: partial(_phase, matches=matches, make=make) for tag, make in makers.items()}

    played = play_phases("bench-programs", VARIANT, matches, deals, seed, phases, PHASE_TIMEOUT)
    figures = {
        tag: {**times.figures(), "programs_started": times.programs}
        for tag, times in played.items()
    }
    base = figures["grpc"]
    simple, long = figures["botzone_simple"], figures["botzone_long"]
    return {
        **report_head(VARIANT, matches, deals, "first legal action", load),
        **figures,
        "ratios": {
            phase: {
                "decisions_per_second": f["decisions_per_second"] / base["decisions_per_second"],
                "p50": f["p50_ms"] / base["p50_ms"],
            }
            for phase, f in figures.items()
            if phase != "grpc"
        },
        "simple_over_long": {
            "p50": simple["p50_ms"] / long["p50_ms"],
            "mean": simple["mean_ms"] / long["mean_ms"],
            "programs_per_decision": {
                "simple": simple["programs_started"] / max(simple["decisions"], 1),
                "long": long["programs_started"] / max(long["decisions"], 1),
            },
        },
    }


LABELS: Final = {
    "exec": "--exec programs (a JSON line each decision)",
    "botzone_simple": "--botzone, simple mode (a program each turn)",
    "botzone_long": "--botzone, long-running mode",
}


def _print(report: dict[str, Any]) -> None:
    base = report["grpc"]
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
    for phase, label in LABELS.items():
        f, ratio = report[phase], report["ratios"][phase]
        print(
            f"  {label}: {f['decisions_per_second']:.0f} decisions/s "
            f"({ratio['decisions_per_second']:.2f}x the baseline), round trip p50 "
            f"{f['p50_ms']:.3f} ms ({ratio['p50']:.2f}x), mean {f['mean_ms']:.3f} ms "
            f"({counted(f['decisions'], 'decision')}, "
            f"{counted(f['programs_started'], 'program')} started)"
        )
    cost = report["simple_over_long"]
    per = cost["programs_per_decision"]
    print(
        f"  Botzone simple over long-running, per decision: round trip p50 "
        f"{cost['p50']:.1f}x, mean {cost['mean']:.1f}x; programs started per decision "
        f"{per['simple']:.2f} against {per['long']:.3f}"
    )


def run_programs_bench(args: argparse.Namespace) -> int:
    """``arena bench programs``."""
    return run_gateway_bench(args, measure, _print)
