"""What is public when (tests/public_cards.py), rule by rule, in built positions (one
deal, seconds each): Guandan's tribute and returns face down until shown (GD-13,
GD-14), Shengji's kitty buried face down until the end (SJ-13, SJ-25), four-deck
declarations hidden (SJ-10), sanfu's cards face down but the turned ones (SF-2), and
no seat's hand in another seat's observation (C-5). Then the leak checks themselves:
each finds a leak planted on purpose in the engine's events or observations
(tests/leak_plants.py; the wire is tests/test_server_games.py)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import leak_plants as plants
import pytest
from game_suite import (
    check_observation_ignores_other_hands,
    check_observations,
    check_observations_now,
)
from public_cards import Statement, statement_for, tributes_owed

from arena.cards import BIG_JOKER, Card, deck, parse_cards
from arena.games import PASS, Action, Game, State, make
from arena.games.guandan import GuandanSetup, GuandanState
from arena.games.sanfu import SanfuGame, SanfuSetup, SanfuState
from arena.games.shengji import ShengjiSetup, ShengjiState

Chooser = Callable[[State, random.Random], Action]


def first_legal(state: State, rng: random.Random) -> Action:
    return state.legal_actions()[0]


def random_legal(state: State, rng: random.Random) -> Action:
    legal = state.legal_actions()
    return legal[rng.randrange(len(legal))]


def watch(
    game: Game,
    state: State,
    choose: Chooser = random_legal,
    seed: int = 0,
    public: Statement | None = None,
) -> Statement:
    """Play the deal out, checking C-5 (game_suite.check_observations_now) at every
    moment; return the statement of what became public (``public``: the statement of
    a deal already under way, else ``state`` is a deal's start)."""
    public = public or statement_for(state)
    held: list[Counter[Card]] = [Counter() for _ in range(4)]
    rng = random.Random(seed)
    while not state.is_terminal():
        check_observations_now(game, state, public, held)
        action = choose(state, rng)
        public.take(state.to_act, action)
        state.apply(action)
    check_observations_now(game, state, public, held)
    return public


# ------------------------------------------------------------ Guandan: tribute


def double_tribute_deal() -> tuple[Game, GuandanState]:
    """The deal after 双下 of team 0 (seats 0 and 2 out first): seats 1 and 3 owe
    tribute (GD-14); both big jokers are with seat 0, so nobody refuses (GD-15)."""
    cards = deck(2)
    random.Random(1).shuffle(cards)
    hands = [cards[k::4] for k in range(4)]
    for seat in (1, 2, 3):
        while BIG_JOKER in hands[seat]:
            giving = next(c for c in hands[0] if c != BIG_JOKER)
            hands[seat][hands[seat].index(BIG_JOKER)] = giving
            hands[0][hands[0].index(giving)] = BIG_JOKER
    game = make("guandan")
    setup = GuandanSetup(previous_order=(0, 2, 1, 3), deal_index=1)
    state = game.new_deal(setup, hands=hands)
    assert isinstance(state, GuandanState)
    assert tributes_owed(setup.previous_order, hands) == 2
    return game, state


def kinds(state: State) -> list[str]:
    return [e.kind for e in state.events]


def test_gd14_double_tribute_and_returns_stay_face_down_until_all_are_made() -> None:
    game, state = double_tribute_deal()
    public = statement_for(state)
    held: list[Counter[Card]] = [Counter() for _ in range(4)]
    shown_at: dict[str, list[int]] = {"tribute": [], "return": []}
    for step in range(4):  # two tributes, then two returns
        check_observations_now(game, state, public, held)
        action = state.legal_actions()[0]
        assert action.verb == ("tribute" if step < 2 else "return")
        public.take(state.to_act, action)
        state.apply(action)
        for kind in shown_at:
            shown_at[kind].append(kinds(state).count(kind))
    # nothing shown after the first of each; both shown at once after the second
    assert shown_at == {"tribute": [0, 2, 2, 2], "return": [0, 0, 0, 2]}
    watch(game, state, public=public)


def test_gd13_a_single_tribute_is_shown_when_given() -> None:
    game = make("guandan")
    cards = deck(2)
    random.Random(2).shuffle(cards)
    hands = [cards[k::4] for k in range(4)]
    for seat in (1, 2, 3):  # the big jokers with seat 0: seat 3 cannot refuse
        while BIG_JOKER in hands[seat]:
            giving = next(c for c in hands[0] if c != BIG_JOKER)
            hands[seat][hands[seat].index(BIG_JOKER)] = giving
            hands[0][hands[0].index(giving)] = BIG_JOKER
    state = game.new_deal(GuandanSetup(previous_order=(0, 1, 2, 3), deal_index=1), hands=hands)
    public = statement_for(state)
    tribute = state.legal_actions()[0]
    public.take(state.to_act, tribute)
    state.apply(tribute)
    assert [(e.kind, e.cards) for e in state.events if e.kind == "tribute"] == [
        ("tribute", tribute.cards)
    ]
    watch(game, state, public=public)


# ------------------------------------------------------------- Shengji: kitty


def burying(bury: Sequence[Card] | None) -> Chooser:
    """Nobody declares; the dealer buries ``bury`` (default: the kitty it took); then
    random play."""

    def choose(state: State, rng: random.Random) -> Action:
        assert isinstance(state, ShengjiState)
        if state.phase == "declare":
            return PASS
        if state.phase == "bury":
            cards = state.kitty if bury is None else bury
            return Action("bury", (cards[len(state.buried)],))
        return random_legal(state, rng)

    return choose


def shengji_deal() -> tuple[Game, ShengjiState]:
    """A two-deck first deal (seed 3); seat 0 deals when nobody declares."""
    game = make("shengji-2")
    state = game.new_deal(ShengjiSetup(), seed=3)
    assert isinstance(state, ShengjiState)
    return game, state


def after_burying(bury: Sequence[Card] | None) -> ShengjiState:
    _, state = shengji_deal()
    choose, rng = burying(bury), random.Random(0)
    while state.phase != "play":
        state.apply(choose(state, rng))
    assert state.dealer == 0
    return state


def test_sj13_the_buried_kitty_is_face_down_and_sj25_shown_at_the_end() -> None:
    kept = after_burying(None)
    other = tuple(sorted(kept.hand(0)[:8]))  # eight cards of the hand instead of the kitty
    swapped = after_burying(other)
    assert Counter(swapped.buried) != Counter(kept.buried)
    for seat in (1, 2, 3):  # SJ-13: the other three see the same, whatever was buried
        assert kept.observe(seat).to_dict() == swapped.observe(seat).to_dict()
    assert kept.observe(0).to_dict() != swapped.observe(0).to_dict()  # the dealer knows
    game, state = shengji_deal()
    watch(game, state, burying(other), seed=3)
    assert [e.cards for e in state.events if e.kind == "kitty"] == [other]  # SJ-25


def watch_burying() -> None:
    watch(*shengji_deal(), burying(None))


def watch_flip_kitty() -> ShengjiState:
    game = make("shengji-2", no_declaration="flip_kitty")
    state = game.new_deal(ShengjiSetup(), seed=3)
    assert isinstance(state, ShengjiState)
    watch(game, state, burying(None), seed=3)
    return state


def test_sj08_flip_kitty_shows_the_fourth_kitty_card_once_the_dealing_is_over() -> None:
    state = watch_flip_kitty()
    trump = next(e for e in state.events if e.kind == "trump")
    assert trump.cards == state.kitty[3:4]


# ------------------------------------------------- Shengji: hidden declarations


def four_deck_twins() -> list[list[list[Card]]]:
    """Two four-deck deals that differ only in the order of two cards of seat 1's
    hand: its first card is ``2h`` in one and ``2s`` in the other."""
    cards = deck(4)
    random.Random(4).shuffle(cards)
    hands = [cards[k::4] for k in range(4)]
    two_h, two_s = parse_cards("2h 2s")
    for wanted in (two_h, two_s):  # seat 1 holds a 2h and a 2s (from seat 3 if need be)
        if wanted not in hands[1]:
            plain = next(c for c in hands[1] if c >> 2 != 0 and c < 52)
            hands[1][hands[1].index(plain)] = wanted
            hands[3][hands[3].index(wanted)] = plain
    twins = []
    for first, later in ((two_h, two_s), (two_s, two_h)):
        hand = list(hands[1])
        hand.remove(first)
        hand.remove(later)
        twins.append([hands[0], [first, *hand, later], hands[2], hands[3]])
    return twins


def declare_first_offer_of_seat_1(state: State, rng: random.Random) -> Action:
    legal = state.legal_actions()
    if state.to_act == 1 and not any(e.kind == "declare" for e in state.events):
        return next((a for a in legal if a.verb == "declare" and len(a.cards) == 1), PASS)
    return PASS if PASS in legal else legal[0]


def test_sj10_a_four_deck_declaration_hides_its_suit_until_the_dealing_ends() -> None:
    game = make("shengji-4")
    states = [game.new_deal(ShengjiSetup(), hands=hands) for hands in four_deck_twins()]
    rng = random.Random(0)
    compared = 0
    while states[0].phase == "declare":
        for seat in (0, 2, 3):  # the three others cannot tell hearts from spades
            views = [state.observe(seat).to_dict() for state in states]
            assert views[0] == views[1], f"seat {seat} tells a 2h declaration from a 2s one"
            compared += 1
        for state in states:
            state.apply(declare_first_offer_of_seat_1(state, rng))
    declared = [e for e in states[0].events if e.kind == "declare"]
    assert [(e.seat, e.cards, e.value) for e in declared] == [(1, (), 1)]
    assert compared >= 30  # every decision of the dealing, the declaration's first
    trumps = [next(e.tag for e in s.events if e.kind == "trump") for s in states]
    assert trumps == ["h", "s"]  # revealed once the dealing is over


def test_sj10_four_deck_deal_shows_no_declared_card() -> None:
    game = make("shengji-4")
    state = game.new_deal(ShengjiSetup(), hands=four_deck_twins()[0])
    watch(game, state, declare_first_offer_of_seat_1)


# ------------------------------------------------------- sanfu: turned cards


def sanfu_deal(turned: Sequence[int], hands: Sequence[Sequence[Card]] | None = None) -> State:
    if hands is None:
        cards = deck(3)
        random.Random(5).shuffle(cards)
        hands = [cards[k::4] for k in range(4)]
    game = make("sanfu")
    assert isinstance(game, SanfuGame)
    return game.new_deal(SanfuSetup(), hands=hands, turned=turned)


def test_sf02_only_the_turned_cards_are_shown_and_the_others_change_nothing() -> None:
    cards = deck(3)
    random.Random(5).shuffle(cards)
    hands = [cards[k::4] for k in range(4)]
    state = sanfu_deal([6, 101], hands)  # dealt to seats 2 and 1
    turned = sorted(c for e in state.events if e.kind == "turn" for c in e.cards)
    assert turned == sorted([hands[2][1], hands[1][25]])
    # seat 3 and seat 0 swap two cards they were dealt face down: nobody else sees it
    swapped = [list(h) for h in hands]
    swapped[3][5], swapped[0][7] = swapped[0][7], swapped[3][5]
    twin = sanfu_deal([6, 101], swapped)
    assert twin.events == state.events
    for seat in range(4):
        view = state.observe(seat).to_dict()
        if state.hand(seat) == twin.hand(seat):
            assert view == twin.observe(seat).to_dict()
    watch(make("sanfu"), state, seed=5)


# ----------------------------------------------- C-5: one deal of every game


@pytest.mark.parametrize("variant", ["guandan", "shengji-1", "shengji-2", "shengji-3", "sanfu"])
def test_c05_no_seat_sees_a_hidden_card_in_one_deal(variant: str) -> None:
    game = make(variant)
    watch(game, game.new_deal(game.first_setup(), seed=11), seed=11)


def test_c05_guandan_cards_swapped_between_two_other_hands_change_nothing_seen() -> None:
    check_observation_ignores_other_hands(make("guandan"), 11)


# --------------------------------------------- the checks find planted leaks


def suite_on_seeds(game: str) -> None:
    """The suite's observation check on a few seeded matches (first and second deal)."""
    for seed in range(4):
        check_observations(make(game), seed)


PLANTED: list[tuple[plants.Plant, Callable[[], Any]]] = [
    (plants.guandan_tribute_shown_when_given, lambda: watch(*double_tribute_deal())),
    (plants.guandan_tribute_shown_when_given, lambda: suite_on_seeds("guandan")),
    (plants.guandan_tribute_moved_to_give_time, lambda: watch(*double_tribute_deal())),
    (plants.guandan_return_shown_when_made, lambda: watch(*double_tribute_deal())),
    (plants.guandan_pending_tribute_told_to_the_receiver, lambda: watch(*double_tribute_deal())),
    (plants.next_hand_in_public(GuandanState), lambda: watch(*double_tribute_deal())),
    (plants.shengji_bury_shows_the_card, watch_burying),
    (plants.shengji_bury_shows_the_card, lambda: suite_on_seeds("shengji-1")),
    (plants.shengji_kitty_shown_after_burying, watch_burying),
    (plants.shengji_kitty_in_public, watch_burying),
    (plants.shengji_buried_in_every_private, watch_burying),
    (plants.next_hand_in_public(ShengjiState), lambda: suite_on_seeds("shengji-1")),
    (plants.shengji_flipped_kitty_card_shown_while_dealing, watch_flip_kitty),
    (plants.guandan_new_event_kind_shows_a_hand, lambda: suite_on_seeds("guandan")),
    (plants.shengji_hidden_declaration_shown, test_sj10_four_deck_deal_shows_no_declared_card),
    (plants.sanfu_third_card_turned, lambda: watch(make("sanfu"), sanfu_deal([6, 101]))),
    (plants.sanfu_turn_shows_a_neighbour, lambda: watch(make("sanfu"), sanfu_deal([6, 101]))),
    (plants.next_hand_in_public(SanfuState), lambda: watch(make("sanfu"), sanfu_deal([6, 101]))),
]


@pytest.mark.interpreted_engines
@pytest.mark.parametrize(
    ("plant", "check"), PLANTED, ids=[f"{p.__name__}-{n}" for n, (p, _) in enumerate(PLANTED)]
)
def test_the_leak_checks_find_a_planted_leak(
    monkeypatch: pytest.MonkeyPatch, plant: plants.Plant, check: Callable[[], Any]
) -> None:
    plant(monkeypatch)
    with pytest.raises(AssertionError, match=r"hidden|not public|never held"):
        check()


@pytest.mark.interpreted_engines
def test_the_hidden_declaration_check_finds_a_planted_suit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SJ-10: a suit told during the dealing is seen by the twin comparison."""
    plants.shengji_declared_suit_in_public(monkeypatch)
    with pytest.raises(AssertionError, match="tells a 2h declaration from a 2s one"):
        test_sj10_a_four_deck_declaration_hides_its_suit_until_the_dealing_ends()
