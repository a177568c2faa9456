"""The sanfu play generator against a brute-force oracle (SF-8, SF-9, SF-10).

The oracle enumerates every sub-multiset of a hand, reads it with ``reading``
and keeps what may lead or beat the table. A complete list must be exactly that
set, each play once; an incomplete list must hold exactly one legal play per
rank pattern (the ranks a play takes and its reading).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import deck, parse_cards, to_counts
from arena.games.sanfu.combos import Kind, Reading, beats, card_value, reading, value_cards
from arena.games.sanfu.moves import HandPlays, legal_plays

Play = tuple[tuple[int, ...], Reading]
BIG = 10**9


def sub_multisets(cards: list[int]) -> Iterator[tuple[int, ...]]:
    counts = Counter(cards)
    keys = sorted(counts)
    for picks in itertools.product(*(range(counts[k] + 1) for k in keys)):
        chosen = tuple(k for k, n in zip(keys, picks, strict=True) for _ in range(n))
        if chosen:
            yield chosen


def all_readings(hand: list[int]) -> dict[tuple[int, ...], Reading]:
    found = {}
    for cards in sub_multisets(hand):
        combo = reading(cards)
        if combo is not None:
            found[cards] = combo
    return found


def oracle(readings: dict[tuple[int, ...], Reading], table: Reading | None = None) -> set[Play]:
    return {(c, r) for c, r in readings.items() if table is None or beats(r, table)}


def rank_pattern(play: Play) -> tuple[tuple[tuple[int, int], ...], Reading]:
    cards, combo = play
    return tuple(sorted(Counter(card_value(c) for c in cards).items())), combo


def held(hand: list[int], cards: tuple[int, ...]) -> bool:
    have = Counter(hand)
    return all(have[c] >= n for c, n in Counter(cards).items())


@st.composite
def small_hand(draw: st.DrawFn) -> list[int]:
    """A hand of four neighbouring ranks and some 2s or jokers, from three decks.

    Counts per rank lean to 2 and 3 so that runs and plates are frequent; two
    suits only, so that identical cards (same-suit triples) are frequent too.
    """
    low = draw(st.integers(3, 11))
    cards: list[int] = []
    for value in range(low, low + 4):
        n = draw(st.sampled_from([0, 1, 2, 2, 3, 3, 4]))
        first = value_cards(value).start
        cards += [first + s for s in draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))]
    extra = draw(st.sampled_from([0, 15, 16, 17]))
    if extra:
        n = draw(st.integers(1, 3))
        first = value_cards(extra).start
        cards += [first + (draw(st.integers(0, 1)) if extra == 15 else 0) for _ in range(n)]
    counts = Counter(cards)
    hand = sorted(c for c in counts for _ in range(min(counts[c], 3)))
    return hand or [value_cards(low).start]


def check_complete(hand: list[int], table: Reading | None, expected: set[Play]) -> None:
    plays, complete = HandPlays(to_counts(hand)).legal(table, BIG)
    assert complete
    assert len(plays) == len(set(plays)), "a play is listed twice"
    assert set(plays) == expected
    assert [r for _, r in plays] == sorted(r for _, r in plays)
    assert HandPlays(to_counts(hand)).count(table) == len(expected)


def check_incomplete(hand: list[int], table: Reading | None, expected: set[Play]) -> None:
    """One play per rank pattern, each legal, whenever the plays outnumber the limit."""
    if not expected:
        assert HandPlays(to_counts(hand)).legal(table, 0) == ([], True)
        return
    plays, complete = HandPlays(to_counts(hand)).legal(table, len(expected) - 1)
    assert not complete
    patterns = [rank_pattern(p) for p in plays]
    assert len(patterns) == len(set(patterns)), "a rank pattern is listed twice"
    assert set(patterns) == {rank_pattern(p) for p in expected}
    for cards, combo in plays:
        assert held(hand, cards)
        assert list(cards) == sorted(cards)
        assert reading(cards) == combo
        assert table is None or beats(combo, table)
    assert [r for _, r in plays] == sorted(r for _, r in plays)
    # at the exact count the list is complete again
    assert HandPlays(to_counts(hand)).legal(table, len(expected)) == (
        HandPlays(to_counts(hand)).legal(table, BIG)
    )


@settings(max_examples=200, deadline=None)
@given(small_hand())
def test_sf08_leads_are_exactly_the_distinct_combinations(hand: list[int]) -> None:
    """Every sub-multiset that reads as a combination is a lead, once (SF-8, SF-10)."""
    check_complete(hand, None, oracle(all_readings(hand)))


@settings(max_examples=100, deadline=None)
@given(small_hand(), small_hand(), st.randoms(use_true_random=False))
def test_sf09_follows_are_exactly_the_plays_that_beat_the_table(
    lead_hand: list[int], hand: list[int], rng: random.Random
) -> None:
    """Following: exactly the plays that beat the table's reading (SF-9), each once."""
    tables = sorted(set(all_readings(lead_hand).values()))
    readings = all_readings(hand)
    for table in rng.sample(tables, min(8, len(tables))):
        check_complete(hand, table, oracle(readings, table))


@settings(max_examples=100, deadline=None)
@given(small_hand(), small_hand(), st.randoms(use_true_random=False))
def test_sf10_incomplete_lists_hold_one_legal_play_per_rank_pattern(
    lead_hand: list[int], hand: list[int], rng: random.Random
) -> None:
    readings = all_readings(hand)
    check_incomplete(hand, None, oracle(readings))
    tables = sorted(set(all_readings(lead_hand).values()))
    for table in rng.sample(tables, min(4, len(tables))):
        check_incomplete(hand, table, oracle(readings, table))


def plays_of(text: str, table: Reading | None = None, limit: int = BIG) -> list[Play]:
    plays, _ = legal_plays(to_counts(parse_cards(text)), table, limit)
    return plays


def test_sf08_identical_cards_make_one_play() -> None:
    """Three decks: ``5s 5s 5s 5d`` has two distinct pairs (5s 5s, 5s 5d)."""
    pairs = [cards for cards, r in plays_of("5s 5s 5s 5d") if r.kind == Kind.PAIR]
    assert pairs == [parse_cards("5s 5s"), parse_cards("5s 5d")]


def test_sf08_same_suit_and_plain_triples_of_one_rank_are_both_listed() -> None:
    triples = {cards: r.kind for cards, r in plays_of("5s 5s 5s 5d") if r.kind != Kind.FULL_HOUSE}
    assert triples[parse_cards("5s 5s 5s")] == Kind.SUITED_TRIPLE
    assert triples[parse_cards("5s 5s 5d")] == Kind.TRIPLE


def test_sf08_generator_lists_plates_with_pairs() -> None:
    hand = "3s 3h 3d 4s 4h 4d 5s 5h 5d 7s 7h 8s 8h 9s 9h"
    found = {r for _, r in plays_of(hand) if r.kind == Kind.PLATE_WITH_PAIRS}
    assert found == {
        Reading(Kind.PLATE_WITH_PAIRS, 10, 4, 8),
        Reading(Kind.PLATE_WITH_PAIRS, 10, 4, 9),
        Reading(Kind.PLATE_WITH_PAIRS, 10, 5, 8),
        Reading(Kind.PLATE_WITH_PAIRS, 10, 5, 9),
        Reading(Kind.PLATE_WITH_PAIRS, 15, 5, 9),
    }


def test_sf09_nothing_beats_three_big_jokers() -> None:
    table = reading(parse_cards("BJ BJ BJ"))
    assert plays_of("SJ SJ SJ 2s 2s 2s " + " ".join(["Ks"] * 3 + ["Kh"] * 3), table) == []


def test_sf09_follow_lists_only_higher_bombs_over_a_bomb() -> None:
    table = reading(parse_cards("9s 9h 9d 9c 9s"))
    plays = plays_of("3s 3h 3d 3c 3s 3h Ts Th Td Tc Ts As Ah Ad Ac As", table)
    assert {r for _, r in plays} == {
        Reading(Kind.BOMB, 5, 10, 0, 5),
        Reading(Kind.BOMB, 5, 14, 0, 5),
        Reading(Kind.BOMB, 6, 3, 0, 6),
    }


def test_sf10_canonical_suits_keep_same_suit_triples_intact() -> None:
    """Incomplete lists take cards from the least held suits first."""
    hand = "4s 4s 4s 4h 4d 7c 7c 7c 7h 7d 9s 9h 9d"
    plays, complete = legal_plays(to_counts(parse_cards(hand)), None, 0)
    assert not complete
    chosen = {(r.kind, r.value, r.second): cards for cards, r in plays}
    assert chosen[(Kind.SINGLE, 4, 0)] == parse_cards("4h")
    assert chosen[(Kind.PAIR, 4, 0)] == parse_cards("4h 4d")
    assert chosen[(Kind.TRIPLE, 4, 0)] == parse_cards("4s 4h 4d")
    assert chosen[(Kind.FULL_HOUSE, 9, 7)] == parse_cards("7h 7d 9s 9h 9d")
    # every triple of 7 breaks 7c 7c 7c: keep the larger stack (7c 7c)
    assert chosen[(Kind.FULL_HOUSE, 7, 4)] == parse_cards("4h 4d 7h 7d 7c")


def test_sf10_limit_at_the_count_is_complete() -> None:
    hand = to_counts(parse_cards("5s 5h 5d 6s 6h"))
    hand_plays = HandPlays(hand)
    total = hand_plays.count(None)
    assert hand_plays.legal(None, total)[1]
    assert not hand_plays.legal(None, total - 1)[1]


def test_sf10_returned_lists_may_be_changed_by_the_caller() -> None:
    hand_plays = HandPlays(to_counts(parse_cards("5s 5h 5d 6s 6h")))
    first, _ = hand_plays.legal(None, BIG)
    first.clear()
    assert hand_plays.legal(None, BIG)[0]


def test_sf10_a_full_hand_lists_one_play_per_rank_pattern() -> None:
    """41 cards from three decks: far too many distinct plays, one per rank pattern."""
    for seed in range(5):
        cards = deck(3)
        random.Random(seed).shuffle(cards)
        hand = sorted(cards[:41])
        hand_plays = HandPlays(to_counts(hand))
        plays, complete = hand_plays.legal(None, 1000)
        assert not complete
        assert hand_plays.count(None) > 1000
        patterns = [rank_pattern(p) for p in plays]
        assert len(patterns) == len(set(patterns))
        for cards, combo in plays:
            assert held(hand, cards)
            assert reading(cards) == combo
        assert [r for _, r in plays] == sorted(r for _, r in plays)
        kinds = {r.kind for _, r in plays}
        assert {Kind.SINGLE, Kind.PAIR, Kind.FULL_HOUSE} <= kinds


def test_sf01_a_hand_holds_at_most_three_identical_cards() -> None:
    with pytest.raises(ValueError, match="three decks"):
        HandPlays(to_counts(parse_cards("5s 5s 5s 5s")))
    with pytest.raises(ValueError, match="54 counts"):
        HandPlays([1, 2, 3])


def test_sf10_a_briefly_listing_deal_lists_one_play_per_pattern_and_accepts_the_others() -> None:
    """``list_briefly`` (for simulations): the state lists one play per rank pattern from
    then on, and every other play of the hand stays as legal as before."""
    from arena.errors import IllegalActionError
    from arena.games import make
    from arena.games.base import Action

    state = make("sanfu").new_deal(seed=11)
    while not (state.observe(state.to_act).legal_complete and len(state.legal_actions()) > 50):
        state.apply(state.legal_actions()[-1])  # the highest play: tricks end, hands shrink
    full = state.legal_actions()
    twin = state.clone()
    twin.list_briefly()
    brief = twin.legal_actions()
    assert set(brief) <= set(full) and len(brief) < len(full)
    assert not twin.observe(twin.to_act).legal_complete
    patterns = [rank_pattern((a.cards, reading(a.cards))) for a in brief]
    assert len(patterns) == len(set(patterns))
    unlisted = next(a for a in full if a not in brief)
    twin.apply(unlisted)
    state.apply(unlisted)
    assert twin.observe(0).hand == state.observe(0).hand
    assert twin.observe(0).events == state.observe(0).events
    for bad in (Action("play", (twin.hand((twin.to_act + 1) % 4)[0],) * 4), Action("bid")):
        with pytest.raises(IllegalActionError) as brief_error:
            twin.clone().apply(bad)
        with pytest.raises(IllegalActionError) as full_error:
            state.clone().apply(bad)
        assert str(brief_error.value) == str(full_error.value)  # the same refusal
    twin.list_briefly(False)
    assert twin.legal_actions() == state.legal_actions()
