"""``arena bench bots``: built-in bots timed against random bots on the same deals."""

from __future__ import annotations

import json
from typing import Any

import pytest
from printed import Printed, agree, figure, figures

from arena.cli import main


def test_bench_bots_reports_each_bot_against_random(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "bots", "--variant", "shengji-1", "--deals", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["variant"] == "shengji-1" and report["deals"] == 2
    random, heuristic = report["bots"]
    assert random["bot"] == "random" and random["ratio_to_random"] == 1.0
    assert heuristic["bot"] == "heuristic" and heuristic["target_ratio"] == 3.0
    assert heuristic["decisions_per_deal"] > 0 and heuristic["ms_per_deal"] > 0
    assert isinstance(heuristic["met"], bool)


def test_bench_bots_names_an_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "bots", "--bots", "clever", "--deals", "1"]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err


def test_bench_bots_figures_are_the_counts_over_the_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["bench", "bots", "--variant", "guandan", "--deals", "2", "--bots", "heuristic,first"]
    assert main([*argv, "--json"]) == 0
    rows = {row["bot"]: row for row in json.loads(capsys.readouterr().out)["bots"]}
    assert list(rows) == ["random", "heuristic", "first"]
    base = rows["random"]
    for row in rows.values():
        assert row["deals"] == 2 and row["decisions"] >= 2 and row["seconds"] > 0
        assert row["ms_per_deal"] * row["deals"] == pytest.approx(row["seconds"] * 1e3)
        assert row["decisions_per_deal"] * row["deals"] == pytest.approx(row["decisions"])
        assert 0 < row["slowest_decision_ms"] <= row["seconds"] * 1e3  # one of its decisions
        assert row["ratio_to_random"] == pytest.approx(row["seconds"] / base["seconds"])
        target = row["target_ratio"]
        assert row["met"] == (None if target is None else row["ratio_to_random"] <= target)


def test_bench_bots_text_ratios_are_the_printed_times_quotients(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "bots", "--variant", "guandan", "--deals", "2"]) == 0
    out = capsys.readouterr().out
    assert figure("guandan: {} consecutive match deals per bot", out) == Printed.of("2")
    line = "{} ms/deal {} decisions/deal slowest {} ms {}x random"
    base_ms, base_decisions, base_slowest, base_ratio = figures(f"random {line}", out)
    ms, decisions, slowest, ratio = figures(f"heuristic {line}", out)
    assert base_ratio == Printed.of("1.00")
    agree("heuristic's deal time in random deals", ratio, ms / base_ms)
    for per_deal, most, count in (
        (base_ms, base_slowest, base_decisions),
        (ms, slowest, decisions),
    ):
        assert per_deal.high > 0 and count.high >= 1
        assert most.low <= (per_deal * 2).high  # a decision within the two deals' time


def test_the_search_bots_target_is_its_mean_time_per_decision(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every decision of the deals counts, forced ones too: 20 ms on average at most."""
    from arena.commands import bench_bots

    def costs(variant: str, names: list[str], deals: int, seed: int) -> dict[str, Any]:
        return {
            "random": bench_bots.Cost(seconds=0.01, decisions=100, deals=2),
            "search": bench_bots.Cost(seconds=2.1, decisions=100, deals=2),
            "search:samples=1": bench_bots.Cost(seconds=1.9, decisions=100, deals=2),
        }

    monkeypatch.setattr(bench_bots, "measure", costs)
    argv = ["bench", "bots", "--variant", "guandan", "--bots", "search,search:samples=1"]
    assert main([*argv, "--json"]) == 0
    rows = {row["bot"]: row for row in json.loads(capsys.readouterr().out)["bots"]}
    assert rows["search"]["ms_per_decision"] == pytest.approx(21.0)
    assert rows["search"]["target_ms_per_decision"] == 20.0 and rows["search"]["met"] is False
    assert rows["search:samples=1"]["target_ms_per_decision"] is None  # named, not the default
    assert rows["random"]["met"] is None
    assert main(argv) == 0
    assert "21.000 ms/decision  target ≤ 20 ms: NOT met" in capsys.readouterr().out
