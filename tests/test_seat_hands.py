"""The order a hand is held in (:func:`arena.web.table_hands.held_order`), one order for
the felt and the seat's panel: Shengji by suit with the trumps together at the end in
trump order (SJ-3, SJ-4, SJ-5), Guandan by GD-5 value with the wild cards the last of
the level cards (GD-6), sanfu by SF-7 value; and the seat's events carrying it."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena import games
from arena.cards import SMALL_JOKER, card_names, parse_cards
from arena.games.base import NUM_SEATS, State
from arena.games.guandan.combos import card_value as guandan_value
from arena.games.sanfu.combos import card_value as sanfu_value
from arena.games.shengji import ShengjiState
from arena.games.shengji.order import TRUMP
from arena.web.seats import held_event
from arena.web.table_hands import SUIT_PLACES, held_cards, held_order, suit_place

SHENGJI = [
    ("shengji-1", {}),
    ("shengji-2", {}),
    ("shengji-2", {"constant_twos": True}),
    ("shengji-3", {}),
    ("shengji-4", {}),
    ("shengji-1", {"two_colour": True}),
]


def played_to(variant: str, options: dict[str, Any], seed: int, phase: str) -> State:
    """A deal of ``variant`` played by random legal choices until ``phase`` (or its end)."""
    game = games.make(variant, **options)
    state = game.new_deal(game.first_setup(), seed=seed)
    choose = random.Random(seed)
    while not state.is_terminal():
        observation = state.observe(state.to_act)
        if observation.phase == phase:
            break
        state.apply(choose.choice(list(observation.legal_actions)))
    return state


def held(state: State, seat: int) -> list[int]:
    return list(parse_cards(" ".join(held_cards(state, card_names(state.hand(seat))))))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(SHENGJI), st.integers(0, 10_000), st.sampled_from(["bury", "play"]))
def test_shengji_holds_suits_then_the_trumps_in_trump_order(
    variant: tuple[str, dict[str, Any]], seed: int, phase: str
) -> None:
    """SJ-3/SJ-4/SJ-5: plain suits ♠ ♥ ♣ ♦ each rising in its own order, then every
    trump together, rising in trump order: the level cards then the jokers last."""
    state = played_to(*variant, seed, phase)
    assert isinstance(state, ShengjiState) and state.order is not None
    order = state.order
    for seat in range(NUM_SEATS):
        cards = held(state, seat)
        assert sorted(cards) == sorted(state.hand(seat))
        suits = [order.suits[card] for card in cards]
        trumps = [card for card in cards if order.is_trump(card)]
        assert cards[len(cards) - len(trumps) :] == trumps  # the trumps together, last
        plain = [s for s in suits if s != TRUMP]
        places = (0, 1) if order.two_colour else SUIT_PLACES
        assert [places[s] for s in plain] == sorted(places[s] for s in plain)
        for a, b in pairwise(cards):
            if order.suits[a] == order.suits[b]:
                assert order.orders[a] <= order.orders[b]
        jokers = [card for card in trumps if card >= SMALL_JOKER]
        assert trumps[len(trumps) - len(jokers) :] == jokers  # the jokers end the hand


def test_shengji_while_dealing_keeps_the_level_cards_and_jokers_at_the_end() -> None:
    """SJ-3/SJ-5: before any trump suit is fixed, the cards trump whatever is declared
    (the level rank's and the jokers) already wait at the end, the jokers last."""
    game = games.make("shengji-2")
    state = game.new_deal(game.first_setup(), seed=11)
    while state.observe(state.to_act).phase == "declare" and len(state.hand(0)) < 20:
        state.apply(state.observe(state.to_act).legal_actions[-1])
    assert isinstance(state, ShengjiState) and state.order is None
    cards = held(state, 0)
    level = state.level
    tail = [c for c in cards if c >= SMALL_JOKER or c >> 2 == level]
    assert tail and cards[len(cards) - len(tail) :] == tail
    jokers = [c for c in tail if c >= SMALL_JOKER]
    assert tail[len(tail) - len(jokers) :] == jokers
    rest = cards[: len(cards) - len(tail)]
    assert [suit_place(c) for c in rest] == sorted(suit_place(c) for c in rest)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_guandan_rises_by_value_the_wild_cards_last_of_the_level_cards(seed: int) -> None:
    """GD-5: by value, the level cards above the aces and below the jokers; GD-6: the
    heart level cards (wild) after the other level cards."""
    game = games.make("guandan")
    state = game.new_deal(game.first_setup(), seed=seed)
    level = state.level  # type: ignore[attr-defined]
    for seat in range(NUM_SEATS):
        cards = held(state, seat)
        values = [guandan_value(card, level) for card in cards]
        assert values == sorted(values)
        levels = [c for c in cards if c < SMALL_JOKER and c >> 2 == level]
        wild = [c for c in levels if c & 3 == 1]
        assert levels[len(levels) - len(wild) :] == wild


def test_guandan_a_hand_reads_as_players_hold_it() -> None:
    """A level-2 hand: ranks rising, the 2s after the ace, ♥2 (wild) the last of them."""
    game = games.make("guandan")
    state = game.new_deal(game.first_setup(), seed=1)
    key = held_order(state)
    cards = parse_cards("2h BJ 3d As 2s 3s SJ 2c")
    assert card_names(sorted(cards, key=key)) == ["3s", "3d", "As", "2s", "2c", "2h", "SJ", "BJ"]


def test_sanfu_holds_the_twos_above_the_aces() -> None:
    """SF-7: by value, 2 above A, the jokers last; the suit (♠ ♥ ♣ ♦) breaks ties."""
    game = games.make("sanfu")
    state = game.new_deal(game.first_setup(), seed=3)
    for seat in range(NUM_SEATS):
        values = [sanfu_value(card) for card in held(state, seat)]
        assert values == sorted(values)
    key = held_order(state)
    assert card_names(sorted(parse_cards("2d Ac 3d 3s 2s BJ"), key=key)) == [
        "3s",
        "3d",
        "Ac",
        "2s",
        "2d",
        "BJ",
    ]


def test_the_seats_hand_and_decision_come_in_the_felts_order() -> None:
    """The seat's ``hand`` and ``decision`` events hold the cards as the felt does, the
    Shengji groups beside them (a new group at each suit and at the trumps); other
    events and the time between deals are left alone."""
    state = played_to("shengji-2", {}, 5, "play")
    assert isinstance(state, ShengjiState) and state.order is not None
    cards = card_names(state.hand(1))
    shuffled = random.Random(1).sample(cards, len(cards))
    name, data = held_event(("hand", {"seat": 1, "hand": shuffled}), state)
    assert name == "hand" and data["hand"] == held_cards(state, cards)
    assert data["hand"] == card_names(sorted(state.hand(1), key=held_order(state)))
    order = state.order
    assert data["groups"] == [
        order.suits[c] if order.suits[c] == TRUMP else SUIT_PLACES[order.suits[c]]
        for c in parse_cards(" ".join(data["hand"]))
    ]
    _, decision = held_event(("decision", {"hand": shuffled, "legal": ["pass"]}), state)
    assert decision["hand"] == data["hand"] and decision["legal"] == ["pass"]
    assert held_event(("over", {"hand": shuffled}), state) == ("over", {"hand": shuffled})
    assert held_event(("hand", {"hand": shuffled}), None) == ("hand", {"hand": shuffled})
    guandan = games.make("guandan")
    deal = guandan.new_deal(guandan.first_setup(), seed=2)
    assert held_event(("hand", {"hand": card_names(deal.hand(0))}), deal)[1]["groups"] == []


def test_the_dealer_alone_is_told_the_kitty_they_took_up() -> None:
    """SJ-13: the dealer's own events name the kitty's cards once they hold them; no
    other seat's, and none while the cards are dealt."""
    dealing = games.make("shengji-2")
    state = dealing.new_deal(dealing.first_setup(), seed=5)
    assert held_event(("hand", {"seat": 0, "hand": []}), state)[1]["kitty"] == []
    state = played_to("shengji-2", {}, 5, "bury")
    assert isinstance(state, ShengjiState)
    dealer = state.dealer
    hand = card_names(state.hand(dealer))
    _, data = held_event(("decision", {"seat": dealer, "hand": hand}), state)
    assert Counter(data["kitty"]) == Counter(card_names(state.kitty)) and len(data["kitty"]) == 8
    assert not Counter(data["kitty"]) - Counter(data["hand"])
    other = (dealer + 1) % NUM_SEATS
    _, theirs = held_event(("hand", {"seat": other, "hand": card_names(state.hand(other))}), state)
    assert theirs["kitty"] == []
