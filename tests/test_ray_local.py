"""The local Ray of `arena tournament` (no --address), for real: what it listens on,
what it starts, and how it ends when a supervisor stops it.

Each driver runs in a session of its own with a Ray temp dir of its own
(tests/raykill.py); the listening sockets are read from each process of the session.
"""

from __future__ import annotations

import ipaddress
import signal
from pathlib import Path

import psutil
import pytest
from raykill import (
    Sessions,
    assert_exactly_the_definition,
    busy_worker,
    clean_env,
    definition,
    kill,
    stored_count,
    wait_for,
)

from arena.sim import TournamentConfig
from arena.sim.driver import expected_matches

NOT_STARTED = ("autoscaler/_private/monitor.py", "_private/log_monitor.py")
"""Parts of Ray a local run does not use: the autoscaler's monitor (it also serves
Prometheus metrics) and the log monitor."""


def loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


def listening(pid: int) -> list[tuple[str, int]]:
    """The TCP addresses process ``pid`` listens on (none once it is gone)."""
    try:
        connections = psutil.Process(pid).net_connections("tcp")
    except psutil.NoSuchProcess:
        return []
    return [(c.laddr.ip, c.laddr.port) for c in connections if c.status == psutil.CONN_LISTEN]


def name(cmdline: str) -> str:
    """A process's short name: its program, or the Python script or module it runs."""
    words = cmdline.split()
    program = words[0].rsplit("/", 1)[-1]
    if program.startswith("python") and len(words) > 1:
        script = next((w for w in words[1:] if not w.startswith("-")), words[1])
        return script.rsplit("/", 1)[-1]
    return program


def test_a_local_run_listens_on_loopback_only_and_starts_no_unused_part(
    tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """Every socket that any process of a local run (the driver, Ray's GCS, raylet,
    agents, API server and workers) listens on is bound to 127.0.0.1; Ray's autoscaler
    monitor and log monitor are not started."""
    path = definition(tmp_path, "round_robin")
    db = tmp_path / "t.sqlite"
    driver = sessions.arena(
        ["tournament", str(path), "--db", str(db)], clean_env({"RAY_TMPDIR": str(ray_tmp)})
    )
    wait_for(lambda: busy_worker(driver.pid) is not None, "a worker playing a batch")
    processes = sessions.left(driver.pid)
    sockets = {f"{proc.pid} {name(proc.cmdline)}": listening(proc.pid) for proc in processes}
    listeners = " ".join(key for key, found in sockets.items() if found)
    assert "gcs_server" in listeners and "raylet" in listeners, sockets
    exposed = {key: [a for a in found if not loopback(a[0])] for key, found in sockets.items()}
    assert not any(exposed.values()), exposed
    started = " ".join(proc.cmdline for proc in processes)
    assert not [part for part in NOT_STARTED if part in started]
    assert driver.wait() == 0, sessions.tail(driver)
    assert stored_count(db) == expected_matches(TournamentConfig.load(path))


@pytest.mark.parametrize(
    "stops",
    [
        [(signal.SIGTERM, "driver"), (signal.SIGHUP, "driver"), (signal.SIGINT, "group")],
        [(signal.SIGTERM, "group")],
    ],
    ids=["term-hup-int", "term-to-the-group"],
)
def test_every_stop_signal_ends_the_run_cleanly_and_the_same_command_resumes(
    stops: list[tuple[signal.Signals, str]], tmp_path: Path, ray_tmp: Path, sessions: Sessions
) -> None:
    """SIGTERM (Kubernetes, systemd, docker stop: to the driver, or to its whole group as
    systemd does), SIGHUP (a closed terminal) and SIGINT (Ctrl-C) mid-run: each run exits
    128 + the signal, says how to resume, shows no crash lines of Ray's, and leaves no
    Ray process; running the same command again completes the tournament, each match
    stored once with the ratings of an uninterrupted run."""
    path = definition(tmp_path, "rated", scale=2)
    config = TournamentConfig.load(path)
    db = tmp_path / "t.sqlite"
    args = ["tournament", str(path), "--db", str(db)]
    env = clean_env({"RAY_TMPDIR": str(ray_tmp)})
    for signum, to in stops:
        before = stored_count(db)
        driver = sessions.arena(args, env)
        wait_for(lambda n=before: stored_count(db) > n, "a match stored")
        kill(driver.pid if to == "driver" else -driver.pid, signum)
        assert driver.wait() == 128 + signum, sessions.tail(driver)
        output = sessions.output(driver)
        assert f"interrupted by {signum.name}" in output
        assert "run the same command again to resume" in output
        assert "*** SIGTERM received" not in output and "PC: @" not in output
        wait_for(lambda d=driver.pid: not sessions.left(d), "no Ray process left", timeout=30)
        assert stored_count(db) < expected_matches(config)
    driver = sessions.arena(args, env)
    assert driver.wait() == 0, sessions.tail(driver)
    assert_exactly_the_definition(db, config)
