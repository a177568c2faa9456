"""A Botzone Tractor program as a seat, in either of Botzone's interaction modes.

Each turn a program is started and reads one line, the whole deal so far: ``{"requests":
[...], "responses": [...], "data": ..., "globaldata": ...}`` (the last request is the
turn's), and prints ``{"response": ...}`` (``data`` and ``globaldata`` it prints come
back next turn). A program that prints ``>>>BOTZONE_REQUEST_KEEP_RUNNING<<<`` after its
response keeps running (Botzone's long-running mode): each later turn it reads only the
new request, and it is asked the turns the arena asks nothing of the seat too (a card
dealt to it), whose answers count for nothing. It is started again, with the whole
deal, after it fails or after a refused answer (its own memory holds the answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Sequence
from typing import Any, Final

from arena.client.bot import asked
from arena.games.base import Action, Observation
from arena.gateways.botzone.view import Deal, answer_action
from arena.gateways.program import Program, ProgramBot, ProgramFailed

__all__ = ["KEEP_RUNNING", "BotzoneBot"]

KEEP_RUNNING: Final = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"
MARKER_WAIT: Final = 1.0
"""Seconds a program is given to say it keeps running once it has answered (Botzone's)."""
MAX_OUTPUT: Final = 1 << 20
"""Bytes a program's output line may hold (its ``data`` included)."""
_DECKS: Final = {"shengji-1": 1, "shengji-2": 2, "shengji-3": 3}


class BotzoneBot(ProgramBot):
    """A seat answered by a Botzone Tractor program (see the module's docstring)."""

    def __init__(self, words: Sequence[str]) -> None:
        super().__init__(words, max_line=MAX_OUTPUT)
        self.name = f"botzone {words[0]}"
        self.deal: Deal | None = None
        self._key: tuple[str, int] | None = None
        self._live: Program | None = None
        """The long-running program, in step with the deal's requests."""
        self._again = False
        """The last answer was refused: its request is asked again."""
        self.data: Any = ""
        self.globaldata: Any = ""
        self._stopping: set[asyncio.Task[None]] = set()

    def _deal_for(self, observation: Observation) -> Deal:
        decision = asked()
        key = (decision.match_id, decision.deal) if decision is not None else None
        deal = self.deal
        fresh = deal is None or (
            key != self._key if key is not None else len(observation.events) < deal.seen
        )
        if fresh:
            first = decision.deal == 1 if decision is not None else True
            deal = self.deal = Deal(observation.seat, _DECKS.get(observation.game, 2), first)
            self._key, self._again, self.data = key, False, ""
            self._drop_live()
        assert deal is not None
        return deal

    async def act(self, observation: Observation) -> Action | str:  # type: ignore[override]
        deal = self._deal_for(observation)
        try:
            return await self._ask(deal, observation)
        except ProgramFailed:
            # what the seat did comes with the next observation; Botzone's history
            # gets an empty answer for each turn the program did not answer
            deal.responses.extend([] for _ in range(len(deal.requests) - len(deal.responses)))
            raise

    async def _ask(self, deal: Deal, observation: Observation) -> Action | str:
        deadline = self.deadline()
        if self._again:
            self._again = False
            deal.read(observation)
            request = deal.requests[-1]
        else:
            question = deal.question(observation)
            if question.current is None:
                assert question.answer is not None
                return question.answer
            for before in question.before:
                deal.requests.append(before)
                deal.responses.append(await self._aside(deal, deadline))
            request = question.current
            deal.requests.append(request)
        line = await self._turn(deal, deadline)
        response, answer = answer_action(deal, request, line)
        deal.responses.append(response if response is not None else [])
        self.failures = 0
        return answer

    def on_illegal(self, action: Action | str, reason: str) -> None:
        deal = self.deal
        if deal is None or len(deal.responses) != len(deal.requests):
            return
        deal.responses.pop()
        deal.forget_burials()
        self._again = True
        self._drop_live()  # it remembers the refused answer: started again

    async def _aside(self, deal: Deal, deadline: float) -> Any:
        """A turn the arena asks nothing of the seat: a long-running program is asked
        (its answer counts for nothing); otherwise the answer is ``[]``."""
        if self._live is None:
            return []
        line = await self._turn(deal, deadline)
        with contextlib.suppress(ValueError):
            output = json.loads(line)
            if isinstance(output, dict) and "response" in output:
                return output["response"]
        return []

    async def _turn(self, deal: Deal, deadline: float) -> str:
        """One Botzone turn for the deal's last request: its output line."""
        live = self._live
        if live is not None:
            try:
                line = await live.ask(json.dumps(deal.requests[-1]), deadline)
            except ProgramFailed as failure:
                self._live = None
                raise await self.failed(live, failure) from None
            await self._keep_or_stop(live, deadline)
            return line
        program = self.program()
        envelope = {
            "requests": deal.requests,
            "responses": deal.responses,
            "data": self.data,
            "globaldata": self.globaldata,
        }
        try:
            line = await program.ask(json.dumps(envelope), deadline)
        except ProgramFailed as failure:
            raise await self.failed(program, failure) from None
        self._remember(line)
        await self._keep_or_stop(program, deadline)
        return line

    async def _keep_or_stop(self, program: Program, deadline: float) -> None:
        """Keep the program if it says it keeps running, else stop it."""
        wait = min(time.monotonic() + MARKER_WAIT, deadline)
        try:
            marker = await program.read_line(wait)
        except ProgramFailed:
            marker = ""
        if marker.strip() == KEEP_RUNNING:
            self._live = program
            return
        if self._live is program:
            self._live = None
        await self.retire(program)

    def _remember(self, line: str) -> None:
        """The ``data`` and ``globaldata`` a simple-mode program saved this turn."""
        with contextlib.suppress(ValueError):
            output = json.loads(line)
            if isinstance(output, dict):
                self.data = output.get("data", "")
                self.globaldata = output.get("globaldata", self.globaldata)

    def _drop_live(self) -> None:
        """Stop the long-running program (in the background: called outside ``act``)."""
        live, self._live = self._live, None
        if live is not None:
            live.kill_group()
            task = asyncio.get_running_loop().create_task(self.retire(live))
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    async def aclose(self) -> None:
        await asyncio.gather(*self._stopping, return_exceptions=True)
        await super().aclose()
