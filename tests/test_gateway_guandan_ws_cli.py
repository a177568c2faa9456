"""The Guandan WebSocket gateway on the command line: ``arena serve --guandan-ws-port``,
``arena guandan-ws series`` and ``arena bench guandan-ws`` (real servers on 127.0.0.1)."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from guandan_ws_client import PlatformClient, play_websocket
from test_server import OWNER_KEY
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from arena.cli import main
from arena.client.registry import register


def test_bench_guandan_ws_reports_both_phases_and_their_ratios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "guandan-ws", "--matches", "1", "--deals", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    grpc, gateway = report["grpc"], report["gateway"]
    assert grpc["decisions"] == gateway["decisions"] > 0  # the same matches, played alike
    for phase in (grpc, gateway):
        assert phase["decisions_per_second"] == pytest.approx(phase["decisions"] / phase["seconds"])
        assert 0 < phase["p50_ms"] <= phase["p99_ms"]
    ratios = report["ratios"]
    assert ratios["p50"] == pytest.approx(gateway["p50_ms"] / grpc["p50_ms"])
    assert ratios["decisions_per_second"] == pytest.approx(
        gateway["decisions_per_second"] / grpc["decisions_per_second"]
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--guandan-ws-tokens", "pyproject.toml"], "needs --guandan-ws-port"),
        (["guandan-ws", "series", "--seat", "4=random"], "--seat: expected N=BOT"),
        (["guandan-ws", "series", "--seat", "1=random", "--seat", "1=grpc"], "seat twice"),
        (["guandan-ws", "series", "--seat", "1=no-such-bot"], "no-such-bot"),
        (["guandan-ws", "series", "--games", "0"], "--games"),
    ],
)
def test_nonsense_is_refused_in_one_line(
    argv: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["--db", str(tmp_path / "arena.sqlite")]
    try:
        status = main([*argv, *db])
    except SystemExit as refused:  # argparse's refusal of the option
        status = int(refused.code or 0)
    assert status == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]  # after argparse's usage
    assert said in last


def test_a_tokens_file_with_a_bad_line_is_refused_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("client0 t0\nclient1\n")
    argv = ["serve", "--port", "0", "--guandan-ws-port", "0", "--guandan-ws-tokens", str(tokens)]
    assert main([*argv, "--db", str(tmp_path / "a.sqlite")]) == 2
    assert f"{tokens}, line 2: expected 'NAME TOKEN'" in capsys.readouterr().err


def test_the_series_command_plays_two_platform_clients_against_our_bots(tmp_path: Path) -> None:
    """``arena guandan-ws series`` in a process of its own: two platform clients connect
    to the addresses it prints, seats 1 and 3 are built-in bots; it prints each game and
    the result with its interval, and exits 0."""
    db = tmp_path / "series.sqlite"
    argv = [sys.executable, "-m", "arena.cli", "guandan-ws", "series", "--games", "2"]
    argv += ["--deals", "1", "--port", "0", "--seat", "1=random", "--seat", "3=first"]
    argv += ["--db", str(db), "--casual"]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    lines = []
    try:
        for line in process.stdout:
            lines.append(line)
            if "/game/client2" in line:
                break
        found = re.search(r"ws://127\.0\.0\.1:(\d+)/game/client0", "".join(lines))
        assert found is not None, lines
        port = int(found[1])
        clients = [PlatformClient(), PlatformClient()]

        async def both() -> None:
            await asyncio.gather(
                *(
                    play_websocket(f"ws://127.0.0.1:{port}/game/client{n}", clients[n // 2])
                    for n in (0, 2)
                )
            )

        asyncio.run(asyncio.wait_for(both(), 120))
        out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    printed = "".join(lines) + out
    assert "game 1 of 2" in printed and "game 2 of 2" in printed
    assert "client0 and client2 (seats 0, 2) against random and first (seats 1, 3)" in printed
    assert re.search(r"score \d+\.\d% \(95%: ", printed)
    for client in clients:
        assert client.problems == [] and client.game_overs == [(1, 2), (2, 2)]
        assert client.result is not None


def test_serve_with_the_gateway_seats_platform_bots_and_stops_on_sigterm(tmp_path: Path) -> None:
    """``arena serve --guandan-ws-port 0``: the gateway's line names its port, a URL
    without a token is refused (401), a registered bot's token seats it (its SDK bot is
    welcomed and waits for seats), and SIGTERM stops the server and the gateway."""
    keys = tmp_path / "owners"
    keys.write_text(f"ada {OWNER_KEY}\n")
    argv = [sys.executable, "-m", "arena.cli", "serve", "--port", "0", "--guandan-ws-port", "0"]
    argv += ["--db", str(tmp_path / "a.sqlite"), "--owner-keys", str(keys)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        grpc_line, ws_line = process.stdout.readline(), process.stdout.readline()
        grpc_port = int(grpc_line.rsplit(":", 1)[1])
        found = re.search(r"ws://127\.0\.0\.1:(\d+)/game/<name>", ws_line)
        assert found is not None, ws_line
        ws_port = int(found[1])
        token = register(f"127.0.0.1:{grpc_port}", OWNER_KEY, "ws-served").token

        async def visit() -> tuple[int, str]:
            with pytest.raises(InvalidStatus) as refused:
                async with connect(f"ws://127.0.0.1:{ws_port}/game/client0"):
                    pass
            async with connect(f"ws://127.0.0.1:{ws_port}/game/ws-served?token={token}"):
                await asyncio.sleep(0.5)  # seated as a bot: waits for three more
            return refused.value.response.status_code

        status = asyncio.run(asyncio.wait_for(visit(), 60))
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert status == 401
    assert process.returncode == 0, err
    assert "arena server stopped" in out
    assert '"bot": "ws-served"' in err and "bot_connected" in err  # its SDK bot came in


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_series_stopped_by_a_signal_ends_as_every_run_does(
    tmp_path: Path, stop: signal.Signals
) -> None:
    """A stop signal while the series waits for its bots: the server and the gateway
    stop, the command says which signal and exits with 128 + its number."""
    argv = [sys.executable, "-m", "arena.cli", "guandan-ws", "series", "--port", "0"]
    argv += ["--db", str(tmp_path / "s.sqlite")]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        while "/game/client3" not in process.stdout.readline():
            pass
        process.send_signal(stop)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 128 + stop
    assert f"arena: interrupted by {stop.name}" in err
