"""Reading records: every field checked, a one-line error naming what is wrong.

A record is read from a file or from the store, and either may hold anything: text
that is not JSON, ``NaN``, numbers of thousands of digits, nesting deeper than Python
follows, a wrong type in any field, sizes beyond any match. Each is refused with a
:class:`ParseError` of one line naming the field (``arena replay``: exit 2).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import bots
from arena.chance import derive_seed
from arena.errors import ParseError
from arena.games import make
from arena.match import play_match
from arena.record import FORMAT, MatchRecord
from arena.record_schema import MAX_DEALS, MAX_ENTRIES, MAX_TEXT

PLACEHOLDER = "@@raw@@"


def recorded(seed: int = 5, max_deals: int = 2) -> dict[str, Any]:
    policies = [bots.make("random", derive_seed(seed, "bot", s)) for s in range(4)]
    result = play_match(make("guandan"), policies, seed=seed, max_deals=max_deals)
    return json.loads(result.record.to_json())


@pytest.fixture(scope="module")
def record_data() -> dict[str, Any]:
    return recorded()


@pytest.fixture
def data(record_data: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(record_data)


def put(data: dict[str, Any], path: str, value: Any) -> None:
    """Set the field at ``path`` (``deals.0.seed``) to ``value``."""
    *parents, last = path.split(".")
    where: Any = data
    for key in parents:
        where = where[int(key)] if isinstance(where, list) else where[key]
    if isinstance(where, list):
        where[int(last)] = value
    else:
        where[last] = value


def with_raw(data: dict[str, Any], path: str, raw: str) -> str:
    """The record's JSON text with the field at ``path`` written as ``raw`` JSON text."""
    put(data, path, PLACEHOLDER)
    return json.dumps(data).replace(json.dumps(PLACEHOLDER), raw)


# ------------------------------------------------------------- well-formed records


def test_a_record_survives_json_and_the_schema(data: dict[str, Any]) -> None:
    record = MatchRecord.from_dict(data)
    assert record.to_dict() == data
    assert MatchRecord.from_json(record.to_json()).to_dict() == data
    assert data["format"] == FORMAT
    assert data["clock"] is None and data["aborted"] is None
    assert [sorted(d) for d in data["deals"]] == [["actions", "result", "seed", "setup"]] * 2


def test_save_and_load(data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    MatchRecord.from_dict(data).save(path)
    assert MatchRecord.load(path).to_dict() == data
    assert path.read_text(encoding="utf-8").endswith("\n")


def test_a_record_from_before_clocks_were_recorded_still_reads(data: dict[str, Any]) -> None:
    del data["clock"], data["aborted"]
    record = MatchRecord.from_dict(data)
    assert record.clock is None and record.aborted is None


# ------------------------------------------------------- JSON that is not a record

RAW = [
    ("seed", "NaN", "NaN is not a JSON number"),
    ("deals.0.result.details.gain", "-Infinity", "-Infinity is not a JSON number"),
    ("seed", "1e400", "the number '1e400' is out of range"),
    ("seed", "9" * 5000, "an integer of 5,000 digits"),
    ("deals.0.result.scores.0", "-" + "7" * 5000, "an integer of 5,000 digits"),
    ("deals.0.result.details", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("deals.0.setup", '{"a": ' * 50_000 + "1" + "}" * 50_000, "nested too deeply"),
]


@pytest.mark.parametrize(("path", "raw", "reason"), RAW)
def test_json_beyond_the_limits_is_refused(
    data: dict[str, Any], path: str, raw: str, reason: str
) -> None:
    with pytest.raises(ParseError, match="not a JSON record") as info:
        MatchRecord.from_json(with_raw(data, path, raw))
    assert reason in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "Expecting value"),
        ("not json at all", "Expecting value"),
        ('{"format": "arena-record/1", "deals": [', "Expecting"),
        (b"\xff\xfe\x00garbage", "not a JSON record"),
    ],
)
def test_text_that_is_not_json_is_refused(text: str | bytes, reason: str) -> None:
    with pytest.raises(ParseError, match="not a JSON record") as info:
        MatchRecord.from_json(text)
    assert reason in str(info.value)


@pytest.mark.parametrize("text", ["[]", "3", '"record"', "null"])
def test_json_that_is_not_an_object_is_refused(text: str) -> None:
    with pytest.raises(ParseError, match="a record is a JSON object"):
        MatchRecord.from_json(text)


@pytest.mark.parametrize("value", ["arena-record/0", None, 1, ""])
def test_another_format_is_refused(data: dict[str, Any], value: object) -> None:
    data["format"] = value
    with pytest.raises(ParseError, match=r"not an arena record: format is .*'arena-record/1'"):
        MatchRecord.from_dict(data)


# ------------------------------------------------------------ every field checked

FIELDS: list[tuple[str, Any, str]] = [
    ("game", 5, "game: must be text"),
    ("options", [1], "options: must be a table of game options"),
    ("options", {"a_fail_limit": [1]}, "options.a_fail_limit: an option value must be"),
    ("options", {f"o{i}": 1 for i in range(40)}, "options: at most 32 game options"),
    ("seed", "7", "seed: must be an integer"),
    ("seed", 2**64, "seed: must be an integer from"),
    ("seed", 1.5, "seed: must be an integer"),
    ("seed", True, "seed: must be an integer"),
    ("players", 5, "players: must be a valid list"),
    ("players", ["a", "b", "c"], "players: List should have at least 4 items"),
    ("players", ["a", "b", "c", ""], "players[3]: must be printable text"),
    ("players", ["a", "b", "c", 4], "players[3]: must be printable text"),
    ("clock", {"decision_seconds": -1, "time_bank_seconds": 0}, "clock.decision_seconds"),
    ("clock", {"decision_seconds": 1e300, "time_bank_seconds": 0}, "clock.decision_seconds"),
    ("clock", {"decision_seconds": 5}, "clock.time_bank_seconds: is required"),
    ("clock", 30, "clock: must be a valid dictionary"),
    ("aborted", ["x"], "aborted: must be text"),
    ("deals", "x", "deals: must be a valid list"),
    ("deals", [1, 2], "deals[0]: must be a valid dictionary"),
    ("deals.0.setup", [], "deals[0].setup: must be a JSON object"),
    ("deals.0.setup", {"levels": [[[1]]]}, "deals[0].setup: lists and objects nest at most"),
    ("deals.0.seed", "x", "deals[0].seed: must be an integer"),
    ("deals.0.seed", -1, "deals[0].seed: must be an integer from 0"),
    ("deals.0.hands", 3, "deals[0].hands: must be a valid list"),
    ("deals.0.hands", ["3s"], "deals[0].hands: List should have at least 4 items"),
    ("deals.0.actions", "pass", "deals[0].actions: must be a valid list"),
    ("deals.0.actions.0", 1, "deals[0].actions[0]: must be text"),
    ("deals.0.actions.0", "pass " * MAX_TEXT, f"must be text of at most {MAX_TEXT:,}"),
    ("deals.0.actions", ["pass"] * (MAX_ENTRIES + 1), "deals[0].actions: List should have at"),
    ("deals.0.result", None, "deals[0].result: must be a valid dictionary"),
    ("deals.0.result.scores", [1, 2], "deals[0].result.scores: List should have at least 4"),
    ("deals.0.result.scores.0", 10**12, "deals[0].result.scores[0]: must be an integer"),
    ("deals.0.result.summary", {}, "deals[0].result.summary: must be text"),
    ("deals.0.result.details", [], "deals[0].result.details: must be a JSON object"),
    ("deals.0.result.details.gain", float("nan"), "details: must be a finite number"),
    ("deals.0.result.details.gain", [[[[[1]]]]], "details: lists and objects nest at most"),
    ("deals.0.result.details.gain", [0] * 2000, "details: at most 1,000 items"),
    ("deals.0.result.details.gain", 2**70, "details: must be an integer from"),
    ("result", {}, "result.deals: is required"),
    ("result.match_winner", 2, "result.match_winner: must be 0 or 1"),
    ("result.complete", "no", "result.complete: must be a valid boolean"),
    ("result.totals", "0", "result.totals: must be a valid list"),
    ("extra", 1, "extra: unknown field"),
    ("deals.0.extra", 1, "deals[0].extra: unknown field"),
]


@pytest.mark.parametrize(("path", "value", "reason"), FIELDS)
def test_a_wrong_field_is_named(data: dict[str, Any], path: str, value: Any, reason: str) -> None:
    put(data, path, value)
    with pytest.raises(ParseError) as info:
        MatchRecord.from_dict(data)
    message = str(info.value)
    assert message.startswith("malformed record: "), message
    assert reason in message
    assert "\n" not in message and len(message) < 400


@pytest.mark.parametrize("field", ["format", "game", "options", "seed", "players", "deals"])
def test_a_missing_field_is_named(data: dict[str, Any], field: str) -> None:
    del data[field]
    with pytest.raises(ParseError, match=rf"{field}"):
        MatchRecord.from_dict(data)


def test_too_many_deals_are_refused(data: dict[str, Any]) -> None:
    data["deals"] = data["deals"][:1] * (MAX_DEALS + 1)
    with pytest.raises(ParseError, match=r"^malformed record: deals: List should have at most"):
        MatchRecord.from_dict(data)


# ------------------------------------------------------------------------- files


def test_a_file_too_large_is_refused(
    data: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.json"
    MatchRecord.from_dict(data).save(path)
    monkeypatch.setattr("arena.record.MAX_RECORD_BYTES", 1000)
    with pytest.raises(ParseError, match=r"big\.json: a record is at most 1,000 bytes"):
        MatchRecord.load(path)


def test_a_bad_file_is_named(data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(with_raw(data, "seed", "NaN"), encoding="utf-8")
    with pytest.raises(ParseError, match=r"bad\.json: not a JSON record: NaN"):
        MatchRecord.load(path)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match=r"cannot read record '.*nowhere\.json': No such file"):
        MatchRecord.load(tmp_path / "nowhere.json")


def test_a_directory_is_named(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match=r"cannot read record .*: Is a directory"):
        MatchRecord.load(tmp_path)
