"""``arena replay FILE|ID [--log]``: bad records in files and in the store end in one line
and exit status 2; a stored match replays, checked against the store, and prints the
same log as ``arena play``."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_server_seats import arena, clock, joined_with_fillers
from test_server_seats import run as run_async

from arena.cli import main
from arena.inputs import shown
from arena.match import AUTO_MARK, AUTO_PLAYS_TO_FLEE, FLED_MARK
from arena.record import ClockLimits
from arena.replay import verify_stored
from arena.store import Store, StoredMatch

PLAY = ["play", "guandan", "--bots", "random,random,first,first", "--seed", "7", "--deals", "2"]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def fails(*argv: str) -> str:
    """Run a command that must fail with exit status 2 and one line on stderr."""
    code, out, err = run(*argv)
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    """``arena play``'s output and the record it wrote."""
    path = tmp_path_factory.mktemp("play") / "match.json"
    code, out, _ = run(*PLAY, "--record", str(path))
    assert code == 0
    return out, json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture
def record(played: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return copy.deepcopy(played[1])


def write(tmp_path: Path, text: str, name: str = "record.json") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def store_match(db: Path, record: dict[str, Any], match_id: str = "m1") -> None:
    with Store.open(db) as store:
        store.add_match(
            StoredMatch(
                id=match_id,
                tournament_id=None,
                variant=record["game"],
                options=record["options"],
                seed=record["seed"],
                seating=tuple(record["players"]),
                outcome={
                    "winner": record["result"]["match_winner"],
                    "totals": record["result"]["totals"],
                },
                record=record,
                deals=len(record["deals"]),
                decisions=sum(len(d["actions"]) for d in record["deals"]),
            )
        )


# ------------------------------------------------------------------- record files


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("not json", "not a JSON record"),
        ("", "not a JSON record"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"format": "arena-record/1", "seed": NaN}', "NaN is not a JSON number"),
        ('{"format": "arena-record/1", "seed": ' + "1" * 5000 + "}", "integer of 5,000 digits"),
        ('{"format": "arena-record/1", "seed": 1e999}', "out of range"),
        ('{"format": "arena-record/1", "deals": []}', "malformed record: "),
        ("{}", "not an arena record: format is None"),
        ("[]", "a record is a JSON object"),
    ],
)
def test_a_bad_record_file_is_one_line(tmp_path: Path, text: str, reason: str) -> None:
    path = write(tmp_path, text)
    line = fails("replay", path)
    assert path in line and reason in line


def test_an_empty_record_is_refused(tmp_path: Path, record: dict[str, Any]) -> None:
    record["deals"] = []
    record["result"].update(deals=0, totals=[0, 0, 0, 0])
    line = fails("replay", write(tmp_path, json.dumps(record)))
    assert line == "arena: the record has no deal (and does not say the match was cut short)"


def test_a_directory_or_a_missing_file_is_one_line(tmp_path: Path) -> None:
    assert "Is a directory" in fails("replay", str(tmp_path))
    missing = str(tmp_path / "nowhere.json")
    line = fails("replay", missing, "--db", str(tmp_path / "none.sqlite"))
    assert line == (
        f"arena: cannot read record {missing!r}: no such file, and no store "
        f"{tmp_path / 'none.sqlite'} to find a match of that id in"
    )
    assert not (tmp_path / "none.sqlite").exists()


@pytest.mark.parametrize("name", ["a" * 5000, "x/" * 3000, "-", " "])
def test_a_name_no_file_can_have_is_one_line(tmp_path: Path, name: str) -> None:
    line = fails("replay", name, "--db", str(tmp_path / "none.sqlite"))
    quoted = repr(name) if len(name) <= 300 else shown(name)
    assert line.startswith(f"arena: cannot read record {quoted}: no such file")
    assert len(line) < 300


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (the deals' action lists cut to three entries)."""
    places = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            places += _paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:3]):
            places += _paths(item, (*at, index))
    return places


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_value_anywhere_is_replayed_or_refused_in_one_line(
    played: tuple[str, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory, data: Any
) -> None:
    record = copy.deepcopy(played[1])
    record["deals"] = record["deals"][:1]
    place = data.draw(st.sampled_from(_paths(record)[1:]))
    value = data.draw(JSON)
    where: Any = record
    for key in place[:-1]:
        where = where[key]
    where[place[-1]] = value
    path = tmp_path_factory.mktemp("fuzz") / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    code, _, err = run("replay", str(path))
    assert code in (0, 2)
    if code == 2:
        assert len(err.splitlines()) == 1 and err.startswith("arena: "), err


def test_the_log_of_a_record_is_the_log_of_play(
    tmp_path: Path, played: tuple[str, dict[str, Any]]
) -> None:
    out, record = played
    path = write(tmp_path, json.dumps(record))
    code, log, err = run("replay", path, "--log")
    assert code == 0 and err == ""
    played_lines = out.splitlines()[:-1]  # without "record written to …"
    assert log.splitlines()[:-2] == played_lines  # without the blank and the verdict lines
    assert log.splitlines()[-1].startswith(f"{path}: guandan, 2 deals")


# ------------------------------------------------------------------ stored matches


def test_a_stored_match_replays_with_its_log(
    tmp_path: Path, played: tuple[str, dict[str, Any]]
) -> None:
    out, record = played
    db = tmp_path / "arena.sqlite"
    store_match(db, record)
    code, verdict, err = run("replay", "m1", "--db", str(db))
    assert code == 0 and err == ""
    assert verdict.startswith("m1: guandan, 2 deals") and "all legal" in verdict
    code, log, err = run("replay", "m1", "--db", str(db), "--log")
    assert code == 0 and err == ""
    assert log.splitlines()[:-2] == out.splitlines()[:-1]
    assert log.splitlines()[-1] == verdict.strip()


def test_an_unknown_match_id_is_one_line(tmp_path: Path, record: dict[str, Any]) -> None:
    db = tmp_path / "arena.sqlite"
    store_match(db, record)
    line = fails("replay", "m2", "--db", str(db))
    assert line == (
        f"arena: cannot read record 'm2': no such file, and no match of that id in the store {db}"
    )


def test_a_stored_record_of_other_players_is_refused(
    tmp_path: Path, record: dict[str, Any]
) -> None:
    db = tmp_path / "arena.sqlite"
    store_match(db, record)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET seating_json = ? WHERE id = 'm1'", ('["a","b","c","d"]',))
    line = fails("replay", "m1", "--db", str(db))
    assert line.startswith("arena: stored match 'm1': the record's players")
    assert "are not the stored match's bots ['a', 'b', 'c', 'd']" in line


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"format": "arena-record/1", "seed": NaN}', "malformed record"),
        ('{"seed": ' + "1" * 5000 + "}", "stored JSON cannot be read"),
        ("[" * 100_000 + "]" * 100_000, "stored JSON cannot be read"),
        ("not json", "stored JSON cannot be read"),
        ("[]", "a record is a JSON object"),
    ],
)
def test_a_bad_stored_record_is_one_line(
    tmp_path: Path, record: dict[str, Any], text: str, reason: str
) -> None:
    db = tmp_path / "arena.sqlite"
    store_match(db, record)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE matches SET record_json = ? WHERE id = 'm1'", (text,))
    assert reason in fails("replay", "m1", "--db", str(db))


def test_a_match_the_server_stored_replays_with_its_clock_marks(tmp_path: Path) -> None:
    """A real server plays a match in which one bot never answers: its record (the
    clock, five automatic plays, the flight) replays and matches the store."""
    db = tmp_path / "arena.sqlite"
    with Store.open(db) as store:
        with arena(store, clock=clock(decision=0.2), max_deals=1) as server:
            idle, *others = server.tokens("rec-idle", "rec-1", "rec-2", "rec-3")

            async def play() -> Any:
                bot, fill = await joined_with_fillers(server, idle, others)
                result = (await bot.until("match_result")).match_result
                await fill
                await bot.close()
                return result

            match_id = run_async(play()).match_id
        stored = store.match(match_id)
    assert stored is not None
    record, report = verify_stored(stored)
    assert report.deals == stored.deals and record.clock == ClockLimits(0.2, 0.0)
    actions = record.deals[-1].actions
    assert actions.count(AUTO_MARK) == AUTO_PLAYS_TO_FLEE and actions[-1].startswith(FLED_MARK)
    code, out, err = run("replay", match_id, "--db", str(db))
    assert code == 0 and err == "" and "all legal" in out
