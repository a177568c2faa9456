"""``arena people`` (the accounts: listed, a new password set) and ``arena leaderboard
--people`` (a variant's people's pool, apart from its bots' league)."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import pytest
from stores import PASSWORD as URL_PASSWORD
from test_cli import fails, run

from arena.rating.pools import people_pool
from arena.sim.jobs import MatchJob
from arena.sim.league import League
from arena.sim.worker import play_job
from arena.store import Store
from arena.web.accounts import hash_password, password_matches

PEOPLE = ("person:ann", "random", "person:bo", "first")


@pytest.fixture
def db(store_target: str) -> str:
    """A store of two accounts and a people's table: on SQLite, then on PostgreSQL."""
    with Store.open(store_target) as store:
        assert store.add_person("person:ann", hash_password("first password"))
        assert store.add_person("person:bo", hash_password("another password"))
        store.add_builtin_bots(["random", "first"])
        job = MatchJob("table-guandan-1", "guandan", {}, 3, ("random",) * 4, 1)
        played = play_job(job)
        at_a_table = replace(played, job=replace(job, players=PEOPLE))
        League(store, people_pool("guandan")).add(at_a_table, None)
        League(store, "guandan").add(play_job(replace(job, id="league-1", seed=4)), None)
    return store_target


def test_the_accounts_are_listed_without_their_passwords(
    capsys: pytest.CaptureFixture[str], db: str
) -> None:
    code, out, _ = run(capsys, "people", "list", "--db", db, "--json")
    assert code == 0
    assert [row["name"] for row in json.loads(out)["people"]] == ["ann", "bo"]
    assert "scrypt" not in out


def test_a_new_password_is_set_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("a brand new password\n"))
    code, out, _ = run(capsys, "people", "password", "ann", "--stdin", "--db", db)
    assert code == 0 and "new password set" in out
    with Store.open(db) as store:
        stored = store.password_hash("person:ann")
    assert stored is not None and password_matches("a brand new password", stored)
    assert not password_matches("first password", stored)


def test_a_bad_password_or_name_changes_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, db: str
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("short\n"))
    assert "at least 8 characters" in fails(
        capsys, "people", "password", "ann", "--stdin", "--db", db
    )
    missing = fails(capsys, "people", "password", "zed", "--stdin", "--db", db)
    assert "no account 'zed'" in missing and URL_PASSWORD not in missing
    assert "must be 1 to 24" in fails(capsys, "people", "password", "a b", "--stdin", "--db", db)
    with Store.open(db) as store:
        stored = store.password_hash("person:ann")
    assert stored is not None and password_matches("first password", stored)


def test_the_people_leaderboard_is_apart_from_the_bots(
    capsys: pytest.CaptureFixture[str], db: str
) -> None:
    code, out, _ = run(
        capsys, "leaderboard", "--variant", "guandan", "--people", "--json", "--db", db
    )
    assert code == 0
    people = {row["bot"]: row for row in json.loads(out)["bots"]}
    assert set(people) == {"person:ann", "person:bo", "random", "first"}
    assert all(row["matches"] == 1 for row in people.values())
    code, out, _ = run(capsys, "leaderboard", "--variant", "guandan", "--json", "--db", db)
    bots = {row["bot"]: row for row in json.loads(out)["bots"]}
    assert not any(bot.startswith("person:") for bot in bots)
    assert bots["random"]["elo"] != people["random"]["elo"]
    assert bots["first"]["elo"] is None  # it sat at a people's table only: no league rating
    assert "--people names a variant" in fails(
        capsys, "leaderboard", "--tournament", "x", "--people", "--db", db
    )
