"""Where the style (:mod:`bots.style`) moves the sanfu heuristic: each lever a number
the rules of :mod:`bots.sanfu.lead` and :mod:`bots.sanfu.follow` read, from ``risk``
(cautious 0 ↔ aggressive 1) and ``points`` (tempo-first 0 ↔ points-first 1).

``points`` — capturing and saving points against shedding fast (SF-10, SF-13):

* **contest**: a trick worth :attr:`Levers.contest_points` or more is fought for
  (combinations broken, 2s and jokers spent, a bomb played): 5 from the default up,
  10 at 0.25, 15 at 0;
* **same-suit triples for points** (SF-9): spent on a trick worth
  :attr:`Levers.suited_triple_points` (15 at the default, 5 at 1, 25 at 0);
* **points not fed**: a lead carrying points an opponent could overtake counts
  :attr:`Levers.feed_penalty` ranks weaker (12 × ``points`` up to the default's 6:
  holding point cards back longer was measured to lose points, not save them, as the
  ones kept are given away later or end in the last player's hand, SF-13), and
  below 0.25 a follow may carry such points;
* **the race**: ordinary plays are spent freely once an opponent holds
  :attr:`Levers.race_cards` cards or fewer (28 from the default up, 36 at 0): a
  tempo-first bot starts racing sooner.

``risk`` — playing strong combinations early against keeping them:

* **early specials** (SF-9): with two specials or more and no ordinary play to beat an
  opponent's, the weakest special is played to take the lead at a rate of
  :attr:`Levers.early_special_rate` (0.3 × ``risk``);
* **three jokers** (SF-16, 报喜 pays only when played): led or played once some seat
  holds :attr:`Levers.joker_urgent_cards` cards or fewer (20 at the default, 24 at 0,
  4 at 1): a cautious bot secures the bonus, an aggressive one keeps the control play.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from bots.style import DEFAULT_STYLE, Style

__all__ = ["Levers", "levers"]


@dataclass(frozen=True, slots=True)
class Levers:
    """The numbers the sanfu rules read (module docstring)."""

    contest_points: int
    suited_triple_points: int
    feed_penalty: int
    guard_points: bool
    race_cards: int
    early_special_rate: float
    joker_urgent_cards: int


@cache
def levers(style: Style = DEFAULT_STYLE) -> Levers:
    """The levers of ``style``."""
    tempo = DEFAULT_STYLE.points - style.points  # > 0: tempo-first
    return Levers(
        contest_points=5 + 5 * max(0, round(tempo * 4)),
        suited_triple_points=max(5, 15 + 5 * round(tempo * 4)),
        feed_penalty=round(12 * min(style.points, DEFAULT_STYLE.points)),
        guard_points=style.points >= 0.25,
        race_cards=28 + max(0, round(tempo * 16)),
        early_special_rate=0.3 * style.risk,
        joker_urgent_cards=20 + round((DEFAULT_STYLE.risk - style.risk) * 20),
    )
