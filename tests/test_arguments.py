"""The command line's shared argument types: what each accepts, and the one line with
which it refuses the rest."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.commands import arguments
from arena.errors import ConfigError
from arena.inputs import one_line

HUGE = "9" * 5000


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        (arguments.count, "1", 1),
        (arguments.count, "1_000", 1000),
        (arguments.count, "1000000", 1_000_000),
        (arguments.seed, "0", 0),
        (arguments.seed, str(2**63 - 1), 2**63 - 1),
        (arguments.port, "0", 0),
        (arguments.seconds, "0.5", 0.5),
        (arguments.seconds_or_zero, "0", 0.0),
        (arguments.probability, "0.05", 0.05),
        (arguments.elo, "-50", -50.0),
        (arguments.many_deals, "10000000", 10_000_000),
        (arguments.integer_in(1, 4), "4", 4),
        (arguments.host, "::1", "::1"),
        (arguments.host, "arena.example.org", "arena.example.org"),
        (arguments.host_port, "[::1]:50051", "[::1]:50051"),
        (arguments.bot, "search:samples=16,candidates=4", "search:samples=16,candidates=4"),
        (arguments.bot_list, "random, first", ["random", "first"]),
        (arguments.team, "random,first", ("random", "first")),
        (
            arguments.team,
            "search:samples=16,candidates=4,random",
            ("search:samples=16,candidates=4", "random"),
        ),
        (
            arguments.bot_list,
            "random,search:samples=2,first,heuristic",
            ["random", "search:samples=2", "first", "heuristic"],
        ),
        (arguments.bot_class, "bots.simple:RandomBot", "bots.simple:RandomBot"),
        (arguments.bot_name, "my-bot_1.0", "my-bot_1.0"),
        (arguments.game_option, "time_limit=0.5", "time_limit=0.5"),
        (arguments.variant, "shengji-2", "shengji-2"),
    ],
)
def test_good_values_are_taken(kind: Callable[[str], Any], text: str, value: object) -> None:
    assert kind(text) == value


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        (arguments.count, "0", "must be an integer from 1 to 1,000,000, got 0"),
        (arguments.count, "x", "must be an integer from 1 to 1,000,000, got 'x'"),
        (arguments.count, "2.0", "must be an integer from 1 to 1,000,000, got '2.0'"),
        (arguments.count, HUGE, "must be an integer from 1 to 1,000,000, got '99999"),
        (arguments.seed, "-1", "must be an integer from 0 to 9,223,372,036,854,775,807, got -1"),
        (arguments.seed, "1e400", "must be an integer from 0 to"),
        (arguments.port, "65536", "must be an integer from 0 to 65,535, got 65536"),
        (arguments.seconds, "0", "must be a finite number above 0 and at most 604,800, got 0.0"),
        (arguments.seconds, "nan", "must be a finite number above 0 and at most 604,800, got nan"),
        (arguments.seconds, "1e400", "must be a finite number above 0 and at most 604,800"),
        (arguments.seconds_or_zero, "-inf", "must be a finite number from 0 to 604,800, got -inf"),
        (arguments.probability, "0.9", "must be a finite number above 0 and at most 0.5"),
        (arguments.integer_in(1, 4), "5", "must be an integer from 1 to 4, got 5"),
        (arguments.name, "", "must be printable text of 1 to 100 characters"),
        (arguments.name, " padded ", "must be printable text"),
        (arguments.name, "a\x1bb", "must be printable text"),
        (arguments.host, "a" * 64, "must be a host name or an IP address"),
        (arguments.host, "☃", "must be a host name or an IP address, got '☃'"),
        (arguments.host_port, "::1:5", "must be HOST:PORT with a port from 1 to 65535"),
        (arguments.host_port, "host:0", "must be HOST:PORT with a port from 1 to 65535"),
        (arguments.bot, "ra ndom", "must be a bot name of 1 to 40 letters"),
        (arguments.bot_list, "random,,first", "must be comma-separated bot names"),
        (arguments.team, "random", "a team is exactly two bots A,B, got 1: 'random'"),
        (arguments.bot_class, "..:X", "must be MODULE:CLASS"),
        (arguments.bot_name, "search:samples=2", "must be 1 to 40 letters"),
        (arguments.game_option, "x", "option 'x' is not KEY=VALUE"),
        (arguments.game_option, "A=1", "option name: must be 1 to 40 lower-case letters"),
        (arguments.game_option, "deals=nan", "option deals: must be a finite number"),
        (arguments.game_option, "deals=" + "9" * 30, "option deals: must be an integer from"),
        (arguments.variant, "poker", "unknown variant 'poker'"),
    ],
)
def test_bad_values_are_one_line_saying_what_is_wanted(
    kind: Callable[[str], Any], text: str, message: str
) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as refused:
        kind(text)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert len(str(refused.value)) < 300


def test_game_options_are_typed_and_each_given_once() -> None:
    options = arguments.game_options(["a_fail_limit=3", "time_limit=0.5", "match_end=reach_a"])
    assert options == {"a_fail_limit": 3, "time_limit": 0.5, "match_end": "reach_a"}
    assert arguments.game_options(["constant_twos=true"]) == {"constant_twos": "true"}
    with pytest.raises(ConfigError, match="option deals given twice"):
        arguments.game_options(["deals=1", "deals=2"])


def test_paths_must_be_what_the_command_does_with_them(tmp_path: Path) -> None:
    present = tmp_path / "present.toml"
    present.write_text("x = 1")
    pem = tmp_path / "cert.pem"
    pem.write_text("-----BEGIN CERTIFICATE-----\nAA\n-----END CERTIFICATE-----\n")
    cases: list[tuple[Callable[[str], str], Path | str, str | None]] = [
        (arguments.readable_file, present, None),
        (arguments.readable_file, tmp_path / "missing", "no such file"),
        (arguments.readable_file, tmp_path, "not a regular file"),
        (arguments.readable_file, "x" * 300, "File name too long"),
        (arguments.pem_file, pem, None),
        (arguments.pem_file, present, "not a PEM file"),
        (arguments.output_file, tmp_path / "new.json", None),
        (arguments.output_file, tmp_path, "is a directory, not a file"),
        (arguments.output_file, tmp_path / "missing" / "new.json", "no such directory"),
        (arguments.database, tmp_path / "arena.sqlite", None),
        (arguments.database, tmp_path, "is a directory, not a store"),
        (arguments.database, "", "not a file path"),
    ]
    for kind, path, message in cases:
        if message is None:
            assert kind(str(path)) == str(path)
            continue
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            kind(str(path))
    assert arguments.existing_directory(str(tmp_path)) == tmp_path
    for text, message in ((str(present), "no such directory"), ("x" * 300, "File name too long")):
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            arguments.existing_directory(text)


def test_the_parser_refuses_a_lone_double_dash_as_a_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = arguments.ArenaParser(prog="arena")
    parser.add_argument("--trump", type=str.lower)
    assert parser.parse_args(["--trump", "S"]).trump == "s"
    with pytest.raises(SystemExit) as refused:
        parser.parse_args(["--trump=--"])
    assert refused.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "arena: error: argument --trump: expected one value, got '--'"
    )


def test_tokens_and_keys_are_visible_ascii_and_never_quoted_back(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert arguments.secret("tok_AbC-123") == "tok_AbC-123"
    for bad in ("", "two words", "snow☃", "x" * 513):
        with pytest.raises(argparse.ArgumentTypeError) as refused:
            arguments.secret(bad)
        assert f"(got {len(bad)} characters)" in str(refused.value)
        assert not bad or bad[:5] not in str(refused.value)
    monkeypatch.setenv("ARENA_BOT_TOKEN", "secret with spaces")
    assert main(["bot", "run", "bots.simple:RandomBot"]) == 2
    assert capsys.readouterr().err == (
        "arena: $ARENA_BOT_TOKEN: a token or key is 1 to 512 visible ASCII characters "
        "without spaces (got 18 characters)\n"
    )


def test_a_refusal_is_one_line_of_sane_length() -> None:
    assert one_line("unknown card 'x'\n  at position 1") == "unknown card 'x' at position 1"
    cut = one_line("unknown card '" + "9" * 5000 + "' at position 1: a card is a rank")
    assert len(cut) <= 400 and cut.startswith("unknown card '999") and " … " in cut
    assert cut.endswith("' at position 1: a card is a rank")
