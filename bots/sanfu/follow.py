"""Answering a play on the table: beat it, and with what, or pass.

The rules, tried in this order:

* **don't overtake a winning partner**: when the partner made the play on the
  table, pass and let the partner take the trick (and the lead);
* **three jokers pay only when played** (SF-16): play them over an opponent when
  the trick holds points or the deal may end soon;
* **stop the opponent about to go out**: when the opponent winning the trick holds
  at most :data:`OPPONENT_DANGER` cards, beat it with the cheapest play that does
  (a whole ordinary combination, then loose cards, then the weakest special play);
* **shed by following**: beat with the lowest whole ordinary combination of the
  plan, but spend 2s and jokers only on a trick worth :data:`CONTEST_POINTS`, and
  add point cards only to a trick worth contesting or with a play no card still out
  can beat (don't feed points to the opponents);
* **fight for a point trick**: a trick worth :data:`CONTEST_POINTS` or more is
  worth breaking a combination of loose cards for;
* **keep bombs for point-rich tricks**: bombs, then same-suit triples, the weakest
  that beats, only over a trick worth :data:`SPECIAL_POINTS` or more, or when the
  special play takes the lead with at most :data:`RUN_OUT_PLAYS` other combinations
  left, which it can then run out;
* otherwise pass (don't waste strong plays on empty tricks).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from arena.games.sanfu.combos import BIG_JOKER_VALUE, TWO_VALUE, Kind, Reading, beats
from bots.sanfu.choice import Choice, tiebreak
from bots.sanfu.hand import VALUES, Group, Plan, group
from bots.sanfu.lead import can_be_beaten, joker_urgent
from bots.sanfu.view import Table, View

OPPONENT_DANGER = 6
CONTEST_POINTS = 10
SPECIAL_POINTS = 20
RUN_OUT_PLAYS = 1


def choose_follow(plan: Plan, view: View, table: Table, seed: int) -> Choice:
    """The answer to ``table``, by the rules of the module docstring."""
    if not view.is_opponent(table.seat):
        return Choice.pass_("don't overtake a winning partner")
    to_beat = table.reading
    points = table.points
    specials = [g for g in plan.specials if beats(g.reading, to_beat)]
    jokers = [g for g in specials if g.reading.kind == Kind.JOKER_TRIPLE]
    if jokers and (points or joker_urgent(plan, view) is not None):
        return Choice.play(jokers[0], "three jokers pay only when played")
    whole = sorted(
        (g for g in plan.ordinary if beats(g.reading, to_beat)),
        key=lambda g: (g.reading.value, tiebreak(seed, g.cards)),
    )
    if view.counts[table.seat] <= OPPONENT_DANGER:
        stoppers = [*whole[:1], *itertools.islice(_loose_plays(plan, to_beat), 1), *specials]
        if stoppers:
            return Choice.play(stoppers[0], "stop the opponent about to go out")
    contest = points >= CONTEST_POINTS
    for combo in whole:
        if combo.reading.value >= TWO_VALUE and not contest:
            continue  # 2s and jokers keep control for a trick worth it
        if combo.points and not contest and can_be_beaten(combo, view):
            continue  # an opponent could overtake and take these points
        return Choice.play(combo, "shed by following")
    if contest:
        loose = next(_loose_plays(plan, to_beat), None)
        if loose is not None:
            return Choice.play(loose, "fight for a point trick")
    if specials and (points >= SPECIAL_POINTS or plan.plays - 1 <= RUN_OUT_PLAYS):
        return Choice.play(specials[0], "keep bombs for point-rich tricks")
    return Choice.pass_("don't waste strong plays on empty tricks")


def _loose_plays(plan: Plan, to_beat: Reading) -> Iterator[Group]:
    """Plays of the table's kind made from loose cards (breaking ordinary combinations,
    never a special play), lowest first. Runs and plates are not broken for."""
    loose = plan.loose
    kind, value = to_beat.kind, to_beat.value
    if kind in (Kind.SINGLE, Kind.PAIR, Kind.TRIPLE):
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
