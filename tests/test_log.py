"""Logging: JSON lines or console output, level from the environment, stdlib logging
routed through structlog, context bound; events captured with structlog's helpers."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from structlog.testing import capture_logs

from arena.errors import ConfigError
from arena.log import configure, get_logger
from arena.sim import Runner, plan
from arena.sim.tournament import TournamentConfig


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    structlog.reset_defaults()


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_json_lines_carry_the_bound_context() -> None:
    out = io.StringIO()
    configure(stream=out, environ={})  # not a terminal: JSON
    log = get_logger("arena.test", match_id="m1", variant="guandan")
    log.info("match_finished", deals=3, seat=2, bot="random")
    log.debug("not shown at info")
    [line] = out.getvalue().splitlines()
    event = json.loads(line)
    assert event["event"] == "match_finished"
    assert event["level"] == "info"
    assert event["logger"] == "arena.test"
    assert {k: event[k] for k in ("match_id", "variant", "deals", "seat", "bot")} == {
        "match_id": "m1",
        "variant": "guandan",
        "deals": 3,
        "seat": 2,
        "bot": "random",
    }
    assert event["timestamp"].endswith("Z")


def test_stdlib_loggers_are_rendered_the_same_way() -> None:
    out = io.StringIO()
    configure(stream=out, environ={"ARENA_LOG_FORMAT": "json"})
    logging.getLogger("arena.server.play").warning("match %s failed", "m9")
    event = json.loads(out.getvalue())
    assert event == event | {
        "event": "match m9 failed",
        "level": "warning",
        "logger": "arena.server.play",
    }


def test_a_terminal_gets_the_console_rendering_and_the_level_comes_from_the_environment() -> None:
    out = Tty()
    configure(stream=out, environ={"ARENA_LOG_LEVEL": "debug"})
    get_logger("arena.test", request_id="r-7").debug("seat_changed", seat=1)
    text = out.getvalue()
    assert "seat_changed" in text and "request_id" in text and "r-7" in text
    assert not text.lstrip().startswith("{")


def test_errors_are_json_tracebacks_without_local_variables() -> None:
    out = io.StringIO()
    configure(stream=out, fmt="json", environ={})
    secret = "s3cret-token"
    try:
        raise RuntimeError("stream broke")
    except RuntimeError:
        get_logger("arena.test").exception("match_failed", token_id="t1")
    event = json.loads(out.getvalue())
    assert event["exception"][0]["exc_type"] == "RuntimeError"
    assert secret not in out.getvalue()


def test_bad_settings_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match="ARENA_LOG_LEVEL must be"):
        configure(environ={"ARENA_LOG_LEVEL": "loud"})
    with pytest.raises(ConfigError, match="ARENA_LOG_FORMAT must be json or console"):
        configure(environ={"ARENA_LOG_FORMAT": "xml"})


def test_matches_are_logged_at_start_and_end_once() -> None:
    config = TournamentConfig.from_mapping(
        {"name": "logs", "bots": ["random", "first"], "matches": 2, "deals": 1}
    )
    from arena.sim.worker import play_jobs

    with capture_logs() as logs:
        play_jobs(plan(config))
    started = [e for e in logs if e["event"] == "match_started"]
    finished = [e for e in logs if e["event"] == "match_finished"]
    assert sorted(e["match_id"] for e in started) == sorted(j.id for j in plan(config))
    assert [e["match_id"] for e in finished] == [e["match_id"] for e in started]
    assert all(e["log_level"] == "debug" and e["variant"] == "guandan" for e in finished)


@pytest.mark.usefixtures("ray_session")
def test_the_runner_logs_its_start_and_shutdown() -> None:
    with capture_logs() as logs, Runner():
        pass
    events = [(e["event"], e["log_level"]) for e in logs]
    assert ("ray_connected", "info") in events


def test_in_a_terminal_a_command_for_people_shows_warnings_but_not_info_events() -> None:
    out = Tty()
    configure(stream=out, environ={}, terminal_level="warning")
    log = get_logger("arena.test")
    log.info("tournament_started", matches=4)
    log.warning("task_retried", attempt=2)
    text = out.getvalue()
    assert "tournament_started" not in text and "task_retried" in text
    asked = Tty()
    configure(stream=asked, environ={"ARENA_LOG_LEVEL": "info"}, terminal_level="warning")
    get_logger("arena.test").info("tournament_started", matches=4)
    assert "tournament_started" in asked.getvalue()
    piped = io.StringIO()
    configure(stream=piped, environ={}, terminal_level="warning")  # not a terminal
    get_logger("arena.test").info("tournament_started", matches=4)
    assert json.loads(piped.getvalue())["event"] == "tournament_started"


def run_balance_with_stderr(
    stderr: io.StringIO, monkeypatch: pytest.MonkeyPatch, folder: Path
) -> str:
    """``arena balance`` (a progress bar, and an info event for its metrics endpoint)
    with ``stderr`` as the standard error."""
    from arena.cli import main

    monkeypatch.setattr("sys.stderr", stderr)
    folder.mkdir()
    monkeypatch.chdir(folder)  # the run is stored in the default store, here
    monkeypatch.delenv("ARENA_LOG_LEVEL", raising=False)
    monkeypatch.delenv("ARENA_LOG_FORMAT", raising=False)
    argv = ["balance", "--local", "--deals", "2", "--variant", "guandan", "--metrics-port", "0"]
    assert main(argv) == 0
    return stderr.getvalue()


def test_the_command_line_keeps_info_events_out_of_a_terminal_but_not_out_of_a_pipe(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    terminal = run_balance_with_stderr(Tty(), monkeypatch, tmp_path / "terminal")
    assert "balance" in terminal or "guandan" in terminal  # the progress bar was drawn
    assert "metrics_serving" not in terminal
    piped = run_balance_with_stderr(io.StringIO(), monkeypatch, tmp_path / "piped")
    events = [json.loads(line)["event"] for line in piped.splitlines() if line.startswith("{")]
    assert "metrics_serving" in events
    capsys.readouterr()


def test_serve_logs_info_events_in_a_terminal_too() -> None:
    from arena.cli import build_parser

    assert build_parser().parse_args(["serve"]).terminal_log_level is None
    assert not hasattr(build_parser().parse_args(["matches"]), "terminal_log_level")


def test_a_log_line_during_a_progress_bar_is_printed_above_it_not_into_it() -> None:
    from rich.console import Console

    from arena.commands.progress import progress_bar

    screen = io.StringIO()
    configure(fmt="console", level="info", environ={})  # follows sys.stderr
    with progress_bar(Console(file=screen, force_terminal=True, width=100)) as progress:
        task = progress.add_task("matches", total=2, rate="")
        progress.advance(task)
        progress.refresh()
        get_logger("arena.test").warning("task_retried", attempt=2)
        progress.advance(task)
    lines = [line for chunk in screen.getvalue().split("\n") for line in chunk.split("\r")]
    logged = [line for line in lines if "task_retried" in line]
    assert len(logged) == 1
    assert "matches" not in logged[0] and "━" not in logged[0]  # a line of its own
    assert any("2/2" in line for line in lines[lines.index(logged[0]) :])  # the bar below it
