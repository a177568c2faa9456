"""Our legal actions as the platform's ``actionList``, and an ``actIndex`` back to one.

An entry of ``actionList`` is ``[type, rank, cards]``:

* a pass is ``["PASS", "PASS", "PASS"]``;
* a tribute card ``["tribute", "tribute", ["S3"]]``, a return ``["back", "back", ["D2"]]``;
* a play names its kind (``Single``, ``Pair``, ``Trips``, ``ThreeWithTwo``,
  ``ThreePair``, ``TwoTrips``, ``Straight``, ``StraightFlush``, ``Bomb``), the rank it
  is played at and its cards. The rank of a single, pair, triple, full house (its
  triple) or bomb is the rank letter (a wild card counted as what it stands for;
  ``B`` / ``R`` for a joker single or pair, ``JOKER`` for the joker bomb); the rank of a
  sequence is its LOWEST rank (``A`` for ``A 2 3 4 5``). The cards are listed as the
  platform lists them: a full house's triple first, a sequence low to high, a wild
  card at the place it fills.

The rank and the card order come from the reading our engine plays the cards at
(:func:`arena.games.guandan.play_readings`, the kind a tag names), never from a reading
of our own. :func:`encode_all` keeps the order and length of our legal list, so
``actIndex`` i is our legal action i; :func:`to_action` reads an entry back to exactly
that action.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, Final

from arena.cards import Card
from arena.errors import ParseError, quoted
from arena.games.base import Action
from arena.games.guandan.combos import (
    BIG_JOKER_VALUE,
    LEVEL_VALUE,
    SMALL_JOKER_VALUE,
    Kind,
    Reading,
    play_readings,
    wild_card,
)
from arena.gateways.guandan_ws.cards import (
    BIG_JOKER_RANK,
    CODES,
    JOKER_BOMB_RANK,
    SMALL_JOKER_RANK,
    SORT_KEYS,
    card_of,
    code,
    rank_index,
    rank_letter,
)

Entry = list[Any]
"""One ``actionList`` entry: ``[type, rank, cards]`` (JSON-ready)."""

PASS: Final = "PASS"
TRIBUTE: Final = "tribute"
BACK: Final = "back"
PASS_ENTRY: Final[tuple[str, str, str]] = (PASS, PASS, PASS)

TYPE_OF_KIND: Final[Mapping[Kind, str]] = {
    Kind.SINGLE: "Single",
    Kind.PAIR: "Pair",
    Kind.TRIPLE: "Trips",
    Kind.FULL_HOUSE: "ThreeWithTwo",
    Kind.PAIR_RUN: "ThreePair",
    Kind.TRIPLE_RUN: "TwoTrips",
    Kind.STRAIGHT: "Straight",
    Kind.STRAIGHT_FLUSH: "StraightFlush",
    Kind.BOMB: "Bomb",
    Kind.JOKER_BOMB: "Bomb",
}
"""The platform's name of each of our kinds (GD-8); the joker bomb is a ``Bomb``."""
PLAY_TYPES: Final = frozenset(TYPE_OF_KIND.values())

_RUNS: Final[Mapping[Kind, tuple[int, int]]] = {
    Kind.STRAIGHT: (5, 1),
    Kind.STRAIGHT_FLUSH: (5, 1),
    Kind.PAIR_RUN: (3, 2),
    Kind.TRIPLE_RUN: (2, 3),
}
"""A sequence's length in ranks and the cards of each rank."""


def engine_reading(action: Action, level: int) -> Reading:
    """The reading our engine plays ``action``'s cards at: the kind its tag names, or the
    only reading (GD-8; a listed play is always one or the other)."""
    kept = play_readings(action.cards, level)
    if action.tag:
        kept = [r for r in kept if r.kind.label == action.tag]
    if not kept:
        raise ParseError(f"{str(action)!r} is no Guandan combination at level {level}")
    return kept[0]


def encode(action: Action, level: int) -> Entry:
    """The platform's entry of one of our legal actions at ``level`` (a rank index)."""
    if action.verb == "pass":
        return list(PASS_ENTRY)
    if action.verb == "tribute":
        return [TRIBUTE, TRIBUTE, [code(action.cards[0])]]
    if action.verb == "return":
        return [BACK, BACK, [code(action.cards[0])]]
    if action.verb != "play":
        raise ParseError(f"{str(action)!r} is no Guandan action the platform can name")
    kind, rank, codes = _play_entry(action.cards, action.tag, level)
    return [kind, rank, list(codes)]


@lru_cache(maxsize=1 << 14)
def _play_entry(cards: tuple[Card, ...], tag: str, level: int) -> tuple[str, str, tuple[str, ...]]:
    """A play's entry, remembered: a hand offers mostly the same plays decision after
    decision, and reading them again is most of the cost of an ``act`` message."""
    played = engine_reading(Action("play", cards, tag), level)
    codes = tuple(placed_codes(cards, played, level))
    return TYPE_OF_KIND[played.kind], rank_text(played, level), codes


def encode_all(actions: Sequence[Action], level: int) -> list[Entry]:
    """Our legal list in the platform's encoding, in the same order (index i is action i)."""
    return [encode(action, level) for action in actions]


def decode(entry: object, level: int) -> Action:
    """Our action of an entry (the inverse of :func:`encode`); :class:`ParseError`
    quoting an entry that is none."""
    if not isinstance(entry, list) or len(entry) != 3:
        raise ParseError(f"an action entry is [type, rank, cards], got {quoted(entry)}")
    kind, _, cards_field = entry
    if entry == list(PASS_ENTRY):
        return Action("pass")
    if kind in (TRIBUTE, BACK):
        cards = _cards(cards_field)
        if len(cards) != 1:
            raise ParseError(f"a {kind} entry names one card, got {quoted(entry)}")
        return Action("tribute" if kind == TRIBUTE else "return", cards)
    if kind not in PLAY_TYPES:
        raise ParseError(
            f"unknown action type {quoted(kind)}: expected PASS, tribute, back or one of "
            f"{', '.join(sorted(PLAY_TYPES))}"
        )
    action = Action.make("play", _cards(cards_field))
    kept = play_readings(action.cards, level)
    if len(kept) > 1:  # cards read as two kinds: our action names the kind (GD-8)
        chosen = [r for r in kept if TYPE_OF_KIND[r.kind] == kind]
        if chosen:
            action = Action("play", action.cards, chosen[0].kind.label)
    if not kept or encode(action, level)[0] != kind:
        raise ParseError(f"{quoted(entry)} is no {kind} at level {rank_letter(level)}")
    return action


def to_action(
    act: Mapping[str, Any] | Sequence[Any], act_index: object, level: int | None = None
) -> Action:
    """Our action chosen by ``act_index`` in an ``act`` message, or in its ``actionList``
    (then ``level``, a rank index, is needed: a wild card depends on it).

    :class:`ParseError` quoting the index when it is not a whole number within
    ``0 .. indexRange``, or the message when it carries no action list.
    """
    if isinstance(act, Mapping):
        entries = act.get("actionList")
        level = rank_index(act.get("curRank"))
    else:
        entries = act
    if not isinstance(entries, list | tuple):
        raise ParseError(f"no actionList to choose from in {quoted(act)}")
    if level is None:
        raise ParseError("an actionList alone needs the level (curRank) to be read")
    return decode(entries[check_index(act_index, len(entries))], level)


def check_index(act_index: object, count: int) -> int:
    """``act_index`` as a place in a list of ``count`` actions; :class:`ParseError`
    quoting it when it is no whole number in ``0 .. count - 1``."""
    if isinstance(act_index, bool) or not isinstance(act_index, int):
        raise ParseError(f"actIndex must be a whole number, got {quoted(act_index)}")
    if not 0 <= act_index < count:
        raise ParseError(
            f"actIndex {act_index} is out of range: the actions are 0 .. {count - 1} "
            f"(indexRange {count - 1})"
        )
    return act_index


def parse_answer(raw: str | bytes | Mapping[str, Any]) -> object:
    """The ``actIndex`` of a bot's answer (``{"actIndex": 3}``, as JSON text or parsed),
    unchecked against any list; :class:`ParseError` quoting anything else."""
    data: object = raw
    if isinstance(raw, str | bytes):
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ParseError(f'expected {{"actIndex": N}} as JSON, got {quoted(raw)}') from None
    if not isinstance(data, Mapping) or "actIndex" not in data:
        raise ParseError(f'expected {{"actIndex": N}}, got {quoted(raw)}')
    return data["actIndex"]


# ---------------------------------------------------------------------- helpers


def _cards(field: object) -> tuple[Card, ...]:
    if not isinstance(field, list) or not field:
        raise ParseError(f"expected a non-empty list of card codes, got {quoted(field)}")
    return tuple(card_of(text) for text in field)


def rank_text(reading: Reading, level: int) -> str:
    """The rank the platform names a play by (see the module's docstring)."""
    kind, value = reading.kind, reading.value
    if kind == Kind.JOKER_BOMB:
        return JOKER_BOMB_RANK
    if kind in _RUNS:
        low = value - _RUNS[kind][0] + 1  # natural value of the lowest rank; 1: the low A
        return rank_letter(_natural_rank(low))
    if value == BIG_JOKER_VALUE:
        return BIG_JOKER_RANK
    if value == SMALL_JOKER_VALUE:
        return SMALL_JOKER_RANK
    return rank_letter(level if value == LEVEL_VALUE else value - 2)


def _natural_rank(value: int) -> int:
    """The rank index of a natural value in a sequence (1 is the low A)."""
    return 12 if value == 1 else value - 2


def placed_codes(cards: Sequence[Card], reading: Reading, level: int) -> list[str]:
    """The codes of ``cards`` played as ``reading``, in the platform's order."""
    return [CODES[c] for c in _placed(cards, reading, level)]


def _placed(cards: Sequence[Card], reading: Reading, level: int) -> list[Card]:
    """``cards`` in the platform's order for ``reading``: wild cards where they stand."""
    ordered = sorted(cards, key=SORT_KEYS[level].__getitem__)
    wild = wild_card(level)
    kind = reading.kind
    if kind not in _RUNS and kind != Kind.FULL_HOUSE:
        return ordered
    wilds = [c for c in ordered if c == wild]
    naturals = [c for c in ordered if c != wild]
    if kind == Kind.FULL_HOUSE:
        triple_rank = level if reading.value == LEVEL_VALUE else reading.value - 2
        triple = [c for c in naturals if c < 52 and c >> 2 == triple_rank]
        pair = [c for c in naturals if c not in triple]
        filled = 3 - len(triple)
        return triple + wilds[:filled] + pair + wilds[filled:]
    length, width = _RUNS[kind]
    placed: list[Card] = []
    for value in range(reading.value - length + 1, reading.value + 1):
        rank = _natural_rank(value)
        here = [c for c in naturals if c >> 2 == rank][:width]
        for card in here:
            naturals.remove(card)
        placed += here
        while len(here) < width and wilds:
            here.append(wilds.pop())
            placed.append(wild)
    return placed
