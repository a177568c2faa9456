"""``arena bench grpc``: remote SDK bots play, round trips are measured, the baseline runs."""

from __future__ import annotations

import json
import math

import pytest

from arena.cli import main
from arena.commands.bench_grpc import percentile


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([3.0], 0.99) == 3.0
    assert math.isnan(percentile([], 0.5))


def test_bench_grpc_json_report(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "grpc", "--variant", "shengji-1", "--matches", "2", "--deals", "1"]
    assert main([*argv, "--one-process", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["variant"] == "shengji-1" and report["layout"] == "one process"
    latency, concurrent, local = report["latency"], report["concurrent"], report["in_process"]
    assert latency["matches"] == 4 and latency["decisions"] > 0
    assert concurrent["matches"] == 2 and concurrent["decisions"] > 0
    assert local["matches"] == 2 and local["decisions"] > 0
    for phase in (latency, concurrent):
        assert 0 < phase["p50_ms"] <= phase["p99_ms"]
        assert phase["decisions_per_second"] > 0
    assert report["slowdown"] == pytest.approx(
        local["decisions_per_second"] / concurrent["decisions_per_second"]
    )
    goals = {"p50_ms", "p99_ms", "decisions_per_second"}
    assert set(report["met"]) == set(report["targets"]) == goals
    assert "DecisionRequest" in report["round_trip"]


def test_bench_grpc_text_report_with_bots_in_a_second_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "grpc", "--variant", "guandan", "--matches", "1", "--deals", "1"]) == 0
    out = capsys.readouterr().out
    assert "two processes" in out and "round trip = " in out
    assert "1 match at a time" in out and "remote decisions/s" in out
    assert "in process (baseline" in out and "slowdown" in out
    assert "target ≤ 0.5" in out and "target ≥ 5000" in out


def test_bench_grpc_refuses_nonsense(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "grpc", "--matches", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err
    assert main(["bench", "grpc", "--variant", "chess"]) == 2
    assert "unknown variant 'chess'" in capsys.readouterr().err
