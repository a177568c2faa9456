"""The class a bot author subclasses."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, cast

from arena.games.base import Action, Event, Observation

__all__ = ["Asked", "Bot", "asked", "decide"]


@dataclass(frozen=True, slots=True)
class Asked:
    """The decision a bot's ``act`` is answering on a server: its match, its deal
    (1-based) and when its time and the seat's bank run out (``time.monotonic()``)."""

    match_id: str
    deal: int
    deadline: float


ASKED: ContextVar[Asked | None] = ContextVar("arena_asked", default=None)
"""Set by the runner around each call of ``act``."""


def asked() -> Asked | None:
    """The decision ``act`` is answering, when :func:`~arena.client.run_bot` asks it
    (``None`` elsewhere: in process, in :class:`~arena.client.FakeArena`)."""
    return ASKED.get()


class Bot:
    """A bot: implement :meth:`act` (plain or ``async def``).

    ``act`` gets the seat's :class:`~arena.games.base.Observation` (its hand, the legal
    actions, the deal's public events, the game's public and private facts) and answers
    with an :class:`~arena.games.base.Action` or its text form (``"play 3s 3d"``).
    """

    name: str = ""
    """Shown in logs; the class name when empty."""

    def act(self, observation: Observation) -> Action | str:
        raise NotImplementedError(f"{type(self).__name__} must implement act(observation)")

    def on_illegal(self, action: Action | str, reason: str) -> None:
        """The last answer was refused (``reason`` quotes the rule broken); ``act`` is asked
        again for the same decision while time remains."""

    def on_deal_over(self, events: Sequence[Event], details: Mapping[str, Any]) -> None:
        """A deal played on a server is over (:func:`~arena.client.run_bot` calls it, not
        :class:`~arena.client.FakeArena`): all its public events, and the game's details
        of its result (Guandan: the finishing order, the levels after it …)."""


def is_async(bot: object) -> bool:
    """Whether the bot's ``act`` is a coroutine function (``async def act``)."""
    return inspect.iscoroutinefunction(getattr(bot, "act", None))


async def decide(bot: object, observation: Observation) -> Action | str:
    """Ask the bot: awaited if ``act`` is async, else in a worker thread (the stream stays
    responsive while a slow bot thinks)."""
    act = getattr(bot, "act")  # noqa: B009 - any object with act() is a bot
    if is_async(bot):
        return await cast("Awaitable[Action | str]", act(observation))
    answer: Action | str = await asyncio.to_thread(act, observation)
    return answer


def notify_illegal(bot: object, action: Action | str, reason: str) -> None:
    """Call the bot's optional ``on_illegal(action, reason)``."""
    hook = getattr(bot, "on_illegal", None)
    if hook is not None:
        hook(action, reason)


def notify_deal_over(bot: object, events: Sequence[Event], details: Mapping[str, Any]) -> None:
    """Call the bot's optional ``on_deal_over(events, details)``."""
    hook = getattr(bot, "on_deal_over", None)
    if hook is not None:
        hook(events, details)
