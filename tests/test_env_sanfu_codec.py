"""sanfu's flat action space (arena/env/codecs/sanfu.py) against the engine and the rules.

Every legal play maps to the index of its reading (SF-8), every masked index decodes to
a play the engine accepts, and the mask is exactly the readings the seat may play: the
ones its hand can make that lead or beat the table (SF-9, SF-10), checked against an
oracle that knows nothing of the move generator, also where the engine lists only a
sample of the legal plays (``legal_complete`` false). Decisions are made from the
observation of the seat to act (``state.observe(state.to_act)``) and checked against
the engine's state: its legal list, the seat's hand and the play on the table.
"""

from __future__ import annotations

import pickle
import random
import re
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import NUM_KINDS, parse_cards
from arena.env.codecs.base import CodecError
from arena.env.codecs.sanfu import PASS_INDEX, SIZE, SanfuCodec, SanfuDecision, all_readings
from arena.games import NOBODY, Action, Observation, make
from arena.games.sanfu import SanfuGame
from arena.games.sanfu.combos import (
    ACE_VALUE,
    BIG_JOKER_VALUE,
    LOWEST_VALUE,
    TWO_VALUE,
    Kind,
    Reading,
    beats,
    reading,
    value_cards,
)
from arena.games.sanfu.moves import HandPlays
from arena.games.sanfu.state import LIST_LIMIT, SanfuState

GAME = make("sanfu")
CODEC = SanfuCodec(GAME)


def new_deal(seed: int) -> SanfuState:
    state = GAME.new_deal(GAME.first_setup(), seed=seed)
    assert isinstance(state, SanfuState)
    return state


def masked(mask: np.ndarray) -> set[int]:
    return set(np.flatnonzero(mask).tolist())


def observe(state: SanfuState) -> Observation:
    """The observation of the seat to act: what a decision is made from."""
    return state.observe(state.to_act)


def decide(state: SanfuState) -> SanfuDecision:
    return CODEC.decision(observe(state))


def counts_of(hand: tuple[int, ...]) -> list[int]:
    return [hand.count(card) for card in range(NUM_KINDS)]


OBSERVATION = observe(new_deal(0))
"""An observation to encode actions in (an index depends on the action alone)."""


# ----------------------------------------------------------------------------
# an oracle of the legal readings, from the hand's counts alone (no move generator)


def needs(combo: Reading) -> dict[int, int]:
    """How many cards of each rank value ``combo`` takes (SF-8)."""
    kind, size, value, second = combo.kind, combo.size, combo.value, combo.second
    if kind in (Kind.SINGLE, Kind.PAIR, Kind.BOMB):
        return {value: size}
    if kind in (Kind.TRIPLE, Kind.SUITED_TRIPLE, Kind.JOKER_TRIPLE):
        return {value: 3}
    if kind == Kind.FULL_HOUSE:
        return {value: 3, second: 2}
    if kind == Kind.PAIR_RUN:
        return {v: 2 for v in range(value - size // 2 + 1, value + 1)}
    if kind == Kind.PLATE:
        return {v: 3 for v in range(value - size // 3 + 1, value + 1)}
    n = size // 5
    found = {v: 3 for v in range(value - n + 1, value + 1)}
    found.update({v: 2 for v in range(second - n + 1, second + 1)})
    return found


def can_make(counts: list[int], combo: Reading) -> bool:
    """Whether a hand (54 counts) holds a play of ``combo``: enough cards of each rank, three
    identical cards for a same-suit triple (or three jokers), and for a plain triple three
    cards that are not all identical."""
    for value, n in needs(combo).items():
        if sum(counts[c] for c in value_cards(value)) < n:
            return False
    cards = [counts[c] for c in value_cards(combo.value)]
    if combo.kind in (Kind.SUITED_TRIPLE, Kind.JOKER_TRIPLE):
        return max(cards) >= 3
    if combo.kind == Kind.TRIPLE:
        return sum(1 for n in cards if n) >= 2
    return True


def oracle(state: SanfuState) -> set[int]:
    """The indices the seat to act may take (SF-9, SF-10), from its hand and the table."""
    counts = [0] * NUM_KINDS
    for card in state.hand(state.to_act):
        counts[card] += 1
    table = state._table.reading
    found = {PASS_INDEX} if table is not None else set()
    for combo in all_readings():
        if can_make(counts, combo) and (table is None or beats(combo, table)):
            found.add(CODEC.index_of(combo))
    return found


# ----------------------------------------------------------------------------
# the checks of one decision


def check_decision(state: SanfuState) -> bool:
    """Every check of the decision of the seat to act, made from its observation, against
    the engine's state; whether the engine's list was complete."""
    observation = observe(state)
    decision = CODEC.decision(observation)
    mask = decision.mask
    assert mask.dtype == np.int8 and mask.shape == (SIZE,)
    assert set(np.unique(mask).tolist()) <= {0, 1}
    legal = state.legal_actions()
    # complete: the engine lists every play, up to its limit (LIST_LIMIT, 0 when brief)
    table = state._table.reading
    complete = HandPlays(counts_of(state.hand(state.to_act))).count(table) <= state.list_limit
    assert decision.complete == complete == observation.legal_complete
    assert (decision.seat, decision.table) == (state.to_act, table)
    first: dict[int, Action] = {}
    for action in legal:
        (index,) = CODEC.indices(action, observation)
        assert mask[index] == 1, f"{action} (index {index}) masked out"
        combo = reading(action.cards) if action.verb == "play" else None
        assert CODEC.label(index) == ("pass" if combo is None else combo.describe())
        first.setdefault(index, action)
    on = masked(mask)
    assert on == oracle(state), "the mask is not the set of legal readings (SF-9)"
    assert set(decision.legal_indices()) == on
    assert set(first) <= on  # every listed action's index is masked
    if complete:
        assert on == set(first)
    for index in on:
        action = decision.choose(index)
        assert CODEC.indices(action, observation) == (index,)
        if index in first:  # the canonical action: the engine's first with that reading
            assert action == first[index]
        if not complete:  # not listed, or listed: the engine accepts it either way
            state.check_legal(action)
    return complete


def random_decisions(seeds: range, brief: bool = False) -> Iterator[SanfuState]:
    """Every decision of deals played by picking uniformly among the masked indices."""
    for seed in seeds:
        rng = random.Random(seed)
        state = new_deal(seed)
        if brief:
            state.list_briefly()
        while not state.is_terminal():
            yield state
            decision = decide(state)
            state.apply(decision.choose(rng.choice(sorted(masked(decision.mask)))))


# ----------------------------------------------------------------------------
# (1) masks and choices at every decision of random deals


def test_every_decision_masks_exactly_the_legal_readings_sf8_sf9_sf10() -> None:
    """SF-8 … SF-10 at every decision of 20 random deals: every listed action is masked,
    the mask is exactly the readings the hand can make that lead or beat the table (pass
    only when following), and each masked index decodes to a legal action with that
    index, the engine's first action of that reading."""
    decisions = incomplete = 0
    for state in random_decisions(range(20)):
        decisions += 1
        incomplete += not check_decision(state)
    assert decisions > 1000


def test_decisions_from_observations_are_what_the_engines_legal_list_implies() -> None:
    """SF-8 … SF-10 (C-5: a seat sees its observation only): at every decision of a few
    random deals, listed in full or briefly, the decision made from the observation of
    the seat to act, even one that went through pickling and so keeps no link to the
    state, has exactly the mask and the choices the engine's legal list implies (each
    index: the first listed action of its reading; the engine lists a play of every
    reading even when it lists one per pattern); and it stays so after the state moves
    on (an observation, and a decision, are immutable)."""
    decisions = incomplete = 0
    for seed in range(6):
        rng = random.Random(seed)
        state = new_deal(seed)
        if seed % 2:
            state.list_briefly()
        while not state.is_terminal():
            observation = observe(state)
            expected: dict[int, Action] = {}
            for action in state.legal_actions():
                (index,) = CODEC.indices(action, observation)
                expected.setdefault(index, action)
            decisions += 1
            incomplete += not observation.legal_complete
            for decision in (
                CODEC.decision(observation),
                CODEC.decision(pickle.loads(pickle.dumps(observation))),
            ):
                assert masked(decision.mask) == set(expected)
                assert {i: decision.choose(i) for i in expected} == expected
            kept = CODEC.decision(observation)
            state.apply(kept.choose(rng.choice(sorted(expected))))
            # the state moved on: the decision still stands for its observation
            assert masked(kept.mask) == set(expected)
            assert {i: kept.choose(i) for i in expected} == expected
    assert decisions > 300 and incomplete > 100


def test_incomplete_lists_still_give_an_exact_mask_sf9() -> None:
    """SF-9 where the engine lists only a sample (``legal_complete`` false, more than
    LIST_LIMIT plays): the mask is still every legal reading, each masked index decodes to
    a play ``check_legal`` accepts, and every sampled action's index is masked. Such
    decisions are found by random play over many seeds (mostly big early leads)."""
    found = 0
    for state in random_decisions(range(100)):
        observation = state.observe(state.to_act)
        if observation.legal_complete:
            continue
        assert observation.legal_description
        table = state._table.reading
        assert HandPlays(counts_of(state.hand(state.to_act))).count(table) > LIST_LIMIT
        assert not check_decision(state)
        found += 1
        if found >= 25:
            break
    assert found >= 25, f"only {found} decisions with an incomplete list in 100 deals"


def test_brief_listing_every_decision_incomplete_sf9() -> None:
    """With the engine's brief listing (one play per rank pattern at every decision, as
    simulations ask for) the mask is unchanged and exact (SF-9), and the canonical
    actions are the listed ones, accepted by the engine."""
    twin_seen = 0
    for state in random_decisions(range(4), brief=True):
        decision = decide(state)
        check_decision(state)
        full = state.clone()
        full.list_briefly(False)  # the same position listed as usual
        assert np.array_equal(decide(full).mask, decision.mask)
        twin_seen += 1
    assert twin_seen > 100


def test_canonical_action_of_a_big_hand_is_legal_sf8() -> None:
    """A hand of long runs (SF-8: consecutive pairs, steel plates with carried pairs) has
    far more plays than the engine lists: a lead's every reading, plate with pairs
    included, is masked and decodes to a play the engine accepts."""
    hands = [
        parse_cards(
            "3s 3h 3d 4s 4h 4d 5s 5h 5d 6s 6h 6d 7s 7h 7d 8s 8h 8d "
            "9s 9h 9d Ts Th Td Js Jh Jd Qs Qh Qd Ks Kh Kd As Ah Ad 2s 2h 2d SJ BJ"
        ),
    ]
    pool = Counter(c for c in range(NUM_KINDS) for _ in range(3))
    pool.subtract(Counter(hands[0]))
    rest = sorted(pool.elements())
    hands += [tuple(rest[0:41]), tuple(rest[41:81]), tuple(rest[81:121])]
    game = GAME
    assert isinstance(game, SanfuGame)
    state = game.new_deal(game.first_setup(), hands=hands, turned=(0, 4))
    assert isinstance(state, SanfuState)
    assert state.to_act == 0 and not state.observe(0).legal_complete
    decision = decide(state)
    kinds = {combo.kind for i in masked(decision.mask) if (combo := CODEC.reading(i))}
    assert Kind.PLATE_WITH_PAIRS in kinds and Kind.PAIR_RUN in kinds
    assert PASS_INDEX not in masked(decision.mask)  # SF-10: the leader must play
    check_decision(state)


# ----------------------------------------------------------------------------
# (2) the space


def example(combo: Reading) -> tuple[int, ...]:
    """Cards that read as ``combo``."""

    def of(value: int, n: int) -> list[int]:
        cards = list(value_cards(value))
        return [cards[k % len(cards)] for k in range(n)]

    if combo.kind in (Kind.SUITED_TRIPLE, Kind.JOKER_TRIPLE):
        return (value_cards(combo.value)[0],) * 3
    cards: list[int] = []
    for value, n in needs(combo).items():
        cards += of(value, n)
    return tuple(sorted(cards))


def test_space_is_fixed_with_unique_labels_sf8() -> None:
    """The space is the same in every state (SF-8: every reading three decks allow, and
    pass), 669 indices laid out as the module documents, each label unique, and every
    index is the index of some play (no dead index)."""
    assert CODEC.size == SIZE == 669 == 1 + len(all_readings())
    assert CODEC.factored is False
    labels = [CODEC.label(i) for i in range(SIZE)]
    assert len(set(labels)) == SIZE
    assert labels[PASS_INDEX] == "pass"
    assert "bomb 7 (5 cards)" in labels and "full_house 8 with J" in labels
    assert "pair_run A (6 cards)" in labels and "joker_triple BJ" in labels
    layout: dict[str, list[int]] = {}
    for i in range(1, SIZE):
        layout.setdefault(CODEC.label(i).split()[0], []).append(i)
    assert {kind: (v[0], v[-1]) for kind, v in layout.items()} == {
        "single": (1, 15),
        "pair": (16, 30),
        "triple": (31, 43),
        "suited_triple": (44, 56),
        "full_house": (57, 238),
        "pair_run": (239, 293),
        "plate": (294, 359),
        "plate_with_pairs": (360, 549),
        "bomb": (550, 666),
        "joker_triple": (667, 668),
    }
    state = new_deal(0)
    for i in range(1, SIZE):
        combo = CODEC.reading(i)
        assert combo is not None
        cards = example(combo)
        assert len(cards) <= 41 and max(Counter(cards).values()) <= 3  # fits one hand
        assert reading(cards) == combo
        assert CODEC.indices(Action.make("play", cards), observe(state)) == (i,)
    sizes = {decide(state).mask.shape for state in random_decisions(range(2))}
    assert sizes == {(SIZE,)}


def test_suited_and_plain_triples_are_different_indices_sf8_sf9() -> None:
    """SF-8/SF-9: three identical cards are a same-suit triple, a bomb-class play, never a
    plain triple: the two have different indices; the same reading in other suits shares
    one."""
    observation = observe(new_deal(0))
    (suited,) = CODEC.indices(Action.make("play", parse_cards("7s 7s 7s")), observation)
    (plain,) = CODEC.indices(Action.make("play", parse_cards("7s 7s 7h")), observation)
    (other,) = CODEC.indices(Action.make("play", parse_cards("7d 7h 7c")), observation)
    assert suited != plain == other
    assert CODEC.label(suited) == "suited_triple 7" and CODEC.label(plain) == "triple 7"
    house = CODEC.indices(Action.make("play", parse_cards("8s 8h 8d Js Jh")), observation)
    assert CODEC.label(house[0]) == "full_house 8 with J"
    bomb = CODEC.indices(Action.make("play", parse_cards("7s 7s 7h 7d 7c")), observation)
    assert CODEC.label(bomb[0]) == "bomb 7 (5 cards)"


# ----------------------------------------------------------------------------
# (3) errors


def test_masked_out_index_raises_naming_it_sf10() -> None:
    """An index masked out raises CodecError naming it: pass at a lead (SF-10: the leader
    must play), a reading the hand cannot make or that does not beat the table (SF-9),
    and indices outside the space."""
    state = new_deal(3)
    decision = decide(state)
    with pytest.raises(CodecError, match=r"index 0 \(pass\).*SF-10"):
        decision.choose(PASS_INDEX)
    off = [i for i in range(SIZE) if not decision.mask[i]]
    for index in off[1:6] + off[-3:]:
        with pytest.raises(
            CodecError, match=re.escape(f"index {index} ({CODEC.label(index)}) is masked out")
        ):
            decision.choose(index)
    for index in (-1, SIZE):
        with pytest.raises(CodecError, match=rf"index {index} is outside"):
            decision.choose(index)
    played = decision.choose(min(masked(decision.mask)))  # the lowest single
    state.apply(played)
    following = decide(state)
    assert following.mask[PASS_INDEX] == 1
    (same,) = CODEC.indices(played, observe(state))  # a single of the same rank does not beat it
    assert following.mask[same] == 0
    with pytest.raises(CodecError, match=rf"index {same} .*does not beat.*SF-9"):
        following.choose(same)


def test_a_decision_is_made_from_the_observation_of_the_seat_to_act() -> None:
    """C-5: only the observation of the seat to act holds its hand and legal actions:
    another seat's observation, a finished deal's, a state or another game's observation
    have no decision; indices, which depend on the action alone, take any observation."""
    state = new_deal(5)
    seat = state.to_act
    action = state.legal_actions()[0]
    (index,) = CODEC.indices(action, observe(state))
    for other in range(4):
        if other == seat:
            continue
        with pytest.raises(CodecError, match=rf"observation of seat {other}, but seat {seat}"):
            CODEC.decision(state.observe(other))
        assert CODEC.indices(action, state.observe(other)) == (index,)
    with pytest.raises(CodecError, match=r"from an observation .*not from SanfuState"):
        CODEC.decision(state)  # type: ignore[arg-type]
    guandan = make("guandan").new_deal(make("guandan").first_setup(), seed=1)
    with pytest.raises(CodecError, match="in sanfu deals, not in 'guandan'"):
        CODEC.decision(guandan.observe(guandan.to_act))
    rng = random.Random(5)
    while not state.is_terminal():
        decision = decide(state)
        state.apply(decision.choose(rng.choice(sorted(masked(decision.mask)))))
    assert state.to_act == NOBODY
    for viewer in range(4):
        with pytest.raises(CodecError, match="deal is over"):
            CODEC.decision(state.observe(viewer))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("play 3s 4s", "no straights"),
        ("play SJ BJ", "never combine"),
        ("play 3s 3h 4s 4h", "consecutive pairs need at least 3"),
        ("play 2s 2h 3s 3h 4s 4h", "never part of consecutive pairs"),
    ],
)
def test_action_without_reading_raises_sf8(text: str, why: str) -> None:
    """SF-8: cards that form no combination have no index; the error names the action
    and why."""
    action = Action.from_str(text)
    with pytest.raises(CodecError, match=rf"'{text}' has no reading.*{why}"):
        CODEC.indices(action, OBSERVATION)


def test_actions_that_are_not_sanfu_actions_raise() -> None:
    for action in (Action("tribute", parse_cards("3s")), Action("pass", parse_cards("3s"))):
        with pytest.raises(CodecError, match="not a sanfu action"):
            CODEC.indices(action, OBSERVATION)
    with pytest.raises(CodecError, match="not a card"):
        CODEC.indices(Action("play", (99,)), OBSERVATION)
    with pytest.raises(CodecError, match="encodes sanfu"):
        SanfuCodec(make("guandan"))


# ----------------------------------------------------------------------------
# (4) properties


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(0, 120), pick=st.randoms())
def test_round_trip_at_reachable_decisions_sf8_sf9(
    seed: int, moves: int, pick: random.Random
) -> None:
    """Property (SF-8, SF-9): at a decision reached by random play, a masked index decodes
    to an action the engine accepts, whose index is that index and whose reading is the
    one the label names; the engine's every listed action encodes to a masked index."""
    state = new_deal(seed)
    for _ in range(moves):
        if state.is_terminal():
            return
        decision = decide(state)
        state.apply(decision.choose(pick.choice(sorted(masked(decision.mask)))))
    if state.is_terminal():
        return
    observation = observe(state)
    decision = CODEC.decision(observation)
    index = pick.choice(sorted(masked(decision.mask)))
    action = decision.choose(index)
    state.check_legal(action)
    assert CODEC.indices(action, observation) == (index,)
    combo = CODEC.reading(index)
    assert (combo is None) == (action.verb == "pass")
    if combo is not None:
        assert reading(action.cards) == combo and CODEC.label(index) == combo.describe()
    for listed in state.legal_actions():
        assert decision.mask[CODEC.indices(listed, observation)[0]] == 1


@st.composite
def multisets(draw: st.DrawFn) -> tuple[int, ...]:
    """Up to 15 cards of at most three ranks, three copies of a card at most."""
    values = draw(st.lists(st.integers(LOWEST_VALUE, BIG_JOKER_VALUE), min_size=1, max_size=3))
    cards: list[int] = []
    for value in values:
        cards += draw(st.lists(st.sampled_from(list(value_cards(value))), max_size=5))
    counts = Counter(cards)
    return tuple(sorted(c for c, n in counts.items() for _ in range(min(n, 3))))


@settings(max_examples=300, deadline=None)
@given(cards=multisets())
def test_every_reading_has_its_own_index_sf8(cards: tuple[int, ...]) -> None:
    """Property (SF-8): a multiset with a reading encodes to that reading's index (its
    label the reading's description); one without raises CodecError."""
    action = Action.make("play", cards)
    combo = reading(cards) if cards else None
    if combo is None:
        with pytest.raises(CodecError):
            CODEC.indices(action, OBSERVATION)
        return
    (index,) = CODEC.indices(action, OBSERVATION)
    assert CODEC.reading(index) == combo and CODEC.label(index) == combo.describe()
    assert combo.value <= ACE_VALUE or combo.kind not in (Kind.PAIR_RUN, Kind.PLATE)
    assert combo.value <= TWO_VALUE or combo.kind in (
        Kind.SINGLE,
        Kind.PAIR,
        Kind.JOKER_TRIPLE,
    )
