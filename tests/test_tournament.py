"""Tournaments end to end: stored once, rated once, resumable, fault tolerant."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.errors import ConfigError
from arena.sim import Runner, TournamentConfig, plan, play_jobs
from arena.sim.jobs import MatchJob
from arena.sim.league import League
from arena.store import Store


def small(**changes: object) -> TournamentConfig:
    data: dict[str, object] = {"name": "t", "bots": ["random", "first"], "matches": 4, "deals": 1}
    data.update(changes)
    return TournamentConfig.from_mapping(data)


def stored_ratings(store: Store) -> dict[tuple[str, str], tuple[float, int]]:
    return {(r.bot, r.system): (r.value, r.matches) for r in store.ratings("guandan")}


def test_a_result_reported_twice_is_stored_and_rated_once(tmp_path: Path) -> None:
    config = small()
    reports = play_jobs(plan(config))
    with Store.open(tmp_path / "a.sqlite") as store:
        store.add_tournament(config.id, config.name, config.variant, {}, {})
        for bot in ("random", "first"):
            store.add_bot(bot, "builtin")
        league = League(store, config.variant)
        assert sum(league.add(r, config.id) for r in reports) == len(reports)
        before = stored_ratings(store)
        again = League(store, config.variant)
        assert sum(again.add(r, config.id) for r in reports) == 0  # a retried batch
        assert stored_ratings(store) == before
        assert store.match_ids(config.id) == {r.job.id for r in reports}


def test_paired_results_are_rated_only_as_complete_pairs(tmp_path: Path) -> None:
    config = small(paired=True, matches=2)
    reports = play_jobs(plan(config))
    with Store.open(tmp_path / "p.sqlite") as store:
        store.add_tournament(config.id, config.name, config.variant, {}, {})
        for bot in ("random", "first"):
            store.add_bot(bot, "builtin")
        league = League(store, config.variant)
        assert league.add_unit(reports[0:2], config.id) == 2
        assert store.match_ids(config.id) == {reports[0].job.id, reports[1].job.id}
        assert league.add_unit(reports[0:2], config.id) == 0  # a retried pair


def crash_once(marker: str) -> Any:
    """A batch task that kills its worker process the first time it runs."""
    import ray

    def play(jobs: list[MatchJob]) -> list[Any]:
        if not os.path.exists(marker):
            Path(marker).write_text("crashed")
            os._exit(1)  # the worker dies mid-batch
        return play_jobs(jobs)

    return ray.remote(max_retries=3)(play)


@pytest.mark.usefixtures("ray_session")
def test_a_killed_worker_is_retried_and_every_result_comes_back_once(tmp_path: Path) -> None:
    jobs = plan(small(matches=4))
    with Runner() as runner:
        reports = list(runner.run(jobs, batch_size=2, task=crash_once(str(tmp_path / "m"))))
    assert (tmp_path / "m").exists()
    assert sorted(r.job.id for r in reports) == sorted(j.id for j in jobs)


@pytest.mark.usefixtures("ray_session")
def test_tournament_command_stores_rates_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "league.sqlite")
    args = ["tournament", "--bots", "random,first", "--matches", "4", "--deals", "1", "--db", db]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "4 matches stored" in out and "leaderboard" in out
    assert main(args) == 0  # the rerun finds everything stored
    assert "4 already stored" in capsys.readouterr().out
    assert main(["leaderboard", "--variant", "guandan", "--db", db, "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert {row["bot"] for row in board["bots"]} == {"random", "first"}
    assert all(row["matches"] == 4 for row in board["bots"])
    with Store.open(db) as store:
        match_id = next(iter(store.matches(variant="guandan"))).id
    assert main(["replay", match_id, "--db", db]) == 0
    assert "all legal, same results" in capsys.readouterr().out


def test_tournament_file_and_bad_definitions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tournament", "--example"]) == 0
    example = capsys.readouterr().out
    path = tmp_path / "t.toml"
    path.write_text(example)
    config = TournamentConfig.load(path)
    assert config.variant == "guandan" and config.paired
    path.write_text("teams = [[")
    assert main(["tournament", str(path)]) == 2
    assert "not valid TOML" in capsys.readouterr().err
    assert main(["tournament", "--bots", "random,nobody"]) == 2
    assert "unknown bot" in capsys.readouterr().err


def test_sj32_room_points_follow_each_deal_of_a_shengji_match() -> None:
    from arena.sim.league import room_points

    deal = {"result": {"details": {"gain": 1, "take_over": False, "declarer_team": 0}}}
    taken = {"result": {"details": {"gain": 0, "take_over": True, "declarer_team": 0}}}
    players = ("a", "b", "a", "b")
    # declarers (team 0: bot a) up 1 level: +2 each declarer, the losers −2 (SJ-32)
    assert room_points({}, players, {"deals": [deal]}) == {"a": 2.0, "b": -2.0}
    # then the defenders (bot b) take over without a level: +2 to them
    assert room_points({}, players, {"deals": [deal, taken]}) == {"a": 0.0, "b": 0.0}


@pytest.mark.usefixtures("ray_session")
def test_an_interrupted_tournament_keeps_its_results_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "cut.sqlite")
    args = ["tournament", "--bots", "random,first", "--matches", "6", "--deals", "1", "--db", db]
    original = League.add_unit
    seen = {"n": 0}

    def add_then_interrupt(self: League, reports: Any, tournament_id: str | None) -> int:
        seen["n"] += 1
        if seen["n"] == 3:
            raise KeyboardInterrupt  # Ctrl-C while results stream in
        return original(self, reports, tournament_id)

    monkeypatch.setattr(League, "add_unit", add_then_interrupt)
    assert main(args) == 130
    assert "interrupted: 2 matches stored" in capsys.readouterr().err
    monkeypatch.setattr(League, "add_unit", original)
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "2 already stored" in out and "4 matches stored" in out
    with Store.open(db) as store:
        assert len(list(store.matches(variant="guandan"))) == 6


def test_rated_rounds_pair_teams_of_close_elo() -> None:
    from arena.sim.tournament import plan_round

    config = TournamentConfig.from_mapping(
        {
            "name": "r",
            "teams": [["random", "random"], ["first", "first"], ["random", "first"]],
            "format": "rated",
            "matches": 2,
            "deals": 1,
        }
    )
    elo = {"random": 1600.0, "first": 1400.0}
    jobs = plan_round(config, 0, elo)
    # strongest (random,random: 1600) meets the next (random,first: 1500); first,first sits out
    assert len(jobs) == 1
    assert set(jobs[0].players) == {"random", "first"}
    assert jobs[0].players[0:3:2] == ("random", "random")
    with pytest.raises(ConfigError):
        plan(config)


@pytest.mark.usefixtures("ray_session")
def test_rated_tournament_command_plays_its_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "rated.sqlite")
    args = [
        "tournament",
        "--bots",
        "random,first",
        "--team",
        "random,first",
        "--format",
        "rated",
        "--matches",
        "3",
        "--deals",
        "1",
        "--db",
        db,
    ]
    assert main(args) == 0
    assert "3 matches stored" in capsys.readouterr().out
