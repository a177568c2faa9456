"""Shengji's play listing against its first implementation, on 100,000 states per variant.

The engine lists leads and the follows short of the led suit as sequences made on
demand, the single-unit leads and the sets that follow a set from each identity's
cards. Here the first implementation — every lead spelled out, the units of the
hand's piles, the eager follow listing — lists the same states again: the same plays
in the same order, the play at an index drawn before any is spelled out equal to the
listed one there, and ``in`` agreeing for listed and unlisted plays.

(Not among the engine tests run again interpreted: the two implementations are the
same source either way; this runs once, with the compiled engines where they are.)
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest
from shengji_listing import listed_leads, pile_units

from arena.cards import Card
from arena.chance import derive_seed
from arena.games import make
from arena.games.base import Action
from arena.games.shengji import ShengjiState
from arena.games.shengji.follow import priority_list
from arena.games.shengji.moves import LIST_LIMIT, as_actions, follows
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Pile

STATES = 100_000
"""Play decisions compared per variant."""


def first_listing(state: ShengjiState) -> list[Action]:
    """The play decision's legal actions as the first implementation listed them."""
    seat, order, trick, rules = state.to_act, state.order, state._trick, state.rules
    assert order is not None
    hand = state.hand(seat)
    if not trick.plays:
        if rules.throws_allowed and lead_count(hand, order) <= LIST_LIMIT:
            return listed_leads(list(hand), order)
        return [Action("play", unit.cards) for unit in pile_units(hand, order, rules.max_width)]
    lead, suit, size = trick.lead, trick.suit, trick.size
    suited = [card for card in hand if order.suits[card] == suit]
    one_set = len(lead) == 1 and lead[0].length == 1
    if size > 1 and len(suited) > size and one_set and priority_list(lead, rules.decks) is None:
        sets = [unit.cards for unit in Pile(suited, order).units(size, 1)]
        if sets:
            return as_actions(sets[:LIST_LIMIT])
    plays, _, _ = follows(hand, lead, suit, size, order, rules.decks, LIST_LIMIT)
    return as_actions(plays)


def lead_count(hand: Sequence[Card], order: TrumpOrder) -> int:
    """How many non-empty sets of one suit's cards the hand holds."""
    ways: dict[int, int] = {}
    for card, copies in Counter(hand).items():
        suit = order.suits[card]
        ways[suit] = ways.get(suit, 1) * (copies + 1)
    return sum(ways.values()) - len(ways)


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-2", "shengji-3", "shengji-4"])
def test_play_listing_equals_the_first_implementation(variant: str) -> None:
    game = make(variant)
    setup = game.first_setup()
    compared = deal = 0
    while compared < STATES:
        seed = derive_seed(16, variant, deal)
        state = game.new_deal(setup, seed=seed)
        assert isinstance(state, ShengjiState)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            index = rng.randrange(len(legal))
            chosen = legal[index]  # drawn before the others are spelled out
            if state.phase == "play":
                expected = first_listing(state)
                assert chosen == expected[index], (seed, index)
                assert chosen in legal
                hand = state.hand(state.to_act)
                unlisted = Action("play", tuple(sorted(rng.sample(hand, len(chosen.cards)))))
                assert (unlisted in legal) == (unlisted in set(expected)), (seed, unlisted)
                assert list(legal) == expected, seed
                compared += 1
            state.apply(chosen)
        outcome = state.outcome()
        setup = outcome.next_setup if outcome.next_setup is not None else game.first_setup()
        deal += 1
    assert compared >= STATES
