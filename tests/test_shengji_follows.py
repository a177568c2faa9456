"""Listed follows (SJ-19) against the definition: every play of the hand's cards of the
led suit whose score reaches the best the hand allows (``follow.score``).

The listing builds the plays a lead of one set or tractor (and any singles) asks for
from the units the hand must show; the oracle here tries every sub-multiset in order,
as the listing did before, so order, truncation at the limit and completeness agree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.cards import NUM_KINDS, Card
from arena.games.shengji.follow import (
    follow_error,
    follow_is_legal,
    priority_list,
    score,
    suit_members,
)
from arena.games.shengji.moves import follows
from arena.games.shengji.multisets import (
    count_multisets,
    multisets_in_order,
    nth_multiset,
    spread_sample,
    sub_multisets,
)
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import Pile, Unit, decompose


def _candidates(
    suited: list[Card], lead: Sequence[Unit], size: int, order: TrumpOrder
) -> Iterator[tuple[Card, ...]]:
    if len(lead) == 1 and lead[0].length == 1 and lead[0].width == size:
        sets = [unit.cards for unit in Pile(suited, order).units(size, 1)]
        if sets:
            yield from sets
            return
    yield from sub_multisets(suited, size)


def oracle(
    suited: list[Card], lead: Sequence[Unit], size: int, order: TrumpOrder, decks: int, limit: int
) -> tuple[list[tuple[Card, ...]], bool]:
    """Every candidate scoring the best, in candidate order, at most ``limit``."""
    best = score(suited, lead, order, decks)
    unconstrained = best == score((), lead, order, decks)
    plays: list[tuple[Card, ...]] = []
    for chosen in _candidates(suited, lead, size, order):
        if unconstrained or score(chosen, lead, order, decks) == best:
            plays.append(chosen)
            if len(plays) > limit:
                return plays[:limit], False
    return plays, True


@st.composite
def positions(draw: st.DrawFn) -> tuple[TrumpOrder, int, list[Card], list[Card], int]:
    """An order, the decks, a lead of one suit and a follower's cards of that suit."""
    decks = draw(st.integers(1, 4))
    two_colour = decks == 1 and draw(st.booleans())
    trump = draw(st.sampled_from([None, 0, 1] if two_colour else [None, 0, 1, 2, 3]))
    order = TrumpOrder(
        draw(st.integers(0, 12)), trump, decks == 4 or draw(st.booleans()), two_colour
    )
    suit = draw(st.sampled_from(sorted(set(order.suits))))
    pool = [c for c in range(54) if order.suits[c] == suit for _ in range(decks)]
    # few distinct cards, so that sets and tractors are common; at least three cards
    ranks = draw(
        st.lists(
            st.sampled_from(sorted(set(pool))),
            min_size=2 if decks > 1 else 3,
            max_size=9,
            unique=True,
        )
    )
    pool = sorted(c for c in pool if c in ranks)  # each card as many times as the decks hold
    lead = _drawn(draw, pool, 2, min(9, len(pool) - 1))
    hand = _drawn(draw, pool, len(lead) + 1, min(18, len(pool)))
    return order, decks, lead, hand, draw(st.sampled_from([3, 20, 1000]))


def _drawn(draw: st.DrawFn, pool: list[Card], least: int, most: int) -> list[Card]:
    """Sorted cards taken from the pool (so never more copies than it holds)."""
    places = st.lists(st.integers(0, len(pool) - 1), min_size=least, max_size=most, unique=True)
    return sorted(pool[i] for i in draw(places))


@settings(max_examples=300, deadline=None)
@given(positions())
def test_follows_are_the_best_scoring_plays(
    case: tuple[TrumpOrder, int, list[Card], list[Card], int],
) -> None:
    order, decks, lead_cards, hand, limit = case
    lead = decompose(lead_cards, order)
    if decks == 4:
        assume(len(lead) == 1)  # 4 decks forbid throws (SJ-17)
    assume(priority_list(lead, decks) is None)  # SJ-28/SJ-29 lists are built elsewhere
    suit = order.suits[lead_cards[0]]
    plays, complete, description = follows(hand, lead, suit, len(lead_cards), order, decks, limit)
    expected, expected_complete = oracle(hand, lead, len(lead_cards), order, decks, limit)
    assert plays == expected
    assert complete == expected_complete and (description == "") == complete


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 12), max_size=16),
    st.integers(0, 8),
    st.sampled_from([5, 50, 1000]),
)
def test_spread_sample_lists_the_multisets_in_order_or_spaced_ranks(
    cards: list[Card], size: int, limit: int
) -> None:
    counts = sorted(Counter(cards).items())
    ways = count_multisets(counts, size)
    if ways[0][size] <= limit:
        expected = list(multisets_in_order(counts, 0, size, ()))
    else:
        spaced = [i * ways[0][size] // 7 for i in range(7)]
        expected = [nth_multiset(counts, ways, size, rank) for rank in spaced]
    assert spread_sample(cards, size, limit, 7) == (expected, ways[0][size] <= limit)


@settings(max_examples=300, deadline=None)
@given(positions())
def test_tractors_are_the_units_of_every_length(
    case: tuple[TrumpOrder, int, list[Card], list[Card], int],
) -> None:
    """``Pile.tractors`` lists what asking ``units`` for ever longer tractors lists."""
    order, decks, _lead, hand, _limit = case
    pile = Pile(hand, order)
    for width in range(2, decks + 1):
        expected: list[Unit] = []
        length = 2
        found = list(pile.units(width, length))
        while found:
            expected += found
            length += 1
            found = list(pile.units(width, length))
        assert pile.tractors(width) == expected


@settings(max_examples=300, deadline=None)
@given(positions(), st.data())
def test_a_follow_judged_from_counts_is_one_the_full_check_accepts(
    case: tuple[TrumpOrder, int, list[Card], list[Card], int], data: st.DataObject
) -> None:
    """``follow_is_legal`` (hand counts, no listing) accepts only follows ``follow_error``
    accepts, and decides every follow to a lead of one set outside the SJ-28/SJ-29 lists."""
    order, decks, lead_cards, suited, _limit = case
    lead = decompose(lead_cards, order)
    suit = order.suits[lead_cards[0]]
    others = [c for c in range(NUM_KINDS) if order.suits[c] != suit]
    hand = sorted(suited + data.draw(st.lists(st.sampled_from(others), max_size=6)))
    size = min(len(lead_cards), len(hand))
    places = data.draw(
        st.lists(st.integers(0, len(hand) - 1), min_size=size, max_size=size, unique=True)
    )
    play = sorted(hand[i] for i in places)
    counts = [hand.count(card) for card in range(NUM_KINDS)]
    legal = follow_error(hand, play, lead, suit, order, decks) == ""
    judged = follow_is_legal(counts, suit_members(order)[suit], play, lead, suit, order, decks)
    assert legal or not judged
    one_set = len(lead) == 1 and lead[0].length == 1 and priority_list(lead, decks) is None
    if one_set and len(play) == len(lead_cards):
        assert judged == legal
