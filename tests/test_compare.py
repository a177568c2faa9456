"""``arena compare``: paired matches until the SPRT decides."""

from __future__ import annotations

import json

import pytest

from arena.cli import main
from arena.rating import SprtConfig
from arena.sim import Runner
from arena.sim.compare import compare, pair_jobs


def test_pairs_swap_the_partnerships_on_the_same_seed() -> None:
    first, second = pair_jobs("random", "first", "guandan", {}, 1, seed=3, start=0, count=1)
    assert first.seed == second.seed and first.pair == second.pair
    assert first.players == ("random", "first", "random", "first")
    assert second.players == ("first", "random", "first", "random")


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
