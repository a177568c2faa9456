"""Metrics: names by convention, per-batch counts published once, store writes timed,
rating gauges, the /metrics endpoint, retries counted, the bench's overhead figure."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import Counter, Gauge, Histogram

from arena import games, metrics
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
    assert len(found) == 21
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
    assert exported["arena_web_request_seconds_bucket"] == {"route", "method", "status", "le"}
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
    """Each helper adds one to its own series (counted from before: other tests add to
    the same registry): fails if a helper counts nothing, twice, or in another series."""
    labels = {"variant": "shengji-2", "bot": "alpha"}
    series = [
        "arena_decision_seconds_count",
        "arena_decision_timeouts_total",
        "arena_automatic_plays_total",
        "arena_illegal_actions_total",
        "arena_forfeits_total",
    ]
    before = {name: value(name, **labels) for name in series}
    seconds = value("arena_decision_seconds_sum", **labels)
    metrics.record_decision("shengji-2", "alpha", 0.03)
    metrics.record_timeout("shengji-2", "alpha")
    metrics.record_illegal_action("shengji-2", "alpha")
    metrics.record_forfeit("shengji-2", "alpha")
    metrics.set_connected_bots(7)
    metrics.set_queue_length("shengji-2", 3)
    assert {name: value(name, **labels) - before[name] for name in series} == dict.fromkeys(
        series, 1.0
    )
    assert value("arena_decision_seconds_sum", **labels) - seconds == pytest.approx(0.03)
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


def test_balance_serves_metrics_while_it_runs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    deals = value("arena_deals_finished_total", variant="sanfu", outcome="played")
    db = str(tmp_path / "runs.sqlite")
    argv = ["--variant", "sanfu", "--deals", "4", "--local", "--metrics-port", "0", "--db", db]
    code = main(["balance", *argv])
    assert code == 0
    assert "metrics on http://127.0.0.1:" in capsys.readouterr().err
    assert value("arena_deals_finished_total", variant="sanfu", outcome="played") == deals + 4


def test_a_bad_metrics_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["balance", "--variant", "sanfu", "--local", "--metrics-port", "70000"])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "argument --metrics-port: must be an integer from 0 to 65,535" in err.splitlines()[-1]


# -- series whose labels are known in advance start at 0 ----------------------------

FRESH_EXPOSITION = (
    "from prometheus_client import generate_latest\n"
    "from arena.metrics import REGISTRY\n"
    "print(generate_latest(REGISTRY).decode())\n"
)


def fresh_samples() -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every arena sample of a process that only imported the metrics (a fresh registry)."""
    from prometheus_client.parser import text_string_to_metric_families

    exposition = subprocess.run(
        [sys.executable, "-c", FRESH_EXPOSITION], capture_output=True, text=True, check=True
    ).stdout
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
        if sample.name.startswith("arena_")
    }


def test_series_with_known_labels_are_exposed_at_zero_by_a_fresh_registry() -> None:
    samples = fresh_samples()
    expected: set[tuple[str, frozenset[tuple[str, str]]]] = set()

    def expect(name: str, **labels: str) -> None:
        expected.add((name, frozenset(labels.items())))

    for variant in games.names():
        for outcome in metrics.MATCH_OUTCOMES:
            expect("arena_matches_finished_total", variant=variant, outcome=outcome)
        for outcome in metrics.DEAL_OUTCOMES:
            expect("arena_deals_finished_total", variant=variant, outcome=outcome)
        for name in ("arena_matches_in_flight", "arena_decisions_total", "arena_queue_length"):
            expect(name, variant=variant)
        expect("arena_sim_batches_total", variant=variant)
        expect("arena_sim_batch_seconds_count", variant=variant)
    for operation in metrics.STORE_OPERATIONS:
        expect("arena_store_write_seconds_count", operation=operation)
        expect("arena_store_write_errors_total", operation=operation)
    for task in metrics.RAY_TASKS:
        expect("arena_ray_tasks_retried_total", task=task)
    assert expected <= set(samples), sorted(expected - set(samples))
    assert {key: samples[key] for key in expected} == dict.fromkeys(expected, 0.0)
    assert all(v == 0.0 for v in samples.values()), "a fresh registry counted something"


def literal_arguments(path: Path, method: str, position: int, keyword: str) -> set[str]:
    """The string literals passed to every ``….method(…)`` call of a source file, at
    ``position`` or as ``keyword`` (anything else is returned as its source text)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != method:
            continue
        args = [k.value for k in node.keywords if k.arg == keyword] or node.args[position:][:1]
        assert args, f"{path.name}: a {method}() call without its {keyword}"
        [arg] = args
        found.add(arg.value if isinstance(arg, ast.Constant) else ast.unparse(arg))
    return found


def test_the_known_labels_are_every_store_operation_and_ray_task_of_the_code() -> None:
    root = Path(metrics.__file__).parent
    operations = set().union(
        *(
            literal_arguments(path, "_write", 1, "operation")
            | literal_arguments(path, "_update", 0, "operation")
            for path in root.glob("store/*.py")
            if path.name != "database.py"  # where _write and _update are, passing it on
        )
    )
    assert operations == set(metrics.STORE_OPERATIONS)
    tasks = set().union(
        *(literal_arguments(path, "stream", 3, "name") for path in (root / "sim").glob("*.py"))
    )
    assert tasks == set(metrics.RAY_TASKS)


def test_a_seated_bot_has_its_per_bot_series_at_zero() -> None:
    from arena.server.remote import RemotePolicy

    labels = {"variant": "guandan", "bot": "seated-only"}
    per_bot = (
        "arena_decision_seconds_count",
        "arena_decision_timeouts_total",
        "arena_automatic_plays_total",
        "arena_illegal_actions_total",
        "arena_forfeits_total",
    )
    assert all(REGISTRY.get_sample_value(name, labels) is None for name in per_bot)
    RemotePolicy("m-1", variant="guandan", bot="seated-only", seq=int, deal=int, grace=1.0)
    assert [REGISTRY.get_sample_value(name, labels) for name in per_bot] == [0.0] * 5
