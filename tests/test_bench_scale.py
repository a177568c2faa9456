"""``arena bench scale`` prints rates with 1 and N workers and the efficiency."""

from __future__ import annotations

import json

import pytest
from printed import agree, figure, figures

from arena.cli import main

ARGV = ["bench", "scale", "--variant", "shengji-1", "--matches", "8", "--deals", "1"]


@pytest.mark.usefixtures("ray_session")
def test_bench_scale_reports_efficiency_and_overhead(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*ARGV, "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "shengji-1: 8 matches of 1 deal" in out
    plain = figure("plain single process (baseline): {} deals/s", out)
    one, overhead = figures("Ray, 1 worker: {} deals/s (overhead {})", out)
    many, speedup = figures("Ray, 2 workers: {} deals/s ({}x)", out)
    efficiency = figure("efficiency rate_N / (N·rate_1) = {}", out)
    for rate in (plain, one, many):
        assert rate.high > 0
    agree("Ray's overhead", overhead + 1, plain / one)
    agree("speed-up over the plain process", speedup, many / plain)
    agree("efficiency", efficiency, many / (one * 2))
    assert figure("Ray overhead {} (target", out) == overhead


@pytest.mark.usefixtures("ray_session")
def test_bench_scale_rates_are_the_same_deals_over_each_run_s_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The three runs play the same matches: the deals counted are the jobs' (not the
    workers' warm-up), and each rate is those deals over its own seconds."""
    assert main([*ARGV, "--workers", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["matches"], report["deals_per_match"], report["workers"]) == (8, 1, 2)
    runs = [report[name] for name in ("plain", "ray_1", "ray_n")]
    for run in runs:
        assert run["deals"] == 8  # one deal in each of the 8 matches
        assert run["seconds"] > 0
        assert run["deals_per_second"] * run["seconds"] == pytest.approx(run["deals"])
    plain, one, many = (run["deals_per_second"] for run in runs)
    assert report["overhead"] == pytest.approx(plain / one - 1)
    assert report["speedup"] == pytest.approx(many / plain)
    assert report["efficiency"] == pytest.approx(many / (2 * one))
    assert report["met"] == {
        "efficiency": report["efficiency"] >= report["target_efficiency"],
        "overhead": report["overhead"] <= report["target_overhead"],
    }


def test_bench_scale_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["bench", "scale", "--matches", "0"])
    assert refused.value.code == 2
    assert "argument --matches: must be an integer from 1" in capsys.readouterr().err


@pytest.mark.usefixtures("ray_session")
def test_bench_scale_times_balance_batches_of_the_bots_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--balance``: the batches ``arena balance`` plays, the same deals in each run,
    with the target for balance (0.9)."""
    argv = ["bench", "scale", "--balance", "--variant", "sanfu", "--deals", "32"]
    assert main([*argv, "--bots", "random", "--workers", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["batches"], report["batch"], report["bots"]) == (16, 2, "random")
    assert report["played"] == "32 balance deals in 16 batches of 2, random bots"
    for name in ("plain", "ray_1", "ray_n"):
        assert report[name]["deals"] == 32
    one, many = report["ray_1"]["deals_per_second"], report["ray_n"]["deals_per_second"]
    assert report["efficiency"] == pytest.approx(many / (2 * one))
    assert report["target_efficiency"] == 0.9
    assert report["met"]["efficiency"] == (report["efficiency"] >= 0.9)
