"""The match driver: deals in a row, setups carried over, totals, policy errors."""

from __future__ import annotations

from collections import defaultdict

import pytest

import bots
from arena.chance import derive_seed
from arena.errors import IllegalActionError
from arena.games import Action, Event, Observation, State, make
from arena.match import MatchResult, PolicyError, play_deal, play_match
from arena.replay import outcome_to_dict, verify

GAME = make("guandan")


def random_bots(seed: int) -> list[bots.RandomBot]:
    return [bots.RandomBot(derive_seed(seed, "bot", s)) for s in range(4)]


def random_match(seed: int, max_deals: int | None = None) -> MatchResult:
    return play_match(GAME, random_bots(seed), seed=seed, max_deals=max_deals)


class Spy:
    """Plays at random and checks every observation it is given."""

    def __init__(self, seat: int, seed: int) -> None:
        self.seat = seat
        self.inner = bots.RandomBot(seed)
        self.seen: list[Observation] = []

    def act(self, observation: Observation) -> Action:
        self.seen.append(observation)
        return self.inner.act(observation)


class Illegal:
    """Answers with an action no hand can make."""

    action = Action("play", (53, 53, 53))

    def act(self, observation: Observation) -> Action:
        return self.action


@pytest.mark.parametrize("max_deals", [1, 3])
def test_max_deals_stops_the_match(max_deals: int) -> None:
    # Guandan needs at least five deals to win a match (levels 2 -> A in steps of 3, GD-16/17)
    result = random_match(11, max_deals=max_deals)
    assert len(result.outcomes) == max_deals
    assert len(result.record.deals) == max_deals
    assert not result.complete
    assert result.winner is None
    assert not result.outcomes[-1].match_over
    assert result.record.result["deals"] == max_deals
    assert result.record.result["complete"] is False
    assert result.record.result["match_winner"] is None


def test_match_plays_until_a_team_wins() -> None:
    result = random_match(3)
    assert result.complete
    assert result.winner in (0, 1)
    last = result.outcomes[-1]
    assert last.match_over and last.match_winner == result.winner
    assert all(not o.match_over for o in result.outcomes[:-1])
    # GD-17: the match is won by the team playing its own A
    assert last.details["level_played"] == 12
    assert last.details["level_team"] == result.winner == last.details["winner_team"]
    assert result.record.result == {
        "deals": len(result.outcomes),
        "complete": True,
        "match_winner": result.winner,
        "totals": result.totals,
    }


def test_setup_carried_from_deal_to_deal() -> None:
    result = random_match(5, max_deals=4)
    deals = result.record.deals
    assert deals[0].setup == GAME.setup_to_dict(GAME.first_setup())
    for number, (deal, outcome) in enumerate(zip(deals[1:], result.outcomes, strict=False), 1):
        assert deal.setup == GAME.setup_to_dict(outcome.next_setup)
        assert deal.setup["deal_index"] == number
        assert deal.setup["previous_order"] == outcome.details["order"]
        assert deal.setup["levels"] == outcome.details["levels_after"]
    for number, deal in enumerate(deals):
        assert deal.seed == derive_seed(5, "deal", number)
        assert deal.hands is None


def test_each_deal_replays_from_its_setup_and_seed() -> None:
    result = random_match(6, max_deals=3)
    for deal, outcome in zip(result.record.deals, result.outcomes, strict=True):
        state = GAME.new_deal(GAME.setup_from_dict(deal.setup), seed=deal.seed)
        for text in deal.actions:
            state.apply(state.parse_action(text))
        assert state.is_terminal()
        assert outcome_to_dict(state.outcome()) == deal.result == outcome_to_dict(outcome)


def test_totals_and_decisions_add_up() -> None:
    result = random_match(8, max_deals=5)
    for seat in range(4):
        assert result.totals[seat] == sum(o.scores[seat] for o in result.outcomes)
    assert result.totals[0] == result.totals[2] == -result.totals[1] == -result.totals[3]
    assert result.decisions == sum(len(d.actions) for d in result.record.deals)
    assert result.record.result["totals"] == result.totals
    assert result.record.result["deals"] == 5


def test_record_names_game_options_seed_and_players() -> None:
    game = make("guandan", a_fail_limit=2)
    names = ["alice", "bob", "carol", "dave"]
    result = play_match(game, random_bots(1), seed=1, players=names, max_deals=1)
    record = result.record
    assert (record.game, record.options, record.seed, record.players) == (
        "guandan", {"a_fail_limit": 2}, 1, names,
    )
    verify(record)
    default = play_match(GAME, [bots.make("first")] * 4, seed=1, max_deals=1)
    assert default.record.players == ["FirstBot"] * 4


def test_policies_see_only_their_own_seat() -> None:
    spies = [Spy(seat, seed=seat) for seat in range(4)]
    result = play_match(GAME, spies, seed=4, max_deals=2)
    assert sum(len(s.seen) for s in spies) == result.decisions
    for spy in spies:
        assert spy.seen
        for obs in spy.seen:
            assert obs.seat == spy.seat == obs.to_act
            assert obs.legal_actions


@pytest.mark.parametrize("seat", range(4))
def test_illegal_policy_action_raises_policy_error_naming_the_seat(seat: int) -> None:
    policies: list[object] = [*random_bots(2)]
    policies[seat] = Illegal()
    with pytest.raises(PolicyError) as info:
        play_match(GAME, policies, seed=2)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(f"seat {seat}:"), message
    assert str(Illegal.action) in message
    assert isinstance(info.value, IllegalActionError)


def test_policy_passing_on_the_lead_raises_policy_error() -> None:
    class AlwaysPass:
        def act(self, observation: Observation) -> Action:
            return Action("pass")

    state = GAME.new_deal(GAME.first_setup(), seed=9)
    leader = state.to_act
    policies: list[object] = [AlwaysPass()] * 4
    with pytest.raises(PolicyError, match=rf"^seat {leader}: .*'pass'.*GD-10"):
        play_deal(state, policies)  # type: ignore[arg-type]
    assert state.to_act == leader and len(state.events) == 2


@pytest.mark.parametrize(
    "answer",
    [Action("play", (54,)), Action("play", (99,)), "pass", None, 5, ("play", (3,), ""), object()],
    ids=["card-54", "card-99", "text", "none", "int", "plain-tuple", "object"],
)
def test_malformed_policy_answer_raises_policy_error_naming_the_seat(answer: object) -> None:
    class Malformed:
        def act(self, observation: Observation) -> object:
            return answer

    policies: list[object] = [*random_bots(2)]
    policies[1] = Malformed()
    with pytest.raises(PolicyError, match=r"^seat 1: "):
        play_match(GAME, policies, seed=2)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [0, 3, 5])
def test_a_match_needs_four_policies(count: int) -> None:
    with pytest.raises(ValueError, match="4 policies"):
        play_match(GAME, [bots.make("first")] * count, seed=0)


def test_play_deal_returns_the_actions_and_reports_every_event() -> None:
    state = GAME.new_deal(GAME.first_setup(), seed=12)
    start = state.clone()
    seen: list[Event] = []

    def on_event(at: State, event: Event) -> None:
        assert at is state
        seen.append(event)

    actions = play_deal(state, random_bots(12), on_event)
    assert state.is_terminal()
    assert seen == list(state.events)
    for text in actions:
        start.apply(start.parse_action(text))
    assert start.events == state.events


def test_match_reports_every_event_of_every_deal() -> None:
    by_state: dict[int, list[Event]] = defaultdict(list)
    states: dict[int, State] = {}

    def on_event(state: State, event: Event) -> None:
        states[id(state)] = state
        by_state[id(state)].append(event)

    result = play_match(GAME, random_bots(13), seed=13, max_deals=3, on_event=on_event)
    assert len(states) == 3
    for key, state in states.items():
        assert by_state[key] == list(state.events)
        assert by_state[key][0].kind == "deal"
    assert sum(ev.kind == "deal" for evs in by_state.values() for ev in evs) == len(result.outcomes)


def test_different_seeds_give_different_matches() -> None:
    first = random_match(20, max_deals=1).record.deals[0]
    second = random_match(21, max_deals=1).record.deals[0]
    assert first.seed != second.seed
    assert first.actions != second.actions


def test_first_bots_play_a_deterministic_match() -> None:
    one = play_match(GAME, [bots.make("first")] * 4, seed=3, max_deals=2)
    two = play_match(GAME, [bots.make("first")] * 4, seed=3, max_deals=2)
    assert one.record.to_json() == two.record.to_json()
