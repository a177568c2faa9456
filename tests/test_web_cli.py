"""``arena web`` and ``arena serve --web-port``, run as the command runs: a real process on
127.0.0.1 (port 0), asked over HTTP and gRPC, stopped with SIGTERM; its refusals (a
missing or broken store, a taken port, a missing reports folder) are one line on stderr
and exit status 2. And the server's web face in process: started and stopped with it."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from browser import build_played_store
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.server.app import start_server
from arena.store import Store
from arena.web.serving import WebServer, bind

WAIT = 60.0


@pytest.fixture(scope="module")
def played_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_played_store(tmp_path_factory.mktemp("cli") / "played.sqlite").path


def arena(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "error", "ARENA_LOG_FORMAT": "json"},
    )


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    """Processes a test starts; any still running at its end is killed (by pid)."""
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.communicate()


def address_from(process: subprocess.Popen[str], prefix: str) -> str:
    """The address a line of stdout starting with ``prefix`` announces."""
    assert process.stdout is not None
    while line := process.stdout.readline():
        if line.startswith(prefix):
            return line.removeprefix(prefix).strip()
    _, err = process.communicate(timeout=WAIT)
    raise AssertionError(f"no line {prefix!r}; stderr:\n{err}")


def stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=WAIT)
    assert process.returncode == 0, err
    return out, err


def refusal(*args: str) -> str:
    """The one line of stderr of a refused command (exit status 2)."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=WAIT,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr
    return lines[-1]


def test_arena_web_serves_a_store_until_sigterm(
    played_store: Path, processes: list[subprocess.Popen[str]]
) -> None:
    process = arena("web", "--db", str(played_store), "--port", "0")
    processes.append(process)
    url = address_from(process, "web face on ")
    assert url.startswith("http://127.0.0.1:") and url.endswith("/")
    page = httpx.get(url + "leaderboard?variant=guandan&lang=en", timeout=WAIT)
    assert page.status_code == 200 and 'id="leaderboard"' in page.text
    assert httpx.get(url + "healthz", timeout=WAIT).json() == {"status": "ok"}
    out, err = stop(process)
    assert "web face stopped" in out
    assert '"event": "web_request"' in err, "a log line per request"


def test_arena_web_serves_its_request_metrics(
    played_store: Path, processes: list[subprocess.Popen[str]]
) -> None:
    process = arena("web", "--db", str(played_store), "--port", "0", "--metrics-port", "0")
    processes.append(process)
    url = address_from(process, "web face on ")
    assert process.stderr is not None
    while "metrics on " not in (line := process.stderr.readline()):
        assert line, "no metrics line"
    metrics_url = line.split("metrics on ", 1)[1].strip()
    assert httpx.get(url + "bots/heuristic", timeout=WAIT).status_code == 200
    exported = httpx.get(metrics_url, timeout=WAIT).text
    assert (
        'arena_web_requests_total{method="GET",route="/bots/{name}",status="200"} 1.0' in exported
    )
    stop(process)


def test_arena_web_refuses_in_one_line(tmp_path: Path, played_store: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    assert (
        refusal("web", "--db", str(missing))
        == f"arena: no store at {missing}: the file does not exist"
    )
    assert not missing.exists(), "a missing store is not created"
    broken = tmp_path / "broken.sqlite"
    broken.write_text("not a database at all " * 100)
    line = refusal("web", "--db", str(broken))
    assert line.startswith("arena: ") and str(broken) in line
    line = refusal("web", "--db", str(played_store), "--reports", str(tmp_path / "none"))
    assert "--reports" in line and "no such directory" in line
    assert "--port" in refusal("web", "--db", str(played_store), "--port", "70000")


def test_arena_web_refuses_a_store_of_an_older_schema(played_store: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite"
    shutil.copy(played_store, old)
    with sqlite3.connect(old) as conn:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute(f"PRAGMA user_version = {version - 1}")
    line = refusal("web", "--db", str(old))
    assert line.startswith(f"arena: store {old} has schema version {version - 1}, older than")


def test_serve_refuses_reports_without_a_web_face(tmp_path: Path) -> None:
    line = refusal(
        "serve", "--port", "0", "--db", str(tmp_path / "a.sqlite"), "--reports", str(tmp_path)
    )
    assert line == "arena: --reports needs --web-port: the web face lists the reports"


def test_a_taken_port_is_one_line(played_store: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = refusal("web", "--db", str(played_store), "--port", str(port))
    assert line.startswith(f"arena: cannot listen on 127.0.0.1:{port}: "), line


def test_bind_names_the_address() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=re.escape(f"cannot listen on 127.0.0.1:{port}")):
            bind("127.0.0.1", port)
    with pytest.raises(OSError, match=re.escape("cannot listen on no-such-host.invalid:0")):
        bind("no-such-host.invalid", 0)


def test_arena_serve_serves_grpc_and_the_web_face(
    tmp_path: Path, processes: list[subprocess.Popen[str]]
) -> None:
    process = arena("serve", "--port", "0", "--web-port", "0", "--db", str(tmp_path / "a.sqlite"))
    processes.append(process)
    grpc_address = address_from(process, "arena server listening on ")
    url = address_from(process, "web face on ")
    with grpc.insecure_channel(grpc_address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert health.status == health_pb2.HealthCheckResponse.SERVING
    matches = httpx.get(url + "matches?lang=en", timeout=WAIT)
    assert matches.status_code == 200 and 'id="match-filters"' in matches.text
    out, _ = stop(process)
    assert "arena server stopped" in out


def test_the_web_face_starts_and_stops_with_the_server(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, int]:
        with Store.open(tmp_path / "a.sqlite") as store:
            running = await start_server(store, port=0, web_port=0)
            web_port = running.web_port
            assert web_port is not None
            async with httpx.AsyncClient() as client:
                page = await client.get(f"http://127.0.0.1:{web_port}/leaderboard")
            await running.stop(grace=1, drain=1)
            return web_port, page.status_code

    web_port, status = asyncio.run(scenario())
    assert status == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{web_port}/healthz", timeout=5)


def test_a_server_without_a_web_port_has_no_web_face(tmp_path: Path) -> None:
    async def scenario() -> int | None:
        with Store.open(tmp_path / "a.sqlite") as store:
            running = await start_server(store, port=0)
            await running.stop(grace=1, drain=1)
            return running.web_port

    assert asyncio.run(scenario()) is None


def test_a_taken_web_port_stops_the_server_from_starting(tmp_path: Path) -> None:
    async def scenario(port: int) -> None:
        with Store.open(tmp_path / "a.sqlite") as store:
            await start_server(store, port=0, web_port=port)

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(OSError, match=re.escape(f"cannot listen on 127.0.0.1:{port}")):
            asyncio.run(scenario(port))


def test_web_server_start_and_stop(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("hi"))])

    async def scenario() -> tuple[int, str]:
        server = WebServer(app, "127.0.0.1", 0)
        port = await server.start()
        async with httpx.AsyncClient() as client:
            text = (await client.get(f"http://127.0.0.1:{port}/")).text
        await server.stop()
        await server.stop()  # a second stop is harmless
        return port, text

    port, text = asyncio.run(scenario())
    assert port > 0 and text == "hi"
