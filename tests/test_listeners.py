"""One process per address: every listener of every command that listens (gRPC, the web
face, the ``/metrics`` endpoint) refuses a port another process holds, in one line
naming the address, with exit status 2; ``arena serve --reuse-port`` shares the gRPC
port on purpose.

The port is held by a socket with ``SO_REUSEPORT`` set, as gRPC's own listeners set it:
what a second ``arena serve`` met when it started and shared the port of the first. Each
command runs in a real process; without the refusal it would start and serve until the
test's timeout ends it (a failure naming what it printed)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.protocol import ADMIN_TOKEN_ENV
from arena.server.auth import OWNER_KEYS_ENV
from arena.store import Store

TIMEOUT = 60.0
"""Seconds a command gets to refuse; one that starts serving instead runs until then."""


@pytest.fixture
def held() -> Iterator[int]:
    """A port on 127.0.0.1 that another socket listens on, sharing it as gRPC would."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield int(sock.getsockname()[1])


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` in a process of its own, with an owner key and an admin token (so
    that ``serve`` has nothing else to say)."""
    env = {**os.environ, OWNER_KEYS_ENV: "ada s3cret-owner-key", ADMIN_TOKEN_ENV: "adm1n-token"}
    command = [sys.executable, "-m", "arena.cli", *args]
    try:
        return subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired as err:
        said = (err.stdout or b"").decode() + (err.stderr or b"").decode()  # type: ignore[union-attr]
        raise AssertionError(f"{' '.join(args)} did not refuse the port: {said!r}") from None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


LISTENERS = {
    "serve gRPC": lambda p, db: ["serve", "--db", db, "--port", str(p)],
    "serve metrics": lambda p, db: ["serve", "--db", db, "--port", "0", "--metrics-port", str(p)],
    "serve web": lambda p, db: ["serve", "--db", db, "--port", "0", "--web-port", str(p)],
    "web": lambda p, db: ["web", "--db", db, "--port", str(p)],
    "web metrics": lambda p, db: ["web", "--db", db, "--port", "0", "--metrics-port", str(p)],
    "tournament metrics": lambda p, db: [
        "tournament",
        "--db",
        db,
        "--bots",
        "random,first",
        "--metrics-port",
        str(p),
    ],
    "balance metrics": lambda p, db: [
        "balance",
        "--variant",
        "guandan",
        "--db",
        db,
        "--deals",
        "4",
        "--local",
        "--metrics-port",
        str(p),
    ],
}


@pytest.mark.parametrize("listener", sorted(LISTENERS))
def test_a_port_in_use_is_refused_in_one_line(listener: str, held: int, tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    if listener.startswith("web"):
        with Store.open(db):  # a store for the read-only web face
            pass
    done = arena(*LISTENERS[listener](held, db), cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert len(lines) == 1, done.stderr
    assert f"127.0.0.1:{held}" in lines[0] and "in use" in lines[0], lines
    assert "listening" not in done.stdout, done.stdout


def test_reuse_port_shares_the_grpc_port_on_purpose(tmp_path: Path) -> None:
    """Two servers asked to share one port both serve on it."""
    port = free_port()
    env = {**os.environ, OWNER_KEYS_ENV: "ada s3cret-owner-key", ADMIN_TOKEN_ENV: "adm1n-token"}
    started: list[subprocess.Popen[str]] = []
    try:
        for n in range(2):
            db = str(tmp_path / f"{n}.sqlite")
            command = ["serve", "--reuse-port", "--db", db, "--port", str(port)]
            process = subprocess.Popen(
                [sys.executable, "-m", "arena.cli", *command],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            started.append(process)
            assert process.stdout is not None
            line = process.stdout.readline()
            assert line.strip() == f"arena server listening on 127.0.0.1:{port}", (
                line,
                process.stderr.read() if process.poll() is not None and process.stderr else "",
            )
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.communicate(timeout=TIMEOUT)
