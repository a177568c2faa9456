"""``arena bench bots``: built-in bots timed against random bots on the same deals."""

from __future__ import annotations

import json

import pytest

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
