"""Metrics: names by convention, per-batch counts published once, store writes timed,
rating gauges, the /metrics endpoint, retries counted, the bench's overhead figure."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import Counter, Gauge, Histogram

from arena import metrics
from arena.cli import main
from arena.metrics import REGISTRY, BatchCounts
from arena.sim import MatchJob, Runner, TournamentConfig, plan, team_players
from arena.sim.league import League
from arena.sim.worker import play_batch
from arena.store import Store, StoreError


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def arena_metrics() -> list[Any]:
    return [m for m in vars(metrics).values() if isinstance(m, Counter | Gauge | Histogram)]


def test_every_metric_is_named_by_the_prometheus_conventions() -> None:
    found = arena_metrics()
    assert len(found) == 19
    for metric in found:
        family = metric.describe()[0]
        assert family.name.startswith("arena_"), family.name
        assert family.documentation.strip(), f"{family.name} has no help text"
        if isinstance(metric, Histogram):
            assert family.name.endswith("_seconds"), family.name
    exported = metrics.metric_names()
    counters = {n for n in exported if n.startswith("arena_") and n.endswith("_total")}
    assert "arena_deals_finished_total" in counters
    assert exported["arena_decision_seconds_bucket"] == {"variant", "bot", "le"}
    assert exported["arena_rating_elo"] == {"variant", "bot"}
    assert "process_cpu_seconds_total" in exported


def one_deal_jobs(count: int) -> list[MatchJob]:
    players = team_players(["random", "random"], ["first", "first"])
    return [
        MatchJob(f"metrics:{i}", "guandan", {}, 100 + i, players, max_deals=1) for i in range(count)
    ]


def test_a_batch_returns_its_counts_and_publishing_adds_them_once() -> None:
    result = play_batch(one_deal_jobs(3))
    [counts] = result.counts
    assert counts.variant == "guandan"
    assert counts.matches == {"deal_limit": 3}
    assert counts.deals["played"] == 3
    assert counts.decisions == sum(r.decisions for r in result.reports) > 0
    assert counts.seconds > 0

    deals = value("arena_deals_finished_total", variant="guandan", outcome="played")
    matches = value("arena_matches_finished_total", variant="guandan", outcome="deal_limit")
    decisions = value("arena_decisions_total", variant="guandan")
    batches = value("arena_sim_batches_total", variant="guandan")
    metrics.publish_batch(counts)
    assert value("arena_deals_finished_total", variant="guandan", outcome="played") == deals + 3
    assert (
        value("arena_matches_finished_total", variant="guandan", outcome="deal_limit")
        == matches + 3
    )
    assert value("arena_decisions_total", variant="guandan") == decisions + counts.decisions
    assert value("arena_sim_batches_total", variant="guandan") == batches + 1


def test_counts_tell_forfeits_and_complete_matches_and_merge() -> None:
    forfeited = {
        "deals": [
            {"result": {"details": {}}},
            {"result": {"details": {"forfeit": 2}}},
        ],
        "result": {"complete": True},
    }
    complete = {"deals": [{"result": {"details": {}}}], "result": {"complete": True}}
    a, b = BatchCounts("sanfu"), BatchCounts("sanfu", seconds=1.5)
    a.add_match(forfeited, 10)
    b.add_match(complete, 4)
    total = a + b
    assert total.matches == {"forfeit": 1, "complete": 1}
    assert total.deals == {"played": 2, "forfeit": 1}
    assert (total.decisions, total.seconds) == (14, 1.5)
    with pytest.raises(ValueError, match="cannot add counts of guandan to sanfu"):
        a + BatchCounts("guandan")


def test_server_helpers_update_their_series() -> None:
    before = value("arena_decision_seconds_count", variant="shengji-2", bot="alpha")
    metrics.record_decision("shengji-2", "alpha", 0.03)
    metrics.record_timeout("shengji-2", "alpha")
    metrics.record_illegal_action("shengji-2", "alpha")
    metrics.record_forfeit("shengji-2", "alpha")
    metrics.set_connected_bots(7)
    metrics.set_queue_length("shengji-2", 3)
    assert value("arena_decision_seconds_count", variant="shengji-2", bot="alpha") == before + 1
    assert value("arena_decision_timeouts_total", variant="shengji-2", bot="alpha") >= 1
    assert value("arena_automatic_plays_total", variant="shengji-2", bot="alpha") >= 1
    assert value("arena_illegal_actions_total", variant="shengji-2", bot="alpha") >= 1
    assert value("arena_forfeits_total", variant="shengji-2", bot="alpha") >= 1
    assert value("arena_connected_bots") == 7
    assert value("arena_queue_length", variant="shengji-2") == 3


def test_a_match_in_flight_is_counted_and_a_failure_is_a_failed_match() -> None:
    failed = value("arena_matches_finished_total", variant="sanfu", outcome="failed")
    with metrics.match_in_flight("sanfu"):
        assert value("arena_matches_in_flight", variant="sanfu") == 1
    with pytest.raises(RuntimeError), metrics.match_in_flight("sanfu"):
        raise RuntimeError("the match broke")
    assert value("arena_matches_in_flight", variant="sanfu") == 0
    assert value("arena_matches_finished_total", variant="sanfu", outcome="failed") == failed + 1


def test_store_writes_are_timed_and_failures_counted(tmp_path: Path) -> None:
    with Store.open(tmp_path / "s.sqlite") as store:
        writes = value("arena_store_write_seconds_count", operation="add_bot")
        store.add_bot("random", "builtin")
        assert value("arena_store_write_seconds_count", operation="add_bot") == writes + 1
        errors = value("arena_store_write_errors_total", operation="add_bot")
        with pytest.raises(StoreError):
            store.add_bot("random", "remote")  # the same name, other attributes
        assert value("arena_store_write_errors_total", operation="add_bot") == errors + 1


def test_rating_gauges_follow_the_league_and_the_store(tmp_path: Path) -> None:
    config = TournamentConfig.from_mapping(
        {"name": "gauges", "bots": ["random", "first"], "matches": 2, "deals": 1}
    )
    with Store.open(tmp_path / "r.sqlite") as store:
        store.add_tournament(config.id, config.name, config.variant, {}, {})
        for bot in ("random", "first"):
            store.add_bot(bot, "builtin")
        league = League(store, config.variant)
        for report in play_batch(plan(config)).reports:
            league.add(report, config.id)
        assert value("arena_rating_elo", variant="guandan", bot="first") == league.elo["first"]
        skill = league.skill["random"]
        assert value(
            "arena_rating_openskill_ordinal", variant="guandan", bot="random"
        ) == pytest.approx(skill.mu - 3 * skill.sigma)
        metrics.RATING_ELO.labels("guandan", "first").set(0)
        metrics.publish_ratings(store, "guandan")
        assert value("arena_rating_elo", variant="guandan", bot="first") == league.elo["first"]


def test_the_endpoint_serves_the_registry_on_a_free_port() -> None:
    server = metrics.start_metrics_server(0)
    try:
        assert server.port > 0
        metrics.set_queue_length("guandan", 5)
        with urllib.request.urlopen(server.url, timeout=5) as response:
            text = response.read().decode()
        assert 'arena_queue_length{variant="guandan"} 5.0' in text
        assert "# HELP arena_deals_finished_total" in text
        assert "_created" not in text
    finally:
        server.stop()


def crash_first_time(marker: str) -> Any:
    """A batch task Ray does not retry, which kills its worker the first time it runs."""
    import ray

    def play(jobs: list[MatchJob]) -> Any:
        try:  # only the first batch to get here creates the marker (and crashes)
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return play_batch(jobs)
        os._exit(1)

    return ray.remote(max_retries=0)(play)


@pytest.mark.usefixtures("ray_session")
def test_the_runner_retries_a_lost_batch_and_counts_the_retry(tmp_path: Path) -> None:
    jobs = one_deal_jobs(4)
    retried = value("arena_ray_tasks_retried_total", task="match_batch")
    with Runner() as runner:
        task = crash_first_time(str(tmp_path / "marker"))
        reports = list(runner.run(jobs, batch_size=2, task=task))
    assert sorted(r.job.id for r in reports) == sorted(j.id for j in jobs)
    assert value("arena_ray_tasks_retried_total", task="match_batch") == retried + 1
    assert value("arena_sim_workers") >= 1


def test_the_bench_prints_the_metrics_overhead(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "guandan", "--deals", "3"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "metrics bookkeeping" in x)
    assert "of the engine time; target ≤ 2%" in line


def test_balance_serves_metrics_while_it_runs(capsys: pytest.CaptureFixture[str]) -> None:
    deals = value("arena_deals_finished_total", variant="sanfu", outcome="played")
    code = main(["balance", "--variant", "sanfu", "--deals", "4", "--local", "--metrics-port", "0"])
    assert code == 0
    assert "metrics on http://127.0.0.1:" in capsys.readouterr().err
    assert value("arena_deals_finished_total", variant="sanfu", outcome="played") == deals + 4


def test_a_bad_metrics_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["balance", "--variant", "sanfu", "--deals", "1", "--local", "--metrics-port", "70000"]
    )
    assert code == 2
    assert "--metrics-port must be 0..65535" in capsys.readouterr().err
