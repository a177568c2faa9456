"""The bot SDK: write a bot as a :class:`Bot` subclass, test it in process with
:class:`FakeArena`, play it on a server with :func:`run_bot` (``arena bot run``).

::

    from arena.client import Bot, FakeArena, run_bot

    class Lowest(Bot):
        def act(self, observation):
            return observation.legal_actions[0]

    FakeArena("guandan").play(Lowest())                       # a match in process
    token = register("127.0.0.1:50051", OWNER_KEY, "lowest").token  # once
    run_bot(Lowest(), server="127.0.0.1:50051", token=token)  # matches on a server

:func:`run_bot` tells what happens to a ``reporter``: :class:`HumanReporter` (lines),
:class:`LogReporter` (structured logs), or :func:`reporter_for` to pick as ``arena bot
run`` does. :func:`run_bot` and :func:`register` load gRPC when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.client.bot import Bot
from arena.client.fake import FakeArena

if TYPE_CHECKING:
    from arena.client.registry import Registration, register
    from arena.client.report import HumanReporter, LogReporter, Reporter, reporter_for
    from arena.client.runner import ClientError, PlayedMatch, RunSummary, run_bot, run_bot_async

__all__ = [
    "Bot",
    "ClientError",
    "FakeArena",
    "HumanReporter",
    "LogReporter",
    "PlayedMatch",
    "Registration",
    "Reporter",
    "RunSummary",
    "register",
    "reporter_for",
    "run_bot",
    "run_bot_async",
]


def __getattr__(name: str) -> Any:
    if name in ("ClientError", "PlayedMatch", "RunSummary", "run_bot", "run_bot_async"):
        from arena.client import runner

        return getattr(runner, name)
    if name in ("Registration", "register"):
        from arena.client import registry

        return getattr(registry, name)
    if name in ("HumanReporter", "LogReporter", "Reporter", "reporter_for"):
        from arena.client import report

        return getattr(report, name)
    raise AttributeError(f"module 'arena.client' has no attribute {name!r}")
