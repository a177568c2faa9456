"""The search bot: legal, reproducible, bounded by its counted budget, observation only."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Callable, Iterator

import pytest
import search_positions as frozen

import bots
from arena import games
from arena.cards import parse_cards
from arena.chance import derive_seed
from arena.games.base import NUM_SEATS, PASS, Action, Observation, State, team_of
from arena.match import Policy, play_match
from bots.determinize import sample_state
from bots.determinize.guandan_passes import fewest_rival_cards
from bots.heuristic import HeuristicBot
from bots.sanfu.actions import pattern_of
from bots.search import (
    DEFAULT_CANDIDATES,
    DEFAULT_EARLY,
    DEFAULT_HORIZON,
    DEFAULT_INFER,
    DEFAULT_REACH,
    DEFAULT_SAMPLES,
    DEFAULT_URGENT,
    DEFAULT_URGENT_SAMPLES,
    EXTEND,
    SearchBot,
    _observation_key,
    deal_value,
    static_value,
)
from bots.simple import FirstBot, RandomBot

VARIANTS = ["guandan", "sanfu", "shengji-1", "shengji-2", "shengji-3", "shengji-4"]


def decisions(variant: str, seed: int, every: int = 15) -> Iterator[tuple[State, Observation]]:
    """Positions of a random-bot deal where the seat to act has a real choice."""
    game = games.make(variant)
    rng = random.Random(seed)
    players = [RandomBot(seed + i) for i in range(NUM_SEATS)]
    state = game.new_deal(game.first_setup(), seed=derive_seed(seed, "search test"))
    while not state.is_terminal():
        observation = state.observe(state.to_act)
        if len(observation.legal_actions) > 1 and rng.randrange(every) == 0:
            yield state.clone(), observation
        state.apply(players[state.player_at(state.to_act)].act(observation))


def small_bot(seed: int = 1, samples: int = 2, candidates: int = 3) -> SearchBot:
    return SearchBot(seed, samples, candidates, rollout=RandomBot, reach=0, early=1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_search_plays_legal_actions_within_its_budget(variant: str) -> None:
    bot = small_bot()
    searched = 0
    for state, observation in list(decisions(variant, 3))[:4]:
        action = bot.act(observation)
        state.check_legal(action)
        assert bot.last.rollouts <= bot.budget(variant).rollouts
        assert bot.last.samples + bot.last.failed_samples <= bot.budget(variant).max_samples
        if bot.last.searched and not bot.last.failed_samples:
            width = min(bot.candidates, len(observation.legal_actions))
            assert bot.last.rollouts >= bot.samples * width
        searched += bot.last.searched
    assert searched


def test_search_with_the_heuristic_rollouts_is_legal() -> None:
    bot = SearchBot(7, samples=1, candidates=2, reach=0, early=1)
    for state, observation in list(decisions("guandan", 4, every=25))[:2]:
        state.check_legal(bot.act(observation))
        assert 2 <= bot.last.rollouts <= bot.budget("guandan").rollouts


@pytest.mark.parametrize("variant", ["guandan", "shengji-2", "sanfu"])
def test_decisions_are_reproducible_for_a_seed(variant: str) -> None:
    positions = list(decisions(variant, 11, every=10))[:3]
    first = [small_bot(5).act(obs) for _, obs in positions]
    second = small_bot(5)
    assert [second.act(obs) for _, obs in positions] == first
    assert [second.act(obs) for _, obs in positions] == first  # no memory between calls


def test_the_bot_reads_only_its_observation() -> None:
    """A different full state that shows the seat the same observation: same decision."""
    for state, observation in list(decisions("shengji-2", 2, every=8))[:2]:
        other = sample_state(observation, random.Random(99))
        assert other.seat_cards() != state.seat_cards()
        twin = other.observe(observation.seat)
        assert twin == observation
        assert small_bot(3).act(twin) == small_bot(3).act(observation)


def test_a_single_legal_action_needs_no_rollout() -> None:
    game = games.make("shengji-2")
    state = game.new_deal(game.first_setup(), seed=1)
    while len(state.legal_actions()) != 1:
        state.apply(state.legal_actions()[0])
    bot = small_bot()
    assert bot.act(state.observe(state.to_act)) == state.legal_actions()[0]
    assert bot.last.rollouts == 0


def test_a_time_cap_only_cuts_the_counted_work_short() -> None:
    state, observation = next(decisions("guandan", 6, every=5))
    capped = SearchBot(1, 50, 3, rollout=RandomBot, max_seconds=1e-9, reach=0, early=1)
    state.check_legal(capped.act(observation))
    assert capped.last.rollouts < 50 * 3
    assert capped.last.samples <= 1


def test_budget_is_checked() -> None:
    with pytest.raises(ValueError, match="samples and candidates"):
        SearchBot(0, samples=0)
    with pytest.raises(ValueError, match="max_seconds"):
        SearchBot(0, max_seconds=0)
    with pytest.raises(ValueError, match="max_samples"):
        SearchBot(0, samples=4, max_samples=3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_registered_with_its_games_default_budget(variant: str) -> None:
    assert "search" in bots.names()
    bot = bots.make("search", seed=4)
    assert isinstance(bot, SearchBot)
    assert (bot.candidates, bot.max_seconds) == (DEFAULT_CANDIDATES, None)
    family = variant.split("-")[0]
    tables = (DEFAULT_SAMPLES, DEFAULT_HORIZON, DEFAULT_REACH, DEFAULT_EARLY, DEFAULT_INFER)
    samples, horizon, reach, early, infer = (table.get(variant, table[family]) for table in tables)
    urgent, few = (t.get(variant, t[family]) for t in (DEFAULT_URGENT, DEFAULT_URGENT_SAMPLES))
    budget = bot.budget(variant)
    most = EXTEND * samples
    assert budget[:7] == (samples, most, horizon, DEFAULT_CANDIDATES, reach, early, infer)
    assert (budget.urgent, budget.urgent_samples) == (urgent, min(few, samples))
    assert budget.rollouts == samples * DEFAULT_CANDIDATES + 2 * (EXTEND - 1) * samples


def test_search_plays_a_whole_deal_in_the_match_driver() -> None:
    game = games.make("shengji-1")
    policies: list[Policy] = [small_bot(1, 1, 2), RandomBot(2), small_bot(3, 1, 2), RandomBot(4)]
    result = play_match(game, policies, seed=8, max_deals=1)
    assert len(result.outcomes) == 1


def test_without_a_clear_gain_the_rollout_policys_choice_is_kept() -> None:
    """A candidate replaces the rollout policy's choice only by a margin of its noise."""
    for _state, observation in list(decisions("sanfu", 9, every=6))[:3]:
        stubborn = SearchBot(
            2, 2, 3, rollout=lambda seed: FirstBot(), margin=float("inf"), reach=0, early=1
        )
        assert stubborn.act(observation) == observation.legal_actions[0]
        assert 2 * min(3, len(observation.legal_actions)) <= stubborn.last.rollouts
        assert stubborn.last.rollouts <= stubborn.budget("sanfu").rollouts


Scores = Callable[[int, int], float]
"""A scripted deal value: (candidate index, rollout seed) → value."""


class Scripted(SearchBot):
    """Draws real deals but scores each candidate by a script (tests the decision rule)."""

    def __init__(
        self,
        scores: Scores,
        samples: int = 4,
        max_samples: int = 16,
        rollout: Callable[[int], Policy] = lambda seed: FirstBot(),
        candidates: int = 3,
    ) -> None:
        super().__init__(
            1, samples, candidates, rollout=rollout, max_samples=max_samples, reach=0, early=1
        )
        self._scores = scores
        self.compared: list[Action] = []

    def _evaluate(
        self,
        world: State,
        observation: Observation,
        choices: list[Action],
        seed: int,
        deadline: float | None,
    ) -> list[float]:
        self.compared = choices
        return [self._scores(i, seed) for i in range(len(choices))]


def guandan_choice() -> Observation:
    return next(obs for _, obs in decisions("guandan", 6, every=5) if len(obs.legal_actions) > 3)


def test_ties_keep_the_rollout_policys_choice_after_the_settling_deals() -> None:
    """Candidates that all came to the same result in each of the first ``settle``
    deals do not matter: the decision stops there, with the policy's choice."""
    observation = guandan_choice()
    bot = Scripted(lambda i, seed: 1.0)
    assert bot.act(observation) == observation.legal_actions[0]
    assert bot.last.samples == bot.settle < bot.samples


def test_a_difference_in_the_settling_deals_draws_the_first_round() -> None:
    """One deal where a candidate's result differs (even one worse than the policy's
    choice) is enough to play every candidate in all ``samples`` deals."""
    observation = guandan_choice()
    seeds: list[int] = []

    def worse_once(i: int, seed: int) -> float:
        seeds.append(seed)
        return -float(i == 2 and seed == seeds[0])

    bot = Scripted(worse_once)
    assert bot.act(observation) == observation.legal_actions[0]
    assert bot.last.samples == bot.samples > bot.settle


def test_a_clear_gain_is_taken_without_more_deals() -> None:
    observation = guandan_choice()
    bot = Scripted(lambda i, seed: float(i == 1))
    assert bot.act(observation) != observation.legal_actions[0]
    assert bot.last.samples == bot.samples


def test_a_close_lead_draws_more_deals_within_the_budget() -> None:
    """A challenger ahead but within its noise is played out in more deals."""
    observation = guandan_choice()

    swings = itertools.cycle([1.5, -1.0])

    def noisy(i: int, seed: int) -> float:
        return next(swings) if i == 1 else 0.0

    bot = Scripted(noisy)
    assert bot.act(observation) == observation.legal_actions[0]
    assert bot.last.samples == bot.max_samples
    assert bot.last.samples + bot.last.failed_samples <= bot.max_samples


def test_candidates_are_the_rollout_policys_next_choices() -> None:
    """Passing first when legal, then what the policy picks once its choice is taken."""
    first = Scripted(lambda i, seed: 0.0)
    shengji = next(o for _, o in decisions("shengji-1", 5, every=3) if len(o.legal_actions) > 3)
    first.act(shengji)
    assert first.compared == list(shengji.legal_actions[:3])
    last = Scripted(lambda i, seed: 0.0, rollout=lambda seed: LastBot())
    guandan = next(
        o
        for _, o in decisions("guandan", 5, every=3)
        if PASS in o.legal_actions and len(o.legal_actions) > 3
    )
    last.act(guandan)
    assert last.compared == [guandan.legal_actions[-1], PASS, guandan.legal_actions[-2]]


def test_sanfu_candidates_differ_in_more_than_suits() -> None:
    """In sanfu suits count only in same-suit triples, so two plays of one rank pattern
    (the same ranks and reading) are one candidate, not two."""
    checked = 0
    for _, observation in decisions("sanfu", 8, every=2):
        legal = observation.legal_actions
        if len({pattern_of(a) for a in legal}) < 4 or len(legal) == len(
            set(map(pattern_of, legal))
        ):
            continue  # too few patterns, or none listed twice
        bot = Scripted(lambda i, seed: 0.0, candidates=4, rollout=lambda seed: LastBot())
        bot.act(observation)
        assert len(bot.compared) == 4
        assert len({pattern_of(a) for a in bot.compared}) == 4
        assert bot.compared[0] == legal[-1]
        checked += 1
    assert checked >= 3


class LastBot:
    """Always the last legal action."""

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions[-1]


def test_one_deal_is_no_evidence_of_a_gain() -> None:
    observation = guandan_choice()
    bot = Scripted(lambda i, seed: float(i == 1), samples=1, max_samples=1)
    assert bot.act(observation) == observation.legal_actions[0]
    assert (
        Scripted(lambda i, seed: float(i == 1), samples=1, max_samples=2).act(observation)
        != observation.legal_actions[0]
    )


# ------------------------------------------------- built positions: what the search is for


def _replayed(state: State, actions: str) -> State:
    """``state`` after the ``|``-separated ``actions``, each checked legal."""
    for text in actions.split("|"):
        action = Action.from_str(text.strip())
        state.check_legal(action)
        state.apply(action)
    return state


def _guandan_position() -> State:
    """Seats 3 and 2 are out; seat 1 leads with 2s 3s 4s 4d 5s As (2 is the level), its
    one opponent left holds one card (7h). Leading the 4d lets the opponent out: seat
    1's team goes up 1. The straight flush 2s 3s 4s 5s As cannot be followed, and the
    4d then goes out: up 2."""
    game = games.make("guandan")
    setup = dataclasses.replace(game.first_setup(), leader=frozen.GUANDAN_LEADER)
    hands = [parse_cards(h) for h in frozen.GUANDAN_HANDS]
    return _replayed(game.new_deal(setup, hands=hands), frozen.GUANDAN_ACTIONS)


def _shengji_position() -> State:
    """The second-to-last trick; seat 3 (a defender, 50 points so far) plays last, on
    the declarers' winning 2c (clubs are trumps), holding 2d and the big joker. Taking
    this trick with the joker wins its 5 points but leaves the last trick (and the
    kitty) to the declarers' small joker: 55 points, +0. Giving the 2d keeps the big
    joker for the last trick and its Th: 60 points, the defenders take over, +1."""
    game = games.make("shengji-1")
    hands = [parse_cards(h) for h in frozen.SHENGJI_HANDS]
    return _replayed(game.new_deal(game.first_setup(), hands=hands), frozen.SHENGJI_ACTIONS)


def _sanfu_position() -> State:
    """Seat 1 leads with 8s and Ac, its partner out; the opponents hold Kh SJ and
    Tc Jd Ah Ad. Leading the ace, the joker takes it and the opponents keep the lead
    to the end: seat 1 is left with the 8s and its team loses 2x. Leading the 8s, the
    ace is kept to take the lead back once the joker is spent: seat 1 goes out and
    its team wins."""
    game = games.make("sanfu")
    hands = [parse_cards(h) for h in frozen.SANFU_HANDS]
    state = game.new_deal(game.first_setup(), hands=hands, turned=frozen.SANFU_TURNED)
    return _replayed(state, frozen.SANFU_ACTIONS)


def open_hand_values(state: State, seat: int) -> dict[Action, float]:
    """Each legal action's deal value for ``seat``'s team when every hand is open and
    every seat plays its best from there on (a full search of the rest of the deal)."""
    game = state.observe(seat).game

    def value(after: State) -> float:
        if after.is_terminal():
            return deal_value(after, seat, game)
        results = []
        for action in after.legal_actions():
            child = after.clone()
            child.apply(action)
            results.append(value(child))
        return max(results) if team_of(after.to_act) == team_of(seat) else min(results)

    values: dict[Action, float] = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        values[action] = value(child)
    return values


@pytest.mark.parametrize(
    ("build", "heuristics", "better"),
    [
        (_guandan_position, "play 4d", "play 2s 3s 4s 5s As"),
        (_shengji_position, "play BJ", "play 2d"),
        (_sanfu_position, "play Ac", "play 8s"),
    ],
    ids=["guandan", "shengji", "sanfu"],
)
def test_the_search_finds_the_play_the_heuristic_misses(
    build: Callable[[], State], heuristics: str, better: str
) -> None:
    """In a built endgame the heuristic's rule of thumb loses: the search, with the
    registered bot's counted budget and a fixed seed, plays the better action."""
    state = build()
    observation = state.observe(state.to_act)
    rule_of_thumb, best = Action.from_str(heuristics), Action.from_str(better)
    assert all(HeuristicBot(seed).act(observation) == rule_of_thumb for seed in range(3))
    values = open_hand_values(state, observation.seat)
    assert values[best] == max(values.values()) > values[rule_of_thumb], values
    bot = bots.make("search", seed=1)
    assert isinstance(bot, SearchBot)
    chosen = bot.act(observation)
    state.check_legal(chosen)
    assert chosen == best != rule_of_thumb
    assert bot.last.searched == 1 and bot.last.rollouts <= bot.budget(observation.game).rollouts


@pytest.mark.parametrize("variant", ["guandan", "shengji-1", "shengji-2"])
def test_the_counted_rollouts_are_every_candidate_in_every_drawn_deal(variant: str) -> None:
    """Rollouts = candidates × first deals + 2 × deals drawn beyond them (the leader
    and the rollout policy's choice); with no failed draw the first deals are
    ``samples``. The totals are the sums of the decisions' counts."""
    bot = SearchBot(2, 3, 3, rollout=RandomBot, max_samples=9, settle=3, reach=0, early=1)
    checked = extended = rollouts = samples = 0
    positions = list(decisions(variant, 4, every=4))[:8]
    for _, observation in positions:
        bot.act(observation)
        last = bot.last
        rollouts, samples = rollouts + last.rollouts, samples + last.samples
        if not last.searched or last.failed_samples:
            continue
        width = min(bot.candidates, len(observation.legal_actions))
        assert bot.samples <= last.samples <= bot.max_samples
        more = last.samples - bot.samples
        assert last.rollouts == width * bot.samples + 2 * more
        checked += 1
        extended += more > 0
    assert checked >= 3 and extended >= 1
    assert (bot.total.decisions, bot.total.rollouts, bot.total.samples) == (
        len(positions),
        rollouts,
        samples,
    )


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-2"])
def test_a_shengji_deal_is_worth_more_to_the_team_that_won_more_points(variant: str) -> None:
    """The value the search maximizes: the levels, then half the share of the points,
    so of two finished deals the one with more defender points is worth more to the
    defenders and less to the declarers."""
    game = games.make(variant)
    finished = []
    for seed in range(16):
        state = game.new_deal(game.first_setup(), seed=seed)
        players = [RandomBot(seed * 4 + seat) for seat in range(NUM_SEATS)]
        while not state.is_terminal():
            state.apply(players[state.player_at(state.to_act)].act(state.observe(state.to_act)))
        details = state.outcome().details
        declarer = next(s for s in range(NUM_SEATS) if team_of(s) == details["declarer_team"])
        defender = (declarer + 1) % NUM_SEATS
        finished.append(
            (
                details["defender_points"],
                deal_value(state, defender, variant),
                deal_value(state, declarer, variant),
            )
        )
    finished.sort()
    for (points, defends, declares), (more, defends_more, declares_more) in itertools.pairwise(
        finished
    ):
        if more > points:
            assert defends_more > defends and declares_more < declares, finished
    assert len({points for points, _, _ in finished}) >= 4


# ------------------------------------------------- short rollouts and their static value


def played_positions(variant: str, seed: int, every: int = 9) -> list[State]:
    """States along a heuristic deal (the rollout policy's own kind of play)."""
    game = games.make(variant)
    state = game.new_deal(game.first_setup(), seed=seed)
    players = [HeuristicBot(seed + seat) for seat in range(NUM_SEATS)]
    kept = []
    for move in itertools.count():
        if state.is_terminal():
            return [*kept, state]
        if move % every == 0:
            kept.append(state.clone())
        state.apply(players[state.player_at(state.to_act)].act(state.observe(state.to_act)))
    raise AssertionError("unreachable")


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_static_value_is_the_teams_standing_from_the_state_alone(variant: str) -> None:
    """Partners share a standing, opponents have its negative; a clone, and any state
    that shows the same cards and points, has the same value (it reads the state
    only); it does not change while nothing is played."""
    for state in played_positions(variant, 5):
        values = [static_value(state, seat, variant) for seat in range(NUM_SEATS)]
        for seat in range(NUM_SEATS):
            assert values[seat] == values[(seat + 2) % NUM_SEATS]
            assert values[seat] == pytest.approx(-values[(seat + 1) % NUM_SEATS])
        assert [static_value(state.clone(), s, variant) for s in range(NUM_SEATS)] == values


@pytest.mark.parametrize("variant", ["shengji-1", "shengji-3"])
def test_the_shengji_static_value_grows_with_the_defenders_points(variant: str) -> None:
    """SJ-22 / SJ-26: the defenders' points decide the levels; the static value is their share
    of the deal's points, the defenders' gain and the declarers' loss."""
    decks = int(variant.split("-")[1])
    for state in played_positions(variant, 3, every=4):
        public = state.observe(0).public
        if public["dealer"] < 0:
            continue
        declarer = public["dealer"]
        defender = (declarer + 1) % NUM_SEATS
        share = public["defender_points"] / (100 * decks)
        assert static_value(state, defender, variant) == pytest.approx(5.5 * share)
        assert static_value(state, declarer, variant) == pytest.approx(-5.5 * share)


@pytest.mark.parametrize("variant", ["guandan", "sanfu"])
def test_the_climbing_static_value_favours_the_team_with_fewer_cards(variant: str) -> None:
    """GD-16 / SF-14: going out first is what wins a climbing deal; with no points
    between the teams, the team holding fewer cards stands better."""
    game = games.make(variant)
    state = game.new_deal(game.first_setup(), seed=2)
    while state.phase != "play":
        state.apply(state.legal_actions()[0])
    before = static_value(state, state.to_act, variant)
    lead = max(state.legal_actions(), key=lambda a: len(a.cards))
    seat = state.to_act
    state.apply(lead)
    assert static_value(state, seat, variant) > before


def test_a_rollout_stops_once_its_horizon_of_tricks_has_been_led() -> None:
    """A horizon of k tricks: the deal played on until the k-th trick after the
    candidate's is about to be led, or to its end if that comes first."""
    stopped = 0
    for variant in ["guandan", "shengji-2", "sanfu"]:
        bot = SearchBot(1, rollout=HeuristicBot)
        for state in played_positions(variant, 7, every=25)[:-1]:
            for horizon in (1, 2):
                rollout = state.clone()
                start = len(rollout.events)
                bot._play_out(rollout, 9, horizon)
                led = [e.kind for e in rollout.events[start:]].count("lead")
                if not rollout.is_terminal():
                    assert led == horizon and rollout.events[-1].kind == "lead"
                    stopped += 1
            whole = state.clone()
            bot._play_out(whole, 9, 0)
            assert whole.is_terminal()
    assert stopped >= 10


class Valued(SearchBot):
    """Scores a finished deal and a stopped one by marks, to see which scored a row."""

    def __init__(self, horizon: int) -> None:
        super().__init__(1, 2, 3, rollout=HeuristicBot, horizon=horizon, reach=0, early=1)


def test_a_deal_with_a_stopped_rollout_scores_every_candidate_statically(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The values of one drawn deal are all results of the finished deal or all static
    values, never a mix of the two scales."""
    monkeypatch.setattr("bots.search.static_value", lambda state, seat, game: 42.0)
    state, observation = next(
        (s, o) for s, o in decisions("shengji-2", 3, every=3) if o.phase == "play"
    )
    choices = list(observation.legal_actions[:3])
    short = Valued(horizon=1)._evaluate(state, observation, choices, 5, None)
    assert short == [42.0] * len(choices)
    whole = Valued(horizon=0)._evaluate(state, observation, choices, 5, None)
    assert whole is not None and 42.0 not in whole
    for value, action in zip(whole, choices, strict=True):
        finished = state.clone()
        finished.apply(action)
        Valued(horizon=0)._play_out(finished, 5)
        assert value == deal_value(finished, observation.seat, observation.game)


def test_a_budgets_parameters_given_replace_the_games_defaults() -> None:
    assert SearchBot(1, horizon=0).budget("shengji-4").horizon == 0
    tuned = bots.make("search:horizon=5,samples=3", 1)
    assert isinstance(tuned, SearchBot)
    expected = (3, 3 * EXTEND, 5, DEFAULT_CANDIDATES, DEFAULT_REACH["guandan"], False, True)
    assert tuned.budget("guandan")[:7] == expected
    assert not SearchBot(1, infer=0).budget("guandan").infer
    assert SearchBot(1, max_samples=20).budget("guandan").max_samples == 20
    assert SearchBot(1, max_samples=2).budget("guandan").max_samples == DEFAULT_SAMPLES["guandan"]
    with pytest.raises(ValueError, match="horizon"):
        SearchBot(0, horizon=-1)
    with pytest.raises(ValueError, match="settle"):
        SearchBot(0, settle=0)


def bot_seed(seed: int, observation: Observation) -> int:
    """The seed a search bot seeded ``seed`` gives its rollout policy's own choice."""
    return derive_seed(seed, "search", _observation_key(observation))


def test_a_hand_beyond_the_reach_plays_the_policys_choice_unsearched() -> None:
    """With ``reach`` cards at most, a decision holding more, or taken outside the
    play phase (while dealing, burying, paying tribute), is the rollout policy's
    choice, drawn and played out nowhere; a play within it is searched."""
    for variant in ["guandan", "shengji-2", "sanfu"]:
        positions = [o for _, o in decisions(variant, 4, every=2) if len(o.legal_actions) > 2]
        small = sorted(len(o.hand) for o in positions if o.phase == "play")[len(positions) // 4]
        searched = 0
        for observation in positions:
            bot = SearchBot(3, samples=2, rollout=HeuristicBot, reach=small, early=0)
            action = bot.act(observation)
            if observation.phase != "play" or len(observation.hand) > small:
                assert action == HeuristicBot(bot_seed(3, observation)).act(observation)
                assert (bot.last.searched, bot.last.rollouts, bot.last.samples) == (0, 0, 0)
            else:
                searched += bot.last.searched
        assert searched >= 1
    with pytest.raises(ValueError, match="reach"):
        SearchBot(0, reach=-1)


def close_bot(urgent: int) -> SearchBot:
    """A Guandan search of 14 cards or fewer, or 2 deals while an opponent is close to out."""
    return SearchBot(3, rollout=HeuristicBot, reach=14, urgent=urgent, urgent_samples=2)


def test_a_play_beyond_the_reach_is_searched_while_an_opponent_is_close_to_out() -> None:
    """GD-12: a Guandan play with more than ``reach`` cards in hand is searched, with
    ``urgent_samples`` deals, while an opponent holds ``urgent`` cards or fewer (read
    from the public plays and tributes); otherwise it is the rollout policy's choice.
    Other families never search beyond the reach."""
    urgent, searched, skipped = 10, 0, 0
    for seed in (5, 9):
        for state, observation in decisions("guandan", seed, every=2):
            if observation.phase != "play" or len(observation.hand) <= 14:
                continue
            rivals = [len(state.hand(s)) for s in range(NUM_SEATS)]
            rivals = [n for s, n in enumerate(rivals) if team_of(s) != team_of(observation.seat)]
            assert fewest_rival_cards(observation) == min(n for n in rivals if n > 0)
            bot = close_bot(urgent)
            action = bot.act(observation)
            assert action in observation.legal_actions
            if fewest_rival_cards(observation) > urgent:
                assert action == HeuristicBot(bot_seed(3, observation)).act(observation)
                assert (bot.last.searched, bot.last.rollouts) == (0, 0)
                skipped += 1
            elif bot.last.searched:
                assert bot.last.samples + bot.last.failed_samples <= EXTEND * 2
                assert close_bot(urgent).act(observation) == action
                searched += 1
    assert searched >= 1 and skipped >= 1
    for _, observation in itertools.islice(decisions("shengji-2", 4, every=2), 12):
        bot = SearchBot(3, samples=2, rollout=RandomBot, reach=1, urgent=100, early=0)
        bot.act(observation)
        assert (bot.last.searched, bot.last.rollouts) == (0, 0)
    assert SearchBot(0, samples=3, urgent_samples=6).budget("guandan").urgent_samples == 3
    with pytest.raises(ValueError, match="urgent"):
        SearchBot(0, urgent=-1)
    with pytest.raises(ValueError, match="urgent_samples"):
        SearchBot(0, urgent_samples=0)


def test_early_decisions_are_searched_when_early_says_so() -> None:
    """SJ-8, SJ-13: declaring and burying come before the play; ``early=1`` searches
    them whatever the hand, ``early=0`` plays the rollout policy's choice there."""
    before_play = [
        o for _, o in decisions("shengji-1", 6, every=1) if o.phase in ("declare", "bury")
    ]
    assert {o.phase for o in before_play} == {"declare", "bury"}
    searched = 0
    for observation in before_play[:: max(1, len(before_play) // 6)]:
        eager = SearchBot(2, samples=2, rollout=RandomBot, reach=1, early=1)
        eager.act(observation)
        searched += eager.last.searched
        lazy = SearchBot(2, samples=2, rollout=RandomBot, reach=0, early=0)
        lazy.act(observation)
        assert (lazy.last.searched, lazy.last.rollouts) == (0, 0)
    assert searched >= 2


def test_a_win_bonus_adds_to_a_won_deal_and_takes_from_a_lost_one() -> None:
    state, observation = next(
        (s, o) for s, o in decisions("guandan", 2, every=3) if o.phase == "play"
    )
    choices = list(observation.legal_actions[:3])
    plain = SearchBot(1, rollout=RandomBot)._evaluate(state, observation, choices, 5, None)
    bonus = SearchBot(1, rollout=RandomBot, win=2)._evaluate(state, observation, choices, 5, None)
    assert plain is not None and bonus is not None
    assert all(v != 0 for v in plain)  # a Guandan deal is always won by one team
    assert bonus == [v + 2 if v > 0 else v - 2 for v in plain]
