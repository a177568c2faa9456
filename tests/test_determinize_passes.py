"""Guandan draws that read the opponents' urgent passes as the heuristic bot's."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_determinize import all_cards

from arena import games
from arena.cards import BIG_JOKER, SMALL_JOKER, Card, make_card
from arena.chance import derive_seed
from arena.games.base import NUM_SEATS, Event, Observation, State, team_of
from arena.games.guandan.combos import card_value, play_readings, wild_card
from bots.determinize import determinizer
from bots.determinize.guandan_passes import (
    PassFact,
    breaks,
    has_bomb,
    pass_facts,
    refused_singles,
)
from bots.heuristic import HeuristicBot

LEVEL = 0  # the 2s are the level: the wild card is the two of hearts
HEARTS, SPADES = 1, 0


def card(rank: int, suit: int = SPADES) -> Card:
    return make_card(rank, suit)


def heuristic_positions(seeds: range, most: int = 14) -> Iterator[tuple[State, Observation]]:
    """Heuristic self-play deals at the decisions of a seat holding ``most`` cards or fewer."""
    game = games.make("guandan")
    for seed in seeds:
        state = game.new_deal(seed=derive_seed(seed, "passes"))
        players = [HeuristicBot(seed * NUM_SEATS + s) for s in range(NUM_SEATS)]
        while not state.is_terminal():
            seat = state.to_act
            observation = state.observe(seat)
            if state.phase == "play" and len(observation.hand) <= most:
                yield state.clone(), observation
            state.apply(players[seat].act(observation))


def rivals(seat: int) -> list[int]:
    return [s for s in range(NUM_SEATS) if team_of(s) != team_of(seat)]


def test_the_true_hands_never_break_the_facts_of_heuristic_players() -> None:
    found = 0
    for state, observation in heuristic_positions(range(6)):
        level = observation.events[0].value
        for fact in pass_facts(observation, rivals(observation.seat)):
            found += 1
            assert not breaks(fact, state.hand(fact.seat), level), fact
    assert found > 20  # the facts are common at the end of a deal


def test_inferred_draws_keep_the_facts_the_observation_and_every_card() -> None:
    game = games.make("guandan")
    checked = 0
    for state, observation in heuristic_positions(range(3)):
        facts = pass_facts(observation, rivals(observation.seat))
        if not facts:
            continue
        level = observation.events[0].value
        drawer = determinizer(observation, game, infer=True)
        rng = random.Random(checked)
        for _ in range(3):
            drawn = drawer.sample(rng, 60)
            assert drawn.observe(observation.seat) == observation
            assert drawn.hand(observation.seat) == state.hand(observation.seat)
            assert all_cards(drawn) == all_cards(state)  # conserved: two full decks
            for fact in facts:
                assert not breaks(fact, drawn.hand(fact.seat), level)
                if fact.size == 1:
                    assert all(card_value(c, level) <= fact.value for c in drawn.hand(fact.seat))
        checked += 1
    assert checked >= 5


def test_inferred_draws_are_deterministic_given_the_rng() -> None:
    game = games.make("guandan")
    position = next(
        (s, o) for s, o in heuristic_positions(range(4)) if pass_facts(o, rivals(o.seat))
    )
    observation = position[1]
    first, second = (
        [
            determinizer(observation, game, infer=True).sample(random.Random(7), 60).seat_cards()
            for _ in range(4)
        ]
        for _ in range(2)
    )
    assert first == second


def test_without_inference_the_draws_ignore_the_passes() -> None:
    game = games.make("guandan")
    for _, observation in heuristic_positions(range(4)):
        facts = [f for f in pass_facts(observation, rivals(observation.seat)) if f.size == 1]
        if not facts:
            continue
        level = observation.events[0].value
        fact = facts[0]
        drawer = determinizer(observation, game, infer=False)
        rng = random.Random(3)
        hands = [drawer.sample(rng, 60).hand(fact.seat) for _ in range(40)]
        if any(card_value(c, level) > fact.value for hand in hands for c in hand):
            return  # a uniform draw put a card above the single in the passer's hand
    pytest.fail("no uniform draw ever contradicted a pass on a single")


def test_a_pass_on_a_partners_play_or_a_calm_trick_tells_nothing() -> None:
    def observation(events: list[Event]) -> Observation:
        return Observation("guandan", 0, "play", 0, (), (), tuple(events))

    deal = Event("deal")
    single = Event("play", 1, (card(9),), value=11, tag="single")
    on_partner = [deal, Event("lead", 1), single, Event("pass", 2), Event("pass", 3)]
    assert pass_facts(observation(on_partner), [1, 3]) == []  # seat 3 passes on seat 1
    calm = [deal, Event("lead", 0), Event("play", 0, (card(9),), value=11, tag="single")]
    calm.append(Event("pass", 1))
    assert pass_facts(observation(calm), [1, 3]) == []  # everybody holds 27 cards


def test_an_urgent_pass_on_a_single_refuses_the_cards_above_it() -> None:
    level = 5
    fact = PassFact(seat=1, size=1, value=11, no_bomb=False, later=())  # on a J
    refused = refused_singles([fact], level)[1]
    assert BIG_JOKER in refused and SMALL_JOKER in refused
    assert wild_card(level) in refused  # the wild card plays as a level card, above an A
    assert card(10) in refused and card(9) not in refused  # a Q is above the J, a J not
    assert all(card_value(c, level) > 11 for c in refused)
    assert breaks(fact, (card(10),), level)
    assert not breaks(fact, (card(9), card(2), card(2, HEARTS)), level)


def test_same_rank_facts_count_the_wild_card() -> None:
    fact = PassFact(seat=3, size=2, value=10, no_bomb=False, later=())
    assert breaks(fact, (card(12), card(12, HEARTS)), LEVEL)  # a pair of aces
    assert breaks(fact, (card(11), wild_card(LEVEL)), LEVEL)  # a K and the wild card
    assert not breaks(fact, (card(7), card(7, HEARTS), card(11)), LEVEL)  # 9s are low
    assert not breaks(fact, (SMALL_JOKER, BIG_JOKER), LEVEL)  # two jokers of two kinds


def test_has_bomb_reads_every_kind_of_bomb() -> None:
    four = tuple(make_card(6, suit) for suit in range(4))
    assert has_bomb(four, LEVEL)
    assert not has_bomb(four[:3], LEVEL)
    assert has_bomb((*four[:3], wild_card(LEVEL)), LEVEL)
    assert has_bomb((SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER), LEVEL)
    assert not has_bomb((SMALL_JOKER, SMALL_JOKER, BIG_JOKER), LEVEL)
    low_ace = (card(12), card(0), card(1), card(2), card(3))  # A 2 3 4 5 of spades
    assert has_bomb(low_ace, 5)
    assert has_bomb((card(12), card(0), card(2), card(3), wild_card(5)), 5)
    assert not has_bomb((card(12), card(0), card(1), card(2), card(3, HEARTS)), 5)


@settings(max_examples=200, deadline=None)
@given(
    # a hand of the two decks: no card more than twice
    st.lists(st.integers(0, 53), min_size=0, max_size=10).filter(
        lambda cards: all(cards.count(c) <= 2 for c in cards)
    ),
    st.integers(0, 12),
)
def test_has_bomb_agrees_with_the_rules_on_small_hands(cards: list[int], level: int) -> None:
    """A hand holds a bomb exactly when some 4 to 10 of its cards read as one (GD-9)."""
    from itertools import combinations

    hand = sorted(cards)
    expected = False
    for size in (4, 5):  # every bomb holds a bomb of 4 or 5 cards: a straight flush is 5
        for chosen in combinations(hand, size):
            readings = play_readings(chosen, level)
            if readings and readings[0].power:
                expected = True
                break
        if expected:
            break
    assert has_bomb(hand, level) == expected
