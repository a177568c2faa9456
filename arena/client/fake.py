"""An arena in one process, for a bot author's unit tests: no server, no network.

``FakeArena("guandan").play(MyBot())`` plays a whole match with the shared driver
(:func:`arena.match.play_match`): the bot in seat 0 (player 0), built-in bots in the
other seats. The bot gets the engine's own observations — what the SDK rebuilds from the
wire — and, like over the wire, an illegal answer calls its ``on_illegal`` and asks again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import bots
from arena import games
from arena.chance import derive_seed
from arena.client.bot import is_async, notify_illegal
from arena.games.base import Action, Observation
from arena.match import MatchResult, PolicyError, play_match
from arena.protocol import MAX_ATTEMPTS

__all__ = ["FakeArena"]


class _Seat:
    """The bot as a match policy: async ``act`` awaited on a private loop; refusals
    reported to ``on_illegal`` (the driver asks again), at most MAX_ATTEMPTS in a row."""

    def __init__(self, bot: object, loop: asyncio.AbstractEventLoop) -> None:
        self.bot = bot
        self.loop = loop
        self.refused = 0
        self._retrying = False
        self._last: Action | str = ""

    def act(self, observation: Observation) -> Action | str:
        if not self._retrying:  # a new decision: the last answer was accepted
            self.refused = 0
        self._retrying = False
        act = getattr(self.bot, "act")  # noqa: B009
        answer: Action | str = (
            self.loop.run_until_complete(act(observation))
            if is_async(self.bot)
            else act(observation)
        )
        self._last = answer
        return answer

    def rejected(self, action: Action | str, reason: str) -> None:
        self.refused += 1
        self._retrying = True
        if self.refused >= MAX_ATTEMPTS:
            raise PolicyError(f"seat 0: {MAX_ATTEMPTS} illegal answers in a row; last: {reason}")
        notify_illegal(self.bot, self._last, reason)  # as the bot gave it


class FakeArena:
    """One variant (with its options), one seed: matches played in process."""

    def __init__(self, variant: str, seed: int = 0, **options: object) -> None:
        self.game = games.make(variant, **options)
        self.variant = variant
        self.seed = seed

    def play(
        self,
        bot: object,
        opponents: Sequence[str] = ("random", "random", "random"),
        *,
        max_deals: int | None = None,
    ) -> MatchResult:
        """Play one match, the bot at seat 0 and the built-in ``opponents`` (by name, see
        ``bots.names()``) at seats 1, 2, 3; the match's result and record."""
        if len(opponents) != 3:
            raise ValueError(f"three opponents are needed (seats 1-3), got {len(opponents)}")
        others = [
            bots.make(name, derive_seed(self.seed, "bot", seat))
            for seat, name in enumerate(opponents, start=1)
        ]
        loop = asyncio.new_event_loop()
        try:
            seat = _Seat(bot, loop)
            policies = [seat, *others]
            name = getattr(bot, "name", "") or type(bot).__name__
            result = play_match(
                self.game,
                policies,
                seed=self.seed,
                players=[name, *opponents],
                max_deals=max_deals,
            )
        finally:
            loop.close()
        return result
