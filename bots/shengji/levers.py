"""Where the bot's :class:`~bots.style.Style` moves its Shengji play: every lever, with
its rule ids. At the default style (``risk`` 0.2, ``points`` 0.5) each equals the value the
bot played by before styles existed, but for two additions: risky throws (at the rate
√0.2 ≈ 0.45 risking a set, 0.04 a single), and the cheaper points in a safe kitty.

``risk`` — cautious (0) ↔ aggressive (1):

* **Risky throws (SJ-17)** — a throw the shared reading
  (:func:`arena.games.shengji.reading.read_throw`) says *may fail* is tried at a lead
  where one is on offer, a deterministic draw per decision (:func:`bots.style.chance`):
  when the unit it risks is a set, with probability √``risk`` (:attr:`Levers.throw_rate`),
  the set beaten by at most 1 + ⌊2 ``risk``⌋ unseen sets of its shape
  (:attr:`Levers.set_beaters`); when it is a single, which someone nearly always can
  beat, with probability ``risk``² (:attr:`Levers.single_rate`), the single beaten by one
  unseen card at most. Safe throws are made whatever the style; at ``risk`` 0 a throw
  never fails.
* **Declaring and overriding (SJ-8 … SJ-11)** — the trump share of the hand that makes
  a suit worth declaring, or an opponent's declaration worth overriding, falls as
  ``risk`` grows (:attr:`Levers.early_share`, :attr:`Levers.late_share`), and so does
  the number of cards held before declaring during the deal
  (:attr:`Levers.early_part`); a joker pair overrides an opponent's suit
  (反无主) up to a higher share of that suit (:attr:`Levers.notrump_share`); the standing
  declarer changes suit with a stronger declaration (自反) when the new suit is better by
  :attr:`Levers.switch_margin`, which shrinks as ``risk`` grows.
* **Burying points (SJ-13, SJ-25)** — the cost of putting a point card in the kitty
  falls as ``risk`` grows (:attr:`Levers.point_cost`): at ``risk`` 1 points are buried
  nearly as readily as other cards.
* **Gambles in the follow (SJ-20)** — the points on the table for which a winning play
  that might still be beaten is tried fall as ``risk`` grows
  (:attr:`Levers.gamble_points`).

``points`` — tempo-first (0) ↔ points-first (1):

* **Feeding and saving points (SJ-22)** — the weight of points given to a winning
  partner (:attr:`Levers.feed_weight`) and of points given away to the opponents
  (:attr:`Levers.lose_weight`) against the cost of the cards spent grows with
  ``points``.
* **Taking the lead (SJ-18)** — what winning a trick is worth for the lead it brings,
  in points (:attr:`Levers.lead_value`), shrinks as ``points`` grows: a tempo-first bot
  spends cards to take and keep the lead.
* **Drawing trumps (SJ-18)** — the declarers' share of trumps in the hand from which
  the bot leads its trumps to draw the opponents' (:attr:`Levers.draw_share`) grows
  with ``points``: a tempo-first bot takes control early, a points-first one keeps
  its trumps to ruff points.
* **Keeping points out of the kitty (SJ-13, SJ-25)** — the cost of burying a point card
  (:attr:`Levers.point_cost`) grows with ``points``; a kitty the hand can defend (many
  trumps, the top trump held: :func:`bots.shengji.burying.kitty_safe`) makes it cheap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bots.style import DEFAULT_POINTS, DEFAULT_RISK, Style

__all__ = ["Levers"]

EARLY_SHARE = 0.37
"""Trump share of the cards held that makes a suit worth declaring during the deal."""
LATE_SHARE = 0.33
"""The share that is enough once the dealing is over."""
SHARE_STEP = 0.1
"""How much the shares above move from cautious to aggressive (``risk`` 0 to 1)."""
NOTRUMP_SHARE = 0.26
"""An opponent's suit with a share below this in the hand is worth a notrump override."""
SWITCH_MARGIN = 0.15
"""How much better a suit must be for the standing declarer to change to it (自反)."""
EARLY_PART = 1 / 3
"""The part of a full hand held before a declaration during the deal."""
POINT_COST = 6.0
"""Per point of a buried card: a 10 or a K costs 60, more than any other plain card."""
SAFE_DISCOUNT = 0.25
"""The point cost's factor when the kitty is safe."""
GAMBLE_POINTS = 10
"""Points on the table for which a winning play that might be beaten is tried."""
FEED_WEIGHT = 2.5
"""Points fed to a winning partner, against the cost of the cards spent."""
LOSE_WEIGHT = 3.0
"""Points given away to the opponents, against the cost of the cards spent."""
LEAD_VALUE = 4.0
"""What winning the lead is worth, in points."""
DRAW_SHARE = 0.5
"""The declarers' share of trumps in the hand from which trumps are led to draw."""


@dataclass(frozen=True, slots=True)
class Levers:
    """The numbers the bot plays by, from its style (module docstring)."""

    throw_rate: float
    set_beaters: int
    single_rate: float
    early_share: float
    late_share: float
    early_part: float
    notrump_share: float
    switch_margin: float
    point_cost: float
    """Per point of a buried card, when the kitty is not safe."""
    safe_point_cost: float
    """Per point of a buried card, when the kitty is safe."""
    gamble_points: float
    feed_weight: float
    lose_weight: float
    lead_value: float
    draw_share: float

    @classmethod
    def of(cls, style: Style) -> Levers:
        """Each constant above moved linearly by how far the style is from the default
        (0 at the default), the throw rates as the module docstring says."""
        bold = style.risk - DEFAULT_RISK  # -0.2 … 0.8
        keen = style.points - DEFAULT_POINTS  # -0.5 … 0.5
        point_cost = POINT_COST * (1 + keen) * (1 - bold)
        return cls(
            throw_rate=math.sqrt(style.risk),
            set_beaters=1 + int(2 * style.risk),
            single_rate=style.risk**2,
            early_share=EARLY_SHARE - SHARE_STEP * bold,
            late_share=LATE_SHARE - SHARE_STEP * bold,
            early_part=EARLY_PART * (1 - bold),
            notrump_share=NOTRUMP_SHARE + SHARE_STEP * bold,
            switch_margin=SWITCH_MARGIN * (1 - bold),
            point_cost=point_cost,
            safe_point_cost=point_cost * SAFE_DISCOUNT,
            gamble_points=GAMBLE_POINTS * (1 - bold),
            feed_weight=FEED_WEIGHT * (1 + keen),
            lose_weight=LOSE_WEIGHT * (1 + keen),
            lead_value=LEAD_VALUE * (1 - keen),
            draw_share=DRAW_SHARE * (1 + keen),
        )
