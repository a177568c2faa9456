"""Decision time limits, automatic play and fleeing in the match driver (SF-12, SF-15)."""

from __future__ import annotations

import json

import bots
from arena.games import Observation, make
from arena.games.base import Action
from arena.match import AUTO_MARK, FLED_MARK, Clock, MatchAborted, SeatGone, play_match
from arena.replay import MatchRecord, verify


class FakeTime:
    """A clock that only moves when a slow policy thinks."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Slow:
    """Answers like its inner bot, but takes ``seconds`` to do it (on the fake clock)."""

    def __init__(self, time: FakeTime, seconds: float, inner: object) -> None:
        self.time, self.seconds, self.inner = time, seconds, inner

    def act(self, observation: Observation) -> Action | str:
        self.time.now += self.seconds
        return self.inner.act(observation)  # type: ignore[attr-defined,no-any-return]


class Gone:
    def act(self, observation: Observation) -> Action:
        raise SeatGone


def replays(record: MatchRecord) -> None:
    verify(MatchRecord.from_dict(json.loads(record.to_json())))


class SometimesLate:
    """Late (10 s on the fake clock) on every third decision, quick otherwise."""

    def __init__(self, time: FakeTime) -> None:
        self.time, self.calls, self.inner = time, 0, bots.make("random", 7)

    def act(self, observation: Observation) -> Action | str:
        self.calls += 1
        if self.calls % 3 == 0:
            self.time.now += 10.0
        return self.inner.act(observation)


def test_sf12_a_late_decision_is_played_automatically_and_publicly() -> None:
    time = FakeTime()
    policies = [bots.make("random", s) for s in range(4)]
    policies[2] = SometimesLate(time)
    clock = Clock(limit=1.0, now=time)
    result = play_match(make("guandan"), policies, seed=3, max_deals=1, clock=clock)
    actions = result.record.deals[0].actions
    assert AUTO_MARK in actions
    assert FLED_MARK not in " ".join(actions)  # never five in a row
    assert "order" in result.outcomes[0].details  # the deal ended normally
    replays(result.record)


def test_sf12_five_automatic_plays_in_a_row_is_fleeing_and_the_team_forfeits() -> None:
    time = FakeTime()
    policies = [bots.make("random", s) for s in range(4)]
    policies[3] = Slow(time, 40.0, bots.make("first"))
    result = play_match(make("guandan"), policies, seed=9, clock=Clock(limit=30.0, now=time))
    outcome = result.outcomes[-1]
    assert outcome.match_over
    assert outcome.details["forfeit"] == 3
    assert result.winner == 0  # seat 3's team (1) forfeits
    actions = result.record.deals[-1].actions
    assert actions.count(AUTO_MARK) == 5
    # 系統幫助出牌連續5次視為逃跑: fled right after the fifth automatic play, not at a sixth
    assert actions[-3] == AUTO_MARK and actions[-1] == f"{FLED_MARK} 3"
    replays(result.record)


def test_a_seat_declared_gone_has_fled_at_once() -> None:
    policies = [bots.make("random", s) for s in range(3)] + [Gone()]
    result = play_match(make("shengji-2"), policies, seed=2)
    assert result.record.deals[-1].actions[-1].startswith(FLED_MARK)
    assert result.winner == 0
    assert "forfeit by seat 3" in result.outcomes[-1].summary
    replays(result.record)


def test_without_a_limit_slow_policies_are_never_replaced() -> None:
    time = FakeTime()
    policies = [Slow(time, 100.0, bots.make("random", s)) for s in range(4)]
    result = play_match(make("guandan"), policies, seed=5, max_deals=1, clock=Clock(now=time))
    assert AUTO_MARK not in result.record.deals[0].actions


def test_sf12_time_limit_on_the_command_line_ends_in_fleeing(capsys) -> None:  # type: ignore[no-untyped-def]
    """Every decision late: automatic plays, then fleeing — a forfeit, or SF-15 in sanfu."""
    from arena.cli import main

    assert main(["play", "guandan", "--time-limit", "0.000000001", "--deals", "1"]) == 0
    out = capsys.readouterr().out
    assert "played automatically" in out and "has fled" in out and "forfeit by seat" in out
    assert main(["play", "sanfu", "--time-limit", "0.000000001", "--deals", "1"]) == 0
    assert "fled and pays 10×" in capsys.readouterr().out


class TriesIllegalFirst:
    """Answers with an illegal action once per decision, then legally; told why each time."""

    def __init__(self) -> None:
        self.reasons: list[str] = []
        self.inner = bots.make("random", 11)
        self.tried = False

    def act(self, observation: Observation) -> Action | str:
        if not self.tried:
            self.tried = True
            return "play BJ BJ BJ BJ BJ"  # never held: illegal
        self.tried = False
        return self.inner.act(observation)

    def rejected(self, action: Action, reason: str) -> None:
        self.reasons.append(reason)


def test_a_policy_told_of_its_illegal_action_may_try_again() -> None:
    """Remote bots are answered with the reason and may try again until their deadline."""
    picky = TriesIllegalFirst()
    policies = [picky, *[bots.make("random", s) for s in range(3)]]
    result = play_match(make("guandan"), policies, seed=4, max_deals=1)
    assert picky.reasons and all("not in the hand" in r for r in picky.reasons)
    assert "!" not in " ".join(result.record.deals[0].actions)  # no automatic play
    replays(result.record)


def test_an_illegal_retry_past_the_deadline_is_played_automatically() -> None:
    time = FakeTime()

    class SlowToCorrect(TriesIllegalFirst):
        def rejected(self, action: Action, reason: str) -> None:
            time.now += 5.0  # thinking again takes too long

    policies = [SlowToCorrect(), *[bots.make("random", s) for s in range(3)]]
    clock = Clock(limit=1.0, now=time)
    result = play_match(make("guandan"), policies, seed=4, max_deals=1, clock=clock)
    assert AUTO_MARK in result.record.deals[0].actions
    replays(result.record)


class Timed:
    """A policy that answers by a deadline, taking ``seconds`` on the fake clock (no
    answer, ``None``, once past it), and notes what the driver told it."""

    def __init__(self, time: FakeTime, seconds: float) -> None:
        self.time, self.seconds = time, seconds
        self.deadlines: list[tuple[float, float]] = []
        self.timed_out_with: list[Action | None] = []

    def act(self, observation: Observation) -> Action:
        raise AssertionError("a timed policy is asked with act_by")

    def act_by(self, observation: Observation, deadline: tuple[float, float]) -> Action | None:
        self.deadlines.append((deadline[0] - self.time.now, deadline[1] - self.time.now))
        self.time.now += self.seconds
        return None if self.time.now >= deadline[1] else observation.legal_actions[-1]

    def timed_out(self, fallback: Action | None) -> None:
        self.timed_out_with.append(fallback)


def test_sf12_the_time_bank_is_drawn_on_after_the_decision_time_and_never_refilled() -> None:
    time = FakeTime()
    policies: list[object] = [bots.make("random", s) for s in range(4)]
    slow = Timed(time, 1.5)  # half a second of bank per decision
    policies[1] = slow
    clock = Clock(limit=1.0, bank=2.0, now=time)
    result = play_match(make("guandan"), policies, seed=3, max_deals=1, clock=clock)  # type: ignore[arg-type]
    first, second, third, fourth, fifth = slow.deadlines[:5]
    assert first == (1.0, 3.0)  # the decision's second, then the whole bank
    assert second == (1.0, 2.5)
    assert third == (1.0, 2.0)
    assert fourth == (1.0, 1.5)
    assert fifth == (1.0, 1.0)  # bank spent: the decision's own time only
    assert slow.timed_out_with and slow.timed_out_with[0] is not None  # then late
    assert AUTO_MARK in result.record.deals[0].actions
    replays(result.record)


def test_sf12_each_player_has_a_bank_of_their_own_wherever_they_sit() -> None:
    """One slow player draws on their bank, deal after deal, while the others' banks stay
    whole — in sanfu, where the second deal seats the slow player elsewhere (SF-4): fails
    if the bank is shared by the table or kept per seat."""
    time = FakeTime()
    players = [Timed(time, 1.5 if player == 0 else 0.5) for player in range(4)]
    clock = Clock(limit=1.0, bank=100.0, now=time)
    result = play_match(make("sanfu"), players, seed=0, max_deals=2, clock=clock)  # type: ignore[arg-type]
    seatings = [deal.setup["seating"] for deal in result.record.deals]
    assert len(seatings) == 2 and seatings[0].index(0) != seatings[1].index(0)
    slow, *quick = players
    assert slow.deadlines == [(1.0, 101.0 - 0.5 * k) for k in range(len(slow.deadlines))]
    assert len(slow.deadlines) > 20
    for other in quick:
        assert other.deadlines and set(other.deadlines) == {(1.0, 101.0)}
    assert not any(player.timed_out_with for player in players)
    replays(result.record)


def test_a_timed_policy_that_stays_within_its_time_is_never_played_for() -> None:
    time = FakeTime()
    policies: list[object] = [bots.make("random", s) for s in range(4)]
    quick = Timed(time, 0.5)
    policies[0] = quick
    result = play_match(
        make("guandan"), policies, seed=4, max_deals=1, clock=Clock(limit=1.0, bank=5.0, now=time)
    )  # type: ignore[arg-type]
    assert not quick.timed_out_with
    assert all(window == (1.0, 6.0) for window in quick.deadlines)  # the bank untouched
    assert AUTO_MARK not in result.record.deals[0].actions


class Aborting:
    """Stops the match at its third decision."""

    def __init__(self) -> None:
        self.calls = 0

    def act(self, observation: Observation) -> Action:
        self.calls += 1
        if self.calls == 3:
            raise MatchAborted("shutdown")
        return observation.legal_actions[0]


def test_an_aborted_match_keeps_the_finished_deals_only() -> None:
    policies: list[object] = [bots.make("first") for _ in range(4)]
    policies[2] = Aborting()
    result = play_match(make("guandan"), policies, seed=1, max_deals=3)  # type: ignore[arg-type]
    assert result.aborted == "shutdown"
    assert result.record.deals == [] and result.outcomes == []
    replays(result.record)
