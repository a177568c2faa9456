"""What the engines' differential tests hash of a position (``tests/*_trace.py``)."""

from __future__ import annotations

import json

from arena.errors import ArenaError
from arena.games.base import Action, State


def observation_text(state: State, seat: int) -> str:
    """A seat's observation as canonical JSON."""
    return json.dumps(state.observe(seat).to_dict(), sort_keys=True)


def probe(state: State, action: Action) -> str:
    """The answer to ``action`` tried on a copy: its refusal, or the copy's next
    observation."""
    copy = state.clone()
    try:
        copy.apply(action)
    except ArenaError as err:
        return f"{type(err).__name__}: {err}"
    return "ok " + observation_text(copy, copy.to_act if copy.to_act >= 0 else 0)
