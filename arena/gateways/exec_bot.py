"""``arena bot run --exec "CMD"``: any program that reads one JSON object per line and
writes one line back plays as a seat, in any variant (docs/gateways.md, "--exec").

Each decision the program reads one line: the seat's observation as the engine gives
it (:meth:`~arena.games.base.Observation.to_dict`: cards and actions in their text
form, ``legal_actions`` the list to pick from), with ``match``, ``deal`` and
``time_left_ms``; after a refused answer, ``refused`` says what was refused and why.
It answers with one line: the index of an action in ``legal_actions`` (``0`` …), or
an action's text (``play 3s 3d``; a JSON string is read as its text). Anything else is
sent to the server as given and refused there, counted like any bot's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any, Final

from arena.client.bot import asked
from arena.games.base import Action, Observation
from arena.gateways.program import Program, ProgramBot, ProgramFailed

__all__ = ["ExecBot", "answer_of", "question"]

MAX_ANSWER: Final = 1 << 16
"""Bytes an answer line may hold."""


def question(observation: Observation, refused: tuple[str, str] | None = None) -> str:
    """The line a program reads for a decision."""
    data: dict[str, Any] = {}
    decision = asked()
    if decision is not None:
        data["match"] = decision.match_id
        data["deal"] = decision.deal
        data["time_left_ms"] = max(0, round((decision.deadline - time.monotonic()) * 1000))
    data.update(observation.to_dict())
    if refused is not None:
        data["refused"] = {"answer": refused[0], "reason": refused[1]}
    return json.dumps(data, separators=(",", ":"))


def answer_of(line: str, legal: Sequence[Action]) -> Action | str:
    """A program's line as the seat's answer: an index in range is that legal action;
    a JSON string its text; anything else the line itself (the server refuses it)."""
    text = line.strip()
    if text.isdigit() and int(text) < len(legal):
        return legal[int(text)]
    if text.startswith('"'):
        try:
            decoded = json.loads(text)
        except ValueError:
            return text
        return decoded if isinstance(decoded, str) else text
    return text


class ExecBot(ProgramBot):
    """A seat played by one long-lived program (started again after it fails)."""

    def __init__(self, words: Sequence[str]) -> None:
        super().__init__(words, max_line=MAX_ANSWER)
        self.name = f"exec {words[0]}"
        self._program: Program | None = None
        self._refused: tuple[str, str] | None = None

    async def act(self, observation: Observation) -> Action | str:  # type: ignore[override]
        program = self._program
        if program is None or not program.running:
            if program is not None:
                await self.retire(program)
            program = self._program = self.program()
        refused, self._refused = self._refused, None
        try:
            line = await program.ask(question(observation, refused), self.deadline())
        except ProgramFailed as failure:
            self._program = None
            raise await self.failed(program, failure) from None
        self.failures = 0
        return answer_of(line, observation.legal_actions)

    def on_illegal(self, action: Action | str, reason: str) -> None:
        self._refused = (str(action), reason)
