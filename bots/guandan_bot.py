"""The Guandan heuristic: plays by the rules of thumb of a good human player.

The hand is read as a plan — the split into combinations that sheds it in the
fewest plays, bombs aside, wild cards where they save the most plays, in straight
flushes and bombs too (:mod:`bots.guandan.partition`, GD-6, GD-7) — and each
decision follows the rules named in :mod:`bots.guandan.decide`: go out when
possible, lead the weakest combination first, keep bombs for when they matter, do
not overtake the partner and let a finishing partner's play stand (接风, GD-11),
feed a partner about to go out, block an opponent about to go out, and return a
low card that breaks nothing (GD-13, GD-14; refusing tribute, GD-15, is the
engine's, not a decision). The style (``risk``, ``points``) moves the levers listed
in :mod:`bots.guandan.decide`.
"""

from __future__ import annotations

from arena.cards import Card
from arena.games.base import Action, Observation
from bots.guandan.decide import choose_play, choose_return, choose_tribute
from bots.guandan.partition import Partition, splitter
from bots.guandan.view import read_view
from bots.style import DEFAULT_STYLE, Style, chance

__all__ = ["GuandanHeuristic"]


class GuandanHeuristic:
    """The rule-based Guandan strategy of the ``heuristic`` bot.

    Every decision is a function of the seed and the observation alone: the choices
    its style takes at a rate are drawn by :func:`bots.style.chance`. Splits of hands depend
    on the cards and the level only: the splitter of each level, which remembers the
    hands it split and its sub-results, is shared by the bots of a process (the
    rollouts of a search meet the same hands again and again).
    """

    name = "heuristic"

    def __init__(self, seed: int = 0, style: Style = DEFAULT_STYLE) -> None:
        self.seed = seed
        self.style = style

    def act(self, observation: Observation) -> Action:
        if observation.game != "guandan":
            raise ValueError(f"the Guandan heuristic cannot play {observation.game!r}")
        legal = observation.legal_actions
        if not legal:
            raise ValueError(
                f"seat {observation.seat} has no legal action in phase {observation.phase!r}: "
                f"seat {observation.to_act} is to act"
            )
        if len(legal) == 1:
            return legal[0]
        level = int(observation.public["level"])

        def split(hand: tuple[Card, ...]) -> Partition:
            return self.split(hand, level)

        if observation.phase == "tribute":
            return choose_tribute(observation, split)
        if observation.phase == "return":
            return choose_return(observation, split, self.style)

        def draw(what: str, rate: float) -> bool:
            return chance(self.seed, observation, what, rate)

        return choose_play(read_view(observation), legal, split, self.style, draw)

    def split(self, hand: tuple[Card, ...], level: int) -> Partition:
        """The plan of ``hand`` at ``level`` (remembered by the level's splitter)."""
        return splitter(level).split(hand)
