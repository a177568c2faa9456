"""``arena compare``: paired matches until the SPRT decides."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence

import pytest

from arena.cli import main
from arena.games import make
from arena.rating import SprtConfig
from arena.sim import Runner
from arena.sim.compare import compare, first_partners, pair_jobs, pairs_per_batch
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.worker import play_jobs


class InProcessRunner:
    """Plays batches in this process, in order, and records their sizes."""

    def __init__(self, workers: int, seconds: float | None = None) -> None:
        self.workers = workers
        self.seconds = seconds
        self.batches: list[int] = []

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]:
        for i in range(0, len(jobs), batch_size):
            batch = jobs[i : i + batch_size]
            self.batches.append(len(batch))
            for report in play_jobs(batch):
                if self.seconds is not None:
                    report = dataclasses.replace(report, seconds=self.seconds)
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
