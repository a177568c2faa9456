"""Match records: JSON round trip, verification, and clear errors for bad records."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

import bots
from arena.chance import derive_seed
from arena.errors import ArenaError, ConfigError, ParseError
from arena.games import make
from arena.games.guandan import GuandanSetup
from arena.match import play_deal, play_match
from arena.replay import FORMAT, DealRecord, MatchRecord, ReplayError, outcome_to_dict, verify

GAME = make("guandan")


def recorded(seed: int = 17, max_deals: int | None = 3) -> dict[str, Any]:
    policies = [bots.make("random", derive_seed(seed, "bot", s)) for s in range(4)]
    result = play_match(GAME, policies, seed=seed, max_deals=max_deals)
    return json.loads(result.record.to_json())


@pytest.fixture(scope="module")
def record_data() -> dict[str, Any]:
    return recorded()


@pytest.fixture
def data(record_data: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of a three-deal record, to tamper with."""
    return copy.deepcopy(record_data)


def check(data: dict[str, Any]) -> Any:
    return verify(MatchRecord.from_dict(data))


# ------------------------------------------------------------------ good records


def test_record_json_round_trip(data: dict[str, Any]) -> None:
    record = MatchRecord.from_dict(data)
    assert record.to_dict() == data
    assert json.loads(record.to_json()) == data
    assert data["format"] == FORMAT
    assert [sorted(d) for d in data["deals"]] == [["actions", "result", "seed", "setup"]] * 3


def test_record_save_and_load(data: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    MatchRecord.from_dict(data).save(path)
    loaded = MatchRecord.load(path)
    assert loaded.to_dict() == data
    assert path.read_text(encoding="utf-8").endswith("\n")


def test_verify_reports_deals_and_actions(data: dict[str, Any]) -> None:
    report = check(data)
    assert report.deals == 3
    assert report.actions == sum(len(d["actions"]) for d in data["deals"])
    assert report.result["match_winner"] is None


def test_complete_match_verifies() -> None:
    data = recorded(seed=2, max_deals=None)
    assert data["result"]["complete"] is True
    report = check(data)
    assert report.result["match_winner"] == data["result"]["match_winner"] in (0, 1)


def test_record_with_explicit_hands_verifies() -> None:
    dealt = GAME.new_deal(GAME.first_setup(), seed=99)
    hands = [" ".join(format_hand(dealt.hand(s))) for s in range(4)]
    setup = GuandanSetup(leader=2)
    state = GAME.new_deal(setup, hands=[dealt.hand(s) for s in range(4)])
    assert state.to_act == 2
    actions = play_deal(state, [bots.make("first")] * 4)
    deal = DealRecord(setup=GAME.setup_to_dict(setup), actions=actions, hands=hands,
                      result=outcome_to_dict(state.outcome()))
    record = MatchRecord("guandan", dict(GAME.options), None, ["first"] * 4, [deal])
    data = json.loads(record.to_json())
    assert "seed" not in data["deals"][0]
    report = check(data)
    assert report.actions == len(actions)


def format_hand(cards: tuple[int, ...]) -> list[str]:
    from arena.cards import format_card

    return [format_card(c) for c in cards]


# ------------------------------------------------------------- tampered records


def first_choice(deal: dict[str, Any]) -> tuple[int, str]:
    """The first action of a deal that had an alternative, and that alternative."""
    state = GAME.new_deal(GAME.setup_from_dict(deal["setup"]), seed=deal["seed"])
    for index, text in enumerate(deal["actions"]):
        action = state.parse_action(text)
        others = [a for a in state.legal_actions() if a != action]
        if others:
            return index, str(others[-1])
        state.apply(action)
    raise AssertionError("a deal without a choice")


def test_illegal_action_is_reported_with_deal_and_action(data: dict[str, Any]) -> None:
    data["deals"][1]["actions"][4] = "play BJ BJ BJ"
    with pytest.raises(ReplayError, match=r"^deal 2, action 5: .*'play BJ BJ BJ'"):
        check(data)


def test_another_legal_action_breaks_the_replay(data: dict[str, Any]) -> None:
    deal = data["deals"][0]
    index, other = first_choice(deal)
    deal["actions"][index] = other
    with pytest.raises(ReplayError, match=r"^deal 1[,:]"):
        check(data)


def test_unreadable_action_is_reported(data: dict[str, Any]) -> None:
    data["deals"][2]["actions"][0] = "play 3s Xx"
    with pytest.raises(ReplayError, match=r"^deal 3, action 1: .*'Xx'"):
        check(data)


def test_changed_deal_result_is_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["result"]["scores"] = [9, -9, 9, -9]
    with pytest.raises(ReplayError, match=r"^deal 2: result differs"):
        check(data)


def test_changed_summary_is_reported(data: dict[str, Any]) -> None:
    data["deals"][0]["result"]["summary"] += "!"
    with pytest.raises(ReplayError, match=r"^deal 1: result differs"):
        check(data)


def test_truncated_actions_are_reported(data: dict[str, Any]) -> None:
    del data["deals"][2]["actions"][-3:]
    with pytest.raises(ReplayError, match=r"^deal 3: the recorded actions end before the deal"):
        check(data)


def test_actions_after_the_end_are_reported(data: dict[str, Any]) -> None:
    actions = data["deals"][0]["actions"]
    actions.append("pass")
    with pytest.raises(ReplayError, match=rf"^deal 1, action {len(actions)} 'pass': .*over"):
        check(data)


def test_changed_seed_is_reported(data: dict[str, Any]) -> None:
    data["deals"][0]["seed"] += 1
    with pytest.raises(ReplayError, match=r"^deal 1"):
        check(data)


def test_changed_setup_is_reported(data: dict[str, Any]) -> None:
    data["deals"][1]["setup"]["levels"] = [5, 5]
    with pytest.raises(ReplayError, match=r"^deal 2: setup .* is not what deal 1 led to"):
        check(data)


def test_missing_deal_is_reported(data: dict[str, Any]) -> None:
    del data["deals"][1]
    with pytest.raises(ReplayError, match=r"^deal 2: setup"):
        check(data)


def test_deal_after_the_match_ended_is_reported() -> None:
    data = recorded(seed=2, max_deals=None)
    data["deals"].append(copy.deepcopy(data["deals"][-1]))
    with pytest.raises(ReplayError, match=rf"^deal {len(data['deals']) - 1}: the match ended here"):
        check(data)


def test_changed_match_totals_are_reported(data: dict[str, Any]) -> None:
    data["result"]["totals"] = [99, -99, 99, -99]
    with pytest.raises(ReplayError, match="totals"):
        check(data)


def test_changed_match_winner_is_reported(data: dict[str, Any]) -> None:
    data["result"]["match_winner"] = 1
    data["result"]["complete"] = True
    with pytest.raises(ReplayError, match="winner"):
        check(data)


def test_unknown_game_is_reported(data: dict[str, Any]) -> None:
    data["game"] = "mahjong"
    with pytest.raises(ConfigError, match="unknown game 'mahjong'"):
        check(data)


def test_unknown_option_is_reported(data: dict[str, Any]) -> None:
    data["options"] = {"jokers": 4}
    with pytest.raises(ConfigError, match="jokers"):
        check(data)


def tamper_seed(deal: dict[str, Any]) -> None:
    del deal["seed"]


def tamper_setup(deal: dict[str, Any]) -> None:
    deal["setup"]["levels"] = [20, 0]


def tamper_hands(deal: dict[str, Any]) -> None:
    deal["hands"] = ["3s Zz", "4s", "5s", "6s"]


@pytest.mark.parametrize(
    ("tamper", "reason"),
    [(tamper_seed, "seed"), (tamper_setup, "levels"), (tamper_hands, "'Zz'")],
)
def test_bad_deal_start_is_reported_with_the_deal(
    data: dict[str, Any], tamper: Any, reason: str
) -> None:
    tamper(data["deals"][1])
    with pytest.raises(ArenaError, match=reason) as info:
        check(data)
    assert "deal 2" in str(info.value), f"the error does not name the deal: {info.value}"


@pytest.mark.parametrize("value", ["arena-record/0", None, 1, ""])
def test_bad_format_field_is_a_parse_error(data: dict[str, Any], value: object) -> None:
    data["format"] = value
    expected = r"not an arena record: format is .*expected 'arena-record/1'"
    with pytest.raises(ParseError, match=expected):
        MatchRecord.from_dict(data)


def test_missing_format_field_is_a_parse_error(data: dict[str, Any]) -> None:
    del data["format"]
    with pytest.raises(ParseError, match="format is None"):
        MatchRecord.from_dict(data)


@pytest.mark.parametrize(
    ("path", "value", "word"),
    [
        ((), "deals", "deals"),
        (("deals", 0), "actions", "actions"),
        (("deals", 0), "setup", "setup"),
        ((), "game", "game"),
    ],
)
def test_missing_field_is_a_parse_error(
    data: dict[str, Any], path: tuple[Any, ...], value: str, word: str
) -> None:
    where: Any = data
    for key in path:
        where = where[key]
    del where[value]
    with pytest.raises(ParseError, match=rf"malformed record: .*{word}"):
        MatchRecord.from_dict(data)


def test_deals_of_the_wrong_type_are_a_parse_error(data: dict[str, Any]) -> None:
    data["deals"] = [1, 2]
    with pytest.raises(ParseError, match="malformed record"):
        MatchRecord.from_dict(data)


def test_garbage_json_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_text('{"format": "arena-record/1", "deals": [', encoding="utf-8")
    with pytest.raises(ParseError, match=r"garbage\.json: not a JSON record"):
        MatchRecord.load(path)


def test_binary_file_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ParseError, match=r"binary\.json: not a JSON record"):
        MatchRecord.load(path)


@pytest.mark.parametrize("text", ["[]", "3", '"record"', "null"])
def test_json_that_is_not_an_object_is_a_parse_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "list.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ParseError, match="a record is a JSON object"):
        MatchRecord.load(path)


def test_missing_file_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(ParseError, match=r"cannot read record '.*nowhere\.json'"):
        MatchRecord.load(path)


def test_directory_is_a_parse_error(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="cannot read record"):
        MatchRecord.load(tmp_path)
