"""Answering a play on the table: beat it, and with what, or pass.

The rules, tried in this order:

* **don't overtake a winning partner**: when the partner made the play on the
  table, pass and let the partner take the trick (and the lead);
* **three jokers pay only when played** (SF-16): play them over an opponent when
  the trick holds points or the deal may end soon;
* **shed by following**: beat the opponent with the lowest whole ordinary
  combination of the plan. Early in the deal (the opponent still holds more than
  ``race_cards`` cards) and on a trick worth less than ``contest_points``,
  keep the 2s and jokers for control, and (unless tempo-first) add no point cards
  that a card still out could overtake (don't feed points to the opponents, SF-13);
* **fight for a point trick** (SF-10, SF-13): a trick worth ``contest_points`` or
  more, or an opponent in the race to go out, is worth breaking a combination of
  loose cards for;
* **keep bombs for point-rich tricks**: bombs only over a trick worth
  ``contest_points`` or more, same-suit triples only over one worth
  ``suited_triple_points`` (the weakest special play that beats);
* **an early special** (risk): with two specials or more, the weakest one that beats
  takes the lead at the style's ``early_special_rate``;
* **stop the opponent about to go out**: the weakest special play that beats, when
  the opponent winning the trick holds at most :data:`DANGER_CARDS` cards;
* **take the lead to run out**: the weakest special play that beats, when at most
  :data:`RUN_OUT_PLAYS` other combination is left, to be led next;
* otherwise pass (don't waste strong plays on empty tricks).

The names in ``code`` are the style's levers (:mod:`bots.sanfu.levers`).

With three decks bombs are plentiful and the side that keeps the lead sheds its
hand, so once the race is on every ordinary play that beats the opponent is made;
the special plays stay reserved for points, danger and the last plays.
"""

from __future__ import annotations

from collections.abc import Iterator

from arena.games.sanfu.combos import BIG_JOKER_VALUE, TWO_VALUE, Kind, Reading, beats
from bots.sanfu.choice import Choice, Draw, never, tiebreak
from bots.sanfu.hand import PLAIN_KINDS, VALUES, Group, Plan, group
from bots.sanfu.lead import can_be_beaten, joker_urgent
from bots.sanfu.levers import Levers, levers
from bots.sanfu.view import Table, View

DANGER_CARDS = 15
"""An opponent with this many cards or fewer is worth a special play to stop."""
RUN_OUT_PLAYS = 1
EARLY_SPECIALS = 2
"""Specials held before one may be played early (the style's ``early_special_rate``)."""


def choose_follow(
    plan: Plan,
    view: View,
    table: Table,
    seed: int,
    lever: Levers | None = None,
    draw: Draw = never,
) -> Choice:
    """The answer to ``table``, by the rules of the module docstring (``lever``: the
    style's, the default style's when not given; ``draw`` decides the choices taken
    at a rate)."""
    if not view.is_opponent(table.seat):
        return Choice.pass_("don't overtake a winning partner")
    lever = lever or levers()
    to_beat = table.reading
    points = table.points
    specials = [g for g in plan.specials if beats(g.reading, to_beat)]
    joker_triple = Kind.JOKER_TRIPLE
    jokers = [g for g in specials if g.reading.kind == joker_triple]
    if jokers and (points or joker_urgent(plan, view, lever) is not None):
        return Choice.play(jokers[0], "three jokers pay only when played")
    left = view.counts[table.seat]
    racing = left <= lever.race_cards
    contest = points >= lever.contest_points
    whole = sorted(
        (g for g in plan.ordinary if beats(g.reading, to_beat)),
        key=lambda g: (g.reading.value, tiebreak(seed, g.cards)),
    )
    for combo in whole:
        if not (racing or contest):
            if combo.reading.value >= TWO_VALUE:
                continue  # 2s and jokers keep control for a trick worth it
            if lever.guard_points and combo.points and can_be_beaten(combo, view):
                continue  # an opponent could overtake and take these points
        return Choice.play(combo, "shed by following")
    if racing or contest:
        loose = next(_loose_plays(plan, to_beat), None)
        if loose is not None:
            return Choice.play(loose, "fight for a point trick")
    for special in specials:
        bomb = special.reading.kind == Kind.BOMB
        worth = lever.contest_points if bomb else lever.suited_triple_points
        if points >= worth:
            return Choice.play(special, "keep bombs for point-rich tricks")
    if specials and left <= DANGER_CARDS:
        return Choice.play(specials[0], "stop the opponent about to go out")
    if specials and plan.plays - 1 <= RUN_OUT_PLAYS:
        return Choice.play(specials[0], "take the lead to run out")
    early = len(plan.specials) >= EARLY_SPECIALS and specials
    if early and draw("special early", lever.early_special_rate):
        return Choice.play(specials[0], "an early special")
    return Choice.pass_("don't waste strong plays on empty tricks")


def _loose_plays(plan: Plan, to_beat: Reading) -> Iterator[Group]:
    """Plays of the table's kind made from loose cards (breaking ordinary combinations,
    never a special play), lowest first. Runs and plates are not broken for."""
    loose = plan.loose
    kind, value = to_beat.kind, to_beat.value
    if kind in PLAIN_KINDS:
        width = to_beat.size
        for v in VALUES:
            if v > value and len(loose[v]) >= width and (width < 3 or v <= TWO_VALUE):
                yield group(loose[v][:width], kind, v)
    elif kind == Kind.FULL_HOUSE:
        for t in range(value + 1, TWO_VALUE + 1):
            if len(loose[t]) != 3:
                continue
            for p in range(to_beat.second + 1, BIG_JOKER_VALUE + 1):
                if p != t and len(loose[p]) >= 2:
                    yield group(loose[t] + loose[p][:2], Kind.FULL_HOUSE, t, p)
                    break
