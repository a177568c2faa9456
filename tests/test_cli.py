"""The ``arena`` command line, run in-process: play, replay, rules, bench."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import bots
from arena.cli import main
from arena.games import names

PLAY = ["play", "guandan", "--bots", "random,random,first,first", "--seed", "7", "--deals", "1"]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """Run a command that must fail with exit code 2 and one line on stderr; return that line."""
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("arena: ")
    return lines[0]


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    assert info.value.code == 2
    return capsys.readouterr().err


# ------------------------------------------------------------------------ play


def test_play_prints_a_log_and_the_result(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, *PLAY)
    assert code == 0 and err == ""
    assert out.startswith("guandan(a_fail_limit=0) match, seed 7: S0 random, S1 random, S2 first")
    assert "=== deal 1: level 2 ===" in out
    assert "♠" in out and "♥" in out
    assert "leads" in out and "pass" in out
    assert "\ndeal 1: finishing order S" in out
    assert "stopped after 1 deal without a match winner" in out
    hands = [line for line in out.splitlines() if re.match(r"  S[0-3] +(random|first): \S", line)]
    assert len(hands) == 4  # each seat's hand at the start of the deal
    assert all(len(line.split(": ")[1].split()) == 27 for line in hands)


def test_play_is_reproducible(capsys: pytest.CaptureFixture[str]) -> None:
    first = run(capsys, *PLAY)
    second = run(capsys, *PLAY)
    assert first == second
    other = run(capsys, *PLAY[:-3], "8", "--deals", "1")
    assert other[1] != first[1]


def test_play_quiet_prints_results_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *PLAY, "--quiet")
    assert code == 0
    assert "===" not in out and "leads" not in out
    assert "deal 1: finishing order" in out


def test_play_a_whole_match(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "play", "guandan", "--seed", "3", "--quiet")
    assert code == 0
    assert "passes A and wins the match" in out
    assert "match over after" in out and "wins" in out


def test_play_with_an_option(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, *PLAY, "--option", "a_fail_limit=3", "--quiet")
    assert code == 0
    assert out.startswith("guandan(a_fail_limit=3) match")


def test_play_record_then_replay(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    code, out, _ = run(capsys, *PLAY[:-1], "2", "--record", str(path), "--quiet")
    assert code == 0
    assert f"record written to {path}" in out
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == "guandan" and data["seed"] == 7
    assert data["players"] == ["random", "random", "first", "first"]
    assert len(data["deals"]) == 2
    code, out, err = run(capsys, "replay", str(path))
    assert code == 0 and err == ""
    assert out.strip() == (
        f"{path}: guandan, 2 deals, {sum(len(d['actions']) for d in data['deals'])} actions, "
        "all legal, same results; no match winner"
    )


def test_replay_of_a_tampered_record_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "match.json"
    assert run(capsys, *PLAY, "--record", str(path), "--quiet")[0] == 0
    data = json.loads(path.read_text(encoding="utf-8"))
    data["deals"][0]["actions"][0] = "play BJ BJ BJ"
    path.write_text(json.dumps(data), encoding="utf-8")
    line = fails(capsys, "replay", str(path))
    assert line.startswith("arena: deal 1, action 1: illegal action 'play BJ BJ BJ'")


def test_replay_of_garbage_fails(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "garbage.json"
    path.write_text("not json at all", encoding="utf-8")
    assert "not a JSON record" in fails(capsys, "replay", str(path))


def test_replay_of_a_missing_file_fails(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "nowhere.json"
    line = fails(capsys, "replay", str(path))
    assert "cannot read record" in line and "nowhere.json" in line


def test_unknown_game(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, "play", "mahjong")
    assert line == "arena: unknown game 'mahjong'; known: " + ", ".join(names())


def test_unknown_bot(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, "play", "guandan", "--bots", "random,clever,first,first")
    assert line == f"arena: unknown bot 'clever'; built-in bots: {', '.join(bots.names())}"


@pytest.mark.parametrize("spec", ["random,first", "random,random,random,random,first", "a,,b,c"])
def test_bots_need_four_names(capsys: pytest.CaptureFixture[str], spec: str) -> None:
    line = fails(capsys, "play", "guandan", "--bots", spec)
    assert line == f"arena: --bots needs four comma-separated names, got {spec!r}"


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("a_fail_limit=x", "a_fail_limit"),
        ("a_fail_limit=-1", "a_fail_limit"),
        ("jokers=3", "jokers"),
        ("nonsense", "KEY=VALUE"),
    ],
)
def test_bad_option(capsys: pytest.CaptureFixture[str], option: str, words: str) -> None:
    assert words in fails(capsys, "play", "guandan", "--option", option)


def test_deals_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "play", "guandan", "--deals", "0")
    assert err.splitlines()[-1] == (
        "arena play: error: argument --deals: must be an integer from 1 to 1,000,000, got 0"
    )


# ----------------------------------------------------------------------- rules


def test_classify_prints_every_reading(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["rules", "guandan", "classify", "--level", "2", "3s 3d 4s 4h 2h 2h"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    readings = json.loads(out)["readings"]
    kinds = {r["kind"] for r in readings}
    assert kinds == {"triple_run", "pair_run"}
    assert all(r["size"] == 6 for r in readings)


def test_classify_accepts_10_for_t(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "rules", "guandan", "classify", "10s 10d")
    assert code == 0
    assert json.loads(out) == {"readings": [{"kind": "pair", "rank": "T", "size": 2}]}


@pytest.mark.parametrize(
    ("cards", "reason"),
    [("3s 4d", "pair"), ("3s 3d 4s", "triple"), ("", "no cards")],
)
def test_classify_of_no_combination(
    capsys: pytest.CaptureFixture[str], cards: str, reason: str
) -> None:
    line = fails(capsys, "rules", "guandan", "classify", cards)
    assert line.startswith(f"arena: {cards!r} is no combination: ")
    assert reason in line and line.endswith("(GD-8)")


@pytest.mark.parametrize(
    ("level", "play", "table", "expected"),
    [
        ("5", "5s 5d", "Ah As", True),
        ("5", "Ah As", "5s 5d", False),
        ("2", "3s 3d 3h 3c", "Ah As", True),
        ("2", "3s", "4s", False),
    ],
)
def test_beats(
    capsys: pytest.CaptureFixture[str], level: str, play: str, table: str, expected: bool
) -> None:
    code, out, err = run(capsys, "rules", "guandan", "beats", "--level", level, play, table)
    assert code == 0 and err == ""
    assert json.loads(out) == {"beats": expected}


def test_beats_needs_combinations(capsys: pytest.CaptureFixture[str]) -> None:
    line = fails(capsys, "rules", "guandan", "beats", "3s 4d", "5s")
    assert line.startswith("arena: '3s 4d' is no combination: ")
    line = fails(capsys, "rules", "guandan", "beats", "5s", "6s 7d")
    assert line.startswith("arena: '6s 7d' is no combination: ")


@pytest.mark.parametrize(
    ("argv", "token", "position"),
    [
        (["classify", "3s 4x"], "4x", 2),
        (["classify", "Ah ah"], "ah", 2),
        (["classify", "1s"], "1s", 1),
        (["beats", "5s 5d", "Ah As Ax"], "Ax", 3),
        (["beats", "sj", "3s"], "sj", 1),
    ],
)
def test_malformed_card(
    capsys: pytest.CaptureFixture[str], argv: list[str], token: str, position: int
) -> None:
    line = fails(capsys, "rules", "guandan", *argv)
    assert f"unknown card {token!r} at position {position}" in line


def test_bad_level_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    err = usage_error(capsys, "rules", "guandan", "classify", "--level", "Z", "3s")
    assert "level must be a rank" in err and "'Z'" in err


@pytest.mark.parametrize(
    "argv",
    [[], ["dance"], ["play"], ["rules"], ["rules", "mahjong", "classify", "3s"], ["replay"]],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert "usage: arena" in usage_error(capsys, *argv)


# ----------------------------------------------------------------------- bench


def test_bench_prints_deals_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "bench", "guandan", "--deals", "5")
    assert code == 0
    assert "deals/s" in out
