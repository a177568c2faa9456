"""``arena bench env``: its timings play the same deals and its ratios are its rates'."""

from __future__ import annotations

import json
import re

import pytest

from arena.cli import main
from arena.commands.bench_env import TARGET_OVERHEAD

DEALS = 2
TABLES = 3


def _report(capsys: pytest.CaptureFixture[str], variant: str, *extra: str) -> str:
    args = ["bench", "env", "--variant", variant, "--deals", str(DEALS), "--matches", str(TABLES)]
    assert main([*args, *extra]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("variant", ["guandan", "shengji-2"])  # a flat and a factored space
def test_the_engine_timings_play_the_same_deals_and_the_overheads_are_rate_ratios(
    capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    report = json.loads(_report(capsys, variant, "--json"))
    assert (report["variant"], report["deals"], report["tables"]) == (variant, DEALS, TABLES)
    engine, observed, least = (
        report[key] for key in ("engine", "engine_observed", "least_wrapper")
    )
    # the same seeds and the same random choices: the same deals, decision for decision
    assert engine["decisions"] == observed["decisions"] == least["decisions"] > 0
    for timing in ("vector", "masks_only"):
        assert report[timing]["decisions"] > 0
    rate = {key: report[key]["decisions_per_second"] for key in ("engine", "vector")}
    assert report["overhead"] == pytest.approx(rate["engine"] / rate["vector"] - 1)
    observed_rate = observed["decisions_per_second"]
    assert report["overhead_observed"] == pytest.approx(observed_rate / rate["vector"] - 1)
    least_rate = least["decisions_per_second"]
    assert report["overhead_least_wrapper"] == pytest.approx(rate["engine"] / least_rate - 1)
    assert report["target_overhead"] == TARGET_OVERHEAD
    assert report["met"] == (report["overhead"] <= TARGET_OVERHEAD)


def test_the_printed_overheads_are_the_printed_rates_ratios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _report(capsys, "sanfu")

    def rate(pattern: str) -> float:
        found = re.search(pattern + r"\s+([\d,]+) decisions/s", out)
        assert found is not None, f"no {pattern!r} in:\n{out}"
        return float(found.group(1).replace(",", ""))

    def percent(pattern: str) -> int:
        found = re.search(pattern + r"\s+(-?\d+)%", out)
        assert found is not None, f"no {pattern!r} in:\n{out}"
        return int(found.group(1))

    engine, vector = rate("engine alone:"), rate("vector env:")
    least = float(re.findall(r"\(([\d,]+) decisions/s\)", out)[-1].replace(",", ""))
    # printed rates are whole decisions/s: their ratio is within a percent of the printed one
    assert abs(percent("the environment adds") - 100 * (engine / vector - 1)) <= 1
    assert abs(percent("and tensor written\\):") - 100 * (engine / least - 1)) <= 1
    verdict = "met" if percent("the environment adds") <= 100 * TARGET_OVERHEAD else "NOT met"
    assert f"target ≤ {TARGET_OVERHEAD:.0%}: {verdict})" in out
