"""The match driver's loop over one deal's decisions, compiled with the engines.

:func:`arena.match.play_deal` hands a deal that has neither a clock nor a listener
(simulations, tournaments of bots, benchmarks) to :func:`play_answers`: it asks the
policy of the seat to act for each decision and plays its answer as long as the answer
is an :class:`Action` the game takes, the action's text going to the record. Any other
answer (text, something else, an action refused) is handed back unplayed, for the
driver to read or refuse as it does every answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, final

from arena.errors import IllegalActionError, ParseError
from arena.games.base import Action, Observation, State

TEXTS_KEPT: Final = 1 << 14
"""At most this many actions' text forms are kept (then the store starts again)."""

_texts: dict[Action, str] = {}


class Acting(Protocol):
    """A policy as the loop calls it: its answer is looked at before it is used."""

    def act(self, observation: Observation) -> object: ...


@final
class Unplayed:
    """A policy's answer the loop did not play: not an :class:`Action`, or one the game
    refused (the state is as it was before the decision)."""

    def __init__(self, answer: object) -> None:
        self.answer = answer


def action_text(action: Action) -> str:
    """An action's text form for the record, kept for the actions deals repeat."""
    text = _texts.get(action)
    if text is None:
        text = str(action)
        if len(_texts) >= TEXTS_KEPT:
            _texts.clear()
        _texts[action] = text
    return text


def play_answers(state: State, policies: Sequence[Acting], actions: list[str]) -> Unplayed | None:
    """Play the deal's decisions, each asked of the policy of the player at the seat to
    act with that seat's observation, appending each action's text to ``actions``;
    ``None`` once the deal is over, or the first answer not played (:class:`Unplayed`).

    What a policy raises goes through unchanged (the seat to act is the one asked)."""
    while not state.is_terminal():
        seat = state.to_act
        answer = policies[state.player_at(seat)].act(state.observe(seat))
        if type(answer) is not Action:
            return Unplayed(answer)
        try:
            state.apply(answer)  # refuses what is malformed too, the state unchanged
        except (IllegalActionError, ParseError):
            return Unplayed(answer)  # the driver reads it again: malformed or illegal
        actions.append(action_text(answer))
    return None
