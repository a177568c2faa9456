"""Joining a real two-node Ray cluster on 127.0.0.1 with token authentication on
(`ray start --head` and a second `ray start`, one CPU each, in sessions of their
own and stopped by killing exactly their processes): a driver without the token
is refused in one line; with it the tournament runs, and losing the worker node
mid-tournament still ends with each defined match stored exactly once, in an SQLite file
as in a PostgreSQL database.
"""

from __future__ import annotations

import secrets
import socket
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from raykill import (
    Sessions,
    assert_exactly_the_definition,
    busy_worker,
    clean_env,
    definition,
    kill,
    new_store,
    raylet,
    session_processes,
    stored_count,
    wait_for,
)

from arena.sim import TournamentConfig
from arena.sim.driver import expected_matches

RAY = str(Path(sys.executable).with_name("ray"))


@dataclass(frozen=True)
class Cluster:
    address: str
    token: str
    head: int
    """The session of the head node's processes."""
    worker: int
    """The session of the worker node's processes."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def cluster(sessions: Sessions) -> Iterator[Cluster]:
    with tempfile.TemporaryDirectory(prefix="arena-cluster-", dir="/tmp") as temp:
        token = secrets.token_hex(16)
        env = clean_env({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": token, "RAY_TMPDIR": temp})
        port = free_port()
        common = ["--node-ip-address", "127.0.0.1", "--num-cpus", "1", "--disable-usage-stats"]
        head = sessions.start(
            [RAY, "start", "--head", "--port", str(port), "--include-dashboard", "false", *common],
            env,
        )
        assert head.wait() == 0, sessions.tail(head)
        worker = sessions.start([RAY, "start", "--address", f"127.0.0.1:{port}", *common], env)
        assert worker.wait() == 0, sessions.tail(worker)
        yield Cluster(f"127.0.0.1:{port}", token, head.pid, worker.pid)
        sessions.close()  # the two nodes: exactly their processes, not every Ray here


def test_a_driver_without_the_clusters_token_is_refused_in_one_line(
    cluster: Cluster, tmp_path: Path, sessions: Sessions
) -> None:
    args = ["tournament", "--bots", "random,first", "--matches", "1", "--deals", "1"]
    env = clean_env({"HOME": str(tmp_path)})  # no token file either
    driver = sessions.arena([*args, "--db", str(tmp_path / "t.sqlite"), "--address",
                             cluster.address], env)  # fmt: skip
    assert driver.wait() == 2
    output = sessions.output(driver)
    assert "Traceback" not in output
    [line] = [line for line in output.splitlines() if line.startswith("arena: ")]
    assert f"cannot join the Ray cluster at {cluster.address}" in line
    assert "RAY_AUTH_MODE=token" in line and "RAY_AUTH_TOKEN" in line


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_the_worker_node_killed_mid_tournament_still_stores_the_definition_once(
    backend: str,
    cluster: Cluster,
    tmp_path: Path,
    sessions: Sessions,
    request: pytest.FixtureRequest,
) -> None:
    path = definition(tmp_path, "paired")
    config = TournamentConfig.load(path)
    db = new_store(backend, tmp_path, request)
    args = ["tournament", str(path), "--db", db, "--batch", "1", "--address", cluster.address]
    env = clean_env({"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": cluster.token})
    driver = sessions.arena(args, env)
    wait_for(lambda: busy_worker(cluster.worker) is not None, "a batch on the worker node")
    assert raylet(cluster.worker) is not None
    for proc in session_processes(cluster.worker):  # the machine dies: all its processes
        kill(proc.pid)
    outcome = driver.wait()
    if outcome != 0:  # the driver's own node: one line, and what was stored is kept
        [line] = [x for x in sessions.output(driver).splitlines() if x.startswith("arena: ")]
        assert "run the same command again to resume" in line
        assert stored_count(db) < expected_matches(config)
        driver = sessions.arena(args, env)
        assert driver.wait() == 0, sessions.tail(driver)
    assert_exactly_the_definition(db, config)
