"""The card-by-card action codec (``arena.env.codecs.cards``) on Shengji, 1 to 4 decks.

An action is spelled as its cards in ascending order, then ``end``; ``pass`` is one
index. A decision is made from the observation of the seat to act. The masks must let
through exactly the engine's legal actions: every declaration (SJ-8 … SJ-11), every
card the dealer may bury one at a time (SJ-13), every lead, throw (SJ-17) and follow
(SJ-19 … SJ-21, SJ-28, SJ-29), no more and no fewer; when the engine lists only a
sample, the plays the rules allow, listed or not.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import cast

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from arena.cards import (
    BIG_JOKER,
    NUM_KINDS,
    SMALL_JOKER,
    format_card,
    format_cards,
    make_card,
    parse_cards,
)
from arena.env.codecs import CodecError, codec_for
from arena.env.codecs.cards import END, PASS_INDEX, SIZE, CardByCardCodec, CardDecision
from arena.errors import IllegalActionError
from arena.games import NOBODY, PASS, Action, Observation, State, make
from arena.games.shengji.follow import follow_error, priority_list, score
from arena.games.shengji.leads import unit_leads
from arena.games.shengji.multisets import sub_multisets
from arena.games.shengji.order import TrumpOrder
from arena.games.shengji.shapes import decompose
from arena.games.shengji.trick import beatable

VARIANTS = ("shengji-1", "shengji-2", "shengji-3", "shengji-4")

TABLES = [
    pytest.param("shengji-1", {}, 24, id="shengji-1"),
    pytest.param("shengji-1", {"two_colour": True}, 12, id="shengji-1-two_colour"),
    pytest.param("shengji-2", {}, 8, id="shengji-2"),
    pytest.param("shengji-2", {"constant_twos": True}, 4, id="shengji-2-constant_twos"),
    pytest.param("shengji-3", {}, 6, id="shengji-3"),
    pytest.param("shengji-4", {}, 10, id="shengji-4"),
]
"""Variant, options, and how many whole deals to check every decision of."""


def seen(state: State) -> Observation:
    """The observation of the seat to act: what a decision is made from."""
    return state.observe(state.to_act)


def decisions(variant: str, seed: int, **options: object) -> Iterator[State]:
    """Every decision of one whole deal of ``variant`` under random play (declaring,
    burying and playing), the state before each action: one state, changed in place."""
    game = make(variant, **options)
    state = game.new_deal(game.first_setup(), seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        yield state
        state.apply(rng.choice(list(state.legal_actions())))


def spell_all(decision: CardDecision) -> list[tuple[Action, tuple[int, ...]]]:
    """Every complete spelling the masks let through, depth first over decision copies:
    each action reached, with the indices that spelled it. Checks every step's mask."""
    found: list[tuple[Action, tuple[int, ...]]] = []
    stack = [decision]
    while stack:
        node = stack.pop()
        chosen = node.selected
        allowed = np.flatnonzero(node.mask).tolist()
        assert allowed, f"dead end after {chosen}: no index allowed"
        for index in allowed:
            if index < NUM_KINDS:  # ascending card order
                assert not chosen or index >= chosen[-1], (chosen, index)
            elif index == END:
                assert chosen, "end allowed before any card"
            else:
                assert index == PASS_INDEX and not chosen, "pass allowed after a card"
            twin = node.copy()
            action = twin.choose(index)
            if action is None:
                assert twin.selected == (*chosen, index)
                stack.append(twin)
            else:
                assert index in (END, PASS_INDEX)
                assert twin.selected == chosen
                assert not twin.mask.any(), "a complete decision allows nothing"
                found.append((action, (*chosen, index)))
    return found


def step(decision: CardDecision, indices: Sequence[int]) -> Action | None:
    """Take ``indices`` one by one, each allowed by the mask; the last's result."""
    result = None
    for at, index in enumerate(indices):
        assert result is None, f"{indices}: complete before index {at}"
        assert decision.mask[index] == 1, f"{indices}: index {index} masked out at step {at}"
        result = decision.choose(index)
    return result


def walk(decision: CardDecision, rng: random.Random) -> Action:
    """Random allowed indices until the decision is complete: never a dead end."""
    while True:
        allowed = np.flatnonzero(decision.mask).tolist()
        assert allowed, f"dead end after {decision.selected}: no index allowed"
        result = decision.choose(rng.choice(allowed))
        if result is not None:
            return result


def check_decision(codec: CardByCardCodec, state: State) -> None:
    """The decision in ``state`` spells exactly the legal list, and each legal action's
    indices spell it."""
    observation = seen(state)
    assert observation.legal_complete
    legal = list(state.legal_actions())
    assert all(not action.tag for action in legal), "Shengji actions carry no tags"
    root = codec.decision(observation)
    assert root.complete
    assert root.selected == () and root.selected_cards == ()
    mask = root.mask
    assert mask.dtype == np.int8 and mask.shape == (SIZE,)
    assert mask[END] == 0
    assert mask[PASS_INDEX] == (PASS in legal)
    # the first cards allowed are exactly the legal actions' lowest cards
    firsts = {action.cards[0] for action in legal if action.cards}
    assert set(np.flatnonzero(mask[:NUM_KINDS]).tolist()) == firsts
    assert Counter(root.actions()) == Counter(legal)
    found = spell_all(root)
    actions = [action for action, _ in found]
    assert len(actions) == len(legal) == len(set(actions)), "an action spelled twice"
    assert Counter(actions) == Counter(legal), "spellings differ from the legal actions"
    for action, indices in found:
        assert indices == codec.indices(action, observation)
        assert indices == ((PASS_INDEX,) if not action.cards else (*action.cards, END))
    fresh_limit = 150  # a fresh decision per action; copies of one for the rest
    for n, action in enumerate(legal):
        indices = codec.indices(action, observation)
        decision = codec.decision(observation) if n < fresh_limit else root.copy()
        assert step(decision, indices) == action
        assert decision.done == action


@pytest.mark.parametrize(("variant", "options", "deals"), TABLES)
def test_masks_spell_exactly_the_legal_actions(
    variant: str, options: dict[str, object], deals: int
) -> None:
    """Every decision of whole random deals whose listing is complete, declaring (SJ-8 …
    SJ-11: ``pass`` always allowed), burying one card at a time (SJ-13: spellings of one
    card) and playing (SJ-17 … SJ-21, SJ-28, SJ-29; two-colour pairs SJ-31, constant twos
    SJ-3): the spellings the masks allow, enumerated depth first, are the legal list
    exactly (same size, no repeats), and each legal action's indices spell it with every
    step masked in. (Sampled listings: the tests below.)"""
    codec = CardByCardCodec(make(variant, **options))
    phases: Counter[str] = Counter()
    largest = 0
    for seed in range(deals):
        for state in decisions(variant, seed, **options):
            observation = seen(state)
            if not observation.legal_complete:
                phases["sampled"] += 1
                continue
            legal = state.legal_actions()
            phases[state.phase] += 1
            largest = max(largest, len(legal))
            check_decision(codec, state)
            decision = codec.decision(observation)
            if state.phase == "declare":
                assert decision.mask[PASS_INDEX] == 1, "a player may always decline (SJ-11)"
                assert decision.verb == "declare"
            elif state.phase == "bury":
                assert decision.verb == "bury"
                assert all(len(action.cards) == 1 for action in legal), "SJ-13"
            else:
                assert decision.verb == "play" and decision.mask[PASS_INDEX] == 0
    assert phases["declare"] and phases["play"]
    assert phases["bury"] or variant == "shengji-4", "4 decks have no kitty (SJ-13)"
    if variant in ("shengji-2", "shengji-3"):
        assert largest > 100, "throws and follows of hundreds of plays are among them"
    if variant == "shengji-4":
        assert not phases["sampled"], "4 decks forbid throws: every lead is listed (SJ-17)"


# ------------------------------------------------------------- sampled listings


def _order(observation: Observation) -> TrumpOrder:
    """The deal's order, from the public facts (the test's own reading)."""
    public = observation.public
    trump, two_colour = public["trump"], bool(public["two_colour"])
    names = ("black", "red") if two_colour else ("s", "h", "d", "c")
    suit = None if trump == "notrump" else names.index(trump)
    twos = bool(public["constant_twos"]) or observation.game == "shengji-4"
    return TrumpOrder(int(public["level"]), suit, twos, two_colour)


def _standing_throw(state: State, rng: random.Random) -> Action | None:
    """A throw that stands (SJ-17): the units of one suit of the leader that no other
    hand can beat (engine side: it reads every hand), or ``None``."""
    observation = seen(state)
    order, seat = _order(observation), observation.seat
    suits = sorted({order.suits[card] for card in observation.hand})
    rng.shuffle(suits)
    for suit in suits:
        mine = [card for card in observation.hand if order.suits[card] == suit]
        others = [
            [card for card in state.hand(other) if order.suits[card] == suit]
            for other in range(4)
            if other != seat
        ]
        units = [unit for unit in decompose(mine, order) if not beatable(unit, others, order)]
        if len(units) >= 2:
            return Action.make("play", [card for unit in units for card in unit.cards])
    return None


def sampled_positions(variant: str, deals: int) -> Iterator[State]:
    """The play decisions listed as a sample in random deals of ``variant``: leads with
    more than 1000 card sets (SJ-17) and follows with more than 1000 ways (SJ-19). The
    leaders throw often (a throw that stands, or a random spelling through the masks,
    whose throw mostly fails and leads its smallest beatable unit), so that long follows
    come up. One state, changed in place."""
    game = make(variant)
    codec = CardByCardCodec(game)
    for seed in range(deals):
        state = game.new_deal(game.first_setup(), seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            observation = seen(state)
            if not observation.legal_complete:
                yield state
            action = None
            if observation.phase == "play" and not observation.public["trick"]["plays"]:
                draw = rng.random()
                if draw < 0.5:
                    action = _standing_throw(state, rng)
                elif draw < 0.7:
                    action = walk(codec.decision(observation), rng)
            state.apply(action or rng.choice(list(state.legal_actions())))


_LAYOUT = {2: (25, 8), 3: (39, 6), 4: (54, 0)}
_SPADES, _HEARTS = 0, 1


def hand_built_follow(variant: str, seed: int, unit: bool = False) -> State:
    """A follow of trumps (SJ-19 b, SJ-28, SJ-29), seat 1 holding many of them; the
    others hold random cards.

    A throw (2 and 3 decks): hearts are declared trump by seat 0 (SJ-8), who holds every
    level card (2s) and joker and leads some of them (a throw of them stands, SJ-17; one
    seed in four, singles only);
    seat 1 holds a random half or more of its hand in hearts. One ``unit`` (3 decks,
    hearts declared: a Titanic of jokers, SJ-16, SJ-28; 4 decks, spades trump, SJ-10: a
    tractor of 3 or 4 pairs of spades A K Q J, SJ-29): seat 1 holds the other trumps
    once each (3 … A or 3 … 10 of the trump suit, the 2s), a few twice."""
    decks = int(variant.rsplit("-", 1)[1])
    hand_size, kitty_size = _LAYOUT[decks]
    rng = random.Random(seed)
    twos = [make_card(0, suit) for suit in range(4)]
    tops = [*twos, SMALL_JOKER, BIG_JOKER]
    trump = _SPADES if decks == 4 else _HEARTS
    order = TrumpOrder(0, trump, decks == 4, False)
    if unit:
        top_ranks = range(9, 13) if decks == 4 else ()
        leader = [make_card(rank, trump) for rank in top_ranks for _ in range(2)]
        if decks == 3:
            leader = [SMALL_JOKER] * 3 + [BIG_JOKER] * 3 + [make_card(0, _HEARTS)]
        follower = [make_card(rank, trump) for rank in range(1, 13) if rank not in top_ranks]
        follower += twos if decks == 3 else tops
        follower += rng.sample(follower, rng.randint(0, 2))
    else:
        leader = [card for card in tops for _ in range(decks)]
        follower = [make_card(rank, _HEARTS) for rank in range(1, 13) for _ in range(decks)]
        rng.shuffle(follower)
        del follower[rng.randint(hand_size // 2, min(len(follower), hand_size, 24)) :]
    lead_cards = sorted(leader[:8] if decks == 4 else leader[:6])
    rest = Counter(card for card in range(NUM_KINDS) for _ in range(decks))
    rest -= Counter(leader) + Counter(follower)
    plain = [card for card in rest.elements() if not order.is_trump(card)]
    trumps = [card for card in rest.elements() if order.is_trump(card)]
    rng.shuffle(plain)
    for hand in (leader, follower):
        missing = hand_size - len(hand)
        hand += plain[:missing]
        del plain[:missing]
    others = trumps + plain
    rng.shuffle(others)
    hands = [leader, follower, others[:hand_size], others[hand_size : 2 * hand_size]]
    if kitty_size:
        hands.append(others[2 * hand_size :])
    game = make(variant)
    state = game.new_deal(game.first_setup(), hands=hands)
    while state.phase == "declare":
        hearts_twos = [
            action
            for action in state.legal_actions()
            if action.verb == "declare" and set(action.cards) == {make_card(0, _HEARTS)}
        ]
        declares = state.to_act == 0 and hearts_twos and decks < 4
        state.apply(max(hearts_twos) if declares else PASS)
    while state.phase == "bury":
        state.apply(Action("bury", (next(c for c in state.hand(0) if not order.is_trump(c)),)))
    assert state.observe(0).public["trump"] == ("s" if decks == 4 else "h")
    assert state.to_act == 0
    if unit:
        units = unit_leads(lead_cards, order, decks)
        lead = rng.choice([unit for unit in units if len(unit.cards) >= 6])
    else:
        chosen = [card for card in tops for _ in range(rng.choice((0, 1, 1, 2, decks)))]
        if seed % 4 == 0:  # singles only: no shape to match, any trumps will do
            chosen = rng.sample(tops, rng.randint(3, 6))
        lead = Action.make("play", chosen or [BIG_JOKER])
    state.apply(lead)
    assert all(event.kind != "throw_failed" for event in state.events)
    assert len(decompose(lead.cards, order)) == 1 or not unit
    return state


def _engine_takes(state: State, action: Action) -> bool:
    """Whether the engine accepts ``action`` (checked, then applied, on a copy)."""
    try:
        state.check_legal(action)
        state.clone().apply(action)
    except IllegalActionError:
        return False
    return True


def _codec_takes(codec: CardByCardCodec, observation: Observation, action: Action) -> bool:
    """Whether ``action`` has a spelling (its indices step through a fresh decision)."""
    try:
        indices = codec.indices(action, observation)
    except CodecError:
        return False
    assert step(codec.decision(observation), indices) == action
    return True


def check_sampled(
    codec: CardByCardCodec, state: State, rng: random.Random, walks: int, probes: int
) -> Counter[str]:
    """A decision listed as a sample: (a) every listed action is spelled, its indices
    stepping through the masks; (b) ``walks`` random spellings through the masks are
    each accepted by the engine (on a copy); (c) ``probes`` card sets near them (a card
    swapped for another of the hand; a lead one card longer, a follow two cards swapped)
    and drawn from the hand at random are spelled exactly when the engine accepts them.
    Counts what it saw."""
    observation = seen(state)
    assert not observation.legal_complete and observation.legal_description
    legal = list(observation.legal_actions)
    root = codec.decision(observation)
    assert not root.complete and root.verb == "play"
    assert Counter(root.actions()) == Counter(legal), "actions(): the listed sample"
    assert root.mask[PASS_INDEX] == 0 and root.mask[END] == 0
    for action in legal:  # (a)
        assert step(root.copy(), codec.indices(action, observation)) == action
    seen_counts: Counter[str] = Counter()
    spelled = []
    for _ in range(walks):  # (b)
        action = walk(root.copy(), rng)
        assert action.verb == "play" and not action.tag
        assert action.cards == tuple(sorted(action.cards))
        assert _engine_takes(state, action), f"{action} spelled, refused by the engine"
        spelled.append(action)
        seen_counts["listed" if action in legal else "unlisted"] += 1
    hand = list(observation.hand)
    leading = not observation.public["trick"]["plays"]
    for n in range(probes):  # (c)
        cards = list(rng.choice(spelled).cards)
        if n % 3 == 2:
            cards = rng.sample(hand, len(cards))
        else:  # a card swapped; or a lead one card longer, a follow two cards swapped
            swaps = 1 if n % 3 == 0 else 0 if leading else 2
            for _ in range(swaps):
                cards.pop(rng.randrange(len(cards)))
            for _ in range(swaps if swaps else 1):
                rest = Counter(hand) - Counter(cards)
                if rest:
                    cards.append(rng.choice(list(rest.elements())))
        action = Action.make("play", cards)
        verdict = _engine_takes(state, action)
        assert _codec_takes(codec, observation, action) == verdict, (
            f"{action}: engine {'takes' if verdict else 'refuses'} it, the codec "
            f"{'does not' if verdict else 'does'} ({observation.legal_description})"
        )
        seen_counts["probe accepted" if verdict else "probe refused"] += 1
    return seen_counts


def test_sampled_leads_spell_every_lead_of_one_suit() -> None:
    """SJ-17, SJ-18: a hand that could lead more than 1000 card sets lists only its single
    combinations; the masks allow any cards of one suit (trumps one suit, SJ-2): every
    listed lead is spelled, random spellings are leads the engine takes (throws among
    them, standing or failing), and card sets near them are spelled exactly when the
    engine takes them. Positions of random deals with 2 and 3 decks."""
    counts: Counter[str] = Counter()
    for variant, deals in (("shengji-2", 40), ("shengji-3", 3)):
        codec = CardByCardCodec(make(variant))
        rng = random.Random(variant)
        positions = 0
        for state in sampled_positions(variant, deals):
            if not seen(state).public["trick"]["plays"]:
                positions += 1
                counts += check_sampled(codec, state, rng, walks=25, probes=30)
                if positions == 12:
                    break
        assert positions >= 5, f"{variant}: only {positions} sampled leads"
    assert counts["unlisted"] > 100, "throws are spelled (the sample lists none)"
    assert counts["probe accepted"] > 50 and counts["probe refused"] > 50, counts


def test_a_throw_is_reachable_in_a_sampled_lead() -> None:
    """SJ-17: with three decks a full hand may lead more than 1000 card sets; the engine
    lists the single combinations only, yet a throw (two combinations of one suit) is
    spelled through the masks and the engine takes it. After any first card, the cards
    allowed are exactly those of its suit (trumps one suit, SJ-2: jokers, level cards and
    the trump suit together) still held, never below it; a card of another suit is
    refused, and the engine refuses the lead too (SJ-18)."""
    codec = CardByCardCodec(make("shengji-3"))
    state = next(
        s for s in sampled_positions("shengji-3", 5) if not seen(s).public["trick"]["plays"]
    )
    observation = seen(state)
    legal = list(observation.legal_actions)
    order = _order(observation)
    hand = observation.hand
    for first in sorted(set(hand)):
        decision = codec.decision(observation)
        decision.choose(first)
        allowed = set(np.flatnonzero(decision.mask[:NUM_KINDS]).tolist())
        suit = [card for card in hand if order.suits[card] == order.suits[first]]
        after = Counter(suit) - Counter([first])
        assert allowed == {card for card in after if card >= first}, format_card(first)
        assert decision.mask[END] == 1 and decision.mask[PASS_INDEX] == 0
    assert any(order.is_trump(card) for card in hand), "trumps among the first cards"
    low = hand[0]
    suit = [card for card in hand if order.suits[card] == order.suits[low]]
    high = next(card for card in suit if order.orders[card] != order.orders[low])
    throw = Action.make("play", [low, high])
    assert len(decompose(throw.cards, order)) == 2 and throw not in legal
    indices = codec.indices(throw, observation)
    assert indices == (*throw.cards, END)
    assert step(codec.decision(observation), indices) == throw
    state.check_legal(throw)
    state.clone().apply(throw)
    other = next(card for card in hand if order.suits[card] != order.suits[low])
    decision = codec.decision(observation)
    decision.choose(low)
    with pytest.raises(CodecError, match="a lead is any cards of one suit"):
        decision.choose(other)
    mixed = Action.make("play", [low, other])
    with pytest.raises(CodecError, match="is not legal now"):
        codec.indices(mixed, observation)
    with pytest.raises(IllegalActionError):
        state.clone().apply(mixed)


def test_sampled_follows_of_random_deals() -> None:
    """SJ-19 (a): a follower with no more cards of the led suit than the lead plays all
    of them and any others; with many others the engine lists a sample, and the masks
    allow exactly those plays (positions of random deals with 2 and 3 decks, leaders
    throwing often)."""
    counts: Counter[str] = Counter()
    positions = 0
    for variant, deals in (("shengji-2", 40), ("shengji-3", 12)):
        codec = CardByCardCodec(make(variant))
        rng = random.Random(variant)
        for state in sampled_positions(variant, deals):
            if seen(state).public["trick"]["plays"]:
                positions += 1
                counts += check_sampled(codec, state, rng, walks=20, probes=20)
    assert positions >= 8, f"only {positions} sampled follows"
    assert counts["unlisted"] > 0 and counts["probe accepted"] > 0, counts


@pytest.mark.parametrize(
    ("variant", "unit"),
    [("shengji-2", False), ("shengji-3", False), ("shengji-3", True), ("shengji-4", True)],
)
def test_sampled_follows_matching_the_lead_shape(variant: str, unit: bool) -> None:
    """SJ-19 (b), SJ-28, SJ-29: a follower holding many trumps, led jokers and level
    cards (a throw, or with 4 decks one unit), must match the lead's shape as far as its
    trumps allow; with more than 1000 ways the engine lists a sample. The masks allow
    exactly the plays the engine takes: every listed one, random spellings, and card
    sets near them (hand-built deals)."""
    codec = CardByCardCodec(make(variant))
    rng = random.Random(variant)
    counts: Counter[str] = Counter()
    positions = 0
    for seed in range(60 if variant != "shengji-4" else 40):
        state = hand_built_follow(variant, seed, unit)
        if seen(state).legal_complete:
            continue
        positions += 1
        counts += check_sampled(codec, state, rng, walks=20, probes=25)
        if positions >= 10:
            break
    assert positions >= 8, positions
    assert counts["unlisted"] > 0 and counts["probe refused"] > 0, counts


def test_sampled_follow_spells_exactly_the_plays_the_engine_takes() -> None:
    """SJ-19 (b): on hand-built follows listed as a sample, every play of the lead's size
    from the follower's trumps (all of them, for the smaller positions) is spelled
    exactly when the engine takes it."""
    codec = CardByCardCodec(make("shengji-2"))
    checked = 0
    for seed in range(40):
        state = hand_built_follow("shengji-2", seed)
        observation = seen(state)
        if observation.legal_complete:
            continue
        size = len(observation.public["trick"]["plays"][0][1].split())
        order = _order(observation)
        trumps = [card for card in observation.hand if order.is_trump(card)]
        plays = sub_multisets(trumps, size)
        if len(plays) > 2500:
            continue
        taken = 0
        for cards in plays:
            action = Action("play", cards)
            verdict = _engine_takes(state, action)
            assert _codec_takes(codec, observation, action) == verdict, action
            taken += verdict
        assert taken > 1000, "a sampled listing has more than 1000 legal plays"
        checked += 1
        if checked == 2:
            break
    assert checked == 2


def _follow_observation(
    decks: int, order: TrumpOrder, lead: Sequence[int], hand: Sequence[int]
) -> Observation:
    """A stand-in observation of seat 1 to follow ``lead``, its listing a sample (none
    listed): the codec reads the hand, the trick and the order's public facts."""
    trump = "notrump" if order.trump is None else "shdc"[order.trump]
    public = {
        "level": order.level,
        "trump": trump,
        "constant_twos": order.constant_twos,
        "two_colour": False,
        "trick": {"leader": 0, "plays": [(0, format_cards(lead))], "winning": 0},
    }
    return Observation(
        f"shengji-{decks}", 1, "play", 1, tuple(sorted(hand)), (), (), public, {}, False, "x"
    )


Case = tuple[int, int, int | None, list[int], list[int], list[int]]


@st.composite
def follow_cases(draw: st.DrawFn) -> Case:
    """A lead of one suit (one unit, or a throw but with 4 decks, SJ-17) and a follower's
    hand holding more cards of that suit than the lead, no card more often than the decks
    hold: plain data (decks, level, trump suit, lead, cards of the suit, other cards)."""
    decks, level = draw(st.integers(2, 4)), draw(st.integers(0, 12))
    trump = draw(st.sampled_from([None, 0, 1, 2, 3]))
    order = _order_of(decks, level, trump)
    suit = draw(st.sampled_from(sorted(set(order.suits))))
    kinds = [card for card in range(NUM_KINDS) if order.suits[card] == suit]
    if draw(st.booleans(), label="a run"):  # kinds of consecutive orders: tractors
        kinds.sort(key=order.orders.__getitem__)
        start = draw(st.integers(0, len(kinds) - 1))
        led = kinds[start : start + draw(st.integers(1, 6))]
    else:
        led = draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=4, unique=True))
    pool = [card for card in led for _ in range(decks)]
    if decks == 4 or draw(st.booleans(), label="one unit"):  # a set or tractor of those
        units = [u.cards for u in unit_leads(sorted(pool), order, decks) if len(u.cards) > 1]
        lead = list(draw(st.sampled_from(units)))
    else:
        lead = [c for c in led for _ in range(draw(st.integers(1, decks), label="copies"))]
        assume(len(lead) >= 2)
    held = draw(st.lists(st.sampled_from(kinds), min_size=3, max_size=8, unique=True))
    suited = [
        card
        for card in held
        for _ in range(draw(st.integers(0, decks - lead.count(card)), label="held copies"))
    ]
    assume(len(suited) > len(lead))
    others = draw(
        st.lists(st.sampled_from([c for c in range(NUM_KINDS) if order.suits[c] != suit]))
    )
    return decks, level, trump, sorted(lead), sorted(suited), others


def _order_of(decks: int, level: int, trump: int | None) -> TrumpOrder:
    return TrumpOrder(level, trump, decks == 4, False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=follow_cases())
@example(  # 2 decks: 3h 3h 4h 4h led to pairs of 6h 8h Th Qh, none consecutive: any two
    case=(2, 0, None, [5, 5, 9, 9], [17, 17, 25, 25, 33, 33, 41, 41, 45, 49], [0, 52])
)
@example(  # 4 decks: a tractor of five pairs led to 9h x4, Jh x4, Kh Kh: five pairs
    case=(4, 0, 0, [5, 5, 9, 9, 13, 13, 17, 17, 21, 21], [29] * 4 + [37] * 4 + [45, 45, 49], [])
)
def test_sampled_follow_rule_matches_the_engine_check(case: Case) -> None:
    """Property (SJ-19 b, SJ-28, SJ-29): for any lead and any follower with more cards of
    its suit than the lead, with 2 to 4 decks, a play of the lead's size from those cards
    is spelled exactly when the engine's own check of a follow
    (:func:`arena.games.shengji.follow.follow_error`) finds it legal (every play, or 300
    of them, and random spellings through the masks): tractors led to
    hands holding only sets (a quad counting as two pairs), throws of several sets and
    singles, every line of the priority lists."""
    decks, level, trump, lead, suited, others = case
    order = _order_of(decks, level, trump)
    hand = sorted(suited + others)
    observation = _follow_observation(decks, order, lead, hand)
    codec = CardByCardCodec(make(f"shengji-{decks}"))
    units = decompose(lead, order)
    shaped = score(suited, units, order, decks) != score((), units, order, decks)
    listed = priority_list(units, decks) is not None
    tractor = any(unit.length > 1 for unit in units)
    event(f"{'priority list' if listed else 'SJ-19 b'}, {'shaped' if shaped else 'any cards'}")
    event("a tractor led" if tractor else "no tractor led")
    plays = sub_multisets(suited, len(lead))
    rng = random.Random(repr(case))
    if len(plays) > 300:
        plays = rng.sample(plays, 300)
    for cards in plays:
        action = Action("play", cards)
        verdict = not follow_error(hand, cards, units, order.suits[lead[0]], order, decks)
        assert _codec_takes(codec, observation, action) == verdict, (action, verdict)
    for _ in range(10):  # random spellings: legal ones, however rare among the plays
        action = walk(codec.decision(observation), rng)
        assert not follow_error(hand, action.cards, units, order.suits[lead[0]], order, decks)


# ------------------------------------------------------------- refusals


def _masked_out(decision: CardDecision) -> list[int]:
    return np.flatnonzero(decision.mask == 0).tolist()


@pytest.mark.parametrize("variant", VARIANTS)
def test_masked_out_index_is_refused_by_name(variant: str) -> None:
    """An index the mask refuses raises CodecError naming the index and its label, and
    leaves the decision as it was: declaring (SJ-8), burying (SJ-13) and playing."""
    codec = CardByCardCodec(make(variant))
    rng = random.Random(1)
    for n, state in enumerate(decisions(variant, 3)):
        if n % 3:
            continue
        observation = seen(state)
        decision = codec.decision(observation)
        legal = list(state.legal_actions())
        action = rng.choice(legal)
        path = codec.indices(action, observation)
        for index in path:
            before, mask = decision.selected, decision.mask.copy()
            refused = _masked_out(decision)
            for bad in rng.sample(refused, min(5, len(refused))):
                with pytest.raises(CodecError) as caught:
                    decision.choose(bad)
                assert f"index {bad} ({codec.label(bad)}) is masked out" in str(caught.value)
                assert decision.selected == before
                assert np.array_equal(decision.mask, mask)
            result = decision.choose(index)
        assert result == action
        with pytest.raises(CodecError, match="this decision is complete"):
            decision.choose(path[-1])


def test_refusals_explain_why() -> None:
    """The messages of refused indices and actions say why: out of the space, not an
    integer, cards out of ascending order, end before a card, pass after a card, an
    action of another verb than the phase's (SJ-13 bury, SJ-18 play)."""
    game = make("shengji-2")
    codec = CardByCardCodec(game)
    states = decisions("shengji-2", 5)
    state = next(states)
    assert state.phase == "declare"
    observation = seen(state)
    decision = codec.decision(observation)
    for bad in (SIZE, -1):
        with pytest.raises(CodecError, match=f"index {bad} is outside"):
            decision.choose(bad)
    with pytest.raises(CodecError, match="not an integer"):
        decision.choose(cast(int, "7h"))
    with pytest.raises(CodecError, match="no card is chosen yet"):
        decision.choose(END)
    with pytest.raises(CodecError, match="not of this decision's verb"):
        codec.indices(Action("play", (0,)), observation)
    assert codec.indices(PASS, observation) == (PASS_INDEX,)
    assert decision.choose(cast(int, np.int64(PASS_INDEX))) == PASS  # numpy ints are indices

    state = next(s for s in states if s.phase == "bury")
    observation = seen(state)
    decision = codec.decision(observation)
    card = state.hand(state.to_act)[-1]
    with pytest.raises(CodecError, match="pass is not legal now"):
        decision.choose(PASS_INDEX)
    with pytest.raises(CodecError, match="'bury …'"):
        codec.indices(Action("play", (card,)), observation)
    assert codec.indices(Action("bury", (card,)), observation) == (card, END)
    decision.choose(card)
    with pytest.raises(CodecError, match="pass is taken before any card"):
        decision.choose(PASS_INDEX)

    state = next(  # a lead: any card may be led alone (SJ-18)
        s
        for s in states
        if s.phase == "play"
        and Action("play", (max(s.hand(s.to_act)),)) in s.legal_actions()
        and min(s.hand(s.to_act)) < max(s.hand(s.to_act))
    )
    observation = seen(state)
    decision = codec.decision(observation)
    high, low = max(state.hand(state.to_act)), min(state.hand(state.to_act))
    decision.choose(high)
    with pytest.raises(
        CodecError, match=f"ascending order and the last chosen is {format_card(high)}"
    ):
        decision.choose(low)
    not_held = next(c for c in range(NUM_KINDS) if c not in state.hand(state.to_act))
    with pytest.raises(CodecError, match="not among the legal actions listed"):
        codec.indices(Action("play", (not_held,)), observation)


def test_decision_reads_its_observation_only() -> None:
    """A decision is made from the observation of the seat to act, and stands for that
    moment of the deal: another seat's observation has no decision (it holds neither the
    legal actions nor the hand); the state moving on does not change a decision made
    before (the caller makes a new one after every move)."""
    codec = CardByCardCodec(make("shengji-2"))
    state = next(s for s in decisions("shengji-2", 2) if s.phase == "play")
    other = (state.to_act + 1) % 4
    with pytest.raises(CodecError, match=f"seat {other}, but seat {state.to_act} is to act"):
        codec.decision(state.observe(other))
    with pytest.raises(CodecError, match="is to act"):
        codec.indices(state.legal_actions()[0], state.observe(other))
    observation = seen(state)
    decision = codec.decision(observation)
    action = state.legal_actions()[0]
    indices = codec.indices(action, observation)
    state.apply(action)
    assert step(decision, indices) == action
    assert codec.indices(action, observation) == indices


def test_labels_and_space() -> None:
    """56 indices: one per card kind (C-1 notation), end, pass; factored."""
    codec = codec_for(make("shengji-2"))
    assert isinstance(codec, CardByCardCodec)
    assert codec.size == SIZE == 56 and codec.factored
    assert (END, PASS_INDEX) == (54, 55)
    assert codec.label(parse_cards("7h")[0]) == "card 7h"
    assert codec.label(52) == "card SJ" and codec.label(53) == "card BJ"
    assert codec.label(END) == "end" and codec.label(PASS_INDEX) == "pass"
    assert [codec.label(i) for i in range(NUM_KINDS)] == [
        f"card {format_card(c)}" for c in range(NUM_KINDS)
    ]
    with pytest.raises(CodecError, match="outside"):
        codec.label(SIZE)


def test_terminal_state_has_no_decision() -> None:
    """Once the deal is over (SJ-25/SJ-30 settle it) there is no decision to make."""
    codec = CardByCardCodec(make("shengji-1"))
    *_, last = decisions("shengji-1", 0)  # one state, played to the end
    assert last.is_terminal() and last.to_act == NOBODY
    for seat in range(4):
        with pytest.raises(CodecError, match="the deal is over"):
            codec.decision(last.observe(seat))


# ------------------------------------------------------------- synthetic listings


def listed(actions: Sequence[Action], complete: bool = True) -> Observation:
    """A stand-in observation of seat 0 whose legal list is ``actions`` (the codec reads
    only those while the listing is complete)."""
    return Observation("shengji-4", 0, "play", 0, (), tuple(actions), (), legal_complete=complete)


def test_mixed_verbs_tag_clashes_and_cardless_actions_are_refused() -> None:
    """A decision whose card actions mix verbs, two actions with the same cards and
    different tags, two actions without cards, or one without cards that is not pass:
    no spelling, a CodecError naming them. Exact repeats and lone tags are fine."""
    codec = CardByCardCodec(make("shengji-2"))

    def decide(*actions: Action) -> CardDecision:
        return codec.decision(listed(actions))

    with pytest.raises(CodecError, match="mix the verbs bury, play"):
        decide(Action("bury", (3,)), Action("play", (4,)))
    with pytest.raises(CodecError, match="same cards but differ in verb or tag"):
        decide(Action("play", (3, 4)), Action("play", (3, 4), "pair"))
    with pytest.raises(CodecError, match="both have no cards"):
        decide(PASS, Action("skip"))
    with pytest.raises(CodecError, match="has no cards and is not 'pass'"):
        decide(Action("skip"), Action("play", (3,)))
    tagged = Action("play", (3, 4), "run")
    decision = decide(tagged, tagged, Action("play", (3,)))
    assert step(decision, (3, 4, END)) == tagged
    only_pass = decide(PASS)
    assert only_pass.verb is None
    assert np.flatnonzero(only_pass.mask).tolist() == [PASS_INDEX]
    with pytest.raises(CodecError, match="no legal action has cards"):
        only_pass.choose(3)
    with pytest.raises(CodecError, match="do not give the rule"):  # no public facts
        codec.decision(listed([Action("play", (3,))], complete=False))


multisets = st.lists(st.integers(0, NUM_KINDS - 1), min_size=1, max_size=7).map(
    lambda cards: tuple(sorted(cards))
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cards=st.lists(multisets, max_size=40, unique=True),
    with_pass=st.booleans(),
    walk=st.lists(st.integers(0, 10**6), min_size=8, max_size=8),
)
def test_any_listing_is_spelled_exactly(
    cards: list[tuple[int, ...]], with_pass: bool, walk: list[int]
) -> None:
    """Property, for any list of card multisets (duplicates of a card as with several
    decks, SJ-14; one action's cards a prefix of another's, as a pair and the tractor it
    starts): the masks spell exactly the list, each action's indices step through a
    fresh decision to it, and a walk of random allowed indices never meets a dead end,
    can at each step still become exactly the listed actions its cards begin, and ends on
    a listed action."""
    actions = [Action("play", held) for held in cards] + ([PASS] if with_pass else [])
    if not actions:
        return
    codec = CardByCardCodec(make("shengji-4"))
    observation = listed(actions)
    found = [action for action, _ in spell_all(codec.decision(observation))]
    assert sorted(found) == sorted(actions)
    for action in actions:
        indices = codec.indices(action, observation)
        assert step(codec.decision(observation), indices) == action
    decision = codec.decision(observation)
    result = None
    for draw in walk:
        chosen = decision.selected_cards
        assert (
            Counter(decision.actions())
            == Counter(  # pass too, before any card
                action for action in actions if action.cards[: len(chosen)] == chosen
            )
        )
        allowed = np.flatnonzero(decision.mask).tolist()
        result = decision.choose(allowed[draw % len(allowed)])
        if result is not None:
            break
    assert result is not None, "at most 7 cards and end: eight steps complete any action"
    assert result in actions
    assert result == PASS or result.cards == decision.selected_cards


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_agent_plays_whole_deals_through_the_masks(
    variant: str, seed: int, data: st.DataObject
) -> None:
    """Property: an agent that only ever takes allowed indices (a random walk seeded by
    hypothesis) plays a whole deal, declaring (SJ-8), burying (SJ-13) and playing to the end
    (SJ-18 … SJ-30): every decision ends on a legal action the engine applies (listed,
    or when the listing is a sample, one the engine takes: throws among them)."""
    game = make(variant)
    codec = codec_for(game)
    state = game.new_deal(game.first_setup(), seed=seed)
    rng = random.Random(data.draw(st.integers(0, 2**32 - 1), label="walk"))
    moves = 0
    while not state.is_terminal():
        observation = seen(state)
        result = walk(cast(CardDecision, codec.decision(observation)), rng)
        if observation.legal_complete:
            assert result in state.legal_actions()
        state.apply(result)
        moves += 1
    assert state.outcome().scores
    assert moves > 0
