"""The play generator against a brute-force oracle (GD-6 … GD-10).

The oracle enumerates every sub-multiset of a hand, reads it with
``play_readings`` and keeps what may lead or beat the table; the generator must
produce exactly that set, each play once.
"""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import deck, parse_cards, to_counts
from arena.games.guandan.combos import Kind, beats, play_readings, wild_card
from arena.games.guandan.moves import legal_plays

TWO_DECKS = deck(2)


def sub_multisets(cards: list[int]):
    counts = Counter(cards)
    keys = sorted(counts)
    for picks in itertools.product(*(range(counts[k] + 1) for k in keys)):
        chosen = tuple(k for k, n in zip(keys, picks, strict=True) for _ in range(n))
        if chosen:
            yield chosen


def oracle(hand: list[int], level: int, table=None) -> set:
    found = set()
    for cards in sub_multisets(hand):
        kept = play_readings(cards, level)
        for r in kept:
            if table is None or beats(r, table):
                found.add((cards, r.kind.label if len(kept) > 1 else "", r))
    return found


def generated(hand: list[int], level: int, table=None) -> list:
    return [(a.cards, a.tag, r) for a, r in legal_plays(to_counts(hand), level, table)]


@st.composite
def small_hand(draw, level: int):
    """A small hand from a few neighbouring ranks (so that combinations are frequent)."""
    low = draw(st.integers(0, 9))
    pool = [c for c in TWO_DECKS if c >= 52 or low <= c // 4 < low + 4 or c // 4 == 12]
    hand = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=11))
    hand += [wild_card(level)] * draw(st.integers(0, 2))
    counts = Counter(hand)
    return sorted(c for c in counts for _ in range(min(counts[c], 2)))  # two decks at most


@st.composite
def hands(draw, count: int = 1):
    """A level and ``count`` small hands at that level."""
    level = draw(st.integers(0, 12))
    return level, [draw(small_hand(level)) for _ in range(count)]


@settings(max_examples=150, deadline=None)
@given(hands())
def test_gd06_gd08_leads_are_exactly_the_distinct_combinations(case):
    """Every sub-multiset that reads as a combination is a lead, once, at its strongest reading."""
    level, (hand,) = case
    plays = generated(hand, level)
    assert len(plays) == len(set(plays)), "a play is listed twice"
    assert set(plays) == oracle(hand, level)


@settings(max_examples=100, deadline=None)
@given(hands(count=2))
def test_gd09_follows_are_exactly_the_plays_that_beat_the_table(case):
    """Following: exactly the plays that beat the table's reading (GD-9), each once."""
    level, (lead_hand, follow_hand) = case
    for _action_cards, _tag, table in generated(lead_hand, level)[:12]:
        plays = generated(follow_hand, level, table)
        assert len(plays) == len(set(plays))
        assert set(plays) == oracle(follow_hand, level, table)


def test_gd06_wild_card_plays_that_leave_different_cards_are_different_plays():
    """``5s + wild`` and ``5s 5d`` are both pairs of 5 but leave different hands."""
    hand = list(parse_cards("5s 5d 2h"))  # level 2: 2h is the wild card
    pairs = [cards for cards, _, r in generated(hand, 0) if r.kind == Kind.PAIR]
    assert sorted(pairs) == sorted(
        [parse_cards("5s 5d"), parse_cards("2h 5s"), parse_cards("2h 5d")]
    )


def test_gd08_identical_cards_make_one_play():
    """Two decks: ``5s 5s 5d`` has two distinct pairs (5s 5s, 5s 5d), not three."""
    pairs = [
        cards for cards, _, r in generated(list(parse_cards("5s 5s 5d")), 0) if r.kind == Kind.PAIR
    ]
    assert sorted(pairs) == sorted([parse_cards("5s 5s"), parse_cards("5s 5d")])


def test_gd07_two_kind_play_is_listed_once_per_kind_with_its_tag():
    """``3 3 4 4`` and both wild cards: three consecutive pairs or two consecutive triples."""
    hand = list(parse_cards("3s 3d 4s 4d 2h 2h"))
    six = [(tag, r.kind) for cards, tag, r in generated(hand, 0) if len(cards) == 6]
    assert ("pair_run", Kind.PAIR_RUN) in six
    assert ("triple_run", Kind.TRIPLE_RUN) in six
    assert all(tag for tag, _ in six)


def test_legal_plays_are_sorted_by_reading():
    hand = list(parse_cards("3s 3d 4s 4d 5c 5h 6s 7s 8d 2h SJ SJ BJ"))
    readings = [r for _, _, r in generated(hand, 0)]
    assert readings == sorted(readings)
