"""Tournaments end to end: stored once, rated once, resumable, fault tolerant."""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from stores import PASSWORD, new_store_target

import bots
from arena.cli import main
from arena.errors import ConfigError
from arena.games import make
from arena.match import play_match
from arena.rating import SkillRating, update_skill, update_teams
from arena.sim import Runner, TournamentConfig, plan, play_job, play_jobs
from arena.sim.driver import expected_matches, play_tournament
from arena.sim.jobs import MatchJob, MatchReport
from arena.sim.league import League
from arena.sim.tournament import pair_round, round_jobs
from arena.store import Store, StoreError


def small(**changes: object) -> TournamentConfig:
    data: dict[str, object] = {"name": "t", "bots": ["random", "first"], "matches": 4, "deals": 1}
    data.update(changes)
    return TournamentConfig.from_mapping(data)


def stored_ratings(store: Store) -> dict[tuple[str, str], tuple[float, int]]:
    return {(r.bot, r.system): (r.value, r.matches) for r in store.ratings("guandan")}


def test_a_result_reported_twice_is_stored_and_rated_once(store_target: str) -> None:
    config = small()
    reports = play_jobs(plan(config))
    with Store.open(store_target) as store:
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


def test_a_match_is_rated_for_the_team_that_won_it_players_0_and_2_against_1_and_3() -> None:
    """Each stored match moves Elo and OpenSkill as the rating functions do for players 0
    and 2 against 1 and 3, scored by hand from the match's totals: the winners go up, the
    losers down. Four bots take turns at the seats: fails if a result is rated from the
    losers' side, if teams are made of other seats, or if one bot gets another's change."""
    names = ("north", "east", "south", "west")
    elo: dict[str, float] = {}
    skill: dict[str, SkillRating] = {}
    decided = 0
    with Store.open(":memory:") as store:
        for name in names:
            store.add_bot(name, "remote")
        league = League(store, "guandan")
        for k in range(8):
            players = (*names[k % 4 :], *names[: k % 4])
            job = MatchJob(f"m{k}", "guandan", {}, seed=k, players=players, max_deals=2)  # type: ignore[arg-type]
            policies = [bots.make("random", seat + 10 * k) for seat in range(4)]
            played = play_match(make("guandan"), policies, seed=k, players=players, max_deals=2)
            assert league.add(MatchReport.of(job, played), None) == 1
            ours, theirs = played.totals[0] + played.totals[2], played.totals[1] + played.totals[3]
            score = 1.0 if ours > theirs else 0.0 if ours < theirs else 0.5
            team_a, team_b = [players[0], players[2]], [players[1], players[3]]
            before = dict(elo)
            elo = update_teams(elo, team_a, team_b, score)
            ranks = [0, 0] if score == 0.5 else [0, 1] if score == 1.0 else [1, 0]
            skill = update_skill(skill, [team_a, team_b], ranks)
            assert league.elo == pytest.approx(elo), k
            assert league.skill == skill, k
            if score != 0.5:
                decided += 1
                winners, losers = (team_a, team_b) if score == 1.0 else (team_b, team_a)
                for bot in winners:
                    assert elo[bot] > before.get(bot, 1500.0)
                for bot in losers:
                    assert elo[bot] < before.get(bot, 1500.0)
        stored = {(r.bot, r.system): r.value for r in store.ratings("guandan")}
        assert {bot: stored[bot, "elo"] for bot in names} == pytest.approx(elo)
    assert decided >= 4


def test_paired_results_are_rated_only_as_complete_pairs(store_target: str) -> None:
    config = small(paired=True, matches=2)
    reports = play_jobs(plan(config))
    with Store.open(store_target) as store:
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
    assert "interrupted by SIGINT: 2 matches stored" in capsys.readouterr().err
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


# ---------------------------------------------------------------------------
# Exactly once, in plan order, whatever fails (no Ray: results in any order)


class ShuffledRunner:
    """Plays jobs in this process and hands the reports back in a random order, as
    Ray's batches finish; ``crash_after`` reports, it stops as a killed driver does."""

    def __init__(self, seed: int = 0, crash_after: int | None = None) -> None:
        self.random = random.Random(seed)
        self.crash_after = crash_after
        self.played: list[str] = []

    def run(self, jobs: Sequence[MatchJob], batch_size: int) -> Iterator[MatchReport]:
        reports = [played(job) for job in jobs]
        self.random.shuffle(reports)
        for report in reports:
            if self.crash_after is not None and len(self.played) >= self.crash_after:
                raise KeyboardInterrupt
            self.played.append(report.job.id)
            yield report


_PLAYED: dict[str, MatchReport] = {}


def played(job: MatchJob) -> MatchReport:
    """A job's report, played once per test session (the play is deterministic)."""
    if job.id not in _PLAYED:
        _PLAYED[job.id] = play_job(job)
    return _PLAYED[job.id]


def league_of(store: Store, config: TournamentConfig) -> League:
    store.add_tournament(config.id, config.name, config.variant, dict(config.options), {})
    store.add_builtin_bots(
        sorted({b for t in config.teams for b in t} | set(config.reference or ()))
    )
    return League(store, config.variant)


def run_to_end(store: Store, config: TournamentConfig, runner: Any) -> int:
    league = league_of(store, config)
    return sum(added for _, added in play_tournament(config, store, league, runner, 1))


def all_ratings(store: Store, variant: str = "guandan") -> list[tuple[object, ...]]:
    return [(r.bot, r.system, r.value, r.sigma, r.matches) for r in store.ratings(variant)]


RATED = {
    "name": "rated",
    "teams": [["random", "random"], ["first", "first"], ["heuristic", "heuristic"],
              ["random", "first"], ["heuristic", "random"]],
    "format": "rated",
    "matches": 3,
    "deals": 1,
}  # fmt: skip
FORMATS_OF_PLAY = {
    "round_robin": {"name": "rr", "bots": ["random", "first", "heuristic"], "matches": 2},
    "gauntlet": {
        "name": "g",
        "bots": ["random", "first"],
        "format": "gauntlet",
        "reference": ["heuristic", "heuristic"],
        "matches": 2,
    },
    "rated": RATED,
    "paired": {"name": "p", "bots": ["random", "first", "heuristic"], "matches": 2, "paired": True},
    "rated_paired": {**RATED, "paired": True},
}


def format_config(name: str) -> TournamentConfig:
    return TournamentConfig.from_mapping({"deals": 1, **FORMATS_OF_PLAY[name]})


def crash_at_insert(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    """The process dies (as a KeyboardInterrupt here) while storing the k-th match."""
    insert = Store._insert_match
    count = {"n": 0}

    def insert_or_die(self: Store, *args: Any) -> bool:
        if count["n"] == k:
            raise KeyboardInterrupt
        count["n"] += 1
        return insert(self, *args)

    monkeypatch.setattr(Store, "_insert_match", insert_or_die)


@pytest.mark.parametrize(
    ("name", "crash", "backend"),
    [
        *(
            (name, crash, "sqlite")
            for name in sorted(FORMATS_OF_PLAY)
            for crash in ("between_results", "while_storing")
        ),
        # a write cut short: pairs in one transaction, rounds fixed once
        ("rated_paired", "while_storing", "postgresql"),
    ],
)
def test_crashes_anywhere_then_resuming_store_each_match_once_with_the_same_ratings(
    name: str,
    backend: str,
    crash: str,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """The driver dies after k results come back, or while storing the k-th match
    (any k, results in a random order), and is run again: the store holds exactly the
    definition's matches, each once, pairs whole, and the ratings of a run straight
    through."""
    config = format_config(name)
    total = expected_matches(config)
    with Store.open(new_store_target(request, backend, None)) as straight:
        assert run_to_end(straight, config, ShuffledRunner(seed=99)) == total
        reference = all_ratings(straight)
        ids = straight.match_ids(config.id)
    assert len(ids) == total
    for k in range(total):
        with Store.open(new_store_target(request, backend, None)) as store:
            with monkeypatch.context() as patch, pytest.raises(KeyboardInterrupt):
                if crash == "while_storing":
                    crash_at_insert(patch, k)
                    run_to_end(store, config, ShuffledRunner(seed=k))
                else:
                    run_to_end(store, config, ShuffledRunner(seed=k, crash_after=k))
            stored = store.match_ids(config.id)
            if config.paired:
                halves = {i[:-2] for i in stored}
                assert stored == {f"{pair}:{side}" for pair in halves for side in "ab"}
            assert run_to_end(store, config, ShuffledRunner(seed=k + 1)) == total - len(stored)
            assert store.match_ids(config.id) == ids
            assert all_ratings(store) == reference


def test_a_rated_round_is_paired_once_and_resumed_with_its_meetings(store_target: str) -> None:
    """Ratings moved by the first matches of a round would pair it otherwise: the
    resumed round plays the meetings fixed before it started."""
    config = format_config("rated")
    with Store.open(store_target) as store:
        league = league_of(store, config)
        first = pair_round(config, league.elo)
        with pytest.raises(KeyboardInterrupt):
            run_to_end(store, config, ShuffledRunner(crash_after=1))
        assert store.fix_round(config.id, 0, []) == [[list(a), list(b)] for a, b in first]
        moved = League(store, config.variant).elo
        assert pair_round(config, moved) != first  # re-pairing would change the round
        run_to_end(store, config, ShuffledRunner(seed=3))
        for number in range(config.matches):
            meetings = store.fix_round(config.id, number, [])
            teams = [tuple(team) for meeting in meetings for team in meeting]
            assert len(teams) == len(set(teams)) == 4  # each team at most once; one sits out
            played_ids = {
                i for i in store.match_ids(config.id) if i.startswith(f"{config.id}:r{number}:")
            }
            assert played_ids == {job.id for job in round_jobs(config, number, meetings)}  # type: ignore[arg-type]


def test_a_pair_is_stored_whole_or_not_at_all(store_target: str) -> None:
    """A failure while storing the second half (a killed process, a full disk) leaves
    neither half stored nor rated."""
    config = small(paired=True, matches=1)
    first, second = play_jobs(plan(config))
    with Store.open(store_target) as store:
        league = league_of(store, config)
        broken = replace(second, job=replace(second.job, players=("random", "x", "first", "x")))
        with pytest.raises(StoreError, match="'x', which is not a registered bot"):
            league.add_unit([first, broken], config.id)
        assert store.match_ids(config.id) == set()
        assert store.ratings("guandan") == []
        assert league.add_unit([first, second], config.id) == 2


def test_a_round_is_fixed_once(store_target: str) -> None:
    config = format_config("rated")
    with Store.open(store_target) as store:
        league_of(store, config)
        meetings = [[["random", "random"], ["first", "first"]]]
        assert store.fix_round(config.id, 0, meetings) == meetings
        assert store.fix_round(config.id, 0, [[["first", "first"], ["random", "random"]]]) == (
            meetings
        )
        with pytest.raises(StoreError, match="no tournament 'nope'"):
            store.fix_round("nope", 0, meetings)


def test_half_a_pair_left_by_an_older_arena_is_completed_once(store_target: str) -> None:
    config = small(paired=True, matches=2)
    reports = play_jobs(plan(config))
    with Store.open(store_target) as store:
        league = league_of(store, config)
        assert league.add(reports[0], config.id) == 1  # stored alone, as before pairs were units
        assert run_to_end(store, config, ShuffledRunner()) == len(reports) - 1
        assert store.match_ids(config.id) == {r.job.id for r in reports}
        assert {r.matches for r in store.ratings("guandan")} == {len(reports)}


@pytest.mark.parametrize(
    "definition",
    [
        {"bots": ["random", "first"], "matches": 4, "deals": 1},
        {"bots": ["random"], "format": "gauntlet", "reference": ["first", "first"], "paired": True},
        {"teams": [["random", "first"], ["first", "random"]], "format": "rated", "seed": 9},
        {"name": "sj", "variant": "shengji-2", "bots": ["random", "first"], "deals": 2},
    ],
)
def test_a_stored_definition_is_the_tournament_again(definition: dict[str, object]) -> None:
    config = TournamentConfig.from_mapping(definition)
    again = TournamentConfig.from_mapping(json.loads(json.dumps(config.definition())))
    assert again == config and again.id == config.id


def test_a_tournament_stored_without_a_definition_takes_it_when_resumed(
    store_target: str,
) -> None:
    config = small()
    with Store.open(store_target) as store:
        assert store.add_tournament(config.id, config.name, config.variant, {}, {})
        assert not store.add_tournament(
            config.id, config.name, config.variant, {}, config.definition()
        )
        found = store.tournament(config.id)
        assert found is not None and found.config == config.definition()
        with pytest.raises(StoreError, match="another definition"):
            store.add_tournament(config.id, config.name, config.variant, {}, {"matches": 5})


@pytest.mark.usefixtures("ray_session")
def test_a_running_tournament_command_is_followed_by_the_web_face(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """While ``arena tournament`` plays, a viewer on the same store file reads its
    definition and its progress (``x of y``) move; at the end it is finished."""
    from arena.web.viewer import Viewer

    db = tmp_path / "live.sqlite"
    config = TournamentConfig.from_mapping({"bots": ["random", "first"], "matches": 3, "deals": 1})
    args = ["tournament", "--bots", "random,first", "--matches", "3", "--deals", "1"]
    seen: list[tuple[str, int | None, int]] = []
    original = League.add_unit

    def progress() -> tuple[str, int | None, int]:
        with Store.open(db, read_only=True) as reader:
            [row] = [t for t in Viewer(reader).tournaments() if t.id == config.id]
        return row.status, row.planned, row.played

    def add_and_look(self: League, reports: Any, tournament_id: str | None) -> int:
        seen.append(progress())
        added = original(self, reports, tournament_id)
        seen.append(progress())
        return added

    monkeypatch.setattr(League, "add_unit", add_and_look)
    assert main([*args, "--batch", "1", "--db", str(db)]) == 0
    capsys.readouterr()
    assert seen[0] == ("running", 3, 0)
    assert seen[-1] == ("running", 3, 3)
    assert [played for _, _, played in seen] == sorted(played for _, _, played in seen)
    assert {(status, planned) for status, planned, _ in seen} == {("running", 3)}
    assert progress() == ("finished", 3, 3)
    with Store.open(db) as store:
        found = store.tournament(config.id)
    assert found is not None and found.config == config.definition()


# ---------------------------------------------------------------------------
# What the command prints and which tournament it names (no Ray: played in process)


class InProcess(ShuffledRunner):
    """The Ray runner's place in ``arena tournament``: the command's steps, played here."""

    def __init__(self, options: object = None) -> None:
        super().__init__()

    def __enter__(self) -> InProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class NoRay:
    """A runner that must not be started."""

    def __init__(self, options: object = None) -> None:
        raise AssertionError("Ray was started")


def run_command(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    assert PASSWORD not in out + err  # a store's URL is printed without its password
    return status, out, err


def cup(db: str, name: str, bots: str, matches: str = "2") -> list[str]:
    """``arena tournament`` of a name, bots and matches, in store ``db``."""
    return ["tournament", "--name", name, "--bots", bots, "--matches", matches,
            "--deals", "1", "--db", str(db)]  # fmt: skip


def cup_id(name: str, bots: list[str], matches: int = 2) -> str:
    data = {"name": name, "bots": bots, "matches": matches, "deals": 1}
    return TournamentConfig.from_mapping(data).id


def table_rows(out: str) -> dict[str, list[str]]:
    """The rows of a printed table, by bot: their cells."""
    rows = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in line.split("│")[1:-1]]
        if len(cells) > 2 and cells[0].isdigit():
            rows[cells[1]] = cells
    return rows


def test_the_command_prints_its_tournaments_standings_titled_as_such(
    store_target: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tournaments in one store share a bot: the table each run prints is its own
    tournament's, rated from its matches alone and titled as its standings; a bot of
    the other tournament is not in it, and the shared bot counts this one's matches."""
    monkeypatch.setattr("arena.commands.tournament.Runner", InProcess)
    db = store_target
    assert run_command(capsys, *cup(db, "spring", "random,first"))[0] == 0
    status, out, _ = run_command(capsys, *cup(db, "autumn", "first,heuristic"))
    assert status == 0
    assert f"standings of tournament {cup_id('autumn', ['first', 'heuristic'])}" in out
    rows = table_rows(out)
    assert set(rows) == {"first", "heuristic"}  # not spring's random
    assert rows["first"][-2] == "2"  # autumn's 2 matches, not the store's 4
    assert "the store's leaderboard" in out and "arena leaderboard --variant guandan" in out


def test_a_finished_tournament_run_again_starts_no_ray_and_prints_its_standings(
    store_target: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same command after the tournament finished: it says so, prints the
    standings again and exits 0, without starting Ray."""
    db = store_target
    monkeypatch.setattr("arena.commands.tournament.Runner", InProcess)
    status, first, _ = run_command(capsys, *cup(db, "spring", "random,first"))
    assert status == 0
    monkeypatch.setattr("arena.commands.tournament.Runner", NoRay)
    status, again, _ = run_command(capsys, *cup(db, "spring", "random,first"))
    assert status == 0
    tournament = cup_id("spring", ["random", "first"])
    assert f"tournament {tournament} is finished" in again
    assert table_rows(again) == table_rows(first) != {}
    with Store.open(db) as store:
        found = store.tournament(tournament)
        assert found is not None and found.status == "finished"
        match_id = min(store.match_ids(tournament))
    status, out, _ = run_command(capsys, "replay", match_id, "--db", db)
    assert status == 0 and "all legal, same results" in out


def test_a_tournament_is_named_by_its_id_or_its_definitions_name(
    store_target: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--tournament`` of ``arena leaderboard`` and ``arena matches`` takes the
    definition's name as well as the id; a name that several tournaments have is one
    line listing their ids (exit 2), and so is a name no tournament has."""
    monkeypatch.setattr("arena.commands.tournament.Runner", InProcess)
    db = store_target
    for args in (cup(db, "spring", "random,first"), cup(db, "spring", "random,first", "3"),
                 cup(db, "autumn", "first,heuristic")):  # fmt: skip
        assert run_command(capsys, *args)[0] == 0
    autumn = cup_id("autumn", ["first", "heuristic"])
    springs = [cup_id("spring", ["random", "first"], n) for n in (2, 3)]
    for key in ("autumn", autumn):
        status, out, _ = run_command(capsys, "leaderboard", "--tournament", key, "--json",
                                     "--db", str(db))  # fmt: skip
        board = json.loads(out)
        assert status == 0 and board["tournament"] == autumn
        assert {row["bot"] for row in board["bots"]} == {"first", "heuristic"}
        status, out, _ = run_command(capsys, "matches", "--tournament", key, "--json",
                                     "--db", str(db))  # fmt: skip
        listed = json.loads(out)["matches"]
        assert status == 0 and len(listed) == 2
        assert {row["tournament"] for row in listed} == {autumn}
    status, out, _ = run_command(capsys, "leaderboard", "--tournament", springs[1],
                                 "--json", "--db", str(db))  # fmt: skip
    assert status == 0 and json.loads(out)["tournament"] == springs[1]
    for command in ("leaderboard", "matches"):
        status, _, err = run_command(capsys, command, "--tournament", "spring", "--db", str(db))
        assert status == 2 and err.count("\n") == 1
        assert "2 tournaments are named 'spring'" in err
        assert all(tournament in err for tournament in springs)
        status, _, err = run_command(capsys, command, "--tournament", "winter", "--db", str(db))
        assert status == 2 and err.count("\n") == 1 and "no tournament 'winter'" in err
