"""Shengji's legal plays made on demand — the leads (SJ-17, SJ-18) and the follows short
of the led suit (SJ-19 a): each lazy sequence holds exactly the plays an eager listing
gives, in the same order, whether it is indexed, iterated, asked ``in``, compared,
sliced or pickled."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Sequence

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shengji_listing import listed_leads, pile_units

from arena.cards import NUM_KINDS, Card
from arena.games.base import Action
from arena.games.shengji.leads import Leads, all_leads, unit_leads
from arena.games.shengji.moves import ShortFollows, as_actions, follow_actions, follows
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.plays import LazyPlays
from arena.games.shengji.shapes import Unit, decompose


@st.composite
def hands(draw: st.DrawFn, most: int = 14) -> tuple[list[Card], TrumpOrder]:
    decks = draw(st.integers(1, 4))
    two_colour = decks == 1 and draw(st.booleans())
    order = TrumpOrder(
        draw(st.integers(0, 12)),
        draw(st.sampled_from([None, 0, 1] if two_colour else [None, 0, 1, 2, 3])),
        draw(st.booleans()),
        two_colour,
    )
    pool = [card for card in range(NUM_KINDS) for _ in range(decks)]
    hand = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=most))
    for card, n in Counter(hand).items():  # no more copies than the decks hold
        while n > decks:
            hand.remove(card)
            n -= 1
    return sorted(hand), order


def leads_of(hand: list[Card], order: TrumpOrder) -> Sequence[Action]:
    leads = all_leads(hand, order, 10**6)
    assert isinstance(leads, Leads)
    return leads


def assert_lists(plays: Sequence[Action], expected: list[Action]) -> None:
    """The lazy plays are the expected ones, in order, however they are read."""
    assert isinstance(plays, LazyPlays)
    assert len(plays) == len(expected)
    assert [plays[i] for i in range(len(plays))] == expected  # made one at a time
    assert plays[-1] == expected[-1]
    assert list(plays) == expected  # made all at once
    assert [plays[i] for i in range(len(plays))] == expected  # and indexed afterwards
    assert plays == expected and expected == plays and plays == tuple(expected)
    assert plays[1:4] == tuple(expected[1:4])
    assert list(reversed(plays)) == expected[::-1]
    for action in expected:
        assert action in plays


@settings(max_examples=300, deadline=None)
@given(hands())
def test_sj17_leads_indexed_and_iterated_are_listed(case: tuple[list[Card], TrumpOrder]) -> None:
    hand, order = case
    assert_lists(leads_of(hand, order), listed_leads(hand, order))


@settings(max_examples=300, deadline=None)
@given(hands(), st.data())
def test_sj18_in_agrees_with_the_listing(
    case: tuple[list[Card], TrumpOrder], data: st.DataObject
) -> None:
    """``in`` without making the leads: every listed lead is in, and no other play —
    mixed suits, more copies than held, cards not held, unsorted, another verb or tag."""
    hand, order = case
    expected = listed_leads(hand, order)
    listed = set(expected)
    leads = leads_of(hand, order)
    for action in expected:
        assert action in leads
    cards = data.draw(st.lists(st.integers(0, NUM_KINDS - 1), min_size=1, max_size=6))
    for candidate in (
        Action("play", tuple(sorted(cards))),
        Action("play", tuple(cards)),
        Action("play", tuple(sorted(cards)), "pair"),
        Action("declare", tuple(sorted(cards))),
    ):
        assert (candidate in leads) == (candidate in listed), candidate
    assert "play" not in leads and ("play", ()) not in leads and Action("play") not in leads
    assert leads.count(expected[0]) == 1 and leads.index(expected[-1]) == len(expected) - 1


def test_sj17_leads_pickle_and_hash_like_the_tuple_of_their_actions() -> None:
    order = TrumpOrder(0, 1)
    hand = sorted([0, 0, 1, 2, 13, 14, 14, 52, 53])
    leads = leads_of(hand, order)
    copy = pickle.loads(pickle.dumps(leads))
    assert copy == leads and list(copy) == list(leads)
    assert hash(leads) == hash(tuple(listed_leads(hand, order)))
    assert isinstance(leads, Sequence)


def test_sj17_more_leads_than_the_limit_are_not_listed() -> None:
    order = TrumpOrder(0, None)
    spades = [card for card in range(NUM_KINDS) if order.suits[card] == order.suits[4]]
    hand = sorted(spades[:8] * 2)  # 3**8 - 1 leads of one suit
    assert all_leads(hand, order, 1000) is None


@settings(max_examples=500, deadline=None)
@given(hands(most=40), st.integers(2, 4))
def test_sj15_unit_leads_are_the_units_of_the_piles(
    case: tuple[list[Card], TrumpOrder], max_width: int
) -> None:
    """The single units a hand may lead when throws are not listed (or not allowed):
    the same plays in the same order as the units its piles hold."""
    hand, order = case
    expected = [Action("play", unit.cards) for unit in pile_units(hand, order, max_width)]
    assert unit_leads(hand, order, max_width) == expected


@st.composite
def short_follows(draw: st.DrawFn) -> tuple[list[Card], list[Unit], int, TrumpOrder, int]:
    """A lead of one suit and a follower holding no more of that suit than it leads."""
    decks = draw(st.integers(2, 4))
    order = TrumpOrder(draw(st.integers(0, 12)), draw(st.sampled_from([None, 0, 1, 2, 3])))
    suit = draw(st.sampled_from(sorted(set(order.suits))))
    pool = [c for c in range(NUM_KINDS) if order.suits[c] == suit for _ in range(decks)]
    lead = sorted(draw(st.lists(st.sampled_from(pool), min_size=2, max_size=6)))
    suited = draw(st.lists(st.sampled_from(pool), max_size=len(lead)))
    others = [c for c in range(NUM_KINDS) if order.suits[c] != suit for _ in range(decks)]
    rest = draw(st.lists(st.sampled_from(others), min_size=len(lead), max_size=16))
    hand = sorted(suited + rest)
    assume(max(Counter(hand).values()) <= decks)  # no more copies than the decks hold
    return hand, decompose(lead, order), suit, order, len(lead)


@settings(max_examples=300, deadline=None)
@given(short_follows(), st.data())
def test_sj19_short_follows_made_on_demand_are_listed(
    case: tuple[list[Card], list[Unit], int, TrumpOrder, int], data: st.DataObject
) -> None:
    """All of the led suit and any other cards: the same plays, in the same order, as
    the eager listing; ``in`` agrees with it for other plays too."""
    hand, lead, suit, order, size = case
    plays, complete, _ = follows(hand, lead, suit, size, order, 4, 1000)
    assume(complete)
    expected = as_actions(plays)
    lazy, lazy_complete, description = follow_actions(hand, lead, suit, size, order, 4, 1000)
    assert lazy_complete and description == ""
    assert isinstance(lazy, ShortFollows)
    assert_lists(lazy, expected)
    listed = set(expected)
    cards = data.draw(st.lists(st.sampled_from(hand), min_size=size, max_size=size))
    for candidate in (Action("play", tuple(sorted(cards))), Action("play", tuple(cards))):
        assert (candidate in lazy) == (candidate in listed), candidate
    assert pickle.loads(pickle.dumps(lazy)) == expected
