"""Which rules of rules/sanfu.md a finished sanfu deal used, read from its events.

:func:`rules_applied` reads the deal's public events (turned cards, seat swaps, leads,
plays, captures, players out, automatic play, a flight), its setup and its outcome after
the deal: the engine pays nothing for it. It returns rule ids (``SF-16``) and finer
*uses* written ``ID/what`` (``SF-4/swap``). Ids and their meaning:

- always: ``SF-1`` the deal, ``SF-3`` partners, ``SF-6`` the first leader, ``SF-7``
  rank order, ``SF-8`` combinations, ``SF-9`` comparison, ``SF-10`` play, ``SF-11``
  the deal's end; ``SF-13`` and ``SF-14`` the scoring of a deal played out;
- ``SF-2``: two cards were turned; ``SF-3/same_receiver`` one player received both;
- ``SF-4``: the seats were rearranged after two turned cards, ``SF-4/swap`` a seat
  swap was made then;
- ``SF-5``: one card was turned after a sweep, ``SF-5/swap`` its receiver moved,
  ``SF-5/self`` the previous first finisher received it;
- ``SF-8/<kind>``: a play of that kind (``single``, ``pair``, ``triple``,
  ``suited_triple``, ``full_house``, ``pair_run``, ``plate``, ``plate_with_pairs``,
  ``bomb``, ``joker_triple``);
- ``SF-9/bomb``: a bomb-class play (bomb, same-suit triple, three jokers) beat a play
  of another kind;
- ``SF-10/partner``: a partner led for a finished trick winner (对家接风);
- ``SF-12``: a seat was played automatically (a missed time limit, what
  ``time_limit`` acts on); ``SF-15``: a player fled;
- ``SF-13/transfer``: a last player's points went to the other team;
- ``SF-14/sweep``: a sweep (抬了); ``SF-14/all_points`` a winner held all 300 points;
- ``SF-16``: three jokers were played (报喜);
- ``SF-17``: the match's last deal (its length, the ``deals`` option, ended it).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.games.base import Event, Outcome
from arena.games.sanfu.combos import Kind
from arena.games.sanfu.scoring import TOTAL_POINTS
from arena.games.sanfu.state import SanfuState

ALWAYS: Final = ("SF-1", "SF-3", "SF-6", "SF-7", "SF-8", "SF-9", "SF-10", "SF-11")
"""Rules every sanfu deal uses."""
OPTION_USES: Final = {"deals": "SF-17", "time_limit": "SF-12"}
"""Each option of ``make("sanfu", ...)`` and the use that says it came into play."""
_BOMB_CLASS: Final = frozenset({"bomb", "suited_triple", "joker_triple"})
_KIND_LABELS: Final = frozenset(kind.label for kind in Kind)


def rules_applied(state: SanfuState, outcome: Outcome | None = None) -> frozenset[str]:
    """The rule ids and uses of rules/sanfu.md that the finished deal (whose outcome is
    ``outcome``, worked out again when not given) used."""
    if not state.is_terminal():
        raise ValueError("rules_applied needs a finished deal; this one is still being played")
    used: set[str] = set(ALWAYS)
    _events_used(state.events, state.setup.previous_first, used)
    details: Mapping[str, Any] = (outcome or state.outcome()).details
    if "fled" in details:
        used.add("SF-15")
    else:
        _settlement(details, used)
    if state.setup.deal_index + 1 >= state.setup.deals:
        used.add("SF-17")
    return frozenset(used)


def _events_used(events: Sequence[Event], previous_first: int | None, used: set[str]) -> None:
    turns: list[Event] = []
    table = ""
    swapped = False
    for event in events:
        kind = event.kind
        if kind == "play":
            label = event.tag
            if label in _KIND_LABELS:
                used.add(f"SF-8/{label}")
            if label in _BOMB_CLASS and table and table not in _BOMB_CLASS:
                used.add("SF-9/bomb")
            if label == "joker_triple":
                used.add("SF-16")
            table = label
        elif kind == "lead":
            table = ""
            if event.tag == "partner":
                used.add("SF-10/partner")
        elif kind == "turn":
            turns.append(event)
        elif kind == "swap":
            swapped = True
        elif kind == "auto" or kind == "fled":
            used.add("SF-12")
    if len(turns) == 2:
        used.add("SF-2")
        used.add("SF-4")
        if swapped:
            used.add("SF-4/swap")
        if turns[0].seat == turns[1].seat:
            used.add("SF-3/same_receiver")
    elif len(turns) == 1:
        used.add("SF-5")
        if swapped:
            used.add("SF-5/swap")
        if turns[0].value == previous_first:
            used.add("SF-5/self")


def _settlement(details: Mapping[str, Any], used: set[str]) -> None:
    used.add("SF-13")
    used.add("SF-14")
    if sum(int(points) for points in details["transferred"]):
        used.add("SF-13/transfer")
    if details["sweep"]:
        used.add("SF-14/sweep")
    if TOTAL_POINTS in [int(points) for points in details["team_points"]]:
        used.add("SF-14/all_points")
