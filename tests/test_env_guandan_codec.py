"""Guandan's flat action space (arena/env/codecs/guandan.py) against the engine and the rules.

Every legal action maps to one index (pass, a tribute or return card, a play's key of
kind, size, value, pair value and wild cards: GD-6, GD-8, GD-13), the mask is exactly
the indices of the legal actions, and every masked index decodes to the first legal
action of its key. Decisions are made from the observation of the seat to act
(``state.observe(state.to_act)``) and checked against the engine's state: its legal
list and level. The play space is checked against every play two full decks make at
every level (the engine's move generator on a hand of all 108 cards): each one has an
index, and each index is made by some play.
"""

from __future__ import annotations

import pickle
import random
import re
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import arena.env.codecs.guandan as codec_module
from arena.cards import NUM_KINDS, parse_cards
from arena.env.codecs.base import CodecError
from arena.env.codecs.guandan import (
    PASS_INDEX,
    PLAY_BASE,
    RETURN_BASE,
    SIZE,
    TRIBUTE_BASE,
    GuandanCodec,
    GuandanDecision,
    Pattern,
    PlayKey,
    key_of_play,
    pattern_of,
)
from arena.games import NOBODY, Action, Observation, make
from arena.games.guandan import GuandanSetup, GuandanState
from arena.games.guandan.combos import (
    KIND_LABELS,
    LEVEL_VALUE,
    Kind,
    play_readings,
    wild_card,
)
from arena.games.guandan.moves import legal_plays

GAME = make("guandan")
CODEC = GuandanCodec(GAME)
ENCODER = GuandanCodec(GAME)
"""A second codec, never asked for a decision: it encodes each action afresh, not from
the indices the decisions' codec remembers."""
TWO_DECKS = [2] * NUM_KINDS
"""The counts of a hand holding all 108 cards: it can make every play there is."""


def masked(mask: np.ndarray) -> set[int]:
    return set(np.flatnonzero(mask).tolist())


def state_at(level: int, seed: int = 1) -> GuandanState:
    """A first deal played at ``level`` (a rank index, 0 = 2 … 12 = A; GD-4)."""
    state = GAME.new_deal(GuandanSetup(levels=(level, 0), level_team=0), seed=seed)
    assert isinstance(state, GuandanState)
    assert state.level == level
    return state


def explicit(hands: Sequence[str], level: int = 0, order: tuple[int, ...] = ()) -> GuandanState:
    """A deal of explicit hands at ``level``, led by seat 0 (or with tribute after
    ``order``, the previous deal's finishing order)."""
    setup = GuandanSetup(levels=(level, level), previous_order=order, leader=None if order else 0)
    state = GAME.new_deal(setup, hands=[parse_cards(h) for h in hands], seed=1)
    assert isinstance(state, GuandanState)
    return state


def observe(state: GuandanState) -> Observation:
    """The observation of the seat to act: what a decision is made from."""
    return state.observe(state.to_act)


def decide(state: GuandanState) -> GuandanDecision:
    return CODEC.decision(observe(state))


def index_of(text: str, state: GuandanState) -> int:
    (index,) = CODEC.indices(Action.from_str(text), observe(state))
    return index


# ----------------------------------------------------------------------------
# every decision of random matches


def check_decision(state: GuandanState, decision: GuandanDecision) -> dict[int, Action]:
    """Check one decision (made from the observation of the seat to act) against the
    engine's state: its legal list and level; the first legal action of each index."""
    legal = list(state.legal_actions())
    # the indices read from another seat's observation: an index depends on the level alone
    other = state.observe((state.to_act + 1) % 4)
    assert other.public["level"] == state.level
    mask = decision.mask
    assert mask.dtype == np.int8 and mask.shape == (SIZE,)
    assert set(np.unique(mask).tolist()) <= {0, 1}
    assert (decision.seat, decision.phase, decision.level) == (
        state.to_act,
        state.phase,
        state.level,
    )
    first: dict[int, Action] = {}
    for action in legal:
        indices = ENCODER.indices(action, other)
        assert len(indices) == 1, action
        (index,) = indices
        assert mask[index] == 1, (str(action), index, CODEC.label(index))
        first.setdefault(index, action)
        # each verb has its own block of indices
        if action.verb == "pass":
            assert index == PASS_INDEX
        elif action.verb == "tribute":
            assert index == TRIBUTE_BASE + action.cards[0]
        elif action.verb == "return":
            assert index == RETURN_BASE + action.cards[0]
        else:
            key = CODEC.key(index)
            assert key is not None and key.size == len(action.cards)
            assert key.wilds == action.cards.count(wild_card(state.level))
    assert masked(mask) == set(first)
    assert decision.legal_indices() == sorted(first)
    for index, canonical in first.items():
        chosen = decision.choose(index)
        assert chosen == canonical, (index, CODEC.label(index), str(chosen), str(canonical))
        assert chosen in legal
        assert ENCODER.indices(chosen, other) == (index,)
    return first


def play_match(seed: int, deals: int, seen: dict[str, set[object]]) -> None:
    """Random play through up to ``deals`` deals of a match (tribute and return between
    deals, GD-13), checking every decision; each action is drawn as a random masked index
    or as a random legal action, at random."""
    rng = random.Random(seed)
    setup = GAME.first_setup()
    for _ in range(deals):
        state = GAME.new_deal(setup, seed=rng.randrange(2**32))
        assert isinstance(state, GuandanState)
        seen["levels"].add(state.level)
        while not state.is_terminal():
            observation = observe(state)
            decision = CODEC.decision(observation)
            first = check_decision(state, decision)
            seen["phases"].add(state.phase)
            if rng.random() < 0.5:
                index = rng.choice(sorted(first))
                action = decision.choose(index)
            else:
                action = rng.choice(list(state.legal_actions()))
                (index,) = CODEC.indices(action, observation)
            key = CODEC.key(index)
            at = len(state.events)
            state.apply(action)
            if key is not None:
                # the engine plays the cards at the key's reading (GD-8, GD-9)
                event = state.events[at]
                assert event.kind == "play" and event.cards == action.cards
                assert (event.tag, event.value) == (KIND_LABELS[key.kind], key.value), (
                    str(action),
                    key.label,
                )
                seen["kinds"].add(key.kind)
                seen["wilds"].add(key.wilds)
        setup = state.outcome().next_setup
        if setup is None:
            return


def test_every_decision_of_random_matches_maps_to_masked_indices() -> None:
    """GD-8, GD-10, GD-13, GD-14: at every decision of several random matches (tribute and
    return included, levels other than 2), every legal action's index is masked, the mask
    is exactly those indices, and each masked index decodes to the first legal action of
    its key, which the engine plays at that key's reading."""
    seen: dict[str, set[object]] = {
        "levels": set(),
        "phases": set(),
        "kinds": set(),
        "wilds": set(),
    }
    for seed in range(20):
        play_match(seed, deals=5, seen=seen)
    assert seen["phases"] == {"tribute", "return", "play"}
    assert len(seen["levels"]) > 2
    assert seen["wilds"] == {0, 1, 2}
    assert len(seen["kinds"]) >= 8


def test_decisions_from_observations_are_what_the_engines_legal_list_implies() -> None:
    """GD-8, GD-9, GD-13 (C-5: a seat sees its observation only): at every decision of a
    few random deals (tribute and return included), the decision made from the
    observation of the seat to act, even one that went through pickling and so keeps no
    link to the state, has exactly the mask and the choices the engine's legal list
    implies (each index: its first legal action, encoded at the state's level); and it
    stays so after the state moves on (an observation, and a decision, are immutable)."""
    rng = random.Random(7)
    setup = GAME.first_setup()
    decisions = 0
    for _ in range(3):
        state = GAME.new_deal(setup, seed=rng.randrange(2**32))
        assert isinstance(state, GuandanState)
        while not state.is_terminal():
            observation = observe(state)
            assert observation.public["level"] == state.level
            expected: dict[int, Action] = {}
            for action in state.legal_actions():
                (index,) = ENCODER.indices(action, observation)
                expected.setdefault(index, action)
            decisions += 1
            for decision in (
                CODEC.decision(observation),
                CODEC.decision(pickle.loads(pickle.dumps(observation))),
            ):
                assert masked(decision.mask) == set(expected)
                assert {i: decision.choose(i) for i in expected} == expected
            kept = CODEC.decision(observation)
            index = rng.choice(sorted(expected))
            state.apply(kept.choose(index))
            # the state moved on: the decision still stands for its observation
            assert masked(kept.mask) == set(expected)
            assert {i: kept.choose(i) for i in expected} == expected
        outcome = state.outcome()
        setup = outcome.next_setup or GAME.first_setup()
    assert decisions > 200


def test_a_decision_is_made_from_the_observation_of_the_seat_to_act() -> None:
    """C-5: only the observation of the seat to act holds its legal actions: another
    seat's observation, a finished deal's, a state or another game's observation have
    no decision; indices, which depend on the level alone, take any seat's observation."""
    state = state_at(4)
    seat = state.to_act
    for other in range(4):
        if other == seat:
            continue
        with pytest.raises(CodecError, match=rf"observation of seat {other}, but seat {seat}"):
            CODEC.decision(state.observe(other))
        assert CODEC.indices(Action.from_str("play 6h"), state.observe(other)) == (
            index_of("play 6h", state),
        )
    assert CODEC.label(index_of("play 6h", state)) == "single level, 1 wild"  # GD-6
    with pytest.raises(CodecError, match=r"from an observation .*not from GuandanState"):
        CODEC.decision(state)  # type: ignore[arg-type]
    with pytest.raises(CodecError, match=r"from an observation .*not from GuandanState"):
        CODEC.indices(Action.from_str("play 6h"), state)  # type: ignore[arg-type]
    sanfu = make("sanfu").new_deal(make("sanfu").first_setup(), seed=1)
    with pytest.raises(CodecError, match="in Guandan deals, not in 'sanfu'"):
        CODEC.decision(sanfu.observe(sanfu.to_act))
    over = state.clone()
    while not over.is_terminal():
        over.apply(over.legal_actions()[0])
    assert over.to_act == NOBODY
    for viewer in range(4):
        with pytest.raises(CodecError, match="the deal is over"):
            CODEC.decision(over.observe(viewer))


def test_codec_is_the_environments_guandan_codec() -> None:
    """The environments pick this codec for Guandan (GD-1 … GD-17 rules)."""
    from arena.env.codecs import codec_for

    assert isinstance(codec_for(GAME), GuandanCodec)
    assert CODEC.factored is False
    assert CODEC.size == SIZE


# ----------------------------------------------------------------------------
# the space


def test_space_is_exactly_every_play_two_decks_make_at_any_level() -> None:
    """GD-1, GD-5 … GD-8: every play a hand of both whole decks can make, at each of the 13
    levels, has a key in the space, and every key of the space is made by some play at
    some level (nothing impossible is left in). The space itself does not depend on the
    level: one codec, one size. A play's key depends on its cards only through their
    suit-free pattern (what decisions remember)."""
    space = set(CODEC.play_keys)
    made: set[PlayKey] = set()
    for level in range(13):
        wild = wild_card(level)
        plays = legal_plays(TWO_DECKS, level, None)
        by_pattern: dict[Pattern, PlayKey] = {}
        for action, combo in plays:
            key = key_of_play(action.cards, combo, level)
            pattern = pattern_of(action.cards, action.tag, wild)
            assert by_pattern.setdefault(pattern, key) == key, (str(action), pattern)
        keys = set(by_pattern.values())
        assert keys <= space, sorted(keys - space)[:5]
        made |= keys
        # the codec reads a sample of them as the engine does (tags included)
        state = state_at(level)
        assert decide(state).mask.shape == (SIZE,)
        for action, combo in plays[:: max(1, len(plays) // 400)]:
            (index,) = ENCODER.indices(action, observe(state))
            assert ENCODER.key(index) == key_of_play(action.cards, combo, level)
    assert made == space, sorted(space - made)[:5]


def test_indices_and_labels_are_unique_and_laid_out_as_documented() -> None:
    """GD-8, GD-13: one index per key (pass, 54 tribute cards, 54 return cards, the play
    keys), each with its own label, laid out as the module docstring's table says."""
    keys = CODEC.play_keys
    assert len(set(keys)) == len(keys) == SIZE - PLAY_BASE
    assert list(keys) == sorted(keys)
    for offset, key in enumerate(keys):
        assert CODEC.index_of(key) == PLAY_BASE + offset
        assert CODEC.key(PLAY_BASE + offset) == key
    labels = [CODEC.label(i) for i in range(SIZE)]
    assert len(set(labels)) == SIZE
    assert labels[PASS_INDEX] == "pass"
    assert CODEC.key(PASS_INDEX) is None and CODEC.key(RETURN_BASE) is None
    # the documented table of index ranges
    doc = codec_module.__doc__ or ""
    rows = dict(
        (name, (int(low), int(high or low)))
        for name, low, high in re.findall(r"^(\w+)\s+(\d+)(?:-(\d+))?\s", doc, re.M)
    )
    assert f"(:data:`SIZE` = {SIZE} indices)" in doc
    assert rows.pop("pass") == (PASS_INDEX, PASS_INDEX)
    assert rows.pop("tribute") == (TRIBUTE_BASE, TRIBUTE_BASE + NUM_KINDS - 1)
    assert rows.pop("return") == (RETURN_BASE, RETURN_BASE + NUM_KINDS - 1)
    for kind in Kind:
        indices = [PLAY_BASE + i for i, key in enumerate(keys) if key.kind == kind]
        assert rows.pop(kind.label) == (indices[0], indices[-1]), kind.label
        assert indices == list(range(indices[0], indices[-1] + 1))
    assert not rows


@pytest.mark.parametrize(
    ("level", "text", "label"),
    [
        (0, "pass", "pass"),
        (0, "tribute 7h", "tribute 7h"),
        (0, "return SJ", "return SJ"),
        (0, "play 2h", "single level, 1 wild"),  # GD-6: the wild card as itself
        (0, "play 2s", "single level"),
        (5, "play 2h", "single 2"),  # GD-4: at level 7, 2h is no wild card
        (5, "play 7h", "single level, 1 wild"),
        (0, "play SJ SJ", "pair SJ"),
        (0, "play 7s 2h", "pair 7, 1 wild"),
        (0, "play 2h 2h", "pair level, 2 wilds"),
        (0, "play 8s 8d 8c Js Jd", "full_house 8 with J"),
        (0, "play 8s 8d 8c Js 2h", "full_house 8 with J, 1 wild"),
        # GD-9: 8 8 J J and a wild card read as a triple of either rank: the higher
        (0, "play 8s 8d Js Jd 2h", "full_house J with 8, 1 wild"),
        (0, "play 8s 8d 8c BJ BJ", "full_house 8 with BJ"),
        (3, "play 8s 8d 8c 5s 5d", "full_house 8 with level"),
        (0, "play As 2s 3s 4d 5d", "straight A-5"),  # GD-7: the low ace
        (0, "play Ts Js Qs Ks As", "straight_flush 10-A"),
        (0, "play Ts Js Qs Ks 2h", "straight_flush 10-A, 1 wild"),  # GD-6: read highest
        (0, "play As Ad 2s 2d 3s 3d", "pair_run A-3"),
        (0, "play 3s 3d 4s 4d 2h 2h as pair_run", "pair_run 3-5, 2 wilds"),
        (0, "play 3s 3d 4s 4d 2h 2h as triple_run", "triple_run 3-4, 2 wilds"),
        (0, "play As Ad Ac 2s 2d 2c", "triple_run A-2"),
        (0, "play 5s 5d 5c 5h 5s 5d", "bomb 5 (6 cards)"),
        (0, "play 5s 5d 5c 2h 2h", "bomb 5 (5 cards), 2 wilds"),  # GD-8: not a full house
        (0, "play 2s 2d 2c 2s 2h", "bomb level (5 cards), 1 wild"),
        (0, "play SJ SJ BJ BJ", "joker_bomb"),
    ],
)
def test_labels_of_actions(level: int, text: str, label: str) -> None:
    """GD-5 … GD-9, GD-13: what some actions' indices are, in words."""
    assert CODEC.label(index_of(text, state_at(level))) == label


def test_tribute_indices_tell_suits_apart() -> None:
    """GD-13: the tribute is any of the highest cards; suits matter in a tribute's index,
    so equal cards of two suits are two indices."""
    hands = ["3s 4s", "3d 4d", "3c 4c", "As Ah 9s 9d"]
    state = explicit(hands, order=(0, 1, 2, 3))  # seat 3 last: tribute to seat 0
    assert state.phase == "tribute" and state.to_act == 3
    decision = decide(state)
    ace_spades, ace_hearts = parse_cards("As Ah")
    assert decision.legal_indices() == [TRIBUTE_BASE + ace_spades, TRIBUTE_BASE + ace_hearts]
    assert decision.choose(TRIBUTE_BASE + ace_hearts) == Action("tribute", (ace_hearts,))
    nine = TRIBUTE_BASE + parse_cards("9s")[0]
    with pytest.raises(CodecError, match=rf"index {nine} \(tribute 9s\) is masked out.*GD-13"):
        decision.choose(nine)


def test_two_kinds_of_one_set_of_cards_are_two_indices() -> None:
    """GD-6, GD-8: ``3 3 4 4`` and both wild cards are 3 consecutive pairs or 2 consecutive
    triples, two legal actions and two indices, each choosing its own tag; plays of the
    same key in other suits share one index, which chooses the first in the engine's
    order."""
    state = explicit(["3s 3d 4s 4d 2h 2h 3c", "Ks", "Kd", "Kc"])
    decision = decide(state)
    as_pairs = index_of("play 3s 3d 4s 4d 2h 2h as pair_run", state)
    as_triples = index_of("play 3s 3d 4s 4d 2h 2h as triple_run", state)
    assert as_pairs != as_triples
    assert decision.choose(as_pairs) == Action.from_str("play 3s 3d 4s 4d 2h 2h as pair_run")
    # 3 3 3 4 and both wild cards come first in the engine's order, untagged: the same key
    assert decision.choose(as_triples) == Action.from_str("play 3s 3d 3c 4s 2h 2h")
    assert CODEC.label(as_triples) == "triple_run 3-4, 2 wilds"
    triple = index_of("play 3s 3d 3c", state)
    legal = list(state.legal_actions())
    sharing = [a for a in legal if CODEC.indices(a, observe(state)) == (triple,)]
    assert len(sharing) == 1
    pair = index_of("play 3s 3d", state)
    sharing = [a for a in legal if CODEC.indices(a, observe(state)) == (pair,)]
    assert len(sharing) == 3  # 3s 3d, 3s 3c, 3d 3c
    assert decision.choose(pair) == sharing[0]


# ----------------------------------------------------------------------------
# errors


def test_choose_masked_out_index_raises_naming_it() -> None:
    """GD-10, GD-13: an index that is not legal now raises, naming the index and why."""
    state = explicit(["3s 3d 4s", "Ks", "Kd", "Kc"])
    decision = decide(state)
    with pytest.raises(CodecError, match=r"index 0 \(pass\) is masked out.*GD-10"):
        decision.choose(PASS_INDEX)
    bomb = index_of("play SJ SJ BJ BJ", state)
    with pytest.raises(CodecError, match=rf"index {bomb} \(joker_bomb\) is masked out"):
        decision.choose(bomb)
    tribute = TRIBUTE_BASE + parse_cards("3s")[0]
    with pytest.raises(CodecError, match=rf"index {tribute} \(tribute 3s\) is masked out.*GD-13"):
        decision.choose(tribute)
    for outside in (-1, SIZE):
        with pytest.raises(CodecError, match=rf"index {outside} is outside"):
            decision.choose(outside)
    with pytest.raises(CodecError, match="is not an integer"):
        decision.choose("3")  # type: ignore[arg-type]
    # a numpy integer is an index
    single = index_of("play 3s", state)
    assert decision.choose(np.int64(single)) == Action.from_str("play 3s")  # type: ignore[arg-type]
    state.apply(Action.from_str("play 3s"))
    following = decide(state)
    assert PASS_INDEX in following.legal_indices()
    with pytest.raises(CodecError, match=r"does not beat single 3 \(GD-9\)"):
        following.choose(index_of("play 3s 3d", state))
    # the play to beat is named as the engine names it (GD-9), here the level rank
    state = explicit(["5s 3d 4s", "Ks", "Kd", "Kc"], level=3)
    state.apply(Action.from_str("play 5s"))
    with pytest.raises(CodecError, match=r"does not beat single 5 \(GD-9\)"):
        decide(state).choose(index_of("play Ks", state))


def test_actions_without_an_index_raise() -> None:
    """GD-8, GD-13: an action that is no combination, or no action of Guandan, has no
    index; the error names it and why."""
    state = state_at(0)
    cases = {
        "play 3s 5d": "no combination",
        "play 3s 3d 4s 4d 2h 2h": "ambiguous",  # GD-8: it must name its kind
        "play 3s 3d 3c as pair": "a play names a kind only when",
        "play 3s 3d 3c 3h 3s 3d 3c 3h 3s": "no play two decks can make",  # 9 of a rank
        "tribute 3s 4s": "exactly one card",
        "bid 3s": "not a Guandan action",
        "play": "not a Guandan action",
    }
    for text, why in cases.items():
        action = Action.from_str(text)
        quoted = re.escape(f"'{action}'")
        with pytest.raises(CodecError, match=rf"action {quoted} has no index: .*{why}"):
            CODEC.indices(action, observe(state))
    with pytest.raises(CodecError, match="not a card"):
        CODEC.indices(Action("play", (60,)), observe(state))
    with pytest.raises(CodecError, match="GuandanCodec encodes guandan"):
        GuandanCodec(make("sanfu"))
    over = state.clone()
    while not over.is_terminal():
        over.apply(over.legal_actions()[0])
    with pytest.raises(CodecError, match="the deal is over"):
        CODEC.decision(over.observe(0))


# ----------------------------------------------------------------------------
# properties


Position = tuple[tuple[int, int], int, tuple[int, ...], int, int]
"""A deal's levels, the team whose level is played, the previous deal's finishing order
(empty: no tribute), the deal's seed and how many random actions are played."""

positions: st.SearchStrategy[Position] = st.tuples(
    st.tuples(st.integers(0, 12), st.integers(0, 12)),
    st.integers(0, 1),
    st.one_of(st.just(()), st.permutations(range(4)).map(tuple)),
    st.integers(0, 2**32 - 1),
    st.integers(0, 150),
)
"""Positions are drawn as numbers and made in the test: a state drawn as a value itself
would be held by a weak reference, which the compiled engines do not survive."""


def reach(position: Position) -> GuandanState:
    """The state of a position: a deal at any level, with tribute owed or not, after some
    random actions."""
    levels, team, order, seed, steps = position
    setup = GuandanSetup(levels=levels, level_team=team, previous_order=order)
    state = GAME.new_deal(setup, seed=seed)
    assert isinstance(state, GuandanState)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply(rng.choice(list(state.legal_actions())))
    return state


@settings(max_examples=150, deadline=None)
@given(positions, st.data())
def test_round_trip(position: Position, data: st.DataObject) -> None:
    """GD-6, GD-8, GD-13: for any legal action, its index is masked and decodes to a legal
    action of the same index (the same verb and key, perhaps other suits), which the
    engine accepts."""
    state = reach(position)
    if state.is_terminal():
        return
    legal = state.legal_actions()
    action = legal[data.draw(st.integers(0, len(legal) - 1))]
    observation = observe(state)
    decision = CODEC.decision(observation)
    (index,) = CODEC.indices(action, observation)
    assert decision.mask[index] == 1
    chosen = decision.choose(index)
    assert chosen in legal and chosen.verb == action.verb
    assert CODEC.indices(chosen, observation) == (index,)
    key = CODEC.key(index)
    if key is not None:
        assert key.size == len(chosen.cards) == len(action.cards)
    state.clone().apply(chosen)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 12),
    st.lists(st.integers(0, NUM_KINDS - 1), min_size=1, max_size=10).filter(
        lambda cards: all(cards.count(c) <= 2 for c in cards)
    ),
)
def test_any_cards_have_their_readings_index_or_none(level: int, cards: list[int]) -> None:
    """GD-6, GD-8: any cards of two decks played have the index of their reading (kind,
    size, wild cards counted), or, when they form no combination or two, a CodecError."""
    action = Action.make("play", cards)
    kept = play_readings(action.cards, level)
    try:
        (index,) = CODEC.indices(action, observe(state_at(level)))
    except CodecError as err:
        assert len(kept) != 1, err
        return
    key = CODEC.key(index)
    assert key is not None and len(kept) == 1
    assert (key.kind, key.size, key.value) == kept[0][:3]
    assert key.wilds == action.cards.count(wild_card(level))
    assert (key.second != 0) == (key.kind == Kind.FULL_HOUSE)
    if key.kind != Kind.FULL_HOUSE:
        return
    assert key.second != key.value
    if key.second == LEVEL_VALUE:  # the pair of the level rank: naturals or a wild card
        assert any(c // 4 == level for c in action.cards if c < 52)
