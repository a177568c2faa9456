"""Leading a trick: which combination of the plan to open with.

The rules, tried in this order:

* **three jokers pay only when played** (SF-16, 报喜): a three-joker combination is
  led as soon as the deal may end soon (some seat holds
  :attr:`~bots.sanfu.levers.Levers.joker_urgent_cards` cards or fewer), since holding
  it earns nothing;
* **lead to the partner**: when the partner is close to going out (at most
  :data:`PARTNER_SHORT` cards), lead the lowest single (a low pair to a partner with
  two cards), a combination the partner can follow and win;
* **block the opponent about to go out**: when an opponent holds at most
  :data:`OPPONENT_SHORT` cards, lead a combination longer than their hand, or
  failing that the highest one;
* **weak combinations first**: otherwise lead the weakest ordinary combination
  (lowest rank, the longer at equal rank), holding back point cards an opponent
  could capture (:attr:`~bots.sanfu.levers.Levers.feed_penalty` ranks of handicap,
  SF-13) and keeping the bombs and
  same-suit triples for later; only when nothing else is left lead the weakest
  special play.
"""

from __future__ import annotations

from arena.games.sanfu.combos import Kind
from bots.sanfu.choice import Choice, tiebreak
from bots.sanfu.hand import VALUES, Group, Plan, group
from bots.sanfu.levers import Levers, levers
from bots.sanfu.view import View

PARTNER_SHORT = 2
OPPONENT_SHORT = 3

_WIDTH = {Kind.SINGLE: 1, Kind.PAIR: 2, Kind.TRIPLE: 3, Kind.FULL_HOUSE: 3}
"""Cards of one higher rank needed to beat a combination of the kind (the runs: none)."""


def joker_urgent(plan: Plan, view: View, lever: Levers) -> Group | None:
    """A three-joker play to make now: some seat is close enough to going out."""
    joker_triple = Kind.JOKER_TRIPLE
    jokers = [g for g in plan.specials if g.reading.kind == joker_triple]
    if not jokers:
        return None
    if min(c for c in view.counts if c) <= lever.joker_urgent_cards:
        return jokers[0]
    return None


def can_be_beaten(combo: Group, view: View) -> bool:
    """Whether cards still out could beat ``combo`` as an ordinary play (bombs aside)."""
    width = _WIDTH.get(combo.reading.kind)
    return width is not None and view.higher_unseen(combo.reading.value, width)


def lead_key(combo: Group, view: View, seed: int, lever: Levers) -> tuple[int, int, int]:
    """Weakest first: rank, a handicap for points an opponent could capture, length."""
    strength = combo.reading.value
    if combo.points and can_be_beaten(combo, view):
        strength += lever.feed_penalty
    return strength, -combo.reading.size, tiebreak(seed, combo.cards)


def choose_lead(plan: Plan, view: View, seed: int, lever: Levers | None = None) -> Choice:
    """The lead, by the rules of the module docstring (``lever``: the style's, the
    default style's when not given)."""
    lever = lever or levers()
    jokers = joker_urgent(plan, view, lever)
    if jokers is not None:
        return Choice.play(jokers, "three jokers pay only when played")
    if view.partner_in() and view.counts[view.partner] <= PARTNER_SHORT:
        combo = _to_partner(plan, view.counts[view.partner])
        if combo is not None:
            return Choice.play(combo, "lead to the partner")
    ordinary = plan.ordinary
    if not ordinary:
        return Choice.play(plan.specials[0], "weak combinations first")
    short = view.fewest_opponent_cards()
    if short <= OPPONENT_SHORT:
        longer = [g for g in ordinary if g.reading.size > short]
        if longer:
            best = min(longer, key=lambda g: lead_key(g, view, seed, lever))
        else:
            best = max(ordinary, key=lambda g: (g.reading.value, g.reading.size))
        return Choice.play(best, "block the opponent about to go out")
    return Choice.play(
        min(ordinary, key=lambda g: lead_key(g, view, seed, lever)), "weak combinations first"
    )


def _to_partner(plan: Plan, partner_cards: int) -> Group | None:
    """The lowest single (or, to a partner holding two cards, the lowest pair) of the
    loose cards."""
    loose = plan.loose
    if partner_cards == 2:
        pairs = [v for v in VALUES if len(loose[v]) >= 2]
        if pairs:
            return group(loose[pairs[0]][:2], Kind.PAIR, pairs[0])
    singles = [v for v in VALUES if loose[v]]
    if singles:
        return group(loose[singles[0]][:1], Kind.SINGLE, singles[0])
    return None
