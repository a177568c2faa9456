"""Which rules of rules/guandan.md a finished Guandan deal used, read from its events.

:func:`rules_applied` reads the deal's public events (tribute, returns, refusals, leads,
plays, announcements, players out), its setup and its outcome after the deal: the
engine pays nothing for it. It returns rule ids (``GD-14``) and finer *uses* written
``ID/what`` (``GD-6/bomb``). Ids and their meaning:

- always: ``GD-1`` two decks, ``GD-2`` the deal's end, ``GD-4`` the level played,
  ``GD-5`` rank order, ``GD-8`` combinations, ``GD-9`` comparison, ``GD-10`` play;
  ``GD-16`` the level change of a deal played out;
- ``GD-2/double_down``: both players of one team went out first and second (双下);
- ``GD-3``: the first deal of a match (its leader drawn from the seed);
- ``GD-6``: a wild card stood for another card; ``GD-6/bomb`` in a bomb,
  ``GD-6/straight_flush`` in a straight flush;
- ``GD-7``: a sequence was played; ``GD-7/ace_low`` one with the A low;
- ``GD-8/<kind>``: a play of that kind (``single``, ``pair``, ``triple``,
  ``full_house``, ``pair_run``, ``triple_run``, ``straight``, ``straight_flush``,
  ``bomb``, ``joker_bomb``);
- ``GD-9/bomb``: a bomb, straight flush or joker bomb beat another kind of play;
- ``GD-11``: a partner led for a finished trick winner (接风);
- ``GD-12``: a hand's count was announced (10 cards or fewer);
- ``GD-13``: tribute was paid and returned; ``GD-13/partner`` between partners;
- ``GD-14``: a double tribute; ``GD-14/equal`` with equal cards (given clockwise);
- ``GD-15``: a tribute refused; ``GD-15/double`` a double tribute refused;
- ``GD-16/cap``: a team's gain stopped at A;
- ``GD-17``: a team played its own A; ``GD-17/a_fail`` it failed there (what
  ``a_fail_limit`` acts on); ``GD-17/drop`` it dropped back to 2 (``a_fail_limit``
  reached); ``GD-17/match_won`` it won the match.

A deal ended by a flight gives only the uses its events and setup show.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.cards import RANK_ACE, SMALL_JOKER, Card
from arena.games.base import Event, Outcome, team_of
from arena.games.guandan.combos import KIND_BY_LABEL, Kind, card_value, rank_value, wild_card
from arena.games.guandan.state import GuandanState

ALWAYS: Final = ("GD-1", "GD-2", "GD-4", "GD-5", "GD-8", "GD-9", "GD-10")
"""Rules every Guandan deal uses."""
OPTION_USES: Final = {"a_fail_limit": "GD-17/a_fail"}
"""Each option of ``make("guandan", ...)`` and the use that says it came into play."""
_SEQUENCES: Final = {
    Kind.STRAIGHT: (1, 5),
    Kind.STRAIGHT_FLUSH: (1, 5),
    Kind.PAIR_RUN: (2, 3),
    Kind.TRIPLE_RUN: (3, 2),
}
"""Each sequence kind: cards per rank and ranks in a run (GD-8)."""
_BOMBS: Final = frozenset({Kind.BOMB, Kind.STRAIGHT_FLUSH, Kind.JOKER_BOMB})
_ACE_LOW_TOP: Final = {
    Kind.STRAIGHT: 5,
    Kind.STRAIGHT_FLUSH: 5,
    Kind.PAIR_RUN: 3,
    Kind.TRIPLE_RUN: 2,
}
"""GD-7: the value of an A-low sequence (``A 2 3 4 5`` is 5, ``AA 22 33`` 3, ``AAA 222`` 2)."""
_LOW_ACE: Final = -1
"""The rank index an A takes below the 2 in a low sequence."""


def rules_applied(state: GuandanState, outcome: Outcome | None = None) -> frozenset[str]:
    """The rule ids and uses of rules/guandan.md that the finished deal (whose outcome is
    ``outcome``, worked out again when not given) used."""
    if not state.is_terminal():
        raise ValueError("rules_applied needs a finished deal; this one is still being played")
    used: set[str] = set(ALWAYS)
    setup = state.setup
    if not setup.previous_order:
        used.add("GD-3")
    if setup.level == RANK_ACE:
        used.add("GD-17")
    _events_used(state.events, state.level, used)
    if state.fled < 0:
        _settlement((outcome or state.outcome()).details, used)
    return frozenset(used)


def _events_used(events: Sequence[Event], level: int, used: set[str]) -> None:
    wild = wild_card(level)
    tributes: list[Event] = []
    table_kind = -1
    for event in events:
        kind = event.kind
        if kind == "play":
            played = KIND_BY_LABEL[event.tag]
            used.add(f"GD-8/{event.tag}")
            if played in _SEQUENCES:
                used.add("GD-7")
                if event.value == _ACE_LOW_TOP[played]:
                    used.add("GD-7/ace_low")
            if played in _BOMBS and table_kind >= 0 and Kind(table_kind) not in _BOMBS:
                used.add("GD-9/bomb")
            table_kind = int(played)
            if wild in event.cards and _wild_needed(event.cards, played, event.value, wild, level):
                used.add("GD-6")
                if played == Kind.BOMB:
                    used.add("GD-6/bomb")
                elif played == Kind.STRAIGHT_FLUSH:
                    used.add("GD-6/straight_flush")
        elif kind == "lead":
            table_kind = -1
            if event.tag == "partner":
                used.add("GD-11")
        elif kind == "announce":
            used.add("GD-12")
        elif kind == "tribute":
            tributes.append(event)
        elif kind == "refuse_tribute":
            used.add("GD-15")
            if event.tag == "double":
                used.add("GD-15/double")
    if len(tributes) == 1:
        used.add("GD-13")
        if team_of(tributes[0].seat) == team_of(tributes[0].target):
            used.add("GD-13/partner")
    elif len(tributes) == 2:
        used.add("GD-13")
        used.add("GD-14")
        a, b = tributes
        if card_value(a.cards[0], level) == card_value(b.cards[0], level):
            used.add("GD-14/equal")


def _wild_needed(cards: tuple[Card, ...], kind: Kind, value: int, wild: Card, level: int) -> bool:
    """GD-6: whether the play needs its wild cards to stand for other cards, i.e. cannot
    be read as the same kind and value with each wild card as itself (a level card)."""
    if kind == Kind.SINGLE:
        return False
    ranks: dict[int, int] = {}
    for card in cards:
        key = card if card >= SMALL_JOKER else card >> 2
        ranks[key] = ranks.get(key, 0) + 1
    if kind == Kind.FULL_HOUSE:  # natural: its triple the one the play was read by
        triple = [rank for rank, count in ranks.items() if count == 3]
        return sorted(ranks.values()) != [2, 3] or rank_value(triple[0], level) != value
    if kind in _SEQUENCES:
        if kind == Kind.STRAIGHT_FLUSH and len({card & 3 for card in cards}) > 1:
            return True
        return not _natural_run(ranks, kind, value)
    return len(ranks) > 1  # pairs, triples and bombs: all of one rank


def _natural_run(ranks: Mapping[int, int], kind: Kind, value: int) -> bool:
    """Whether cards of these natural ranks make the run of ``kind`` topped at ``value``."""
    width, length = _SEQUENCES[kind]
    if len(ranks) != length or any(n != width for n in ranks.values()):
        return False
    if any(rank >= SMALL_JOKER for rank in ranks):
        return False
    for lowered in (False, True):
        held = sorted(_LOW_ACE if lowered and r == RANK_ACE else r for r in ranks)
        if held[-1] - held[0] == length - 1 and held[-1] + 2 == value:
            return True
    return False


def _settlement(details: Mapping[str, Any], used: set[str]) -> None:
    used.add("GD-16")
    order = [int(seat) for seat in details["order"]]
    if team_of(order[0]) == team_of(order[1]):
        used.add("GD-2/double_down")
    winner, gain = int(details["winner_team"]), int(details["gain"])
    before = [int(level) for level in details["levels_before"]]
    after = [int(level) for level in details["levels_after"]]
    played_a = int(details["level_played"]) == RANK_ACE
    if details["match_winner"] is not None:
        used.add("GD-17/match_won")
        return
    if before[winner] + gain > RANK_ACE:
        used.add("GD-16/cap")
    if played_a:
        used.add("GD-17/a_fail")
        a_team = int(details["level_team"])
        if after[a_team] == 0 and before[a_team] == RANK_ACE:
            used.add("GD-17/drop")
