"""``arena bench tables``: a person's table played in headless Chromium; its figures are
what its delays make them."""

from __future__ import annotations

import json

import pytest
from browser import missing_browser

from arena.cli import main
from arena.commands.bench_tables import TARGET_MS


@pytest.mark.parametrize("variant", ["guandan", "shengji-2"])
def test_the_delays_are_measured_and_their_figures_agree(
    capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    """Shengji-2: the kitty buried in one gesture (its cards selected, one press), the
    forced moves left to the page."""
    reason = missing_browser()
    if reason is not None:
        pytest.skip(reason)
    assert main(["bench", "tables", "--variant", variant, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["variant"] == variant
    assert report["deals"] == 1
    assert report["decisions"] > 0
    assert report["baseline_ms"] > 0
    assert report["target_ms"] == TARGET_MS
    for key in ("click_to_drawn", "bot_to_drawn"):
        figures = report[key]
        assert figures["count"] > 0
        assert 0 < figures["p50_ms"] <= figures["p95_ms"] <= figures["max_ms"]
        assert figures["p50_baselines"] == pytest.approx(figures["p50_ms"] / report["baseline_ms"])
        assert figures["met"] == (figures["p95_ms"] <= TARGET_MS)
    if variant == "guandan":  # every click of the person is followed by its play drawn
        assert report["click_to_drawn"]["count"] == report["decisions"]
