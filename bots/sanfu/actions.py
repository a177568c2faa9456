"""From a :class:`Choice` to one of the observation's legal actions.

The strategy picks cards from its own hand; the engine lists every distinct play,
or, when there are too many, one play per rank pattern with canonical suits
(``legal_complete`` false). A chosen play that is not listed is replaced by the
listed play of the same combination (same reading, other suits).
"""

from __future__ import annotations

from functools import lru_cache

from arena.cards import Card
from arena.games.base import PASS, Action, Observation
from arena.games.sanfu.combos import Reading, card_value, reading
from bots.sanfu.choice import Choice

FALLBACK_RULE = "no listed play matches: the lowest legal action"


@lru_cache(maxsize=1 << 16)
def reading_of(cards: tuple[Card, ...]) -> Reading | None:
    """The SF-8 reading of some cards (remembered: the same plays recur all deal long)."""
    return reading(cards)


def pattern_of(action: Action) -> tuple[str, tuple[int, ...], Reading | None]:
    """The action's rank pattern: the ranks it takes and its reading. Plays of one
    pattern differ only in suits, which sanfu compares only within same-suit triples
    (a reading of its own)."""
    return action.verb, tuple(sorted(card_value(c) for c in action.cards)), reading_of(action.cards)


def going_out(observation: Observation) -> Action | None:
    """A legal play of the whole hand, if there is one (rule *go out*)."""
    size = len(observation.hand)
    for action in observation.legal_actions:
        if len(action.cards) == size:
            return action
    return None


def resolve(choice: Choice, observation: Observation) -> tuple[Action, str]:
    """The legal action carrying out ``choice``, and the rule behind it."""
    legal = observation.legal_actions
    if choice.cards is None:
        if PASS in legal:
            return PASS, choice.rule
    else:
        action = Action("play", choice.cards)
        if action in legal:
            return action, choice.rule
        wanted = reading_of(choice.cards)
        for listed in legal:
            if listed.cards and reading_of(listed.cards) == wanted:
                return listed, choice.rule
    return (PASS if PASS in legal else legal[0]), FALLBACK_RULE
