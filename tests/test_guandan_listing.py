"""A Guandan play decision's legal actions, made on demand (:class:`Plays`), behave in
every way as the tuple of the same actions: length, indexing, slices, iteration, search,
equality, hashing, pickling; each action is made once, and a play is found by identity
or by its verb, cards and kind."""

from __future__ import annotations

import operator
import pickle
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import deck, to_counts
from arena.games import make
from arena.games.base import PASS, Action
from arena.games.guandan.combos import Kind, wild_card
from arena.games.guandan.listing import Plays
from arena.games.guandan.moves import HandPlays


def _listing(seed: int, level: int, size: int, follow: bool) -> tuple[Plays, list[Action]]:
    """The plays of a random hand (often with both wild cards: plays naming their kind),
    leading or following the hand's own first play, and the same actions made one by one
    from the cards and kinds the hand's groups keep."""
    rng = random.Random(seed)
    cards = rng.sample(deck(2), size)
    if rng.random() < 0.6:
        cards += [wild_card(level)] * (2 - cards.count(wild_card(level)))
    plays = HandPlays(to_counts(cards), level)
    table = None
    if follow:
        led = plays.options(None)[1]
        table = led[rng.randrange(len(led))]
    listing, readings = plays.options(table, PASS if follow else None)
    expected = [PASS] if follow else []
    if table is None:
        groups = [*(kind for kind in Kind if kind < Kind.STRAIGHT_FLUSH), "bombs"]
        for key in groups:
            group = plays.group(key)
            tags = group.tags or [""] * len(group.cards)
            expected += [Action("play", c, t) for c, t in zip(group.cards, tags, strict=True)]
    else:
        expected += [listing[i] for i in range(len(listing)) if i]
    assert len(readings) == len(expected) - follow
    return listing, expected


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    level=st.integers(0, 12),
    size=st.integers(1, 27),
    follow=st.booleans(),
)
def test_plays_are_the_tuple_of_their_actions(
    seed: int, level: int, size: int, follow: bool
) -> None:
    listing, expected = _listing(seed, level, size, follow)
    rng = random.Random(seed)
    as_tuple = tuple(expected)
    assert len(listing) == len(as_tuple)
    if as_tuple:
        picked = rng.randrange(len(as_tuple))
        made = listing[picked]
        assert made == as_tuple[picked]
        assert listing[picked] is made  # made once
        assert listing[picked - len(as_tuple)] is made  # a negative index
        assert listing.find(made) == picked
        equal = Action(made.verb, made.cards, made.tag)  # equal, not the same object
        assert listing.find(equal) == picked
        assert equal in listing
        assert listing.index(equal) == picked
        assert listing.count(equal) == 1
    assert list(listing) == expected
    assert listing == expected
    assert listing == as_tuple
    assert expected == listing
    assert operator.ne(listing, as_tuple) is False
    assert listing[1:-1:2] == as_tuple[1:-1:2]
    assert list(reversed(listing)) == list(reversed(as_tuple))
    assert listing + as_tuple[:1] == expected + expected[:1]
    assert expected[:1] + listing == expected[:1] + expected
    assert hash(listing) == hash(as_tuple)
    assert pickle.loads(pickle.dumps(listing)) == as_tuple
    for index in (len(as_tuple), -len(as_tuple) - 1):
        try:
            listing[index]
        except IndexError:
            continue
        raise AssertionError(f"index {index} of {len(as_tuple)} plays")


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32), level=st.integers(0, 12), size=st.integers(1, 27))
def test_what_is_no_listed_play_is_not_found(seed: int, level: int, size: int) -> None:
    """Other verbs, kinds not named by the play, cards in another order or not listed."""
    listing, expected = _listing(seed, level, size, follow=False)
    listed = set(expected)
    for action in expected:
        for other in (
            Action("tribute", action.cards, action.tag),
            Action("play", action.cards, "triple_run" if action.tag != "triple_run" else ""),
            Action("play", action.cards[::-1], action.tag),
            Action("play", (*action.cards, action.cards[-1]), action.tag),
        ):
            assert (other in listing) == (other in listed), other
            assert (listing.find(other) >= 0) == (other in listed), other
    assert "play" not in listing
    assert PASS not in listing


def test_a_state_lists_plays_made_on_demand_and_plays_the_one_picked() -> None:
    game = make("guandan")
    state = game.new_deal(game.first_setup(), seed=7)
    legal = state.legal_actions()
    assert isinstance(legal, Plays)
    assert state.observe(state.to_act).legal_actions is legal
    chosen = legal[len(legal) // 2]
    state.apply(chosen)
    assert state.events[-1].cards == chosen.cards
