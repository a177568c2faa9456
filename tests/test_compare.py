"""``arena compare``: paired matches until the SPRT decides."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.cli import main
from arena.commands import print_json
from arena.commands.compare import describe
from arena.games import make
from arena.rating import Sprt, SprtConfig
from arena.sim import Runner
from arena.sim.compare import Comparison, compare, first_partners, pair_jobs, pairs_per_batch
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.worker import play_jobs


class InProcessRunner:
    """Plays batches in this process, in order, and records their sizes."""

    def __init__(self, workers: int, seconds: float | None = None) -> None:
        self.workers = workers
        self.seconds = seconds
        self.batches: list[int] = []

        self.reports: list[MatchReport] = []

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]:
        for i in range(0, len(jobs), batch_size):
            batch = jobs[i : i + batch_size]
            self.batches.append(len(batch))
            for report in play_jobs(batch):
                if self.seconds is not None:
                    report = dataclasses.replace(report, seconds=self.seconds)
                self.reports.append(report)
                yield report


def test_first_round_has_one_pair_per_batch_then_batches_fit_the_bots_and_workers() -> None:
    assert pairs_per_batch(64, 2, None) == 1
    assert pairs_per_batch(64, 2, 30.0) == 1  # slow bots: one pair, the test may stop after it
    assert pairs_per_batch(64, 2, 0.001) == 16  # fast bots: still two batches per worker
    assert pairs_per_batch(64, 2, 0.5, target=2.0) == 4
    assert pairs_per_batch(3, 8, 0.001) == 1


def test_pairs_swap_the_partnerships_on_the_same_seed() -> None:
    first, second = pair_jobs("random", "first", "guandan", {}, 1, seed=3, start=0, count=1)
    assert first.seed == second.seed and first.pair == second.pair
    assert first.players == ("random", "first", "random", "first")
    assert second.players == ("first", "random", "first", "random")


def test_sanfu_pairs_seat_each_bot_on_the_partners_the_turned_cards_make() -> None:
    """SF-3: the seed's deal decides the partnerships, so a one-deal match seats the copies
    of a bot on those partners; every deal then pits A and A against B and B."""
    jobs = pair_jobs("heuristic", "random", "sanfu", {}, 1, seed=5, start=0, count=12)
    sides = {job.side for job in jobs}
    assert (0, 2) in sides and len(sides) > 1  # some deals partner players other than 0 and 2
    game = make("sanfu")
    for first, second in zip(jobs[::2], jobs[1::2], strict=True):
        assert first.side == second.side == first_partners(game, first.seed)
        assert [first.players[p] for p in first.side] == ["heuristic", "heuristic"]
        assert [second.players[p] for p in second.side] == ["random", "random"]
        assert sorted(first.players) == sorted(second.players)
    for report in play_jobs(jobs[:4]):
        state = make("sanfu").new_deal(seed=report.record["deals"][0]["seed"])
        partners = sorted((state.player_at(0), state.player_at(2)))
        assert tuple(partners) == report.job.side
        ours = sum(report.totals[p] for p in report.job.side)
        expected = (
            1.0 if 2 * ours > sum(report.totals) else 0.0 if 2 * ours < sum(report.totals) else 0.5
        )
        assert report.team_score() == expected
    several = pair_jobs("heuristic", "random", "sanfu", {}, 8, seed=5, start=0, count=12)
    assert {job.side for job in several} == {(0, 2)}  # partnerships change from deal to deal


def a_side_score(report: MatchReport, bot: str) -> float:
    """The match from ``bot``'s side, by hand: the totals of the players it sits as."""
    ours = sum(t for p, t in enumerate(report.totals) if report.job.players[p] == bot)
    theirs = sum(report.totals) - ours
    return 1.0 if ours > theirs else 0.0 if ours < theirs else 0.5


@pytest.mark.parametrize(("variant", "deals"), [("guandan", 1), ("sanfu", 1), ("shengji-1", 2)])
def test_each_pair_is_scored_from_the_first_bots_side_in_both_its_matches(
    variant: str, deals: int
) -> None:
    """A pair's score is the mean of its two matches seen from A's seats (in the second
    match A sits where B sat; in a one-deal sanfu match where the turned cards partner
    it): fails if a match is scored for team 0, or for B, whoever sits there."""
    runner = InProcessRunner(workers=1)
    config = SprtConfig(elo0=0, elo1=5, alpha=1e-6, beta=1e-6)  # never decides in 6 pairs
    result = compare(runner, "first", "random", variant, {}, config, deals=deals, max_pairs=6)
    reports = runner.reports
    assert len(reports) == 12
    by_hand = [a_side_score(reports[k], "first") for k in range(12)]
    assert result.match_scores == by_hand
    assert result.pair_scores == [(by_hand[k] + by_hand[k + 1]) / 2 for k in range(0, 12, 2)]
    counts = (by_hand.count(1.0), by_hand.count(0.5), by_hand.count(0.0))
    assert (result.wins, result.draws, result.losses) == counts
    assert set(by_hand) - {0.5}  # some match was decided


@pytest.mark.usefixtures("ray_session")
def test_a_much_stronger_bot_is_decided_quickly() -> None:
    with Runner() as runner:
        result = compare(
            runner, "random", "first", "guandan", {}, SprtConfig(elo0=0, elo1=50), chunk=8
        )
    summary = result.summary()
    assert summary["decision"] == "H1"
    assert summary["wins"] > summary["losses"]
    assert summary["los"] > 0.95
    assert summary["pairs"] == result.sprt.n
    narrowing = summary["narrowing"]
    assert narrowing is not None and narrowing["ratio"] > 0


@pytest.mark.usefixtures("ray_session")
def test_compare_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", "random", "first", "--variant", "shengji-1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["decision"] in ("H0", "H1")
    assert (
        main(["compare", "random", "first", "--variant", "guandan", "--elo0", "9", "--elo1", "1"])
        == 2
    )
    assert "elo0 < elo1" in capsys.readouterr().err


@pytest.mark.parametrize(("seconds", "largest"), [(0.001, 4), (30.0, 1)])
def test_batches_keep_pairs_whole_and_the_statistics_unchanged(
    seconds: float, largest: int
) -> None:
    runner = InProcessRunner(workers=2, seconds=seconds)
    config = SprtConfig(elo0=0, elo1=5, alpha=1e-6, beta=1e-6)  # 20 pairs do not decide
    result = compare(runner, "random", "random", "guandan", {}, config, max_pairs=20, chunk=16)
    assert result.sprt.n == 20 and len(result.pair_scores) == 20
    assert runner.batches[:4] == [2, 2, 2, 2]  # the timing round: one pair per batch
    assert all(size % 2 == 0 for size in runner.batches)
    assert max(runner.batches[4:]) == 2 * largest
    expected = compare(
        InProcessRunner(workers=1, seconds=0.0),
        "random",
        "random",
        "guandan",
        {},
        config,
        max_pairs=20,
        chunk=20,
    )
    assert result.pair_scores == expected.pair_scores
    assert result.sprt.llr == pytest.approx(expected.sprt.llr)


def comparison(pairs: Sequence[tuple[float, float]]) -> Comparison:
    """A comparison of pairs given by their two match scores from A's side."""
    result = Comparison("a", "b", Sprt(SprtConfig(elo0=0, elo1=50)))
    for scores in pairs:
        result.match_scores.extend(scores)
        for score in scores:
            result.wins += score == 1.0
            result.losses += score == 0.0
            result.draws += score == 0.5
        result.pair_scores.append(sum(scores) / 2)
        result.sprt.add(result.pair_scores[-1])
    return result


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> None:
        raise AssertionError(f"not standard JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def test_fewer_than_two_pairs_leave_the_interval_unbounded_shown_as_infinity(
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = SprtConfig(elo0=0, elo1=50)
    one = compare(InProcessRunner(workers=1), "random", "first", "guandan", {}, config, max_pairs=1)
    summary = one.summary()
    assert summary["pairs"] == 1
    assert summary["elo_95"] == [-math.inf, math.inf]
    assert "(95%: −∞ … ∞)" in describe(summary, "guandan", config)
    print_json(summary)
    assert strict_json(capsys.readouterr().out)["elo_95"] == [None, None]
    none = comparison([]).summary()
    assert none["elo"] is None and "Elo difference unknown" in describe(none, "guandan", config)


def test_a_bot_winning_every_pair_is_infinitely_stronger_not_a_stand_in_number() -> None:
    summary = comparison([(1.0, 1.0)] * 3).summary()
    text = describe(summary, "guandan", SprtConfig(elo0=0, elo1=50))
    # no spread to measure: three pairs won are no certainty, the interval is Wilson's
    assert "Elo difference ∞ (95%: −42.9 … ∞)" in text


MATCH_SCORE = st.sampled_from([0.0, 0.5, 1.0])


@given(st.lists(st.tuples(MATCH_SCORE, MATCH_SCORE), max_size=6))
def test_no_stand_in_number_reaches_the_text_or_the_json(
    pairs: list[tuple[float, float]],
) -> None:
    summary = comparison(pairs).summary()
    text = describe(summary, "guandan", SprtConfig(elo0=0, elo1=50))
    assert not re.search(r"inf|nan|e\+|\d{7}", text), text
    with contextlib.redirect_stdout(io.StringIO()) as out:
        print_json(summary)
    strict_json(out.getvalue())


@pytest.mark.parametrize(
    "bad", [["--deals", "0"], ["--max-pairs", "0"], ["--alpha", "0"], ["--deals", "-1"]]
)
def test_counts_and_rates_out_of_range_are_refused(
    capsys: pytest.CaptureFixture[str], bad: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["compare", "random", "first", "--variant", "guandan", *bad])
    assert exit_.value.code == 2
    assert f"argument {bad[0]}: must be" in capsys.readouterr().err
