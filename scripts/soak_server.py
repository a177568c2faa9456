"""Soak the server: many bots play short matches for a while, and the server's memory is
sampled every N finished matches. A tool for operators and developers: does a server
keep anything per finished match?

The server runs in this process (over a fresh store in a temporary folder, its log lines
to ``--log``, discarded by default); the bots (the SDK's runner with the built-in random
bot, rated guandan matches of ``--deals`` deals, 0 for whole ones) run in ``--workers``
processes of their own, so that what is measured is the server alone (``--web``: with
its web face and ``/metrics``, read every second as a dashboard and a reader would). At
each sample, one line: the resident set size (RSS), what is in use in C's heap (glibc's
``mallinfo2``: protobuf's upb messages, gRPC's core, SQLite, Python's larger objects),
Python's own allocations (``tracemalloc``, with ``--trace``) and what the server holds
(running sessions, connections, tasks, the matchmaker's queue); with ``--trace N``, the
N lines whose allocations grew most since the first sample, and ``--json FILE`` keeps
every sample with the live objects of the project's own classes. At the end, one line:
the growth per finished match over the second half of the run, where a server that keeps
nothing per match is flat (RSS levels off once the allocators have warmed up).

    python scripts/soak_server.py --minutes 10 --bots 64
    python scripts/soak_server.py --minutes 60 --bots 64 --trace 10 --json soak.json
    python scripts/soak_server.py --minutes 5 --bots 8 --workers 1 --every 50
    python scripts/soak_server.py --minutes 15 --bots 64 --deals 0 --web

Tracing (``--trace``) slows the server down several times, so a traced run plays
fewer matches in the same time; on a busy machine, give it longer. Stop it early with
Ctrl-C: the samples so far are kept.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tracemalloc
import urllib.request
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OWNER_KEYS = 512
"""Owners, one a bot (a rated match never sets two bots of one owner against each other)."""
PROJECT = ("arena.", "bots.")
SHOWN_FRAMES = 6
"""Frames shown of each growing allocation (innermost first)."""


@dataclass
class Sample:
    """The server's memory after some finished matches."""

    matches: int
    seconds: float
    rss_kb: int
    malloc_kb: int
    """In use in C's heap (glibc ``mallinfo2``): extensions' memory (protobuf's upb,
    gRPC's core, SQLite) and Python's objects over 512 bytes; 0 where unknown."""
    traced_kb: int
    tracing_kb: int
    """What tracemalloc itself takes (its traces): in the RSS, not in the server's."""
    held: dict[str, int]
    objects: dict[str, int]
    growth: list[str] = field(default_factory=list)


def rss_kb() -> int:
    """This process's resident set size (Linux: /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd",
            "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def malloc_kb() -> int:
    """Bytes in use in glibc's heap (every arena, and blocks it mapped), in KB."""
    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):  # not glibc, or older than 2.33
        return 0
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return int(info.uordblks + info.hblkhd) // 1024


def project_objects() -> Counter[str]:
    """Live objects of the project's own classes, by class."""
    counts: Counter[str] = Counter()
    for obj in gc.get_objects():
        kind = type(obj)
        module = getattr(kind, "__module__", "")
        if isinstance(module, str) and module.startswith(PROJECT):
            counts[f"{module}.{kind.__qualname__}"] += 1
    return counts


def finished_matches() -> int:
    from arena.metrics import REGISTRY

    total = 0.0
    for family in REGISTRY.collect():
        if family.name == "arena_matches_finished":
            total += sum(s.value for s in family.samples if s.name.endswith("_total"))
    return int(total)


def held(running: Any) -> dict[str, int]:
    """What the server holds now: it should not grow with the matches played."""
    play = running.play
    return {
        "sessions": len(play.sessions),
        "connections": len(play.connections),
        "match_tasks": len(play.tasks),
        "scheduled": len(play.scheduled),
        "queued": sum(play.matchmaker.queued().values()),
        "asyncio_tasks": len(asyncio.all_tasks()),
    }


async def register_bots(address: str, count: int) -> list[str]:
    from arena.client.registry import register

    return [
        (await asyncio.to_thread(register, address, _key(n), f"soak-{n}")).token
        for n in range(count)
    ]


def _key(n: int) -> str:
    return f"soak-owner-key-{n % OWNER_KEYS}"


MATCH_LINK = re.compile(r'href="/matches/([^"/?#]+)"')


def visit(running: Any) -> None:
    """What a dashboard and a reader do each second: scrape ``/metrics``, open the home
    page, the match list, the leaderboard and the newest finished match's table."""
    web = f"http://127.0.0.1:{running.web_port}"
    read(f"http://127.0.0.1:{running.metrics_port}/metrics")
    read(f"{web}/")
    read(f"{web}/leaderboard")
    found = MATCH_LINK.search(read(f"{web}/matches"))
    if found is not None:
        read(f"{web}/matches/{found[1]}")
        read(f"{web}/api/matches/{found[1]}/table")


def read(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as answer:
        text: str = answer.read().decode("utf-8", "replace")
        return text


def start_workers(address: str, tokens: list[str], workers: int, args: Any) -> list[Any]:
    """Worker processes, each playing its share of the bots."""
    started = []
    for w in range(workers):
        mine = tokens[w::workers]
        command = [sys.executable, __file__, "--play", address, "--seed", str(w)]
        if args.casual:
            command.append("--casual")
        process = subprocess.Popen(command, stdin=subprocess.PIPE, text=True, cwd=ROOT)
        assert process.stdin is not None
        process.stdin.write("\n".join(mine) + "\n")
        process.stdin.close()
        started.append(process)
    return started


def sample(running: Any, start: float, first: Any, trace: int) -> tuple[Sample, Any]:
    gc.collect()
    snapshot = tracemalloc.take_snapshot() if tracemalloc.is_tracing() else None
    growth: list[str] = []
    if snapshot is not None:
        snapshot = snapshot.filter_traces(
            (tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<*"))
        )
        if first is not None:
            for stat in snapshot.compare_to(first, "traceback")[:trace]:
                where = [
                    f"{Path(frame.filename).name}:{frame.lineno}"
                    for frame in list(stat.traceback)[::-1][:SHOWN_FRAMES]
                ]
                growth.append(
                    f"{stat.size_diff / 1024:+.1f} KB {stat.count_diff:+d} blocks: "
                    + " <- ".join(where)
                )
    current = Sample(
        matches=finished_matches(),
        seconds=round(time.monotonic() - start, 1),
        rss_kb=rss_kb(),
        malloc_kb=malloc_kb(),
        traced_kb=tracemalloc.get_traced_memory()[0] // 1024 if snapshot is not None else 0,
        tracing_kb=tracemalloc.get_tracemalloc_memory() // 1024,
        held=held(running),
        objects=dict(project_objects().most_common(12)),
        growth=growth,
    )
    return current, snapshot


async def soak(args: Any, stack: contextlib.ExitStack) -> list[Sample]:
    from arena.log import configure
    from arena.server.app import start_server
    from arena.server.auth import hash_secret
    from arena.server.play import PlayConfig
    from arena.store import Store

    log_file = stack.enter_context(args.log.open("a", encoding="utf-8"))
    configure(fmt="json", stream=log_file)
    if args.trace:
        tracemalloc.start(args.frames)
    with tempfile.TemporaryDirectory(prefix="arena-soak-") as folder:
        store = Store.open(Path(folder) / "arena.sqlite")
        running = await start_server(
            store,
            port=0,
            owner_keys={hash_secret(_key(n)): f"owner-{n}" for n in range(OWNER_KEYS)},
            registrations_per_minute=1e9,
            play=PlayConfig(max_deals=args.deals or None),
            metrics_port=0 if args.web else None,
            web_port=0 if args.web else None,
        )
        address = f"127.0.0.1:{running.port}"
        tokens = await register_bots(address, args.bots)
        workers = start_workers(address, tokens, args.workers, args)
        samples: list[Sample] = []
        start = time.monotonic()
        first = None
        next_at = args.warmup
        try:
            while time.monotonic() - start < args.minutes * 60:
                try:
                    await asyncio.sleep(1.0)
                    if args.web:
                        await asyncio.to_thread(visit, running)
                except asyncio.CancelledError:  # Ctrl-C: stop here, keep the samples
                    break
                if finished_matches() < next_at:
                    continue
                current, snapshot = sample(running, start, first, args.trace)
                if first is None:
                    first = snapshot
                samples.append(current)
                next_at = current.matches + args.every
                print(_line(current), flush=True)
                for line in current.growth:
                    print(f"    {line}", flush=True)
        finally:
            for process in workers:
                process.terminate()
            for process in workers:
                process.wait(30)
            await running.stop(0, drain=0)
            store.close()
    return samples


def _line(s: Sample) -> str:
    held_text = " ".join(f"{k}={v}" for k, v in s.held.items())
    return (
        f"{s.matches:6d} matches {s.seconds:7.1f} s  RSS {s.rss_kb / 1024:7.1f} MB  "
        f"malloc {s.malloc_kb / 1024:6.1f} MB  "
        + (
            f"traced {s.traced_kb / 1024:6.1f} MB (tracing {s.tracing_kb / 1024:.1f} MB)  "
            if s.tracing_kb
            else ""
        )
        + held_text
    )


def per_match(samples: list[Sample], key: str) -> float | None:
    """Growth of ``key`` (KB) per finished match over the second half of the samples."""
    half = samples[len(samples) // 2 :]
    if len(half) < 2 or half[-1].matches == half[0].matches:
        return None
    first, last = half[0], half[-1]
    grown: int = getattr(last, key) - getattr(first, key)
    return grown / (last.matches - first.matches)


def summary(samples: list[Sample], traced: bool) -> str:
    """The run in one line: RSS first and last, growth per match over the second half."""
    first, last = samples[0], samples[-1]
    keys = ["rss_kb", "malloc_kb"] + (["traced_kb"] if traced else [])
    growth = [(key, per_match(samples, key)) for key in keys]
    told = ", ".join(f"{g:+.2f} KB {key[:-3]}" for key, g in growth if g is not None)
    return (
        f"{last.matches} matches in {last.seconds:.0f} s: RSS {first.rss_kb / 1024:.1f} -> "
        f"{last.rss_kb / 1024:.1f} MB; second half: "
        + (f"{told} per finished match" if told else "too few samples")
    )


async def play(address: str, seed: int, rated: bool) -> None:
    """A worker: every token on stdin is a random bot playing until stopped."""
    from arena.client.runner import run_bot_async
    from bots.simple import RandomBot

    tokens = [line.strip() for line in sys.stdin if line.strip()]
    await asyncio.gather(
        *(
            run_bot_async(
                RandomBot(seed * 1000 + n),
                address,
                token,
                ["guandan"],
                rated=rated,
                inline=True,
                backoff=(0.2, 2.0),
            )
            for n, token in enumerate(tokens)
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--bots", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2, help="bot processes (2)")
    parser.add_argument(
        "--deals", type=int, default=1, help="deals per match (1; 0: whole matches)"
    )
    parser.add_argument("--casual", action="store_true", help="casual matches (rated)")
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve the web face and /metrics too, read every second as a reader would",
    )
    parser.add_argument("--warmup", type=int, default=50, help="matches before the first sample")
    parser.add_argument("--every", type=int, default=100, help="matches between samples")
    parser.add_argument("--trace", type=int, default=0, help="tracemalloc: lines shown (0: off)")
    parser.add_argument("--frames", type=int, default=8, help="tracemalloc frames kept")
    parser.add_argument("--json", type=Path, help="write the samples there")
    parser.add_argument(
        "--log", type=Path, default=Path(os.devnull), help="the server's log lines (discarded)"
    )
    parser.add_argument("--play", metavar="ADDRESS", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.play:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(play(args.play, args.seed, not args.casual))
        return 0
    with contextlib.ExitStack() as stack:
        samples = asyncio.run(soak(args, stack))
    if samples:
        print(summary(samples, traced=bool(args.trace)))
    if args.json:
        args.json.write_text(json.dumps([asdict(s) for s in samples], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
