"""The Shengji heuristic's shared tables and caches answer as the plain computations
they replace: splits of cards (per cards *and* order), card costs (with the endgame
reserve and broken sets), unseen cards of a suit and the hand check of a lead, at
every play decision of random deals of every variant."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import NUM_KINDS, RANK_ACE, SMALL_JOKER, Card
from arena.games import make
from arena.games.shengji.order import TRUMP, TrumpOrder
from arena.games.shengji.shapes import Unit, decompose
from bots.shengji import memory as memory_module
from bots.shengji.memory import Memory, make_order, new_memory, suits_of, units_of
from bots.shengji.view import ACE_BONUS, PAIR_BREAK, RESERVE, TRUMP_BASE, View
from bots.shengji_bot import _buried, _holds


def _plain_cost(view: View, cards: tuple[Card, ...]) -> float:
    """A play's cost worked out card by card, as the rules of :class:`View` state it."""
    order, held = view.order, Counter(view.hand)
    total = 0.0
    for card in cards:
        value = float(order.orders[card])
        if order.suits[card] == TRUMP:
            value += TRUMP_BASE
        elif card < SMALL_JOKER and card >> 2 == RANK_ACE:
            value += ACE_BONUS
        if card in view.reserved:
            value += RESERVE
        total += value
    for card, n in Counter(cards).items():
        if n < held[card] and held[card] >= 2:
            total += PAIR_BREAK
    return total


def _plain_unknown_of(view: View, suit: int) -> list[Card]:
    suits, unknown = view.order.suits, view.unknown
    return [c for c in range(NUM_KINDS) if suits[c] == suit for _ in range(unknown[c])]


def _play_views(variant: str, seed: int) -> list[tuple[View, list[tuple[Card, ...]]]]:
    """Every play decision of one random deal, as the seat to act sees it, with its plays."""
    rng = random.Random(seed)
    state = make(variant).new_deal(seed=seed)
    decks = int(variant.rsplit("-", 1)[1])
    memories: dict[int, Memory] = {}
    views = []
    while not state.is_terminal():
        observation = state.observe(state.to_act)
        legal = observation.legal_actions
        if observation.phase == "play":
            memory = memories.setdefault(observation.seat, Memory(decks, observation.seat))
            memory.update(observation)
            views.append(
                (View.of(observation, memory, _buried(observation)), [a.cards for a in legal])
            )
        state.apply(legal[rng.randrange(len(legal))])
    return views


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["shengji-1", "shengji-2", "shengji-3", "shengji-4"]), st.integers(0, 999))
def test_costs_unseen_cards_and_splits_match_the_plain_computations(
    variant: str, seed: int
) -> None:
    for view, plays in _play_views(variant, seed):
        for cards in plays:
            assert view.cost(cards) == _plain_cost(view, cards)
            assert _holds(view.held, cards)
        for card in set(view.hand):
            assert view.cost((card,)) == _plain_cost(view, (card,))
        for suit, suited in suits_of(view.hand, view.order).items():
            assert view.unknown_of(suit) == _plain_unknown_of(view, suit)
            assert view.units(suit) == decompose(suited, view.order)
        if view.memory.trick.plays:
            assert view.lead == decompose(view.memory.trick.plays[0][1], view.order)


def test_a_lead_is_held_only_with_every_copy_of_its_cards() -> None:
    held = [0] * NUM_KINDS
    held[5] = 2
    held[9] = 1
    assert _holds(held, (5, 5, 9))
    assert not _holds(held, (5, 5, 5))
    assert not _holds(held, (9, 9))
    assert not _holds(held, (10,))


def test_splits_are_kept_per_order_and_start_afresh_when_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same cards split differently under another order (a pair of 4s and a pair
    of 6s make a tractor only when 5s are the level), and a full cache still answers."""
    cards = (8, 8, 16, 16)  # 4♠ 4♠ 6♠ 6♠
    plain = TrumpOrder(level=0, trump=1)
    joined = TrumpOrder(level=3, trump=1)  # 5s are trumps: 4♠ and 6♠ become adjacent
    assert len(units_of(cards, plain)) == 2
    assert len(units_of(cards, joined)) == 1
    assert units_of(cards, plain) == decompose(cards, plain)
    assert units_of(cards, joined) == decompose(cards, joined)
    full: dict[tuple[tuple[Card, ...], int], tuple[TrumpOrder, list[Unit]]] = {
        ((-1 - k,), id(plain)): (plain, []) for k in range(memory_module.UNITS_KEPT)
    }
    monkeypatch.setattr(memory_module, "_units_known", full)
    assert units_of(cards, joined) == decompose(cards, joined)
    assert len(full) == 1


def test_a_split_kept_for_another_order_of_the_same_identity_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Splits are kept by the order's identity: an entry left by an order whose identity
    a new order reuses is recognised as another order's."""
    cards = (8, 8, 16, 16)
    plain = TrumpOrder(level=0, trump=1)
    joined = TrumpOrder(level=3, trump=1)
    stale = {(cards, id(joined)): (plain, decompose(cards, plain))}
    monkeypatch.setattr(memory_module, "_units_known", stale)
    assert units_of(cards, joined) == decompose(cards, joined)


def test_memories_of_a_deal_share_one_order() -> None:
    assert make_order(5, "h", 2, False) is make_order(5, "h", 2, False)
    assert make_order(5, "h", 2, False) != make_order(5, "h", 2, True)
    assert make_order(5, "h", 4, False).constant_twos


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(["shengji-1", "shengji-2", "shengji-3", "shengji-4"]), st.integers(0, 999))
def test_a_memory_started_from_a_kept_one_knows_what_a_fresh_one_knows(
    variant: str, seed: int
) -> None:
    """Memories started by :func:`new_memory` (copies of a kept memory when the events
    continue it: rollouts from clones of one state) equal memories that read every event."""
    rng = random.Random(seed)
    state = make(variant).new_deal(seed=seed)
    decks = int(variant.rsplit("-", 1)[1])
    while not state.is_terminal():
        for _ in range(2):  # two rollouts from the same state: the second may copy
            rollout = state.clone()
            for _ in range(rng.randrange(6)):
                if rollout.is_terminal():
                    break
                legal = rollout.observe(rollout.to_act).legal_actions
                rollout.apply(legal[rng.randrange(len(legal))])
            seat = rng.randrange(4)
            observation = rollout.observe(seat)
            started = new_memory(decks, seat, observation.events)
            started.update(observation)
            fresh = Memory(decks, seat)
            fresh.update(observation)
            assert started == fresh
        legal = state.observe(state.to_act).legal_actions
        state.apply(legal[rng.randrange(len(legal))])
