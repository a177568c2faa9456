"""The commands that read the store: a missing or empty store is said so and left alone,
an unknown variant or tournament is an error, ``arena matches`` lists what is stored and
``arena leaderboard --tournament`` rates one tournament's matches alone."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from postgres import fresh_database

from arena.cli import main
from arena.sim import TournamentConfig, plan, play_jobs
from arena.sim.jobs import MatchReport
from arena.sim.league import League
from arena.store import Store, StoreError

READ_COMMANDS = [
    ["leaderboard", "--variant", "guandan"],
    ["leaderboard", "--tournament", "cup"],
    ["matches"],
    ["matches", "--variant", "guandan", "--bot", "random"],
    ["replay", "cup-0"],
]
"""Every command that only reads the store (with the arguments it needs)."""


def tournament(name: str, bots: list[str], seed: int) -> tuple[TournamentConfig, list[MatchReport]]:
    config = TournamentConfig.from_mapping(
        {"name": name, "bots": bots, "matches": 2, "deals": 1, "seed": seed}
    )
    return config, play_jobs(plan(config))


def store_results(
    path: Path | str, played: list[tuple[TournamentConfig, list[MatchReport]]]
) -> None:
    with Store.open(path) as store:
        for config, reports in played:
            store.add_tournament(config.id, config.name, config.variant, {}, {})
            store.add_builtin_bots({bot for r in reports for bot in r.job.players})
            league = League(store, config.variant)
            for report in reports:
                league.add(report, config.id)


@pytest.fixture(scope="module")
def played() -> list[tuple[TournamentConfig, list[MatchReport]]]:
    return [
        tournament("spring", ["random", "first"], seed=1),
        tournament("autumn", ["first", "heuristic"], seed=2),
    ]


@pytest.fixture
def league_db(
    tmp_path: Path, played: list[tuple[TournamentConfig, list[MatchReport]]]
) -> Iterator[Path]:
    path = tmp_path / "league.sqlite"
    store_results(path, played)
    yield path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_the_read_commands_read_a_store_in_postgresql_as_one_in_sqlite(
    league_db: Path,
    played: list[tuple[TournamentConfig, list[MatchReport]]],
    postgres_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = fresh_database(postgres_url)
    store_results(url, played)
    for command in (
        ["leaderboard", "--variant", "guandan"],
        ["leaderboard", "--tournament", played[0][0].id],
    ):
        assert run(capsys, *command, "--db", url) == run(capsys, *command, "--db", str(league_db))
    listed = [
        [{k: v for k, v in row.items() if k != "finished_at"} for row in json.loads(out)["matches"]]
        for _, out, _ in (
            run(capsys, "matches", "--json", "--db", db) for db in (url, str(league_db))
        )
    ]
    assert listed[0] == listed[1] and len(listed[0]) == 4


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("command", READ_COMMANDS, ids=" ".join)
def test_a_read_command_on_a_missing_store_says_so_and_creates_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    db = tmp_path / "nothing-here.sqlite"
    status, out, err = run(capsys, *command, "--db", str(db))
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and str(db) in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", READ_COMMANDS, ids=" ".join)
def test_a_read_command_on_an_empty_file_refuses_it_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    db = tmp_path / "empty.sqlite"
    db.touch()
    status, _, err = run(capsys, *command, "--db", str(db))
    assert status == 2 and err.count("\n") == 1 and str(db) in err
    assert db.stat().st_size == 0


@pytest.mark.parametrize("command", READ_COMMANDS, ids=" ".join)
def test_a_read_command_leaves_the_store_as_it_was(
    league_db: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    before = digest(league_db)
    run(capsys, *command, "--db", str(league_db))
    assert digest(league_db) == before


def test_a_store_opened_read_only_refuses_writes(league_db: Path) -> None:
    with Store.open(league_db, read_only=True) as store:
        assert store.latest_matches(limit=1)
        with pytest.raises(StoreError, match="readonly"):
            store.add_builtin_bots(["search"])


@pytest.mark.parametrize(
    "command",
    [["leaderboard", "--variant", "nope"], ["matches", "--variant", "nope"]],
    ids=" ".join,
)
def test_an_unknown_variant_is_an_error_naming_the_known_ones(
    league_db: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--db", str(league_db)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert "unknown variant 'nope'; known: guandan, sanfu, shengji-1" in err


def test_an_unknown_tournament_is_an_error(
    league_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "leaderboard", "--tournament", "nope", "--db", str(league_db))
    assert status == 2 and "no tournament 'nope'" in err and err.count("\n") == 1


def test_matches_lists_every_stored_match_newest_first_with_its_facts(
    league_db: Path,
    played: list[tuple[TournamentConfig, list[MatchReport]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "matches", "--json", "--db", str(league_db))
    assert status == 0
    rows = json.loads(out)["matches"]
    stored = [r for _, reports in played for r in reports]
    assert [row["id"] for row in rows] == [r.job.id for r in reversed(stored)]
    first = rows[-1]
    report = stored[0]
    assert first["variant"] == "guandan" and first["deals"] == 1
    assert first["players"] == list(report.job.players)
    assert first["tournament"] == played[0][0].id
    assert first["end"] == "deal limit"  # one deal does not finish a Guandan match
    assert first["finished_at"]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (["--tournament", "TOURNAMENT"], lambda r, t: r.job.id.startswith(t)),
        (["--bot", "heuristic"], lambda r, t: "heuristic" in r.job.players),
        (["--bot", "random", "--variant", "guandan"], lambda r, t: "random" in r.job.players),
        (["--variant", "sanfu"], lambda r, t: False),
    ],
)
def test_matches_filters_combine(
    league_db: Path,
    played: list[tuple[TournamentConfig, list[MatchReport]]],
    capsys: pytest.CaptureFixture[str],
    filters: list[str],
    expected: object,
) -> None:
    spring = played[0][0].id
    argv = [spring if f == "TOURNAMENT" else f for f in filters]
    status, out, _ = run(capsys, "matches", *argv, "--json", "--db", str(league_db))
    assert status == 0
    shown = {row["id"] for row in json.loads(out)["matches"]}
    assert callable(expected)
    reports = [r for _, rs in played for r in rs]
    assert shown == {r.job.id for r in reports if expected(r, spring)}


def test_matches_limit_keeps_the_newest(
    league_db: Path,
    played: list[tuple[TournamentConfig, list[MatchReport]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(capsys, "matches", "--limit", "1", "--db", str(league_db))
    assert status == 0
    newest = played[-1][1][-1].job.id
    assert newest in out and "--limit N for more" in out
    assert played[0][1][0].job.id not in out
    with pytest.raises(SystemExit):
        main(["matches", "--limit", "0", "--db", str(league_db)])


def test_the_matches_table_shows_ids_players_and_results(
    league_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "matches", "--bot", "heuristic", "--db", str(league_db))
    assert status == 0
    assert "heuristic" in out and "deal limit" in out and "autumn-" in out
    assert "spring-" not in out


def test_a_tournament_leaderboard_is_rated_from_that_tournament_alone(
    league_db: Path,
    tmp_path: Path,
    played: list[tuple[TournamentConfig, list[MatchReport]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    autumn = played[1]
    alone = tmp_path / "alone.sqlite"
    store_results(alone, [autumn])
    _, out, _ = run(capsys, "leaderboard", "--variant", "guandan", "--json", "--db", str(alone))
    by_itself = json.loads(out)
    status, out, _ = run(
        capsys, "leaderboard", "--tournament", autumn[0].id, "--json", "--db", str(league_db)
    )
    board = json.loads(out)
    assert status == 0
    assert board["tournament"] == autumn[0].id and board["variant"] == "guandan"
    assert board["bots"] == by_itself["bots"]
    assert {row["bot"] for row in board["bots"]} == {"first", "heuristic"}
    _, out, _ = run(capsys, "leaderboard", "--variant", "guandan", "--json", "--db", str(league_db))
    whole = {row["bot"]: row for row in json.loads(out)["bots"]}
    assert whole["first"]["matches"] == 4  # both tournaments


def test_matches_cut_short_count_in_no_leaderboard(
    league_db: Path,
    played: list[tuple[TournamentConfig, list[MatchReport]]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    config, reports = played[0]
    _, out, _ = run(
        capsys, "leaderboard", "--tournament", config.id, "--json", "--db", str(league_db)
    )
    before = json.loads(out)["bots"]
    extra = reports[0].stored(config.id, aborted="cancelled")
    with Store.open(league_db) as store:
        store.add_match(type(extra)(**{**extra.__dict__, "id": "spring-cancelled"}))
    for command in (["--tournament", config.id], ["--variant", "guandan"]):
        _, out, _ = run(capsys, "leaderboard", *command, "--json", "--db", str(league_db))
        rows = {row["bot"]: row["matches"] for row in json.loads(out)["bots"]}
        assert rows["random"] == 2, command
    _, out, _ = run(
        capsys, "leaderboard", "--tournament", config.id, "--json", "--db", str(league_db)
    )
    assert json.loads(out)["bots"] == before
    _, out, _ = run(capsys, "matches", "--limit", "1", "--json", "--db", str(league_db))
    assert json.loads(out)["matches"][0]["end"] == "cancelled"


def test_an_empty_leaderboard_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "fresh.sqlite"
    Store.open(db).close()
    status, out, _ = run(capsys, "leaderboard", "--variant", "sanfu", "--db", str(db))
    assert status == 0 and out == "sanfu leaderboard: no matches stored yet\n"
    status, out, _ = run(capsys, "matches", "--db", str(db))
    assert status == 0 and out == f"matches stored in {db}, newest first (times UTC): none\n"
