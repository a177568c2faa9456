"""Play a program as a seat (``arena bot run --exec`` / ``--botzone``): the SDK's runner
with a :class:`~arena.gateways.program.ProgramBot`, whose processes are stopped when
the run ends, however it ends (its last match played, an error, Ctrl-C, SIGTERM)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Sequence
from typing import Any

from arena.client.runner import RunSummary, run_bot_async
from arena.errors import ArenaError
from arena.gateways.program import ProgramBot, parse_command

__all__ = ["program_bot", "run_program"]

BOTZONE_VARIANTS = ("shengji-1", "shengji-2", "shengji-3")
"""The variants a Botzone Tractor program can play (cards numbered across the decks)."""


def program_bot(
    exec_command: str | None, botzone_command: str | None, variants: Sequence[str]
) -> tuple[ProgramBot, list[str]]:
    """The bot of ``--exec`` or ``--botzone`` and the variants it joins."""
    if botzone_command is not None:
        from arena.gateways.botzone import BotzoneBot

        chosen = list(variants) or ["shengji-2"]
        wrong = [v for v in chosen if v not in BOTZONE_VARIANTS]
        if wrong:
            raise ArenaError(
                f"--botzone plays {', '.join(BOTZONE_VARIANTS)} (Botzone's Tractor format), "
                f"not {', '.join(wrong)}"
            )
        return BotzoneBot(parse_command(botzone_command)), chosen
    assert exec_command is not None
    from arena.gateways.exec_bot import ExecBot

    return ExecBot(parse_command(exec_command)), list(variants) or ["guandan"]


def run_program(
    exec_command: str | None,
    botzone_command: str | None,
    variants: Sequence[str],
    options: dict[str, Any],
) -> RunSummary:
    """Run the program's seat until its matches are over; its processes end with it."""
    bot, chosen = program_bot(exec_command, botzone_command, variants)

    came: list[int] = []

    def stop(signum: int, task: asyncio.Task[RunSummary]) -> None:
        came.append(signum)
        task.cancel()

    async def main() -> RunSummary:
        loop, task = asyncio.get_running_loop(), asyncio.current_task()
        assert task is not None
        for signum in (signal.SIGTERM, signal.SIGHUP):  # Ctrl-C: asyncio.run's own
            loop.add_signal_handler(signum, stop, signum, task)
        try:
            return await run_bot_async(bot, variants=chosen, **options)
        finally:
            await bot.aclose()

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        from arena.sim.stopping import Stopped  # said and exited as the CLI says a stop

        raise Stopped(came[0] if came else signal.SIGINT) from None
    finally:
        bot.kill_all()  # a stop that cut the cleanup short
