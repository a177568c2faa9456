"""The sanfu heuristic: explicit rules of thumb a good sanfu player would recognise.

Every decision of a sanfu deal is a play or a pass: the turned cards, the
partnerships and the seat changes of SF-2 … SF-5 happen during the deal with no
decision (the deal's seed picks the turned cards, SF-2; partners and seats follow
from them, SF-3 … SF-5). The rules, each named where it is implemented:

* **go out**: a play that empties the hand is always made (SF-11);
* **shed in few plays** (:mod:`bots.sanfu.hand`): the hand is split into whole
  combinations, which are played whole;
* leading (:mod:`bots.sanfu.lead`): **three jokers pay only when played**, **lead to
  the partner**, **block the opponent about to go out**, **weak combinations first**;
* following (:mod:`bots.sanfu.follow`): **don't overtake a winning partner**, **three
  jokers pay only when played**, **stop the opponent about to go out**, **shed by
  following** (without feeding points to the opponents), **fight for a point trick**,
  **keep bombs for point-rich tricks**, **an early special** (risk), otherwise pass.

The style (``risk``, ``points``, :mod:`bots.style`) moves the levers of
:mod:`bots.sanfu.levers`: points captured and saved against shedding fast (SF-13),
specials played early against kept, three jokers played soon (securing 报喜, SF-16)
against kept for control.

The bot reads only its :class:`Observation`; what it remembers between decisions
(its hand's plan, the count of played cards) is recomputed from the observation
whenever it does not match, so a decision is a function of the seed and the
observation alone. The seed orders otherwise equal plays and draws the choices the
style takes at a rate (:func:`bots.style.chance`).
"""

from __future__ import annotations

from typing import NamedTuple

from arena.games.base import Action, Observation
from bots.sanfu.actions import going_out, resolve
from bots.sanfu.follow import choose_follow
from bots.sanfu.hand import read_hand
from bots.sanfu.lead import choose_lead
from bots.sanfu.levers import levers
from bots.sanfu.view import PlayedMemory, read_view
from bots.style import DEFAULT_STYLE, Style, chance

__all__ = ["Decision", "SanfuHeuristic"]

GO_OUT_RULE = "go out"


class Decision(NamedTuple):
    """The action taken and the name of the rule that chose it."""

    action: Action
    rule: str


class SanfuHeuristic:
    """Plays sanfu by the rules of the module docstring."""

    name = "heuristic"

    def __init__(self, seed: int = 0, style: Style = DEFAULT_STYLE) -> None:
        self.seed = seed
        self.style = style
        self._levers = levers(style)
        self._memory = PlayedMemory()

    def act(self, observation: Observation) -> Action:
        return self.decide(observation).action

    def decide(self, observation: Observation) -> Decision:
        """The action for ``observation`` and the rule that chose it."""
        if observation.game != "sanfu" or observation.phase != "play":
            raise ValueError(
                f"the sanfu heuristic plays the play phase of sanfu, "
                f"not {observation.game!r} phase {observation.phase!r}"
            )
        if observation.to_act != observation.seat or not observation.legal_actions:
            raise ValueError(
                f"seat {observation.seat} has no decision to make "
                f"(seat {observation.to_act} is to act)"
            )
        finish = going_out(observation)
        if finish is not None:
            return Decision(finish, GO_OUT_RULE)
        plan, held = read_hand(observation.hand)
        view = read_view(observation, self._memory, held)
        lever = self._levers
        if view.table is None:
            choice = choose_lead(plan, view, self.seed, lever)
        else:

            def draw(what: str, rate: float) -> bool:
                return chance(self.seed, observation, what, rate)

            choice = choose_follow(plan, view, view.table, self.seed, lever, draw)
        return Decision(*resolve(choice, observation))
