"""What a person's selected cards would be read as, before they are sent.

Guandan: every combination the cards can be played as (GD-8), each with its deciding
rank, and how many wild cards (GD-4) stand in; or why they make none. The other games
read a selection when it is sent: the engine's refusal says what was wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.cards import parse_card
from arena.errors import ParseError
from arena.games import family_of
from arena.games.base import Observation
from arena.games.guandan.combos import no_combination_reason, play_readings, wild_card
from arena.web.table_guandan import reading_label
from arena.web.table_text import Words

__all__ = ["MAX_CARDS", "read_selection"]

MAX_CARDS = 27
"""The most cards a selection may hold (a Guandan hand)."""


def read_selection(observation: Observation, codes: Sequence[str], lang: str) -> dict[str, Any]:
    """The reading of ``codes`` (card codes) at the moment of ``observation``:
    ``{"readings": [...], "wild": N}``, ``{"readings": [], "why": ...}``, or
    ``{"readings": None}`` for a game that reads selections when they are sent.
    ``ParseError`` naming a card that is none."""
    if len(codes) > MAX_CARDS:
        raise ParseError(f"a selection holds at most {MAX_CARDS} cards, not {len(codes)}")
    cards = [parse_card(code) for code in codes]
    if family_of(observation.game) != "guandan" or not cards:
        return {"readings": None}
    level = int(observation.public["level"])
    readings = play_readings(cards, level)
    if not readings:
        return {"readings": [], "why": no_combination_reason(cards, level) + " (GD-8)"}
    words = Words(lang)
    return {
        "readings": [reading_label(words, r.kind.label, r.value, level) for r in readings],
        "wild": cards.count(wild_card(level)),
    }
