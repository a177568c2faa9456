"""Helpers of the program-gateway tests: a real server on 127.0.0.1, a program seat
beside three built-in bots, the stored match, and the processes a run left behind."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import textwrap
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from test_server_play import held_cards
from test_server_seats import Arena, clock

from arena.client.runner import RunSummary, run_bot_async
from arena.gateways.program import ProgramBot
from arena.replay import verify_stored
from arena.server.play import PlayConfig
from arena.store import Store, StoredMatch

PYTHON = sys.executable


def write_program(folder: Path, name: str, body: str) -> list[str]:
    """A Python program in ``folder`` (``body`` dedented); its command's words."""
    path = folder / name
    path.write_text(textwrap.dedent(body))
    return [PYTHON, str(path)]


@dataclass
class Played:
    summary: RunSummary
    match: StoredMatch

    @property
    def conduct(self) -> dict[str, list[int]]:
        return dict(self.match.outcome["conduct"])

    def player(self) -> int:
        player = self.summary.results[0].player
        assert player is not None
        return player


def play_one(
    store: Store,
    bot: ProgramBot,
    variant: str,
    *,
    decision: float = 5.0,
    deals: int = 1,
    name: str = "program",
) -> Played:
    """``bot`` plays one casual match of ``deals`` deals beside three built-in bots
    ('first'); its programs stopped after."""
    server = Arena(store, PlayConfig(clock=clock(decision=decision), max_deals=deals))
    try:
        (token,) = server.tokens(name)

        async def main() -> RunSummary:
            try:
                return await run_bot_async(
                    bot,
                    server.address,
                    token,
                    [variant],
                    rated=False,
                    matches=1,
                    fill_after=0.05,
                    fill_bot="first",
                )
            finally:
                await bot.aclose()

        summary = asyncio.run(asyncio.wait_for(main(), 180))
    finally:
        server.close()
    match = store.match(summary.results[0].match_id)
    assert match is not None
    verify_stored(match)  # the stored match replays
    return Played(summary, match)


def held_by(played: Played, variant: str) -> list[Counter[int]]:
    """Per deal, every card the program's seat held at some moment."""
    record: dict[str, Any] = played.match.record
    return [deal[played.player()] for deal in held_cards(record, variant)]


def gone(pid: int) -> bool:
    """Whether no process ``pid`` is left (a zombie of ours is reaped first)."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split()[2] == "Z"  # a zombie whose parent reaps it later
