"""What a person's selected cards would be read as, before they are sent.

- Guandan: every combination the cards can be played as (GD-8), each with its deciding
  rank, and how many wild cards (GD-6) stand in; or why they make none.
- Shengji, a lead of several units of one suit (a throw, SJ-17): whether it is safe to
  try from what the person knows, read by :mod:`arena.games.shengji.reading` (the one
  reading the heuristic bot throws by): *safe* when it would stand even if one opponent
  held every card still out of its suit, else it *may fail*, and the unit that would be
  played instead is named.
- sanfu reads a selection when it is sent: the engine's refusal says what was wrong.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena import games
from arena.cards import SUITS, Card, format_card, parse_card, parse_cards
from arena.errors import ParseError
from arena.games import family_of
from arena.games.base import Observation
from arena.games.guandan.combos import no_combination_reason, play_readings, wild_card
from arena.games.shengji import ShengjiGame
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.reading import cards_out, read_throw
from arena.games.shengji.shapes import decompose
from arena.web.i18n import translate
from arena.web.refusals import combination_text
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
    family = family_of(observation.game)
    if family == "shengji" and cards:
        return {"readings": None, "throw": _throw(observation, cards, lang)}
    if family != "guandan" or not cards:
        return {"readings": None}
    level = int(observation.public["level"])
    readings = play_readings(cards, level)
    if not readings:
        why = combination_text(lang, no_combination_reason(cards, level))
        return {"readings": [], "why": f"{why} (GD-8)"}
    words = Words(lang)
    return {
        "readings": [reading_label(words, r.kind.label, r.value, level) for r in readings],
        "wild": cards.count(wild_card(level)),
    }


def _order(public: Mapping[str, Any]) -> TrumpOrder | None:
    """The deal's order from the public facts; None before the trump is known."""
    trump = public.get("trump")
    if trump is None:
        return None
    two_colour = bool(public.get("two_colour"))
    suit = (
        None
        if trump == "notrump"
        else (("black", "red").index(trump) if two_colour else SUITS.index(trump))
    )
    return TrumpOrder(int(public["level"]), suit, bool(public.get("constant_twos")), two_colour)


def _throw(observation: Observation, cards: Sequence[Card], lang: str) -> str | None:
    """Whether a lead of ``cards`` is a throw safe to try (module docstring), in words;
    None when it is no throw (not a lead, one unit, several suits, no throws allowed)."""
    public = observation.public
    order = _order(public)
    trick = public.get("trick") or {}
    if order is None or observation.phase != "play" or trick.get("plays"):
        return None
    if len({order.suits[card] for card in cards}) != 1:
        return None
    units = decompose(cards, order)
    game = games.make(observation.game)
    assert isinstance(game, ShengjiGame)
    if len(units) < 2 or not game.rules.throws_allowed:
        return None
    buried = observation.private.get("buried")
    out = cards_out(
        game.decks, observation.hand, observation.events, parse_cards(str(buried)) if buried else ()
    )
    forced = read_throw(units, out, order)
    words = Words(lang)
    if forced is None:
        return translate(lang, "tables.throw_safe")
    instead = " ".join(words.card(format_card(card)) for card in forced.cards)
    return translate(lang, "tables.throw_risky", cards=instead)
