"""The match driver: deals in a row, setups carried over, totals, policy errors."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bots
from arena.chance import derive_seed
from arena.deal_loop import TEXTS_KEPT, action_text
from arena.errors import IllegalActionError
from arena.games import Action, Event, Observation, State, make, names
from arena.match import FLED_MARK, Clock, MatchResult, PolicyError, SeatGone, play_deal, play_match
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


def test_a_player_is_asked_at_whatever_seat_sanfu_gives_them_sf4() -> None:
    """The policy asked is the player's sitting at the seat to act, not the seat's number:
    in sanfu the turned cards move players to other seats (SF-4), so a driver asking
    ``policies[seat]`` fails here while it passes at a Guandan table."""
    spies = [Spy(player, seed=player) for player in range(4)]
    result = play_match(make("sanfu"), spies, seed=0, max_deals=3)
    assert sum(len(s.seen) for s in spies) == result.decisions
    moved = 0
    for spy in spies:
        assert spy.seen
        for obs in spy.seen:
            assert obs.seat == obs.to_act
            assert obs.public["seating"][obs.seat] == spy.seat  # the player sitting there
            moved += obs.seat != spy.seat
    assert moved > 0  # some decisions were asked of a player away from its own number


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


class Wayward:
    """Plays at random, but answers first, now and then, with what the driver must read
    (the text form) or refuse and ask again (an illegal action, a malformed one, None, a
    plain tuple, an int); keeps what it is told. Seat ``leaves`` raises SeatGone on its
    ``leave_at``-th decision."""

    def __init__(self, seed: int, leave_at: int | None = None) -> None:
        self.inner = bots.RandomBot(seed)
        self.draw = random.Random(seed)
        self.told: list[tuple[str, object, str]] = []
        self.decisions = 0
        self.leave_at = leave_at
        self.gone: list[object] = []

    def act(self, observation: Observation) -> object:
        self.decisions += 1
        if self.decisions == self.leave_at:
            raise SeatGone
        kind = self.draw.randrange(8)
        if kind == 0:
            return Action("play", (53, 53, 53, 53, 53))  # never held: illegal
        if kind == 1:
            return [None, 5, ("pass", (), ""), Action("pass", (99,)), "hop"][self.draw.randrange(5)]
        chosen = self.inner.act(observation)
        return str(chosen) if kind == 2 else chosen

    def rejected(self, action: object, reason: str) -> None:
        self.told.append(("rejected", action, reason))

    def malformed(self, action: object, reason: str) -> None:
        self.told.append(("malformed", action, reason))

    def timed_out(self, fallback: object) -> None:
        self.gone.append(fallback)


class NoTime:
    """A clock that never moves: a timed deal in which no answer is ever late."""

    def __call__(self) -> float:
        return 0.0


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(names()),
    seed=st.integers(0, 2**32),
    wayward=st.booleans(),
    leave_at=st.none() | st.integers(1, 40),
)
def test_an_untimed_unlistened_deal_plays_as_a_listened_one(
    variant: str, seed: int, wayward: bool, leave_at: int | None
) -> None:
    """A deal with neither clock nor listener runs the driver's compiled loop: the same
    record, events, decisions, refusals told and seat gone as the general loop (a timed
    deal in which no answer is late too, but for None: there, no answer in time)."""
    game = make(variant)

    def played(on_event: bool, clock: Clock | None) -> tuple[State, list[str], list[object]]:
        policies: list[object] = [bots.RandomBot(derive_seed(seed, s)) for s in range(4)]
        if wayward:
            policies[seed % 4] = Wayward(seed, leave_at)
        state = game.new_deal(game.first_setup(), seed=seed)
        heard: list[Event] = []
        listener = (lambda at, event: heard.append(event)) if on_event else None
        actions = play_deal(state, policies, listener, clock)  # type: ignore[arg-type]
        assert state.is_terminal()
        assert heard == (list(state.events) if on_event else [])
        return state, actions, policies

    fast, fast_actions, fast_policies = played(False, None)
    full, full_actions, full_policies = played(True, None)
    assert fast_actions == full_actions
    assert fast.events == full.events
    assert outcome_to_dict(fast.outcome()) == outcome_to_dict(full.outcome())
    for one, other in zip(fast_policies, full_policies, strict=True):
        if isinstance(one, Wayward) and isinstance(other, Wayward):
            assert one.told == other.told and one.gone == other.gone
            assert any(text.startswith(FLED_MARK) for text in fast_actions) == bool(one.gone)
    if not wayward:
        _, timed_actions, _ = played(False, Clock(limit=1.0, now=NoTime()))
        assert timed_actions == fast_actions


def test_an_untimed_deal_refuses_what_it_cannot_play_naming_the_seat() -> None:
    """The compiled loop hands back an answer it cannot play; a policy that cannot be
    told of it stops the match with PolicyError, like in a timed deal."""
    state = GAME.new_deal(GAME.first_setup(), seed=3)
    seat = state.to_act
    policies: list[object] = [*random_bots(3)]
    policies[state.player_at(seat)] = Illegal()
    before = list(state.events)
    with pytest.raises(PolicyError, match=rf"^seat {seat}: .*not in"):
        play_deal(state, policies)  # type: ignore[arg-type]
    assert list(state.events) == before  # the refused answer changed nothing


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**64), sizes=st.lists(st.integers(1, 5000), max_size=50))
def test_random_bot_draws_as_randrange(seed: int, sizes: list[int]) -> None:
    """RandomBot picks what ``random.Random(seed).randrange(len(legal))`` would: the same
    decisions for the same seed as before its draw was made quicker."""
    bot, reference = bots.RandomBot(seed), random.Random(seed)
    for size in sizes:
        legal = tuple(Action("play", (card % 54,)) for card in range(size))
        observation = Observation("guandan", 0, "play", 0, (), legal, ())
        assert bot.act(observation) is legal[reference.randrange(size)]


def test_random_bot_without_legal_actions_says_so() -> None:
    with pytest.raises(ValueError, match="no legal action"):
        bots.RandomBot(1).act(Observation("guandan", 0, "play", 0, (), (), ()))


@given(st.lists(st.tuples(st.sampled_from(["play", "pass", "bury"]), st.integers(0, 53))))
def test_the_record_text_of_an_action_is_its_text_form(drawn: list[tuple[str, int]]) -> None:
    for verb, card in drawn:
        action = Action(verb, (card,) * (card % 3), "pair" if card % 5 == 0 else "")
        assert action_text(action) == str(action)


def test_the_kept_action_texts_start_again_when_full() -> None:
    made = [Action("play", (a % 54, b % 54)) for a in range(200) for b in range(100)]
    assert len(made) > TEXTS_KEPT
    for action in made:
        assert action_text(action) == str(action)


@pytest.mark.parametrize("bot", [bots.RandomBot(4), bots.FirstBot()], ids=["random", "first"])
def test_the_simplest_bots_take_any_object_with_legal_actions(
    bot: bots.RandomBot | bots.FirstBot,
) -> None:
    """Compiled or not, they read an observation's legal actions only, whatever holds them."""

    class Legal:
        def __init__(self) -> None:
            self.legal_actions = [Action("play", (7,)), Action("pass")]

    legal = Legal()
    assert bot.act(legal) in legal.legal_actions
