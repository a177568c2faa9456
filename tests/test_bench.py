"""``arena bench GAME``: every rate and ratio printed is what the counts printed make it."""

from __future__ import annotations

import json
import sys

import pytest
from printed import Printed, agree, figure, figures

from arena.chance import derive_seed
from arena.cli import main
from arena.commands.bench import (
    TARGET_DEALS_PER_SECOND,
    TARGET_METRICS_OVERHEAD,
    TARGET_YARDSTICK_TIMES,
    time_engine_and_driver,
)
from arena.commands.bench_deals import match_setups
from arena.games import make

DEALS = 6


def test_the_json_rates_are_the_counts_over_the_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "guandan", "--deals", str(DEALS), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    setup, engine, driver, metrics = (report[k] for k in ("setup", "engine", "driver", "metrics"))
    assert report["deals"] == DEALS
    for timing in (setup, engine, driver):
        assert timing["seconds"] > 0
        assert timing["deals_per_second"] * timing["seconds"] == pytest.approx(DEALS)
    assert engine["decisions"] == driver["decisions"], "the engine and the driver: the same deals"
    for timing in (engine, driver):
        assert timing["decisions"] >= DEALS  # a deal has decisions
        assert timing["decisions_per_deal"] * DEALS == pytest.approx(timing["decisions"])
        rate = timing["decisions"] / timing["seconds"]
        assert timing["us_per_decision"] * rate == pytest.approx(1e6)
    assert engine["legal_actions"] >= engine["decisions"]  # one legal action at least
    per_decision = engine["legal_actions_per_decision"] * engine["decisions"]
    assert per_decision == pytest.approx(engine["legal_actions"])
    assert engine["setup_times"] == pytest.approx(engine["seconds"] / setup["seconds"])
    assert engine["setup_times"] == pytest.approx(
        setup["deals_per_second"] / engine["deals_per_second"]
    )
    assert driver["engine_times"] == pytest.approx(driver["seconds"] / engine["seconds"])
    assert metrics["seconds"] > 0
    assert metrics["us_per_deal"] * DEALS == pytest.approx(metrics["seconds"] * 1e6)
    assert metrics["engine_fraction"] == pytest.approx(metrics["seconds"] / engine["seconds"])
    assert metrics["target_fraction"] == TARGET_METRICS_OVERHEAD
    assert metrics["met"] == (metrics["engine_fraction"] <= TARGET_METRICS_OVERHEAD)
    target = report["target"]
    assert target["deals_per_second"] == TARGET_DEALS_PER_SECOND["guandan"]
    assert target["times"] * target["deals_per_second"] == pytest.approx(engine["deals_per_second"])
    assert target["met"] == (engine["deals_per_second"] >= target["deals_per_second"])


def test_the_engine_and_the_driver_play_the_same_deals_in_a_game_whose_seats_move() -> None:
    game = make("sanfu")  # its players change seats between deals (player_at)
    seeds = [derive_seed(2, "bench", i) for i in range(DEALS)]
    deals = list(zip(seeds, match_setups(game, seeds), strict=True))
    engine, driver = time_engine_and_driver(game, deals)
    assert engine.decisions == driver.decisions


@pytest.mark.parametrize("game", ["guandan", "sanfu"])
def test_the_printed_figures_agree_with_each_other(
    capsys: pytest.CaptureFixture[str], game: str
) -> None:
    assert main(["bench", game, "--deals", str(DEALS)]) == 0
    out = capsys.readouterr().out
    assert figure(": {} consecutive match deals", out) == Printed.of(str(DEALS))
    setup = figure("setup only (baseline): {} deals/s", out)
    engine, setup_times = figures("engine: {} deals/s ({}x the setup time)", out)
    driver, engine_times = figures("driver + observations: {} deals/s ({}x the engine time)", out)
    for rate in (setup, engine, driver):
        assert rate.high > 0
    agree("engine time in setup times", setup_times, setup / engine)
    agree("driver time in engine times", engine_times, engine / driver)
    engine_decisions, driver_decisions = figures(
        "decisions per deal: {} (engine), {} (driver)", out
    )
    engine_us, driver_us = figures("µs per decision: {} (engine), {} (driver)", out)
    agree("engine µs per decision", engine_us, 1e6 / (engine * engine_decisions))
    agree("driver µs per decision", driver_us, 1e6 / (driver * driver_decisions))
    assert figure("legal actions/decision: {}", out).high >= 1
    us_per_deal, fraction = figures(
        "metrics bookkeeping: {} µs per deal ({} of the engine time", out
    )
    agree("metrics share of the engine time", fraction, us_per_deal * engine / 1e6)
    target = figure("target ≥ {} deals/s (engine, one core)", out)
    times = figure("({}x the target)", out)
    agree("engine rate in targets", times, engine / target)


def test_the_yardstick_is_timed_in_the_same_run_and_its_ratios_are_the_rates_over_its(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--yardstick``: RLCard's Dou Dizhu core plays as many whole games as our deals,
    and the ratios are our engine's rates over its rates."""
    assert main(["bench", "shengji-2", "--deals", str(DEALS), "--yardstick", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    engine, peer = report["engine"], report["yardstick"]
    assert peer["games"] == DEALS
    assert peer["decisions"] >= 2 * DEALS  # a game is a bid and plays at least
    assert peer["legal_actions"] >= peer["decisions"]
    assert peer["games_per_second"] * peer["seconds"] == pytest.approx(DEALS)
    assert peer["decisions_per_second"] * peer["seconds"] == pytest.approx(peer["decisions"])
    assert engine["decisions_per_second"] * engine["seconds"] == pytest.approx(engine["decisions"])
    assert peer["decisions_times"] == pytest.approx(
        engine["decisions_per_second"] / peer["decisions_per_second"]
    )
    assert peer["deals_times"] == pytest.approx(
        engine["deals_per_second"] / peer["games_per_second"]
    )
    assert peer["target_times"] == TARGET_YARDSTICK_TIMES
    assert peer["met"] == (peer["decisions_times"] >= TARGET_YARDSTICK_TIMES)
    assert 0 < report["state_bytes"]["clone"] <= report["state_bytes"]["moved"]


def test_the_printed_yardstick_agrees_with_the_printed_rates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "guandan", "--deals", str(DEALS), "--yardstick"]) == 0
    out = capsys.readouterr().out
    games, decisions = figures("doudizhu (game core, random legal actions): {} games/s, {}", out)
    ours, times, deals_times = figures(
        "ours against it: {} decisions/s ({}x its decisions/s, {}x its games/s", out
    )
    engine = figure("engine: {} deals/s", out)
    agree("our decisions/s over its", times, ours / decisions)
    agree("our deals/s over its games/s", deals_times, engine / games)
    assert figure("memory per state: {} kB", out).high > 0


def test_the_yardstick_without_rlcard_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "rlcard.games.doudizhu.game", None)  # import fails
    assert main(["bench", "guandan", "--deals", "2", "--yardstick"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "rlcard" in lines[0].lower(), lines


def test_the_report_says_which_engines_ran_and_the_search_costs_on_request(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The engines line is the loader's own account; ``--search`` adds the search bot's
    clone, sample and decision costs for the same variant, printed on one line."""
    from arena.compiled import engines_description

    assert main(["bench", "shengji-1", "--deals", "2", "--search", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engines"] == engines_description()
    search = report["search"]
    assert search["variant"] == "shengji-1"
    assert search["clone_us"] > 0 and search["sample_us"] > 0 and search["decision_ms"] > 0
    assert len(search["chosen"]) == search["decisions"]
    assert main(["bench", "shengji-1", "--deals", "2", "--search"]) == 0
    out = capsys.readouterr().out
    assert f"engines:               {report['engines']}" in out
    assert "search bot:" in out and "determinized sample" in out
