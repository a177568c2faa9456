"""The Guandan heuristic: legal play in every phase, determinism, decisions from the
observation alone, and each rule of thumb in a built situation."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.cards import deck, format_cards, parse_cards
from arena.games.base import PASS, Action, Observation
from arena.games.guandan import GuandanGame, GuandanSetup, GuandanState, play_readings
from arena.match import Policy, play_match
from bots.guandan.partition import Splitter, splitter
from bots.guandan_bot import GuandanHeuristic
from bots.simple import RandomBot
from bots.style import Style

GAME = GuandanGame()
TWO_DECKS = deck(2)


class Recording:
    """Wraps a policy: checks each answer is listed as legal and keeps what it saw."""

    def __init__(self, policy: GuandanHeuristic | RandomBot) -> None:
        self.policy = policy
        self.seen: list[tuple[Observation, Action]] = []

    def act(self, observation: Observation) -> Action:
        action = self.policy.act(observation)
        assert action in observation.legal_actions, (str(action), observation.phase)
        self.seen.append((observation, action))
        return action


def build(
    hands: Mapping[int, str],
    *,
    leader: int,
    level: int = 0,
    order: tuple[int, ...] = (),
    filler: int = 13,
) -> GuandanState:
    """A deal from the given hands; seats not given get ``filler`` cards left in the decks."""
    left = Counter(TWO_DECKS)
    for text in hands.values():
        left.subtract(parse_cards(text))
    assert all(n >= 0 for n in left.values()), "a card is given more than twice"
    pool = sorted(left.elements())
    full: list[tuple[int, ...]] = []
    for seat in range(4):
        if seat in hands:
            full.append(parse_cards(hands[seat]))
        else:
            full.append(tuple(pool[:filler]))
            pool = pool[filler:]
    setup = GuandanSetup(
        levels=(level, level),
        level_team=0,
        previous_order=order,
        leader=None if order else leader,
    )
    return GAME.new_deal(setup, hands=full)


def play(state: GuandanState, *texts: str) -> None:
    for text in texts:
        state.apply(Action.from_str(text))


def decide(state: GuandanState) -> Action:
    return GuandanHeuristic(seed=0).act(state.observe(state.to_act))


def cards(text: str) -> tuple[int, ...]:
    return tuple(sorted(parse_cards(text)))


# --------------------------------------------------------------- legality


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_only_legal_actions_against_random_bots_over_whole_matches(seed: int) -> None:
    bots: list[Policy] = [Recording(GuandanHeuristic(seed)), RandomBot(seed)]
    bots += [Recording(GuandanHeuristic(seed)), RandomBot(seed + 1)]
    result = play_match(GAME, bots, seed=seed, max_deals=8)
    assert len(result.outcomes) >= 1
    phases = {obs.phase for bot in bots if isinstance(bot, Recording) for obs, _ in bot.seen}
    assert "play" in phases
    if len(result.outcomes) > 1:
        assert "return" in phases  # the heuristic team won a deal and was paid tribute


def test_only_legal_actions_in_every_phase_at_a_table_of_heuristics() -> None:
    phases: Counter[str] = Counter()
    for seed in (4, 5, 6):
        bots = [Recording(GuandanHeuristic(seat)) for seat in range(4)]
        play_match(GAME, bots, seed=seed, max_deals=5)
        phases.update(obs.phase for bot in bots for obs, _ in bot.seen)
    assert phases["tribute"] and phases["return"] and phases["play"]


def test_beats_random_bots_on_most_deals() -> None:
    """A sanity check of strength (the measured Elo comes from ``arena compare``)."""
    won = 0
    for seed in range(6):
        bots: list[Policy] = [GuandanHeuristic(seed), RandomBot(seed)]
        bots += [GuandanHeuristic(seed), RandomBot(-seed)]
        result = play_match(GAME, bots, seed=100 + seed, max_deals=1)
        won += result.outcomes[0].scores[0] > 0
    assert won >= 5


# ---------------------------------------------------- determinism, purity


def test_same_seed_same_match() -> None:
    records = []
    for _ in range(2):
        bots: list[Policy] = [GuandanHeuristic(7), RandomBot(1), GuandanHeuristic(8), RandomBot(2)]
        records.append(play_match(GAME, bots, seed=9, max_deals=3).record)
    assert [d.actions for d in records[0].deals] == [d.actions for d in records[1].deals]


@pytest.mark.parametrize("style", [Style(), Style(risk=1.0, points=0.0), Style(0.0, 1.0)])
def test_decisions_depend_only_on_the_seed_and_the_observation(style: Style) -> None:
    """The observations of a whole match, replayed backwards to fresh bots of the same
    seeds and style, get the same answers: nothing carries over from earlier decisions
    or other seats (the style's draws too)."""
    bots = [Recording(GuandanHeuristic(seat, style)) for seat in range(4)]
    play_match(GAME, bots, seed=21, max_deals=3)
    assert sum(len(bot.seen) for bot in bots) > 100
    for seat, bot in enumerate(bots):
        fresh = GuandanHeuristic(seat, style)
        for observation, action in reversed(bot.seen):
            assert fresh.act(observation) == action


def test_refuses_another_game_and_a_seat_not_to_act() -> None:
    state = build({}, leader=0)
    bot = GuandanHeuristic()
    with pytest.raises(ValueError, match="no legal action"):
        bot.act(state.observe(1))
    other = state.observe(0)._replace(game="sanfu")
    with pytest.raises(ValueError, match="cannot play 'sanfu'"):
        bot.act(other)


# ------------------------------------------------------------ the split


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 12), st.permutations(TWO_DECKS), st.integers(1, 27))
def test_split_covers_the_hand_with_real_combinations(
    level: int, shuffled: list[int], size: int
) -> None:
    hand = tuple(sorted(shuffled[:size]))
    plan = Splitter(level).split(hand)
    used = sorted(c for combo in plan.combos + plan.bombs for c in combo.cards)
    assert used == list(hand)
    for combo in plan.combos + plan.bombs:
        assert combo.reading in play_readings(combo.cards, level) or any(
            r.kind == combo.kind for r in play_readings(combo.cards, level)
        ), format_cards(combo.cards)
    assert all(not c.is_bomb for c in plan.combos) and all(b.is_bomb for b in plan.bombs)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 12), st.lists(st.permutations(TWO_DECKS), min_size=2, max_size=4))
def test_a_splitter_remembers_hands_and_splits_them_as_a_fresh_one(
    level: int, shuffles: list[list[int]]
) -> None:
    shared = splitter(level)
    hands = [tuple(sorted(shuffled[:27])) for shuffled in shuffles]
    for hand in hands + hands:
        plan = shared.split(hand)
        assert shared.split(hand) is plan
        assert plan == Splitter(level).split(hand)


def test_split_keeps_a_straight_and_its_pairs_whole() -> None:
    plan = Splitter(0).split(cards("3s 3d 4c 5d 6h 7s 8c Ks Kd Ac"))
    assert {format_cards(c.cards) for c in plan.combos} == {
        "3s 3d",
        "4c 5d 6h 7s 8c",
        "Ks Kd",
        "Ac",
    }


def test_split_uses_the_wild_card_to_complete_a_straight() -> None:
    plan = Splitter(0).split(cards("3s 4d 5c 6s 2h Kd Kc Qs Qd 9c 9d Jh"))  # 2h is wild
    straights = [c for c in plan.combos if c.kind.label == "straight"]
    assert [c.cards for c in straights] == [cards("3s 4d 5c 6s 2h")]
    assert plan.hands == 5


def test_split_uses_the_wild_card_to_make_a_bomb_of_a_triple() -> None:
    plan = Splitter(0).split(cards("9s 9d 9c 2h 4s 7d"))
    assert [b.cards for b in plan.bombs] == [cards("9s 9d 9c 2h")]


# ------------------------------------------------------------------ leading


def test_leads_a_low_pair_rather_than_breaking_a_straight() -> None:
    state = build({2: "3s 3d 4c 5d 6h 7s 8c Ks Kd Ac"}, leader=2)
    assert decide(state) == Action.make("play", cards("3s 3d"))


def test_leads_the_straight_the_wild_card_completes() -> None:
    state = build({2: "3s 4d 5c 6s 2h Kd Kc Qs Qd 9c 9d Jh"}, leader=2)
    assert decide(state) == Action.make("play", cards("3s 4d 5c 6s 2h"))


def test_two_plays_from_the_end_leads_the_stronger_first() -> None:
    state = build({2: "4c Ad Ac"}, leader=2)
    assert decide(state) == Action.make("play", cards("Ad Ac"))


def test_goes_out_when_one_play_holds_the_hand() -> None:
    state = build({2: "5c 6d 7h 8s 9c"}, leader=2)
    assert decide(state) == Action.make("play", cards("5c 6d 7h 8s 9c"))


def test_feeds_a_partner_about_to_go_out_with_a_low_single() -> None:
    hand = "3s 3d 4c Ts Td Qs Qd As"
    assert decide(build({2: hand}, leader=2)) == Action.make("play", cards("3s 3d"))
    fed = build({2: hand, 0: "9h"}, leader=2)
    assert decide(fed) == Action.make("play", cards("4c"))


def test_blocks_an_opponent_about_to_go_out_with_a_longer_combination() -> None:
    hand = "3s 9c 9d Jh Js Kc Kd As"
    assert decide(build({2: hand}, leader=2)) == Action.make("play", cards("3s"))
    blocked = build({2: hand, 3: "Qh"}, leader=2)
    action = decide(blocked)
    assert len(action.cards) >= 2


# ---------------------------------------------------------------- following


def test_does_not_overtake_a_partner_winning_the_trick() -> None:
    ours = "7c 7c 7d 7d As 3s 4s 9s Js Qh Th 8d"  # a bomb and an ace
    state = build({0: "Ks 3c 4c 5d 8h 9h Tc Jd Qs 6c 6d 7s", 2: ours}, leader=0)
    play(state, "play Ks", "pass")
    assert state.to_act == 2
    assert decide(state) == PASS


def test_beats_an_opponent_with_a_planned_combination() -> None:
    ours = "7c 7c 7d 7d As 3s 4s 9s Js Qh Th 8d"
    state = build({1: "Ks 3c 4c 5d 8h 9h Tc Jd Qs 6c 6d 7s", 2: ours}, leader=1)
    play(state, "play Ks")
    assert decide(state) == Action.make("play", cards("As"))


def test_bombs_an_opponent_about_to_go_out() -> None:
    ours = "5s 5s 5d 5c 3s 4s 9s Js Qh Th 8d Kd"
    state = build({1: "Ah Ad 9d 9h", 2: ours}, leader=1)
    play(state, "play Ah Ad")
    assert decide(state) == Action.make("play", cards("5s 5s 5d 5c"))


def test_keeps_its_bomb_when_no_opponent_is_close() -> None:
    """A cautious bot (the others bomb early at a drawn rate: tests of the styles)."""
    ours = "5s 5s 5d 5c 3s 4s 9s Js Qh Th 8d Kd"
    theirs = "Ah Ad 9d 9h 3d 4d 6d 7d 8h Tc Jc Qc"
    state = build({1: theirs, 2: ours}, leader=1)
    play(state, "play Ah Ad")
    assert GuandanHeuristic(0, Style(risk=0.0)).act(state.observe(2)) == PASS


# ---------------------------------------------------------- tribute, return


def test_returns_a_low_loose_card_to_the_opponent_who_paid_tribute() -> None:
    # the previous deal finished 0, 3, 2, 1: seat 1 (last) pays seat 0 (first)
    ours = "3s 3d 6h 9c 9d Js Jd Ks Kd As Ad BJ"
    state = build(
        {0: ours, 1: "SJ 4c 5c 7c 8c Tc Qc 4d 5d 7d 8d Td Qd"}, leader=0, order=(0, 3, 2, 1)
    )
    assert state.phase == "tribute" and state.to_act == 1
    assert decide(state) == Action("tribute", cards("SJ"))
    play(state, "tribute SJ")
    assert state.phase == "return" and state.to_act == 0
    assert decide(state) == Action("return", cards("6h"))  # not a 3: that breaks a pair


def test_breaks_a_pair_to_beat_an_opponent_when_no_play_is_lost() -> None:
    ours = "3s 4d 5s 6c 7h 5d 8c 8d Ks Kd"
    theirs = "9h 3d 4c 6d 7d 8h Tc Jc Qc Jd Qd Ad"
    state = build({1: theirs, 2: ours}, leader=1)
    play(state, "play 9h")
    action = decide(state)
    assert action.verb == "play" and len(action.cards) == 1
    assert action.cards[0] in cards("Ks Kd")
