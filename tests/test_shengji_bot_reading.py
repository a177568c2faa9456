"""The throw reading the people's table and the Shengji heuristic share
(arena/games/shengji/reading.py): the cards a seat cannot place, and whether a throw of
its units is safe or which unit it would be forced to (SJ-17)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import NUM_KINDS, deck, parse_cards
from arena.games import make
from arena.games.base import Event
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.reading import cards_out, read_throw
from arena.games.shengji.shapes import decompose
from arena.games.shengji.trick import check_throw
from bots.shengji.memory import new_memory

PLAYING_TEN = TrumpOrder(level=8, trump=0)
"""Playing 10, spades trump: the rule's examples are in hearts, a plain suit."""


def out_without(*cards: str) -> list[int]:
    """Two decks' cards still out, less ``cards`` (a seat's hand and the cards played)."""
    return cards_out(2, parse_cards(" ".join(cards)), ())


def test_a_throw_of_top_units_is_safe_sj_17() -> None:
    """`A A K` holding both As: nobody can beat a unit. `A Q Q` is safe only once a K is
    placed: with both Ks still out, one player could hold the pair KK."""
    units = decompose(parse_cards("Ah Ah Kh"), PLAYING_TEN)
    assert read_throw(units, out_without("Ah Ah Kh"), PLAYING_TEN) is None
    units = decompose(parse_cards("Ah Qh Qh"), PLAYING_TEN)
    forced = read_throw(units, out_without("Ah Qh Qh"), PLAYING_TEN)
    assert forced is not None and forced.cards == parse_cards("Qh Qh")
    assert read_throw(units, out_without("Ah Qh Qh Kh"), PLAYING_TEN) is None


def test_the_forced_unit_is_the_rules_sj_17() -> None:
    """`9 88 44`: with a J the only card out it forces the 9; with only a pair of 5s out,
    the 44 (the rule's own examples); with both out, the beatable unit lowest in order."""
    units = decompose(parse_cards("9h 8h 8h 4h 4h"), PLAYING_TEN)
    for still_out, instead in (("Jh", "9h"), ("5h 5h", "4h 4h"), ("Jh 5h 5h", "4h 4h")):
        out = [0] * NUM_KINDS
        for card in parse_cards(still_out):
            out[card] += 1
        forced = read_throw(units, out, PLAYING_TEN)
        assert forced is not None and forced.cards == parse_cards(instead)


def test_cards_out_are_the_decks_less_hand_plays_and_kitty() -> None:
    hand, buried = parse_cards("Ah Ah 3c"), parse_cards("3c 5d")
    events = [Event("play", 1, parse_cards("Kh Qh")), Event("lead", 2), Event("declare", 3)]
    out = cards_out(2, hand, events, buried)
    expected = Counter(deck(2)) - Counter(hand) - Counter(parse_cards("Kh Qh")) - Counter(buried)
    assert out == [expected[card] for card in range(NUM_KINDS)]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), moves=st.integers(0, 60))
def test_the_bots_cards_out_are_the_shared_readings(seed: int, moves: int) -> None:
    """The bot's memory of the cards it cannot place is the shared :func:`cards_out` of
    the same observation, at any moment of a deal (so both read throws alike)."""
    state = make("shengji-2").new_deal(seed=seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply(state.legal_actions()[0])
    seat = state.to_act if not state.is_terminal() else 0
    observation = state.observe(seat)
    memory = new_memory(2, seat, observation.events)
    memory.update(observation)
    buried = parse_cards(str(observation.private.get("buried") or ""))
    assert memory.unknown(observation.hand, buried) == cards_out(
        2, observation.hand, observation.events, buried
    )


def test_read_throw_is_check_throw_against_one_holding_of_all_cards_out() -> None:
    units = decompose(parse_cards("Ah Qh Qh"), PLAYING_TEN)
    out = out_without("Ah Qh Qh")
    hearts = [c for c in range(NUM_KINDS) for _ in range(out[c]) if PLAYING_TEN.suits[c] == 1]
    assert read_throw(units, out, PLAYING_TEN) == check_throw(units, [hearts], PLAYING_TEN)
