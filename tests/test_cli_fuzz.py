"""The whole command line, fuzzed: every command and option of ``arena``, found by walking
the parser itself, given valid and invalid values (huge numbers, 1e400, nan, negative,
empty, unicode, missing files, directories, binary files, malformed TOML and JSON).

Whatever the arguments, ``arena`` ends with exit status 0 or 2 — never an uncaught
exception — and when it refuses the input, stderr ends with one line that says why
(argparse's usage before it is allowed). Work that would run for long is cut where it
starts, after every argument has been checked: Ray (:class:`Runner` on enter), the
server, the web face, the bot SDK's network calls, the gRPC bench, and any deal after the first few;
a metrics endpoint is served on a free loopback port whatever the arguments ask.
"""

from __future__ import annotations

import argparse
import io
import json
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_definitions import definitions, toml_document

from arena import games
from arena.cli import build_parser, main
from arena.sim.tournament import EXAMPLE

DEALS_BUDGET = 3
"""Deals a fuzzed command may start before it counts as accepted (and is stopped)."""


class WorkStarted(Exception):
    """The command accepted its arguments and began its real work (here cut short)."""


# ------------------------------------------------------------------ the parser's commands


def leaf_commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable command (``('rules', 'guandan', 'beats')`` …) and its parser."""
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subparsers:
        yield path, parser
        return
    for name, child in subparsers[0].choices.items():
        yield from leaf_commands(child, (*path, name))


COMMANDS = dict(leaf_commands(build_parser()))


# ------------------------------------------------------------------ values


SMALL = ["1", "2", "3", "0", "0.5"]
"""Numbers that are valid for most options (and keep the work short)."""
NUMBERS = [
    *SMALL,
    "-1",
    "65535",
    "65536",
    "1e400",
    "-1e400",
    "nan",
    "inf",
    "-inf",
    "1.5",
    "0.05",
    "1e-320",
    "0x10",
    "1_000",
    "9" * 30,
    "9" * 5000,
]
TEXTS = ["", " ", "x", "☃", "é" * 300, "a" * 5000, "-", "--", "\t", "none", "..:X", "a b"]
BOTS = [
    "random",
    "first",
    "heuristic",
    "search:samples=2,candidates=2",
    "search:samples=nan",
    "search:samples=99999999999999999999",
    "search:nope=1",
    "random:",
    "nobody",
    "random,first",
    "random,random,first,first",
    "random,",
    ",",
    "bots.simple:RandomBot",
    "os:getcwd",
    "..:X",
]
OPTIONS = [
    "a_fail_limit=3",
    "a_fail_limit=-1",
    "a_fail_limit=" + "9" * 5000,
    "deals=1",
    "deals=0",
    "deals=1e400",
    "time_limit=nan",
    "time_limit=0.5",
    "constant_twos=true",
    "no_declaration=flip_kitty",
    "x",
    "=1",
    "A=1",
    "x=☃",
]
CARDS = ["3s 3d", "Ks Ks Qs Qs 5s", "8s 8h 8d Js Jc", "BJ RJ", "10s", "3s " * 500, "zz", "S3"]
LEVELS = ["2", "10", "T", "A", "a", "1", "Z"]
HOSTS = ["127.0.0.1", "localhost", "999.0.0.1", "::1", "[::1]"]
SERVERS = ["127.0.0.1:1", "127.0.0.1", "127.0.0.1:99999", ":", "[::1]:0", "host:-1"]


@dataclass(frozen=True)
class Files:
    """Paths of every kind a file argument might get."""

    folder: Path
    definition: Path
    record: Path
    bad_record: Path
    pem: Path
    owner_keys: Path
    empty: Path
    binary: Path
    bad_toml: Path
    bad_json: Path
    deep_json: Path
    deep_toml: Path
    unreadable: Path

    def readers(self) -> list[str]:
        existing = [
            self.definition,
            self.record,
            self.bad_record,
            self.pem,
            self.owner_keys,
            self.empty,
            self.binary,
            self.bad_toml,
            self.bad_json,
            self.deep_json,
            self.deep_toml,
            self.unreadable,
        ]
        return [*map(str, existing), str(self.folder), str(self.folder / "missing.toml")]

    def writers(self) -> list[str]:
        return [
            str(self.folder / "out.json"),
            str(self.folder / "missing" / "out.json"),
            str(self.folder),
            str(self.folder / "existing-output.json"),
        ]


def make_files(folder: Path) -> Files:
    files = Files(
        folder=folder,
        definition=folder / "definition.toml",
        record=folder / "record.json",
        bad_record=folder / "bad-record.json",
        pem=folder / "cert.pem",
        owner_keys=folder / "owners.txt",
        empty=folder / "empty.toml",
        binary=folder / "binary.db",
        bad_toml=folder / "bad.toml",
        bad_json=folder / "bad.json",
        deep_json=folder / "deep.json",
        deep_toml=folder / "deep.toml",
        unreadable=folder / "unreadable.toml",
    )
    files.definition.write_text(EXAMPLE.replace("matches = 10", "matches = 1"))
    with redirect_stdout(io.StringIO()):
        main(["play", "guandan", "--deals", "1", "--quiet", "--record", str(files.record)])
    files.bad_record.write_text(json.dumps({"game": "guandan", "deals": [{"seed": 1e400}]}))
    files.pem.write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    files.owner_keys.write_text("alice ok_0123456789abcdef0123456789abcdef\n")
    files.empty.write_text("")
    (folder / "existing-output.json").write_text("{}")
    files.binary.write_bytes(bytes(range(256)) * 4)
    files.bad_toml.write_text("teams = [[\nseed = 1e400")
    files.bad_json.write_text('{"game": "guandan", "deals": [')
    files.deep_json.write_text("[" * 100_000 + "]" * 100_000)
    files.deep_toml.write_text("teams = " + "[" * 5_000 + "]" * 5_000)
    files.unreadable.write_text("name = 'x'")
    files.unreadable.chmod(0)  # still readable when the tests run as root
    return files


def values_for(action: argparse.Action, files: Files) -> st.SearchStrategy[str]:
    """Values for one argument: plausible ones for its name, and any of the bad ones."""
    dest = action.dest.lower()
    likely: list[str] = []
    if action.choices:
        likely += [str(c) for c in action.choices]
    if dest in ("game", "variant", "balance_items", "bot_game"):
        likely += [*games.names(), "poker", "scale", "grpc", "bots"]
    if "bot" in dest or dest in ("team", "reference", "name"):
        likely += BOTS
    if "option" in dest and "owner" not in dest:
        likely += OPTIONS
    if dest in ("cards", "play", "on_table", "lead", "best", "hand"):
        likely += CARDS
    if dest == "level":
        likely += LEVELS
    if dest == "trump":
        likely += ["s", "h", "none", "red", "black"]
    if "host" in dest:
        likely += HOSTS
    if dest in ("server", "address"):
        likely += [*SERVERS, "auto", "ray://127.0.0.1:1"]
    if dest in ("file", "owner_keys", "tls_cert", "tls_key", "tls_ca", "definition"):
        likely += files.readers()
    if dest == "db":  # files that are not stores, and are never turned into one
        likely += [str(files.binary), str(files.record), str(files.folder)]
    if dest in ("record", "json", "html", "db", "output"):
        likely += files.writers()
    if not likely:
        likely = SMALL
    anything = st.sampled_from(NUMBERS + TEXTS + files.readers() + files.writers())
    return st.integers(0, 3).flatmap(lambda k: anything if k == 0 else st.sampled_from(likely))


@st.composite
def command_lines(draw: st.DrawFn, path: tuple[str, ...], files: Files) -> list[str]:
    """An argument list for one command: its positionals (rarely one left out) and any of
    its options, in any order, each with a drawn value (rarely ``--help``)."""
    parser = COMMANDS[path]
    argv = list(path)
    optionals: list[list[str]] = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:
            if draw(st.integers(0, 19)) > 0:
                argv.append(draw(values_for(action, files)))
            continue
        if draw(st.integers(0, 2)) > 0:
            continue
        flag = draw(st.sampled_from(action.option_strings))
        if action.nargs == 0:
            optionals.append([flag])
            continue
        times = draw(st.integers(1, 3)) if isinstance(action, argparse._AppendAction) else 1
        for _ in range(times):
            optionals.append([flag, draw(values_for(action, files))])
    for flag, *value in draw(st.permutations(optionals)):
        if value and value[0].startswith("-"):
            argv.append(f"{flag}={value[0]}")  # a value that looks like an option
        else:
            argv += [flag, *value]
    if draw(st.integers(0, 29)) == 0:
        argv.append("--help")
    return argv


# ------------------------------------------------------------------ running


@dataclass
class Ran:
    code: int | None
    out: str
    err: str
    started: bool


class Budget:
    """Cuts a command short where its long work starts."""

    def __init__(self) -> None:
        self.deals = 0

    def stop(self, *args: Any, **kwargs: Any) -> Any:
        raise WorkStarted

    def deal(self, original: Any) -> Any:
        def counted(game: Any, *args: Any, **kwargs: Any) -> Any:
            self.deals += 1
            if self.deals > DEALS_BUDGET:
                raise WorkStarted
            return original(game, *args, **kwargs)

        return counted


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Files:
    return make_files(tmp_path_factory.mktemp("fuzz"))


@contextmanager
def work_cut_short() -> Iterator[Budget]:
    """Patches the places where long work starts to raise :class:`WorkStarted`."""
    import arena.client.registry
    import arena.client.runner
    import arena.commands.bench_grpc
    import arena.commands.metrics_endpoint
    import arena.server.app
    import arena.sim.runner
    import arena.web.serving

    budget = Budget()
    serve_metrics = arena.commands.metrics_endpoint.start_metrics_server

    def metrics_on_loopback(port: int, host: str = "127.0.0.1") -> Any:
        return serve_metrics(0, "127.0.0.1")  # whatever was asked: a test binds no real port

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arena.commands.metrics_endpoint, "start_metrics_server", metrics_on_loopback)
        patch.setattr(arena.sim.runner.Runner, "__enter__", budget.stop)
        patch.setattr(arena.server.app, "serve", budget.stop)
        patch.setattr(arena.server.app, "start_server", budget.stop)
        patch.setattr(arena.web.serving.WebServer, "start", budget.stop)
        patch.setattr(arena.commands.bench_grpc, "measure", budget.stop)
        patch.setattr(arena.client.runner, "run_bot", budget.stop)
        patch.setattr(arena.client.registry, "register", budget.stop)
        for name in ("insecure_channel", "secure_channel"):
            patch.setattr(grpc, name, budget.stop)
            patch.setattr(grpc.aio, name, budget.stop)
        for game in {games.make(name).__class__ for name in games.names()}:
            patch.setattr(game, "new_deal", budget.deal(game.new_deal))
        yield budget


@pytest.fixture(scope="module")
def budget() -> Iterator[Budget]:
    with work_cut_short() as budget:
        yield budget


def run(argv: list[str], budget: Budget, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Ran:
    budget.deals = 0
    out, err = io.StringIO(), io.StringIO()
    code: int | None
    started = False
    with monkeypatch.context() as patch:
        patch.chdir(folder)  # a default --db lands in the test's folder
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except WorkStarted:
                code, started = None, True
            except Exception:  # what the test exists to catch: shown in its failure
                code = None
                err.write(traceback.format_exc())
    return Ran(code, out.getvalue(), err.getvalue(), started)


def check(argv: list[str], ran: Ran) -> None:
    """Exit 0 or 2 (or work begun), and a refusal ends in one line that says why."""
    shown = f"arena {' '.join(map(repr, argv))[:2000]}\n--- stderr:\n{ran.err[-3000:]}"
    assert "Traceback" not in ran.err, shown
    if ran.started:
        return
    assert ran.code in (0, 2), f"exit status {ran.code}: {shown}"
    if ran.code == 0:
        return
    lines = [line for line in ran.err.splitlines() if line.strip()]
    assert lines, f"refused without a word: {shown}"
    last = lines[-1]
    assert len(last) <= 500, f"a refusal of {len(last)} characters: {shown}"
    if ": error: " in last:  # argparse: usage, then one line
        assert last.startswith("arena"), shown
        assert all(line.startswith(("usage:", " ")) for line in lines[:-1]), shown
    else:
        assert lines == [last] and last.startswith("arena: "), shown


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_command_line_ends_in_0_or_one_line_and_2(
    path: tuple[str, ...],
    data: st.DataObject,
    files: Files,
    budget: Budget,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = data.draw(command_lines(path, files), label="argv")
    check(argv, run(argv, budget, files.folder, monkeypatch))


# ------------------------------------------------------------------ definition files


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("teams = 5", "teams: "),
        ("teams = [[]]", "teams[0]: "),
        ('bots = ["random", "first"]\nmatches = "x"', "matches: "),
        ('bots = ["random", "first"]\nseed = 1e400', "seed: "),
        ('bots = ["random", "first"]\nseed = ' + "9" * 5000, "not valid TOML"),
    ],
)
def test_a_bad_definition_file_is_one_line_naming_the_field(
    text: str, field: str, files: Files, budget: Budget, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = files.folder / "audit.toml"
    path.write_text(text)
    ran = run(["tournament", str(path)], budget, files.folder, monkeypatch)
    assert (ran.code, ran.err.count("\n")) == (2, 1), ran.err
    assert ran.err.startswith("arena: ") and field in ran.err


def test_a_team_of_one_is_refused_in_one_line(
    files: Files, budget: Budget, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = run(["tournament", "--team", "random"], budget, files.folder, monkeypatch)
    assert ran.code == 2
    assert ran.err.splitlines()[-1] == (
        "arena tournament: error: argument --team: a team is exactly two bots A,B, got 1: 'random'"
    )


def test_a_definition_file_with_defining_options_is_refused_not_overridden(
    files: Files, budget: Budget, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["tournament", str(files.definition), "--matches", "100", "--paired"]
    ran = run(argv, budget, files.folder, monkeypatch)
    assert (ran.code, ran.err) == (
        2,
        "arena: --matches, --paired: give them in the definition file, not with it\n",
    )


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=definitions())
def test_any_definition_file_ends_in_0_or_one_line_and_2(
    data: dict[str, Any], files: Files, budget: Budget, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = files.folder / "generated.toml"
    path.write_text(toml_document(data), encoding="utf-8")
    argv = ["tournament", str(path), "--db", str(files.folder / "generated.sqlite")]
    check(argv, run(argv, budget, files.folder, monkeypatch))
