"""A PostgreSQL cluster of the tests' own: ``postgres_url`` starts one for the session
in a temporary directory (Debian's ``initdb`` and ``pg_ctl``, found under
``/usr/lib/postgresql``; ``.ci/run`` installs them), on a free port of 127.0.0.1, and
stops it at the end; :func:`fresh_database` makes an empty database in it for one test.

``initdb`` refuses to run as root: as root the cluster is run by the ``postgres`` user.
"""

from __future__ import annotations

import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

_NUMBERS = itertools.count(1)


def _binaries() -> Path:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    if not found:
        pytest.fail("no PostgreSQL server here: install Debian's postgresql (.ci/run does)")
    return found[-1].parent


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """The URL of the session's cluster (its ``postgres`` database, user ``arena``)."""
    bin_dir = _binaries()
    home = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    data = home / "data"
    if os.geteuid() == 0:
        shutil.chown(home, "postgres", "postgres")
    run = {"check": True, "capture_output": True, "text": True}
    subprocess.run(
        _as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", "arena", "--auth=trust"]),
        **run,  # type: ignore[call-overload]
    )
    port = _free_port()
    options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off"
    log = home / "server.log"  # the server's output: a pipe would be held open by it
    start = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log), "-o", options, "-w"]
    subprocess.run(_as_owner([*start, "start"]), check=True, stdout=subprocess.DEVNULL, timeout=60)
    try:
        yield f"postgresql://arena@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            _as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            **run,  # type: ignore[call-overload]
        )
        shutil.rmtree(home, ignore_errors=True)


def fresh_database(postgres_url: str) -> str:
    """The URL of a new, empty database in the cluster."""
    name = f"store_{os.getpid()}_{next(_NUMBERS)}"
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return postgres_url.rsplit("/", 1)[0] + "/" + name
